/// @file fixed_pool.hpp  FixedPool: `count` equal blocks carved once from one device allocation, then
/// handed out and taken back in O(1) with no backend call and no heap allocation (Zephyr slab / ETL
/// pool style, VMA's "pool the handles"). All sizes are in bytes.
///
/// - FixedPool<N>: capacity known at compile time, the block table and free list inline in the object.
///   FixedPool<> (N = dynamic_capacity): capacity given to init(), those two arrays from the allocator
///   policy. Both run on the same pool core (the library's, src/pool/pool_core.hpp: FixedPool holds it
///   as raw bytes of a size the library checks at compile time); in both, init() takes the count + 1 buffer nodes
///   (the parent and one sub-buffer per block) from the allocator policy, and after init() nothing is
///   allocated until release().
/// - Costs: acquire(), return and stats() are O(1): a short spinlock (ThreadSafe) or no lock
///   (SingleThread) around an index free list and one atomic reference-count change; no backend call,
///   no allocation, no wait. A block returned with commands still queued on it is handed out again at
///   once: the pool's root buffer keeps those commands (src/core/ordering.hpp), and the next owner's first
///   command on the block waits for them on the device, never in acquire(). acquire_for() adds at most one mutex + condition-variable wait of `timeout`;
///   a return wakes one waiter only when there is one. init() and release() are O(count).
/// - Thread policy (second parameter): ThreadSafe (default) or SingleThread. With SingleThread only one
///   thread calls the pool, but a block's last handle may go on any thread (a DLPack tensor's deleter):
///   such a return is one compare-and-swap onto a stack the pool's thread drains at its next acquire(),
///   stats() or release() (so acquire() and stats() stay O(1) amortized).
/// - Not copyable or movable (blocks point at their pool): declare it, then init() it.
/// - Destruction policy: release() is refused with Errc::busy while any block is out. The destructor
///   never leaves a dangling block: blocks still out are detached from the pool and live on as plain
///   sub-buffers (their memory goes with the last of them, as for any sub-buffer); no further block
///   can return to the dead pool. A block return racing the destructor from another thread is a data
///   race, as for any object used while it is destroyed.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/ipc_handle.hpp>
#include <edgemem/pooled_buffer.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

class Queue;

/// Thread policy: one thread uses the pool (no locking at all; acquire_for() cannot wait). A block's
/// last handle may still go on another thread (a DLPack tensor's deleter, run wherever its consumer
/// runs it): the block then goes onto a lock-free stack (one compare-and-swap) that the pool's thread
/// moves to its free list at its next acquire(), stats() or release() (issue #29, to settle b).
struct SingleThread {
  static constexpr bool concurrent = false;  ///< no synchronisation
};
/// Thread policy (the default): any thread may acquire and return blocks concurrently (a short
/// spinlock around an O(1) free list; a condition variable only for acquire_for() waiters).
struct ThreadSafe {
  static constexpr bool concurrent = true;  ///< acquire/return safe from any thread
};

/// Statistics of a pool; always on, read in O(1).
struct PoolStats {
  std::size_t capacity = 0;         ///< blocks in the pool
  std::size_t block_bytes = 0;      ///< bytes per block, rounded up to the base alignment (as block_bytes())
  std::size_t in_use = 0;           ///< blocks out now (held, or pending a deferred return)
  std::size_t high_water = 0;       ///< largest in_use seen
  std::size_t failed_acquires = 0;  ///< acquire()/acquire_for() calls that returned Errc::exhausted
};

namespace detail {
/// Where a pool's blocks come from: one buffer (Buffer::create), one shared virtual memory allocation
/// (Svm::create), exportable memory (Buffer::create_exportable), or buffers given (init_over).
enum class BlockSourceKind : std::uint8_t { buffer, svm, exportable, given };
/// Bytes of a pool core of `Threads` (the library checks its core fits: src/pool/pool_ops.cpp).
template <class Threads>
inline constexpr std::size_t kPoolCoreBytes =
    20 * sizeof(void*) + (Threads::concurrent ? sizeof(std::mutex) + sizeof(std::condition_variable) + 16 : 0);
/// Inline storage for a pool core, aligned for any of its members.
template <class Threads>
struct alignas(std::max_align_t) PoolCoreStorage {
  unsigned char bytes[kPoolCoreBytes<Threads>];  ///< the core, built by PoolOps::construct
};
/// The pool core's operations on its storage (defined, and instantiated for SingleThread and
/// ThreadSafe, in the library). Each is FixedPool's member of the same name; Errc: as there.
template <class Threads>
struct PoolOps {
  /// Builds an uninitialised core in `core`, over `capacity` inline blocks and links (null, 0: none).
  static void construct(PoolCoreStorage<Threads>& core, void* blocks, std::uint32_t* links,
                        std::size_t capacity) noexcept;
  /// Destroys the core (see FixedPool's destruction policy).
  static void destroy(PoolCoreStorage<Threads>& core) noexcept;
  /// FixedPool::init and its variants: blocks from `Source` (`grain` for svm, `buffers` for given). One
  /// function per source, so a firmware image links only the sources it uses.
  template <BlockSourceKind Source>
  static Result<void> init(PoolCoreStorage<Threads>& core, const Context& ctx, Queue& q, std::size_t block_bytes,
                           std::size_t count, Storage storage, MemFlags flags, SvmGrain grain,
                           const Buffer* buffers) noexcept;
  static Result<IpcHandle> export_handle(const PoolCoreStorage<Threads>& core) noexcept;  ///< as FixedPool's
  /// As FixedPool::descriptor.
  static Result<BlockDescriptor> descriptor(const PoolCoreStorage<Threads>& core, const PooledBuffer& b) noexcept;
  static Result<PooledBuffer> acquire(PoolCoreStorage<Threads>& core) noexcept;  ///< as FixedPool's
  /// As FixedPool::acquire_for.
  static Result<PooledBuffer> acquire_for(PoolCoreStorage<Threads>& core, std::chrono::nanoseconds timeout) noexcept;
  static PoolStats stats(const PoolCoreStorage<Threads>& core) noexcept;               ///< as FixedPool's
  static bool owns(const PoolCoreStorage<Threads>& core, const PooledBuffer& b) noexcept;  ///< as FixedPool's
  static Result<void> release(PoolCoreStorage<Threads>& core) noexcept;                ///< as FixedPool's
};
}  // namespace detail

