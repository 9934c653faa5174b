// detail::PoolCore: the free list, statistics and block lifetime behind FixedPool and FrameRing.
// acquire and return are O(1): pop/push an index under a spinlock (ThreadSafe) or no lock
// (SingleThread), plus one atomic reference count change; no backend call, no allocation.
#include "pool/pool_core.hpp"
#include <edgemem/queue.hpp>

#include <new>
#include <thread>

#include "core/nodes.hpp"
#include "pool/deadline.hpp"

namespace edgemem::detail {

void SpinLock::lock_contended() noexcept {
  for (unsigned spins = 0;; ++spins) {
    while (held.load(std::memory_order_relaxed)) {
      if (++spins > 64) {
        std::this_thread::yield();
        spins = 0;
      }
    }
    if (!held.exchange(true, std::memory_order_acquire)) return;
  }
}

template <class Threads>
PoolCore<Threads>::~PoolCore() {
  if (count_ == 0) return;
  drain_returned();
  if (free_.out() != 0) {  // blocks still out: detach them so none can return to this dead pool
    for (std::size_t i = 0; i < count_; ++i) orphan(detail::node_of(blocks()[i]), nullptr);
  }
  teardown();
}

template <class Threads>
void PoolCore<Threads>::teardown() noexcept {
  for (std::size_t i = 0; i < count_; ++i) blocks()[i].~Buffer();
  if (arrays_from_allocator_) {
    DefaultAllocator::deallocate(blocks_storage_, count_ * sizeof(Buffer), alignof(Buffer));
    DefaultAllocator::deallocate(free_.links(), count_ * sizeof(std::uint32_t), alignof(std::uint32_t));
    blocks_storage_ = nullptr;
    arrays_from_allocator_ = false;
  }
  count_ = block_bytes_ = high_water_ = failed_ = 0;
  free_ = IndexFreeList{};
  returned_.store(IndexFreeList::none, std::memory_order_relaxed);
}

Result<void> check_given_buffers(const Context& ctx, const Buffer* buffers, std::size_t count,
                                 std::size_t block_bytes) noexcept {
  for (std::size_t i = 0; i < count; ++i) {
    const MemNode* n = detail::node_of(buffers[i]);
    if (n == nullptr) return fail(Errc::released, "a buffer to pool is released");
    if (n->ctx != detail::node_of(ctx)) return fail(Errc::invalid_argument, "a buffer to pool belongs to another context");
    if (n->bytes != block_bytes) return fail(Errc::invalid_argument, "the buffers to pool differ in size");
    for (std::size_t j = 0; j < i; ++j) {  // two blocks over one byte would be handed out as two
      const MemNode* m = detail::node_of(buffers[j]);
      if (m->root == n->root && m->origin < n->origin + block_bytes && n->origin < m->origin + block_bytes)
        return fail(Errc::invalid_argument, "two buffers to pool share bytes");
    }
  }
  return {};
}

template <class Threads>
Result<void> PoolCore<Threads>::init(const Context& ctx, Queue& q, std::size_t block_bytes, std::size_t count,
                                  Storage storage, MemFlags flags, const BlockSource& source) noexcept {
  if (!ctx.valid()) return fail(Errc::released, "context is released");
  if (!q.valid()) return fail(Errc::released, "queue is released");
  if (count_ != 0) return fail(Errc::invalid_argument, "pool is already initialised");
  if (detail::node_of(q)->ctx != detail::node_of(ctx)) return fail(Errc::invalid_argument, "queue belongs to another context");
  if (block_bytes == 0 || count == 0) return fail(Errc::invalid_argument, "block size or count is zero");
  if (inline_capacity_ != 0 && count > inline_capacity_)
    return fail(Errc::out_of_range, "count exceeds the pool's compile-time capacity");
  if (count >= IndexFreeList::taken) return fail(Errc::out_of_range, "count does not fit the pool's 32-bit indices");
  const std::size_t align = ctx.base_align();
  std::size_t stride = block_bytes;
  if (source.buffers == nullptr) {
    if (block_bytes > SIZE_MAX - (align - 1)) return fail(Errc::out_of_range, "block size overflows");
    stride = (block_bytes + align - 1) / align * align;
    if (stride > SIZE_MAX / count) return fail(Errc::out_of_range, "pool size overflows");
    if (stride * count > ctx.info().max_alloc_bytes)
      return fail(Errc::out_of_range, "pool size exceeds the device's max allocation");
  } else {
    EDGEMEM_TRY(source.check(ctx, source.buffers, count, block_bytes));
  }

  const bool from_allocator = inline_capacity_ == 0;
  void* block_mem = blocks_storage_;
  std::uint32_t* links = inline_links_;
  if (from_allocator) {
    block_mem = DefaultAllocator::allocate(count * sizeof(Buffer), alignof(Buffer));
    links = static_cast<std::uint32_t*>(DefaultAllocator::allocate(count * sizeof(std::uint32_t),
                                                                   alignof(std::uint32_t)));
    if (block_mem == nullptr || links == nullptr) {
      DefaultAllocator::deallocate(block_mem, count * sizeof(Buffer), alignof(Buffer));
      DefaultAllocator::deallocate(links, count * sizeof(std::uint32_t), alignof(std::uint32_t));
      return fail(Errc::out_of_host_memory, "allocator could not provide the pool's bookkeeping");
    }
  }
  Buffer* blocks = static_cast<Buffer*>(block_mem);
  std::size_t made = 0;
  auto undo = [&](const Error& e) -> Failure {
    for (std::size_t i = 0; i < made; ++i) blocks[i].~Buffer();
    if (from_allocator) {
      DefaultAllocator::deallocate(block_mem, count * sizeof(Buffer), alignof(Buffer));
      DefaultAllocator::deallocate(links, count * sizeof(std::uint32_t), alignof(std::uint32_t));
    }
    return fail(e);
  };

  Buffer parent;
  if (source.buffers == nullptr) {
    auto made_parent = source.make(ctx, q, stride * count, storage, flags, source.grain);  // zero-filled
    if (!made_parent) return undo(made_parent.error());
    parent = std::move(*made_parent);
  }
  take_back = &PoolCore::take_back_block;
  for (; made < count; ++made) {
    auto b = source.buffers != nullptr ? source.buffers[made].sub(0, stride) : parent.sub(made * stride, stride);
    if (!b) return undo(b.error());
    MemNode* n = detail::node_of(*b);
    // Blocks keep a native sub-object from here on, so kernels get block.native() at no cost per frame,
    // and their mapping slots, so a block mapped per frame allocates nothing.
    if (!b->is_svm()) {  // (SVM has no buffer object: its blocks are addresses, Buffer::svm_pointer())
      if (auto native = detail::native_of(n); !native) return undo(native.error());
    }
    n->maps = make_node<MapSlots>();
    if (n->maps == nullptr) return undo(Error{Errc::out_of_host_memory, 0, "no memory for a block's mapping slots"});
    n->ownership = NodeOwnership::pool_block;
    n->owner.store(this, std::memory_order_relaxed);  // published with count_
    n->owner_slot = static_cast<std::uint32_t>(made);
    new (&blocks[made]) Buffer(std::move(*b));
  }
  blocks_storage_ = block_mem;
  free_.reset(links, count);
  arrays_from_allocator_ = from_allocator;
  block_bytes_ = stride;
  high_water_ = failed_ = 0;
  std::lock_guard<Lock> publish(lock_);  // release the initialised state to other threads
  count_ = count;
  return {};
}

template <class Threads>
bool PoolCore<Threads>::pop(std::uint32_t& slot, bool count_failure) noexcept {
  std::lock_guard<Lock> lock(lock_);
  if (pop_locked(slot)) return true;
  if (count_failure && count_ != 0) ++failed_;
  return false;
}

template <class Threads>
bool PoolCore<Threads>::pop_locked(std::uint32_t& slot) noexcept {
  drain_returned();
  if (!free_.take(slot)) return false;
  if (free_.out() > high_water_) high_water_ = free_.out();
  return true;
}

template <class Threads>
Result<PooledBuffer> PoolCore<Threads>::take(bool count_failure) noexcept {
  if (count_ == 0) return fail(Errc::released, "pool is not initialised");
  std::uint32_t slot = 0;
  if (!pop(slot, count_failure)) return fail(Errc::exhausted, "every block of the pool is out");
  MemNode* n = detail::node_of(blocks()[slot]);
  // A block on the free list has one reference, the pool's: it went back when its count fell to one
  // (unref), and nothing else names it until it is handed out (popped under the pool's lock, which
  // orders this after that return). So the caller's reference needs no read-modify-write.
  n->refs.store(2, std::memory_order_relaxed);
  return PooledBuffer(HandleAccess::buffer(n), slot);
}

template <class Threads>
Result<PooledBuffer> PoolCore<Threads>::acquire() noexcept {
  return take(true);
}

template <class Threads>
Result<PooledBuffer> PoolCore<Threads>::try_acquire() noexcept {
  return take(false);
}

template <class Threads>
void PoolCore<Threads>::count_failed() noexcept {
  std::lock_guard<Lock> lock(lock_);
  if (count_ != 0) ++failed_;
}

template <class Threads>
Result<PooledBuffer> PoolCore<Threads>::acquire_for(std::chrono::nanoseconds timeout) noexcept {
  if constexpr (!Threads::concurrent) {
    (void)timeout;
    return acquire();
  } else {
    if (count_ == 0) return fail(Errc::released, "pool is not initialised");
    const Deadline deadline = deadline_after(timeout);  // saturated: a huge timeout waits forever
    std::uint32_t slot = 0;
    bool got = false;
    {
      std::unique_lock<std::mutex> wait(waiters_.mutex);
      waiters_.count.fetch_add(1, std::memory_order_seq_cst);
      for (;;) {
        {
          std::lock_guard<Lock> lock(lock_);
          got = pop_locked(slot);
        }
        if (got || !wait_until(waiters_.cv, wait, deadline)) break;
      }
      if (!got) {  // one last look after the timeout, then count the failure once
        std::lock_guard<Lock> lock(lock_);
        got = pop_locked(slot);
        if (!got) ++failed_;
      }
      waiters_.count.fetch_sub(1, std::memory_order_seq_cst);
    }
    if (!got) return fail(Errc::exhausted, "no block came back before the timeout");
    MemNode* n = detail::node_of(blocks()[slot]);
    n->refs.store(2, std::memory_order_relaxed);  // the pool's and the caller's (as in take())
    return PooledBuffer(HandleAccess::buffer(n), slot);
  }
}

template <class Threads>
void PoolCore<Threads>::drain_returned() const noexcept {
  if constexpr (!Threads::concurrent) {
    if (returned_.load(std::memory_order_relaxed) == IndexFreeList::none) return;
    std::uint32_t slot = returned_.exchange(IndexFreeList::none, std::memory_order_acquire);
    std::uint32_t* links = free_.links();
    // Oldest return first, so the free list ends as if each block had come back when its handle went
    // (the last one returned is handed out first, as with ThreadSafe).
    std::uint32_t oldest_first = IndexFreeList::none;
    while (slot != IndexFreeList::none) {
      const std::uint32_t next = links[slot];
      links[slot] = oldest_first;
      oldest_first = slot;
      slot = next;
    }
    while (oldest_first != IndexFreeList::none) {
      const std::uint32_t next = links[oldest_first];
      free_.give_back(oldest_first);
      oldest_first = next;
    }
  }
}

template <class Threads>
void PoolCore<Threads>::take_back_block(NodeOwner* self, MemNode* node) noexcept {
  auto* pool = static_cast<PoolCore*>(self);
  const std::uint32_t slot = node->owner_slot;
  if constexpr (!Threads::concurrent) {
    // Whichever thread dropped the last handle: a push onto returned_, never the free list itself,
    // which only the pool's thread touches. The slot is out, so its link is this thread's to write.
    std::uint32_t* links = pool->free_.links();
    std::uint32_t head = pool->returned_.load(std::memory_order_relaxed);
    do {
      links[slot] = head;
    } while (!pool->returned_.compare_exchange_weak(head, slot, std::memory_order_release, std::memory_order_relaxed));
    return;
  }
  {
    std::lock_guard<Lock> lock(pool->lock_);
    pool->free_.give_back(slot);
  }
  if constexpr (Threads::concurrent) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (pool->waiters_.count.load(std::memory_order_seq_cst) != 0) {
      std::lock_guard<std::mutex> wait(pool->waiters_.mutex);
      pool->waiters_.cv.notify_one();
    }
  }
}

template <class Threads>
PoolStats PoolCore<Threads>::stats() const noexcept {
  std::lock_guard<Lock> lock(lock_);
  drain_returned();
  return PoolStats{count_, block_bytes_, free_.out(), high_water_, failed_};
}

template <class Threads>
bool PoolCore<Threads>::owns(const PooledBuffer& b) const noexcept {
  const MemNode* n = detail::node_of(b.buffer());
  return n != nullptr && count_ != 0 && n->owner.load(std::memory_order_relaxed) == this && n->ownership == NodeOwnership::pool_block;
}

template <class Threads>
Result<void> PoolCore<Threads>::release() noexcept {
  if (count_ == 0) return {};
  {
    std::lock_guard<Lock> lock(lock_);
    drain_returned();
    if (free_.out() != 0) return fail(Errc::busy, "blocks of the pool are still out");
  }
  teardown();
  return {};
}

template class PoolCore<SingleThread>;
template class PoolCore<ThreadSafe>;

}  // namespace edgemem::detail
