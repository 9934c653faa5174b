/// @file shared_frame_ring.hpp  SharedFrameRing: a frame ring between two processes (a camera process
/// producing, a vision process consuming) over one exportable memory object: `frame_count` frames of
/// `frame_bytes` bytes and, in the same shared memory, the ring's indices. No system call per frame:
/// the producer's publish and the consumer's consumed are one blocking map/unmap of the frame (which
/// waits for that process's queued commands on it and brings caller memory up to date) and one atomic
/// store. Single producer, single consumer. Move-only.
///
/// The pattern: the producer makes create(ctx, frame_bytes, count) and sends export_handle() over a
/// UNIX socket (IpcHandle::send); the consumer attach()es with the received handle. Producer: acquire()
/// a frame, fill it with commands on its queue, publish(q). Consumer: take(q) the oldest published
/// frame, read it with commands on its queue, consumed(q). A frame is reused by the producer only
/// after the consumer's consumed(), so no frame is torn or lost; a consumer that dies leaves its frame
/// unconsumed and the producer gets Errc::exhausted once the ring is full (nothing in the producer
/// changes); a consumer that attaches again (a restarted process) resumes at the first unconsumed
/// frame, which it then sees again if its predecessor died before consumed(). Needs a device on which
/// Buffer::create_exportable works (the host backend, unified-memory devices).
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/ipc_handle.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

class Queue;

/// A frame ring shared between a producer process and a consumer process.
class SharedFrameRing {
 public:
  /// Producer: a ring of `frame_count` zero-filled frames of `frame_bytes` bytes (rounded up to
  /// ctx.base_align()). Errc: released (ctx), invalid_argument (frame_bytes or frame_count 0,
  /// frame_count over 2^20), out_of_range (the whole ring over info().max_alloc_bytes, or overflowing),
  /// and those of Buffer::create_exportable.
  [[nodiscard]] static Result<SharedFrameRing> create(const Context& ctx, std::size_t frame_bytes,
                                                      std::uint32_t frame_count) noexcept;
  /// Consumer: the ring another process exported, from its handle (consumed, as Buffer::import).
  /// Errc: released (ctx, or an empty handle), invalid_argument (the memory holds no ring, or one whose
  /// layout does not fit the handle's size), misaligned (its frames miss this device's base alignment),
  /// and those of Buffer::import(ctx, IpcHandle&&).
  [[nodiscard]] static Result<SharedFrameRing> attach(const Context& ctx, IpcHandle&& handle) noexcept;

  SharedFrameRing() noexcept = default;  ///< an empty ring: every call answers Errc::released
  SharedFrameRing(SharedFrameRing&& other) noexcept;             ///< takes over `other`, leaving it empty
  SharedFrameRing& operator=(SharedFrameRing&& other) noexcept;  ///< drops this ring, takes over `other`
  SharedFrameRing(const SharedFrameRing&) = delete;
  SharedFrameRing& operator=(const SharedFrameRing&) = delete;
  ~SharedFrameRing() = default;  ///< drops this process's view of the ring (the peer's stays valid)

  /// Producer: a handle for the consumer process (a duplicate fd each call). Errc: released, and those
  /// of Buffer::export_handle.
  [[nodiscard]] Result<IpcHandle> export_handle() const noexcept;

  /// Producer: the next frame to fill (a view of the shared memory). Errc: released, invalid_argument
  /// (called by the consumer), busy (the frame acquired before is not published yet), exhausted (every
  /// frame is published and not yet consumed: the consumer is slow or gone).
  [[nodiscard]] Result<Buffer> acquire() noexcept;
  /// Producer: publishes the acquired frame once `q`'s commands on it have completed (a blocking map
  /// and unmap of the frame on `q`). Errc: released (ring or q), invalid_argument (called by the
  /// consumer, q on another context, no frame acquired), and those of Queue::map.
  [[nodiscard]] Result<void> publish(Queue& q) noexcept;

  /// Consumer: the oldest published frame, brought up to date for `q`'s commands (a blocking
  /// write_discard map and unmap on `q`: caller memory's rule, external.hpp). Errc: released (ring or q), invalid_argument (called
  /// by the producer, q on another context), busy (the frame taken before is not consumed yet),
  /// exhausted (no published frame), and those of Queue::map.
  [[nodiscard]] Result<Buffer> take(Queue& q) noexcept;
  /// Consumer: hands the taken frame back to the producer once `q`'s commands on it have completed.
  /// Errc: released (ring or q), invalid_argument (called by the producer, q on another context, no
  /// frame taken), and those of Queue::map.
  [[nodiscard]] Result<void> consumed(Queue& q) noexcept;

  /// The sequence number of the frame acquire() or take() returned last (0 for the ring's first frame).
  [[nodiscard]] std::uint64_t frame_index() const noexcept { return current_; }
  /// Frames published so far (shared: what the producer has published).
  [[nodiscard]] std::uint64_t published() const noexcept;
  /// Frames consumed so far (shared: what the consumer has handed back).
  [[nodiscard]] std::uint64_t consumed_count() const noexcept;
  /// Bytes per frame (0 when empty).
  [[nodiscard]] std::size_t frame_bytes() const noexcept { return frame_bytes_; }
  /// Frames in the ring (0 when empty).
  [[nodiscard]] std::uint32_t frame_count() const noexcept { return frame_count_; }
  /// True once create() or attach() made it.
  [[nodiscard]] bool valid() const noexcept { return memory_.valid(); }

 private:
  struct Control;
  Result<Buffer> frame(std::uint64_t index) const noexcept;
  Result<void> check_role(bool producer, const Queue* q) const noexcept;

  Buffer memory_;                 // the whole shared memory: the control block, then the frames
  Control* control_ = nullptr;    // the control block in the shared memory
  Buffer held_;                   // the frame acquired or taken and not yet handed on
  std::size_t frames_offset_ = 0;
  std::size_t frame_bytes_ = 0;
  std::uint32_t frame_count_ = 0;
  std::uint64_t current_ = 0;
  bool producer_ = false;
};

}  // namespace edgemem
