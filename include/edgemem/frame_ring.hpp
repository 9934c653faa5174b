/// @file frame_ring.hpp  FrameRing: a bounded ring of K frame buffers from a FixedPool for
/// producer/consumer pipelines (camera in, GPU out). The producer acquire()s a free frame, fills it
/// (e.g. map with Access::write_discard), and publish()es it; the consumer take()s frames in publish
/// order and returns each by dropping it (or PooledBuffer::release()). Safe from two or more threads.
/// All operations are O(1) (the frames and the queue of published frames are inline), make no
/// backend call and no heap allocation.
///
/// When the consumer is behind (no free frame), the creation-time Overflow policy decides:
/// Overflow::refuse: acquire() returns Errc::exhausted (counted in stats().refused);
/// Overflow::drop_oldest: acquire() takes the oldest published, not yet taken frame and hands it to
/// the producer (counted in stats().dropped).
/// Not copyable or movable; declare it, then init() it. Destroying the ring drops unconsumed frames,
/// then destroys the pool (see FixedPool's destruction policy).
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <edgemem/context.hpp>
#include <edgemem/fixed_pool.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/pooled_buffer.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

class Queue;

/// What FrameRing::acquire() does when no frame is free.
enum class Overflow : std::uint8_t {
  refuse,       ///< return Errc::exhausted
  drop_oldest,  ///< reuse the oldest published, unconsumed frame (counted as dropped)
};

/// Counters of a FrameRing (each read in O(1)).
struct RingStats {
  PoolStats pool;              ///< the frame pool's statistics (failed_acquires: refused acquire() calls)
  std::size_t published = 0;   ///< frames published
  std::size_t taken = 0;       ///< frames handed to the consumer
  std::size_t dropped = 0;     ///< published frames reused unconsumed (Overflow::drop_oldest)
  std::size_t refused = 0;     ///< acquire() calls refused for lack of a frame
  std::size_t pending = 0;     ///< published frames not yet taken
};

namespace detail {
/// Bytes of a ring core (the library checks its core fits: src/pool/pool_ops.cpp).
inline constexpr std::size_t kRingCoreBytes = 14 * sizeof(void*) + sizeof(std::mutex) + sizeof(std::condition_variable);
/// Inline storage for a ring core, aligned for any of its members.
struct alignas(std::max_align_t) RingCoreStorage {
  unsigned char bytes[kRingCoreBytes];  ///< the core, built by RingOps::construct
};
/// The ring core's operations on its storage (defined in the library). Each is FrameRing's member of
/// the same name; Errc: as there.
struct RingOps {
  /// Builds an empty core in `core` over the frame pool `pool` and `capacity` inline FIFO slots.
  static void construct(RingCoreStorage& core, PoolCoreStorage<ThreadSafe>& pool, PooledBuffer* fifo,
                        std::size_t capacity) noexcept;
  /// Destroys the core (drops unconsumed frames).
  static void destroy(RingCoreStorage& core) noexcept;
  /// FrameRing::init and its variants: frames from `Source` (`buffers` for given); one function per source.
  template <BlockSourceKind Source>
  static Result<void> init(RingCoreStorage& core, const Context& ctx, Queue& q, std::size_t frame_bytes, Overflow policy,
                           Storage storage, MemFlags flags, const Buffer* buffers) noexcept;
  static Result<PooledBuffer> acquire(RingCoreStorage& core) noexcept;                    ///< as FrameRing's
  static Result<void> publish(RingCoreStorage& core, PooledBuffer&& frame) noexcept;      ///< as FrameRing's
  static Result<PooledBuffer> take(RingCoreStorage& core) noexcept;                       ///< as FrameRing's
  /// As FrameRing::take_for.
  static Result<PooledBuffer> take_for(RingCoreStorage& core, std::chrono::nanoseconds timeout) noexcept;
  static RingStats stats(const RingCoreStorage& core) noexcept;                           ///< as FrameRing's
  static Result<void> release(RingCoreStorage& core) noexcept;                            ///< as FrameRing's
};
}  // namespace detail

/// A ring of K frames of equal size.
template <std::size_t K>
class FrameRing {
  static_assert(K > 0, "a FrameRing needs at least one frame");

 public:
  /// An uninitialised ring: every call returns Errc::released until init() succeeds.
  FrameRing() noexcept { detail::RingOps::construct(core_, pool_.core_, fifo_, K); }
  FrameRing(const FrameRing&) = delete;
  FrameRing& operator=(const FrameRing&) = delete;
  ~FrameRing() { detail::RingOps::destroy(core_); }