template <std::size_t K>
class FrameRing;

/// FixedPool capacity parameter meaning "chosen at init(), bookkeeping from the allocator policy".
inline constexpr std::size_t dynamic_capacity = 0;

namespace detail {
/// Inline bookkeeping of a FixedPool<N> (raw storage; PoolCore constructs the Buffers in it).
template <std::size_t N>
struct PoolSlots {
  alignas(Buffer) unsigned char blocks[N * sizeof(Buffer)];
  std::uint32_t links[N];
  void* block_storage() noexcept { return blocks; }
  std::uint32_t* link_storage() noexcept { return links; }
};
/// No inline bookkeeping (FixedPool<>).
template <>
struct PoolSlots<0> {
  void* block_storage() noexcept { return nullptr; }
  std::uint32_t* link_storage() noexcept { return nullptr; }
};
}  // namespace detail

/// A fixed-capacity pool of equal device memory blocks.
template <std::size_t N = dynamic_capacity, class Threads = ThreadSafe>
class FixedPool {
 public:
  /// Blocks this type can hold inline (0: set at init()).
  static constexpr std::size_t static_capacity = N;

  /// An uninitialised pool: acquire()/acquire_for() return Errc::released until init() succeeds.
  FixedPool() noexcept { Ops::construct(core_, slots_.block_storage(), slots_.link_storage(), N); }
  FixedPool(const FixedPool&) = delete;
  FixedPool& operator=(const FixedPool&) = delete;
  ~FixedPool() { Ops::destroy(core_); }  ///< see the destruction policy in the file comment

  /// Allocates one buffer of `count` blocks of `block_bytes` bytes each, rounded up to ctx.base_align(),
  /// as sub-buffers, and zero-fills it through `q` with a device fill (waiting for it; allowed for every
  /// host-access flag), so deferred device allocation fails here and not at acquire(). On failure the
  /// pool stays uninitialised and holds nothing. Cost: O(count), one device allocation, one fill and,
  /// on OpenCL, `count` clCreateSubBuffer calls; `count` + 1 buffer nodes from the allocator policy
  /// (plus the two arrays for FixedPool<>). Errc: released (ctx or q), invalid_argument (block_bytes or
  /// count 0, pool already initialised, q on another context, bad flag combination or Storage value),
  /// out_of_range (count > N for N > 0, count >= 2^32 - 1, size overflow, or total bytes > the device's
  /// max allocation), out_of_device_memory, out_of_host_memory (bookkeeping: the block nodes, and for
  /// FixedPool<> the arrays), backend_failure.
  [[nodiscard]] Result<void> init(const Context& ctx, Queue& q, std::size_t block_bytes, std::size_t count = N,
                                  Storage storage = Storage::device,
                                  MemFlags flags = MemFlags::read_write) noexcept {
    return Ops::template init<detail::BlockSourceKind::buffer>(core_, ctx, q, block_bytes, count, storage, flags,
                                                                   SvmGrain::coarse, nullptr);
  }

