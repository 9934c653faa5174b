/// @file shared_frame_ring.hpp  SharedFrameRing: a frame ring between two processes (a camera process
/// producing, a vision process consuming) over one exportable memory object: `frame_count` frames of
/// `frame_bytes` bytes and, in the same shared memory, the ring's indices. No system call per frame:
/// the producer's publish and the consumer's consumed are one blocking map/unmap of the frame (which
/// waits for that process's queued commands on it and brings caller memory up to date) and one atomic
/// store (for consumed, a compare-and-swap that also checks the consumer epoch). Single producer,
/// single consumer. Move-only.
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
///
/// Holders (issue #29.3): after consumed(), a frame goes back to the producer only once every holder
/// of it in the consumer's process is done: the handle take() returned, its sub-buffers and
/// mappings, and every DLPack tensor made from them (dlpack.hpp). When consumed() runs with none left
/// the frame goes back at once; otherwise it goes back when the last of them lets go (a handle's
/// destructor, a tensor's deleter, on whatever thread that runs). consumed() waits for the commands
/// enqueued on the frame before it; commands enqueued through a remaining handle after consumed() must
/// have completed before that handle goes (Event::wait). Meanwhile the consumer may take() the next
/// frame; consumed() of it answers Errc::busy until the one before has gone back (frames go back in
/// order).
///
/// One consumer at a time (issue #29, "to settle" c): each attach() starts a new consumer epoch in the
/// shared control block (16 bits, beside the consumed count, in one atomic word), so a consumer that
/// hung and was replaced by a restarted one gets Errc::released from its next take() or consumed() and
/// can no longer hand a frame back: only the newest consumer moves the ring on. A frame the old
/// consumer was reading when the new one attached is seen again by the new one (as after a death);
/// the old one's reads of it race with the producer once the new one consumes it (its consumed()
/// then says released: treat what it read as torn). The epoch wraps after 65,536 attaches.
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/ipc_handle.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

class Queue;
namespace detail {
struct RingConsumer;  // a consumer's epoch and the consumed frame still held (shared_frame_ring.cpp)
/// How a ring lets go of its consumer side (detail::Unique): drops its reference to the record, which
/// goes with the last one (a consumed frame still held keeps one until it is back).
struct RingConsumerTraits {
  using State = RingConsumer*;                                         ///< the record (null: none)
  static State none() noexcept { return nullptr; }                     ///< no consumer side
  static bool holds(State s) noexcept { return s != nullptr; }         ///< a consumer side is held
  static void free(State s) noexcept;                                  ///< drops the reference
};
}  // namespace detail

/// A frame ring shared between a producer process and a consumer process.
class SharedFrameRing {
 public:
  /// Producer: a ring of `frame_count` zero-filled frames of `frame_bytes` bytes (rounded up to
  /// ctx.base_align()). Errc: released (ctx), invalid_argument (frame_bytes or frame_count 0,
  /// frame_count over 2^20), out_of_range (the whole ring over info().max_alloc_bytes, or overflowing),
  /// and those of Buffer::create_exportable.
  [[nodiscard]] static Result<SharedFrameRing> create(const Context& ctx, std::size_t frame_bytes,
                                                      std::uint32_t frame_count) noexcept;
  /// Consumer: the ring another process exported, from its handle (consumed, as Buffer::import). Starts
  /// a new consumer epoch: a consumer attached before (hung, or dead) can no longer take or hand back a
  /// frame. Errc: released (ctx, or an empty handle), invalid_argument (the memory holds no ring, or
  /// one of another version, or one whose layout does not fit the handle's size), misaligned (its
  /// frames miss this device's base alignment), out_of_host_memory (the consumer's record), and those
  /// of Buffer::import(ctx, IpcHandle&&).
  [[nodiscard]] static Result<SharedFrameRing> attach(const Context& ctx, IpcHandle&& handle) noexcept;

  SharedFrameRing() noexcept = default;  ///< an empty ring: every call answers Errc::released
  SharedFrameRing(SharedFrameRing&& other) noexcept = default;  ///< takes over `other`, leaving it empty
  /// Drops this ring, then takes over `other` (left empty).
  SharedFrameRing& operator=(SharedFrameRing&& other) noexcept = default;
  /// Drops this process's view of the ring (the peer's stays valid). A consumer's frame taken and not
  /// consumed is not handed back (a re-attached consumer sees it again); one consumed and still held
  /// goes back when its last holder lets go.
  ~SharedFrameRing() = default;

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

  /// Consumer: the oldest published frame not taken yet, brought up to date for `q`'s commands (a
  /// blocking write_discard map and unmap on `q`: caller memory's rule, external.hpp); `frame_bytes()`
  /// bytes. Errc: released (ring or q, or another consumer attached since: this one was replaced),
  /// invalid_argument (called by the producer, q on another context), busy (the frame taken before is
  /// not consumed yet), exhausted (no published frame), and those of Queue::map.
  [[nodiscard]] Result<Buffer> take(Queue& q) noexcept;
  /// Consumer: done with the taken frame: waits for the commands on it (a blocking write_discard map
  /// and unmap on `q`), then hands it back to the producer at once when nothing else holds it, else when
  /// its last holder lets go (see "Holders" above). Errc: released (ring or q, or another consumer
  /// attached since: the frame is not handed back), invalid_argument (called by the producer, q on
  /// another context, no frame taken), busy (the frame consumed before is still held: it goes back
  /// first; nothing changes), and those of Queue::map (nothing changes).
  [[nodiscard]] Result<void> consumed(Queue& q) noexcept;

  /// The sequence number of the frame acquire() or take() returned last (0 for the ring's first frame).
  [[nodiscard]] std::uint64_t frame_index() const noexcept { return current_; }
  /// Frames published so far (shared: what the producer has published).
  [[nodiscard]] std::uint64_t published() const noexcept;
  /// Frames consumed so far (shared: what the consumer has handed back; a consumed frame still held
  /// counts once it has gone back).
  [[nodiscard]] std::uint64_t consumed_count() const noexcept;
  /// Bytes per frame (0 when empty).
  [[nodiscard]] std::size_t frame_bytes() const noexcept { return valid() ? frame_bytes_ : 0; }
  /// Frames in the ring (0 when empty).
  [[nodiscard]] std::uint32_t frame_count() const noexcept { return valid() ? frame_count_ : 0; }
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
  std::uint64_t next_ = 0;            // consumer: the next frame take() hands out
  detail::Unique<detail::RingConsumerTraits> side_;  // consumer: its epoch and the frame waiting for its last holder
  bool producer_ = false;
};

}  // namespace edgemem