  /// Creates the K frames of `frame_bytes` bytes (rounded up to ctx.base_align()) as a FixedPool<K>
  /// (zero-filled through `q` with a device fill) and sets the overflow policy. Errc: as FixedPool::init(),
  /// plus invalid_argument (unknown `policy`).
  [[nodiscard]] Result<void> init(const Context& ctx, Queue& q, std::size_t frame_bytes,
                                  Overflow policy = Overflow::refuse, Storage storage = Storage::shared,
                                  MemFlags flags = MemFlags::read_write) noexcept {
    return detail::RingOps::init<detail::BlockSourceKind::buffer>(core_, ctx, q, frame_bytes, policy, storage, flags,
                                                                         nullptr);
  }
  /// init() over exportable memory (FixedPool::init_exportable), so export_handle() hands the whole
  /// ring's memory to another process (ImportedPool::attach there) and frames travel as descriptor()s.
  /// Errc: as init(), plus those of Buffer::create_exportable (unsupported: no unified memory).
  [[nodiscard]] Result<void> init_exportable(const Context& ctx, Queue& q, std::size_t frame_bytes,
                                             Overflow policy = Overflow::refuse) noexcept {
    return detail::RingOps::init<detail::BlockSourceKind::exportable>(core_, ctx, q, frame_bytes, policy, Storage::host,
                                                                      MemFlags::read_write, nullptr);
  }
  /// init() over K existing buffers of `frame_bytes` bytes each (FixedPool::init_over), e.g. the
  /// buffers of a V4L2 queue imported once with Buffer::import: the ring then cycles them with no driver
  /// call. Errc: as FixedPool::init_over(), plus invalid_argument (unknown `policy`).
  [[nodiscard]] Result<void> init_over(const Context& ctx, Queue& q, const Buffer (&buffers)[K], std::size_t frame_bytes,
                                       Overflow policy = Overflow::refuse) noexcept {
    return detail::RingOps::init<detail::BlockSourceKind::given>(core_, ctx, q, frame_bytes, policy, Storage::host,
                                                                 MemFlags::read_write, buffers);
  }
  /// A handle to the ring's memory for another process (FixedPool::export_handle). Errc: as it.
  [[nodiscard]] Result<IpcHandle> export_handle() const noexcept { return pool_.export_handle(); }
  /// The descriptor of `frame` for the process that attached export_handle() (FixedPool::descriptor).
  [[nodiscard]] Result<BlockDescriptor> descriptor(const PooledBuffer& frame) const noexcept {
    return pool_.descriptor(frame);
  }
  /// Producer: a frame to fill. Errc: released (not initialised), exhausted (no free frame and, with
  /// Overflow::drop_oldest, no published frame to drop either; counted in stats().refused).
  [[nodiscard]] Result<PooledBuffer> acquire() noexcept { return detail::RingOps::acquire(core_); }
  /// Producer: queues `frame` for the consumer; `frame` is moved from only on success.
  /// Errc: released (ring not initialised, or `frame` empty), invalid_argument (`frame` is not a frame of
  /// this ring), busy (a mapping made through `frame` is still open).
  [[nodiscard]] Result<void> publish(PooledBuffer&& frame) noexcept { return detail::RingOps::publish(core_, std::move(frame)); }
  /// Consumer: the oldest published frame. Errc: released (not initialised), exhausted (none published).
  [[nodiscard]] Result<PooledBuffer> take() noexcept { return detail::RingOps::take(core_); }
  /// Consumer: as take(), waiting up to `timeout` for a frame (a timeout too long for steady_clock to
  /// add to now, such as nanoseconds::max(), waits forever). Errc: released, exhausted (none in time).
  [[nodiscard]] Result<PooledBuffer> take_for(std::chrono::nanoseconds timeout) noexcept {
    return detail::RingOps::take_for(core_, timeout);
  }
  /// Pool statistics and ring counters.
  [[nodiscard]] RingStats stats() const noexcept { return detail::RingOps::stats(core_); }
  /// Bytes per frame after rounding: the `frame_bytes` given to init() rounded up to ctx.base_align(),
  /// so possibly more than asked for; what every frame's size() and stats().pool.block_bytes say (0
  /// before init()).
  [[nodiscard]] std::size_t frame_bytes() const noexcept { return pool_.block_bytes(); }
  /// Drops unconsumed frames and frees the pool; init() may be called again. Idempotent.
  /// Errc: busy (the producer or consumer still holds a frame, or a sub-buffer or mapping of an
  /// unconsumed frame is alive; nothing changes, unconsumed frames are kept). Not to be called while
  /// another thread uses the ring.
  [[nodiscard]] Result<void> release() noexcept { return detail::RingOps::release(core_); }

 private:
  FixedPool<K, ThreadSafe> pool_;  // first: built first, destroyed last
  PooledBuffer fifo_[K];
  detail::RingCoreStorage core_;
};

}  // namespace edgemem
