// What FixedPool and FrameRing run on (private: FixedPool keeps it as raw bytes, fixed_pool.hpp):
// the size-erased pool (detail::PoolCore) of both the compile-time-capacity and the
// creation-time-capacity FixedPool, its free list, locks and waiters, and where blocks come from.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <type_traits>

#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/fixed_pool.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/pooled_buffer.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

class Queue;

namespace detail {

struct MemNode;


/// A free list of the indices 0..count-1 over caller-supplied links (no heap): O(1) take and give
/// back. Pools (free blocks) and heaps (free node slots) both run on it; its owner locks.
class IndexFreeList {
 public:
  static constexpr std::uint32_t none = UINT32_MAX;        ///< end of the list
  static constexpr std::uint32_t taken = UINT32_MAX - 1;   ///< the link of an index that is out
  /// Every index of 0..count-1 free, in order, over `links` (count entries; count < taken).
  void reset(std::uint32_t* links, std::size_t count) noexcept {
    links_ = links;
    for (std::size_t i = 0; i < count; ++i) links[i] = i + 1 < count ? static_cast<std::uint32_t>(i + 1) : none;
    head_ = count != 0 ? 0 : none;
    out_ = 0;
  }
  /// Takes the first free index into `index`; false (nothing changes) when none is free.
  bool take(std::uint32_t& index) noexcept {
    if (head_ == none) return false;
    index = head_;
    head_ = links_[index];
    links_[index] = taken;
    ++out_;
    return true;
  }
  /// Gives back an index that take() handed out.
  void give_back(std::uint32_t index) noexcept {
    links_[index] = head_;
    head_ = index;
    --out_;
  }
  /// Indices out now.
  std::size_t out() const noexcept { return out_; }
  /// True when `index` is out.
  bool is_out(std::size_t index) const noexcept { return links_[index] == taken; }
  /// The links array (null before reset()).
  std::uint32_t* links() const noexcept { return links_; }

 private:
  std::uint32_t* links_ = nullptr;
  std::uint32_t head_ = none;
  std::size_t out_ = 0;
};

/// A lock that does nothing (SingleThread).
struct NoLock {
  void lock() noexcept {}
  void unlock() noexcept {}
};

/// A test-and-test-and-set spinlock that yields after a short spin (ThreadSafe). No heap.
/// Uncontended, lock is one inline atomic exchange (no call: pool blocks and kept views take it per
/// acquire and per view).
struct SpinLock {
  std::atomic<bool> held{false};
  void lock() noexcept {
    if (!held.exchange(true, std::memory_order_acquire)) return;
    lock_contended();
  }
  void unlock() noexcept { held.store(false, std::memory_order_release); }

 private:
  void lock_contended() noexcept;  // spins on a plain load, then yields
};

/// Sleeping waiters of acquire_for() (ThreadSafe only).
struct PoolWaiters {
  std::mutex mutex;
  std::condition_variable cv;
  std::atomic<std::uint32_t> count{0};
};
/// No waiters (SingleThread).
struct NoWaiters {};

class RingCore;

/// Makes the one allocation of a pool or heap and zero-fills it through `q` (src/pool/arena.cpp): a
/// buffer of `storage` and `flags` (buffer_arena), or shared virtual memory of `grain` (svm_arena).
/// Two functions, so a program that makes no SVM pool or heap links no SVM code.
using MakeArena = Result<Buffer> (*)(const Context& ctx, const Queue& q, std::size_t bytes, Storage storage,
                                     MemFlags flags, SvmGrain grain) noexcept;
/// MakeArena of a buffer (`grain` unused). Errc: those of Buffer::create and of the fill.
Result<Buffer> buffer_arena(const Context& ctx, const Queue& q, std::size_t bytes, Storage storage, MemFlags flags,
                            SvmGrain grain) noexcept;
/// MakeArena of shared virtual memory (`storage`, `flags` unused). Errc: those of Svm::create and of the fill.
Result<Buffer> svm_arena(const Context& ctx, const Queue& q, std::size_t bytes, Storage storage, MemFlags flags,
                         SvmGrain grain) noexcept;

/// MakeArena of exportable memory (Buffer::create_exportable: a sealed memfd, already zero; `storage`
/// and `grain` unused). Errc: those of Buffer::create_exportable.
Result<Buffer> exportable_arena(const Context& ctx, const Queue& q, std::size_t bytes, Storage storage,
                                MemFlags flags, SvmGrain grain) noexcept;

/// Where a pool's blocks come from: one allocation `make` makes (with `grain` for SVM), carved into
/// blocks; or, when `buffers` is set, those buffers (all of the pool's block size), one block each.
struct BlockSource {
  MakeArena make = &buffer_arena;     ///< the one allocation (buffer_arena, svm_arena, exportable_arena)
  SvmGrain grain = SvmGrain::coarse;  ///< svm_arena's grain
  const Buffer* buffers = nullptr;    ///< or these buffers (count of them), used as they are
  /// With `buffers`: check_given_buffers (a pointer, so a pool that carves its blocks links none of it).
  Result<void> (*check)(const Context& ctx, const Buffer* buffers, std::size_t count, std::size_t block_bytes) noexcept =
      nullptr;
};

/// The buffers a pool is made over (init_over): live, of `ctx`, each `block_bytes`, no two sharing a byte.
/// Errc: released, invalid_argument.
Result<void> check_given_buffers(const Context& ctx, const Buffer* buffers, std::size_t count,
                                 std::size_t block_bytes) noexcept;

/// A handle to the pool whose blocks include `block` (all of the pool's memory: `count` blocks of
/// `block_bytes`) for ImportedPool::attach. Errc: unsupported (not exportable memory), backend_failure (dup).
Result<IpcHandle> export_pool(const Buffer& block, std::size_t block_bytes, std::size_t count) noexcept;
/// The descriptor of pool block `block` (slot `index`) for ImportedPool::block. No system call.
/// Errc: unsupported (not exportable memory).
Result<BlockDescriptor> describe_block(const Buffer& block, std::uint32_t index) noexcept;

/// The pool itself, with its block arrays supplied by the owner (inline storage) or, when the owner
/// passes none, taken from the allocator policy at init(). Not movable: blocks point at it. Nothing
/// of it is callable but by FixedPool, FrameRing and the ring core (friends).
template <class Threads>
class PoolCore : private NodeOwner {
  template <class T>
  friend struct PoolOps;
  friend class RingCore;