  /// init() over one shared virtual memory allocation of `grain` (Svm::create; pyopencl's SVMPool, with
  /// fixed blocks): every block is SVM (PooledBuffer::buffer().svm_pointer() for kernel arguments),
  /// zero-filled at init() with clEnqueueSVMMemFill, and acquire / return stay O(1) with no driver call.
  /// Errc: as init() above, plus those of Svm::create (unsupported: the device lacks `grain`).
  [[nodiscard]] Result<void> init(const Context& ctx, Queue& q, std::size_t block_bytes, std::size_t count,
                                  SvmGrain grain) noexcept {
    return Ops::template init<detail::BlockSourceKind::svm>(core_, ctx, q, block_bytes, count, Storage::shared,
                                                            MemFlags::read_write, grain, nullptr);
  }
  /// init() over exportable memory (Buffer::create_exportable: a sealed memfd, zero at creation), so
  /// export_handle() can hand the whole pool to another process (cuda.core's pool-level export). On the
  /// host backend and unified-memory devices. Errc: as init() above (`storage` is Storage::host), plus
  /// those of Buffer::create_exportable (unsupported: no unified memory).
  [[nodiscard]] Result<void> init_exportable(const Context& ctx, Queue& q, std::size_t block_bytes,
                                             std::size_t count = N, MemFlags flags = MemFlags::read_write) noexcept {
    return Ops::template init<detail::BlockSourceKind::exportable>(core_, ctx, q, block_bytes, count, Storage::host,
                                                                   flags, SvmGrain::coarse, nullptr);
  }
  /// init() over `count` existing buffers of `block_bytes` bytes each, one block each, as they are (no
  /// rounding, no fill): e.g. a V4L2 buffer queue imported once with Buffer::import, then acquired and
  /// returned per frame with no driver call. The pool holds a view of each (the buffers may be dropped).
  /// Errc: released (ctx, q or one of the buffers), invalid_argument (count 0, block_bytes 0, a buffer of
  /// another size or context, q on another context, pool already initialised), out_of_range (count over
  /// the compile-time capacity), misaligned (a view's origin off the base alignment), out_of_host_memory,
  /// and those of Buffer::native() (each block's native sub-object is made here).
  [[nodiscard]] Result<void> init_over(const Context& ctx, Queue& q, const Buffer* buffers, std::size_t count,
                                       std::size_t block_bytes) noexcept {
    if (buffers == nullptr) return fail(Errc::invalid_argument, "no buffers given");
    return Ops::template init<detail::BlockSourceKind::given>(core_, ctx, q, block_bytes, count, Storage::host,
                                                              MemFlags::read_write, SvmGrain::coarse, buffers);
  }
  /// A handle to the whole pool for another process (ImportedPool::attach there), made once; blocks
  /// then travel as descriptor()s. Errc: released (not initialised), unsupported (not made by
  /// init_exportable()), backend_failure (dup failed).
  [[nodiscard]] Result<IpcHandle> export_handle() const noexcept { return Ops::export_handle(core_); }
  /// The small descriptor of block `b` for the process that attached export_handle() (no system call).
  /// Errc: released (not initialised, or `b` empty), invalid_argument (`b` is not a block of this pool),
  /// unsupported (not made by init_exportable()).
  [[nodiscard]] Result<BlockDescriptor> descriptor(const PooledBuffer& b) const noexcept { return Ops::descriptor(core_, b); }

  /// Hands out a free block in O(1): no backend call, no heap allocation, no waiting.
  /// Errc: released (not initialised or released), exhausted (every block is out; counted in
  /// stats().failed_acquires, nothing else changes).
  [[nodiscard]] Result<PooledBuffer> acquire() noexcept { return Ops::acquire(core_); }
  /// As acquire(), but waits up to `timeout` for a block to come back (ThreadSafe; with SingleThread
  /// nothing can come back meanwhile, so it does not wait). A timeout too long for steady_clock to add
  /// to now (nanoseconds::max(), for one) waits forever; one <= 0 does not wait. Errc: released,
  /// exhausted (still none after `timeout`; counted once in stats().failed_acquires).
  [[nodiscard]] Result<PooledBuffer> acquire_for(std::chrono::nanoseconds timeout) noexcept {
    return Ops::acquire_for(core_, timeout);
  }

  /// Capacity, block size, blocks out, high-water mark and failed acquires, in O(1).
  [[nodiscard]] PoolStats stats() const noexcept { return Ops::stats(core_); }
  /// Blocks in the pool (0 before init()).
  [[nodiscard]] std::size_t capacity() const noexcept { return Ops::stats(core_).capacity; }
  /// Bytes per block after rounding: the `block_bytes` given to init() rounded up to ctx.base_align(),
  /// so possibly more than asked for; what every block's PooledBuffer::size() and stats().block_bytes
  /// say (0 before init()).
  [[nodiscard]] std::size_t block_bytes() const noexcept { return Ops::stats(core_).block_bytes; }
  /// True when `b` is a block of this pool.
  [[nodiscard]] bool owns(const PooledBuffer& b) const noexcept { return Ops::owns(core_, b); }
  /// Frees the pool's memory and bookkeeping; init() may be called again afterwards. Idempotent.
  /// Errc: busy (blocks are still out, including deferred returns; nothing changes).
  [[nodiscard]] Result<void> release() noexcept { return Ops::release(core_); }

 private:
  template <std::size_t K>
  friend class FrameRing;
  using Ops = detail::PoolOps<Threads>;
  detail::PoolSlots<N> slots_;  // before core_: built first, destroyed after it
  detail::PoolCoreStorage<Threads> core_;
};

}  // namespace edgemem
