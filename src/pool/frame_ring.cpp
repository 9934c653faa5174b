// detail::RingCore: the FIFO of published frames behind FrameRing, under one mutex; frames come
// from and go back to a PoolCore<ThreadSafe>. No heap, no backend call.
#include "pool/ring_core.hpp"

#include "core/nodes.hpp"
#include "pool/deadline.hpp"

namespace edgemem::detail {

Result<void> RingCore::init(const Context& ctx, Queue& q, std::size_t frame_bytes, Overflow policy, Storage storage,
                            MemFlags flags, const BlockSource& source) noexcept {
  if (policy != Overflow::refuse && policy != Overflow::drop_oldest)
    return fail(Errc::invalid_argument, "unknown overflow policy");
  EDGEMEM_TRY(pool_.init(ctx, q, frame_bytes, capacity_, storage, flags, source));
  std::lock_guard<std::mutex> lock(lock_);
  policy_ = policy;
  head_ = size_ = 0;
  published_ = taken_ = dropped_ = refused_ = 0;
  return {};
}

PooledBuffer RingCore::pop_locked() noexcept {
  PooledBuffer out = std::move(fifo_[head_]);
  head_ = (head_ + 1) % capacity_;
  --size_;
  return out;
}

Result<PooledBuffer> RingCore::acquire() noexcept {
  auto frame = pool_.try_acquire();  // an empty pool is a failure only when no frame can be dropped
  if (frame || frame.error().code != Errc::exhausted) return frame;
  {
    std::lock_guard<std::mutex> lock(lock_);
    if (policy_ == Overflow::drop_oldest && size_ != 0) {
      ++dropped_;
      return pop_locked();
    }
    ++refused_;
  }
  pool_.count_failed();
  return fail(Errc::exhausted, "no free frame: the consumer is behind");
}

Result<void> RingCore::publish(PooledBuffer&& frame) noexcept {
  if (!pool_.initialised()) return fail(Errc::released, "ring is not initialised");
  MemNode* n = detail::node_of(frame.buffer());
  if (n == nullptr) return fail(Errc::released, "frame is empty");
  if (!pool_.owns(frame)) return fail(Errc::invalid_argument, "frame does not belong to this ring");
  {
    std::lock_guard<detail::Lock> map_lock(n->root->map_lock);
    if (detail::open_mappings(n) != 0) return fail(Errc::busy, "frame is still mapped; unmap before publishing");
  }
  {
    std::lock_guard<std::mutex> lock(lock_);
    fifo_[(head_ + size_) % capacity_] = std::move(frame);  // size_ < capacity_: a ring has K frames
    ++size_;
    ++published_;
  }
  ready_.notify_one();
  return {};
}

Result<PooledBuffer> RingCore::take() noexcept {
  if (!pool_.initialised()) return fail(Errc::released, "ring is not initialised");
  std::lock_guard<std::mutex> lock(lock_);
  if (size_ == 0) return fail(Errc::exhausted, "no published frame");
  ++taken_;
  return pop_locked();
}

Result<PooledBuffer> RingCore::take_for(std::chrono::nanoseconds timeout) noexcept {
  if (!pool_.initialised()) return fail(Errc::released, "ring is not initialised");
  const Deadline deadline = deadline_after(timeout);  // saturated: a huge timeout waits forever
  std::unique_lock<std::mutex> lock(lock_);
  if (!wait_until(ready_, lock, deadline, [this] { return size_ != 0; }))
    return fail(Errc::exhausted, "no frame was published before the timeout");
  ++taken_;
  return pop_locked();
}

RingStats RingCore::stats() const noexcept {
  RingStats s;
  s.pool = pool_.stats();
  std::lock_guard<std::mutex> lock(lock_);
  s.published = published_;
  s.taken = taken_;
  s.dropped = dropped_;
  s.refused = refused_;
  s.pending = size_;
  return s;
}

void RingCore::clear() noexcept {
  PooledBuffer drop;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(lock_);
      if (size_ == 0) return;
      drop = pop_locked();
    }
    drop = PooledBuffer{};  // returned outside the ring lock
  }
}

Result<void> RingCore::release() noexcept {
  if (!pool_.initialised()) return {};
  {
    std::lock_guard<std::mutex> lock(lock_);
    if (pool_.stats().in_use != size_) return fail(Errc::busy, "the producer or consumer still holds a frame");
    // Check before dropping anything: an unconsumed frame returns to the pool only when the FIFO's
    // handle and the pool's are its last references; a sub-buffer or mapping of it holds one more.
    for (std::size_t i = 0; i < size_; ++i) {
      const MemNode* n = detail::node_of(fifo_[(head_ + i) % capacity_].buffer());
      if (n->refs.load(std::memory_order_acquire) != 2)  // the pool's and the FIFO's
        return fail(Errc::busy, "a sub-buffer or mapping of an unconsumed frame is still alive");
    }
  }
  clear();
  return pool_.release();
}

}  // namespace edgemem::detail