  /// `inline_blocks`: storage for `inline_capacity` Buffers; `inline_links`: as many uint32_t.
  /// Both null with capacity 0: the arrays come from DefaultAllocator at init().
  PoolCore(void* inline_blocks, std::uint32_t* inline_links, std::size_t inline_capacity) noexcept
      : blocks_storage_(inline_blocks), inline_links_(inline_links), inline_capacity_(inline_capacity) {}
  PoolCore(const PoolCore&) = delete;
  PoolCore& operator=(const PoolCore&) = delete;
  ~PoolCore();

  /// The blocks come from `source`: carved from one allocation, or given buffers (init_over).
  Result<void> init(const Context& ctx, Queue& q, std::size_t block_bytes, std::size_t count, Storage storage,
                    MemFlags flags, const BlockSource& source = {}) noexcept;
  /// A handle to the whole pool. Errc: released, unsupported (not exportable memory or made over buffers).
  Result<IpcHandle> export_handle() const noexcept;
  /// The descriptor of block `b`. Errc: released, invalid_argument (not a block of this pool), unsupported.
  Result<BlockDescriptor> descriptor(const PooledBuffer& b) const noexcept;
  Result<PooledBuffer> acquire() noexcept;
  /// As acquire(), but an empty pool is not counted in failed_acquires: for a caller with another way
  /// to get a block (FrameRing's drop_oldest), which counts a real failure with count_failed().
  Result<PooledBuffer> try_acquire() noexcept;
  /// Counts one failed acquire in the statistics.
  void count_failed() noexcept;
  Result<PooledBuffer> acquire_for(std::chrono::nanoseconds timeout) noexcept;
  PoolStats stats() const noexcept;
  [[nodiscard]] Result<void> release() noexcept;
  bool initialised() const noexcept { return count_ != 0; }
  bool owns(const PooledBuffer& b) const noexcept;

  using Lock = std::conditional_t<Threads::concurrent, SpinLock, NoLock>;
  using Waiters = std::conditional_t<Threads::concurrent, PoolWaiters, NoWaiters>;

  static void take_back_block(NodeOwner* self, MemNode* node) noexcept;
  /// SingleThread: moves the blocks returned on any thread (returned_) onto the free list.
  void drain_returned() const noexcept;
  bool pop(std::uint32_t& slot, bool count_failure) noexcept;
  bool pop_locked(std::uint32_t& slot) noexcept;
  Result<PooledBuffer> take(bool count_failure) noexcept;
  void teardown() noexcept;
  Buffer* blocks() const noexcept { return static_cast<Buffer*>(blocks_storage_); }

  void* blocks_storage_ = nullptr;
  std::uint32_t* inline_links_ = nullptr;
  std::size_t inline_capacity_ = 0;
  bool arrays_from_allocator_ = false;
  std::size_t count_ = 0;
  std::size_t block_bytes_ = 0;
  mutable IndexFreeList free_;  // the free blocks; out() is the blocks in use (mutable: stats() drains)
  // SingleThread: blocks whose last handle went (on any thread), linked through free_'s links, not yet
  // on the free list (a Treiber stack: pushed with compare-and-swap, taken whole by the pool's thread).
  mutable std::atomic<std::uint32_t> returned_{IndexFreeList::none};
  std::size_t high_water_ = 0;
  std::size_t failed_ = 0;
  mutable Lock lock_;
  Waiters waiters_;
};

extern template class PoolCore<SingleThread>;
extern template class PoolCore<ThreadSafe>;

}  // namespace detail
}  // namespace edgemem
