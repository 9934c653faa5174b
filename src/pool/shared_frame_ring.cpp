// SharedFrameRing: a single-producer single-consumer frame ring over exportable shared memory, its
// indices in that memory (shared_frame_ring.hpp).
#include <edgemem/shared_frame_ring.hpp>

#include <atomic>
#include <new>
#include <utility>

#include <edgemem/mapping.hpp>
#include <edgemem/queue.hpp>

#include "core/checks.hpp"
#include "core/nodes.hpp"

namespace edgemem {

/// The ring's control block, the first bytes of the shared memory. Only the host touches it.
struct SharedFrameRing::Control {
  static constexpr std::uint32_t kMagic = 0x52464d45u;  // "EMFR"
  static constexpr std::uint32_t kVersion = 1;
  std::uint32_t magic;
  std::uint32_t version;
  std::uint64_t frame_bytes;
  std::uint64_t frames_offset;
  std::uint32_t frame_count;
  std::uint32_t reserved;
  std::atomic<std::uint64_t> head;  // frames published (written by the producer only)
  std::atomic<std::uint64_t> tail;  // frames consumed (written by the consumer only)
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "the ring's indices are shared between processes: they need lock-free atomics");

namespace {

constexpr std::uint32_t kMaxFrames = 1u << 20;

std::size_t round_up(std::size_t v, std::size_t a) noexcept { return (v + a - 1) / a * a; }

/// The host address of `buf`'s first byte (exportable and imported memory: the mapping it wraps).
std::byte* host_of(const Buffer& buf) noexcept {
  const detail::MemNode* n = detail::node_of(buf);
  return const_cast<std::byte*>(n->root->host) + n->origin;
}

/// A blocking map of `frame` on `q` for `access`, unmapped at once: waits for q's commands on it and
/// brings caller memory and the device's view together.
Result<void> touch(Queue& q, Buffer& frame, Access access) noexcept {
  EDGEMEM_TRY_ASSIGN(auto m, q.map<unsigned char>(frame, access));
  return m.unmap();
}

}  // namespace

SharedFrameRing::SharedFrameRing(SharedFrameRing&& o) noexcept
    : memory_(std::move(o.memory_)), control_(std::exchange(o.control_, nullptr)), held_(std::move(o.held_)),
      frames_offset_(o.frames_offset_), frame_bytes_(std::exchange(o.frame_bytes_, 0)),
      frame_count_(std::exchange(o.frame_count_, 0)), current_(o.current_), producer_(o.producer_) {}

SharedFrameRing& SharedFrameRing::operator=(SharedFrameRing&& o) noexcept {
  if (this != &o) {
    held_ = std::move(o.held_);
    memory_ = std::move(o.memory_);
    control_ = std::exchange(o.control_, nullptr);
    frames_offset_ = o.frames_offset_;
    frame_bytes_ = std::exchange(o.frame_bytes_, 0);
    frame_count_ = std::exchange(o.frame_count_, 0);
    current_ = o.current_;
    producer_ = o.producer_;
  }
  return *this;
}

Result<SharedFrameRing> SharedFrameRing::create(const Context& ctx, std::size_t frame_bytes,
                                                std::uint32_t frame_count) noexcept {
  if (!ctx.valid()) return fail(Errc::released, "context is released");
  if (frame_bytes == 0 || frame_count == 0) return fail(Errc::invalid_argument, "a ring needs frames of some bytes");
  if (frame_count > kMaxFrames) return fail(Errc::invalid_argument, "a ring has at most 2^20 frames");
  const std::size_t align = ctx.base_align();
  if (frame_bytes > SIZE_MAX / 2 / frame_count) return fail(Errc::out_of_range, "the ring's size overflows");
  const std::size_t frame = round_up(frame_bytes, align);
  const std::size_t offset = round_up(sizeof(Control), align);
  if (frame > (SIZE_MAX - offset) / frame_count) return fail(Errc::out_of_range, "the ring's size overflows");
  EDGEMEM_TRY_ASSIGN(Buffer memory, Buffer::create_exportable(ctx, offset + frame * frame_count));
  SharedFrameRing ring;
  ring.control_ = new (host_of(memory)) Control{Control::kMagic, Control::kVersion, frame, offset, frame_count, 0,
                                                {0}, {0}};
  ring.memory_ = std::move(memory);
  ring.frames_offset_ = offset;
  ring.frame_bytes_ = frame;
  ring.frame_count_ = frame_count;
  ring.producer_ = true;
  return ring;
}

Result<SharedFrameRing> SharedFrameRing::attach(const Context& ctx, IpcHandle&& handle) noexcept {
  EDGEMEM_TRY_ASSIGN(Buffer memory, Buffer::import(ctx, std::move(handle)));
  if (memory.size() < sizeof(Control)) return fail(Errc::invalid_argument, "the memory is too small for a ring");
  auto* c = reinterpret_cast<Control*>(host_of(memory));
  if (c->magic != Control::kMagic || c->version != Control::kVersion)
    return fail(Errc::invalid_argument, "the memory holds no SharedFrameRing of this version");
  const std::uint64_t count = c->frame_count, bytes = c->frame_bytes, offset = c->frames_offset;
  if (count == 0 || count > kMaxFrames || bytes == 0 || offset < sizeof(Control) || offset > memory.size() ||
      bytes > (memory.size() - offset) / count)
    return fail(Errc::invalid_argument, "the ring's layout does not fit the shared memory");
  if (offset % ctx.base_align() != 0 || bytes % ctx.base_align() != 0)
    return fail(Errc::misaligned, "the ring's frames miss this device's base alignment");
  SharedFrameRing ring;
  ring.control_ = c;
  ring.memory_ = std::move(memory);
  ring.frames_offset_ = static_cast<std::size_t>(offset);
  ring.frame_bytes_ = static_cast<std::size_t>(bytes);
  ring.frame_count_ = static_cast<std::uint32_t>(count);
  ring.producer_ = false;
  return ring;
}

Result<IpcHandle> SharedFrameRing::export_handle() const noexcept {
  if (!valid()) return fail(Errc::released, "ring is released");
  return memory_.export_handle();
}

Result<void> SharedFrameRing::check_role(bool producer, const Queue* q) const noexcept {
  if (!valid()) return fail(Errc::released, "ring is released");
  if (producer != producer_)
    return fail(Errc::invalid_argument, producer ? "a producer call on the consumer's ring" : "a consumer call on the producer's ring");
  if (q != nullptr) {
    if (!q->valid()) return fail(Errc::released, "queue is released");
    if (detail::node_of(*q)->ctx != detail::node_of(memory_)->ctx)
      return fail(Errc::invalid_argument, "queue belongs to another context");
  }
  return {};
}

Result<Buffer> SharedFrameRing::frame(std::uint64_t index) const noexcept {
  return memory_.sub(frames_offset_ + static_cast<std::size_t>(index % frame_count_) * frame_bytes_, frame_bytes_);
}

Result<Buffer> SharedFrameRing::acquire() noexcept {
  EDGEMEM_TRY(check_role(true, nullptr));
  if (held_.valid()) return fail(Errc::busy, "the frame acquired before is not published yet");
  const std::uint64_t head = control_->head.load(std::memory_order_relaxed);
  if (head - control_->tail.load(std::memory_order_acquire) >= frame_count_)
    return fail(Errc::exhausted, "every frame is published and not yet consumed");
  EDGEMEM_TRY_ASSIGN(Buffer f, frame(head));
  EDGEMEM_TRY_ASSIGN(Buffer mine, f.sub(0, frame_bytes_));
  held_ = std::move(f);
  current_ = head;
  return mine;
}

Result<void> SharedFrameRing::publish(Queue& q) noexcept {
  EDGEMEM_TRY(check_role(true, &q));
  if (!held_.valid()) return fail(Errc::invalid_argument, "no frame acquired");
  EDGEMEM_TRY(touch(q, held_, Access::read));
  (void)held_.release();
  control_->head.store(current_ + 1, std::memory_order_release);
  return {};
}

Result<Buffer> SharedFrameRing::take(Queue& q) noexcept {
  EDGEMEM_TRY(check_role(false, &q));
  if (held_.valid()) return fail(Errc::busy, "the frame taken before is not consumed yet");
  const std::uint64_t tail = control_->tail.load(std::memory_order_relaxed);
  if (control_->head.load(std::memory_order_acquire) == tail) return fail(Errc::exhausted, "no published frame");
  EDGEMEM_TRY_ASSIGN(Buffer f, frame(tail));
  EDGEMEM_TRY(touch(q, f, Access::write_discard));
  EDGEMEM_TRY_ASSIGN(Buffer mine, f.sub(0, frame_bytes_));
  held_ = std::move(f);
  current_ = tail;
  return mine;
}

Result<void> SharedFrameRing::consumed(Queue& q) noexcept {
  EDGEMEM_TRY(check_role(false, &q));
  if (!held_.valid()) return fail(Errc::invalid_argument, "no frame taken");
  // A write_discard map: it waits for every command on the frame, this process's reads on other
  // queues included (a read map would wait only for writers), and the bytes are no longer needed.
  EDGEMEM_TRY(touch(q, held_, Access::write_discard));
  (void)held_.release();
  control_->tail.store(current_ + 1, std::memory_order_release);
  return {};
}

std::uint64_t SharedFrameRing::published() const noexcept {
  return control_ != nullptr ? control_->head.load(std::memory_order_acquire) : 0;
}

std::uint64_t SharedFrameRing::consumed_count() const noexcept {
  return control_ != nullptr ? control_->tail.load(std::memory_order_acquire) : 0;
}

}  // namespace edgemem
