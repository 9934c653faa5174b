// SharedFrameRing: a single-producer single-consumer frame ring over exportable shared memory, its
// indices in that memory (shared_frame_ring.hpp). A consumed frame that still has holders goes back to
// the producer when its last holder lets go: its node is owned (NodeOwnership::pool_block) by the
// consumer's RingConsumer, whose take_back hands it back (issue #29.3). Every attach starts a consumer
// epoch, kept beside the consumed count in one shared word, so a replaced consumer can hand nothing
// back (issue #29, to settle c).
#include <edgemem/shared_frame_ring.hpp>

#include <atomic>
#include <new>
#include <utility>

#include <edgemem/mapping.hpp>
#include "pool/pool_core.hpp"
#include <edgemem/queue.hpp>

#include "core/checks.hpp"
#include "core/nodes.hpp"

namespace edgemem {

/// The ring's control block, the first bytes of the shared memory. Only the host touches it.
struct SharedFrameRing::Control {
  static constexpr std::uint32_t kMagic = 0x52464d45u;  // "EMFR"
  static constexpr std::uint32_t kVersion = 2;          // 2: `tail` carries the consumer epoch (#29)
  std::uint32_t magic;
  std::uint32_t version;
  std::uint64_t frame_bytes;
  std::uint64_t frames_offset;
  std::uint32_t frame_count;
  std::uint32_t reserved;
  std::atomic<std::uint64_t> head;  // frames published (written by the producer only)
  // The consumer's word: frames consumed (low 48 bits) and the epoch of the consumer that may move it
  // on (high 16 bits, bumped by every attach). One word, so handing a frame back and checking that no
  // newer consumer attached are one compare-and-swap.
  std::atomic<std::uint64_t> tail;
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "the ring's indices are shared between processes: they need lock-free atomics");

namespace detail {

/// A consumer's own state, shared by its ring and the consumed frame that still has holders (it owns
/// that frame's node): allocator-policy memory, reference counted (the ring holds one reference, a
/// consumed frame waiting for its last holder one), so it outlives whichever of them goes last.
struct RingConsumer : NodeOwner {
  std::atomic<std::uint32_t> refs{1};
  std::atomic<std::uint64_t>* tail = nullptr;  // in the shared memory, which a frame node keeps mapped
  std::uint64_t epoch = 0;                      // this consumer's epoch (16 bits)
  std::atomic<std::uint64_t> pending{0};        // 1 + the index of the consumed frame still held, or 0
  std::atomic<bool> replaced{false};            // a hand-back found a newer consumer's epoch
};

}  // namespace detail

namespace {

using detail::MemNode;
using detail::RingConsumer;

constexpr std::uint32_t kMaxFrames = 1u << 20;
constexpr std::uint64_t kCountMask = (std::uint64_t{1} << 48) - 1;

constexpr std::uint64_t count_of(std::uint64_t tail) noexcept { return tail & kCountMask; }
constexpr std::uint64_t epoch_of(std::uint64_t tail) noexcept { return tail >> 48; }
constexpr std::uint64_t tail_word(std::uint64_t epoch, std::uint64_t count) noexcept {
  return (epoch & 0xffffu) << 48 | (count & kCountMask);
}

std::size_t round_up(std::size_t v, std::size_t a) noexcept { return (v + a - 1) / a * a; }

/// The host address of `buf`'s first byte (exportable and imported memory: the mapping it wraps).
std::byte* host_of(const Buffer& buf) noexcept {
  const MemNode* n = detail::node_of(buf);
  return const_cast<std::byte*>(n->root->host) + n->origin;
}

/// A blocking map of `frame` on `q` for `access`, unmapped at once: waits for q's commands on it and
/// brings caller memory and the device's view together.
Result<void> touch(Queue& q, Buffer& frame, Access access) noexcept {
  EDGEMEM_TRY_ASSIGN(auto m, q.map<unsigned char>(frame, access));
  return m.unmap();
}

/// Hands frame `index` back to the producer (the consumed count becomes index + 1) unless a consumer
/// of another epoch attached since: false then, and nothing changes.
bool hand_back(std::atomic<std::uint64_t>& tail, std::uint64_t epoch, std::uint64_t index) noexcept {
  std::uint64_t word = tail.load(std::memory_order_acquire);
  for (;;) {
    if (epoch_of(word) != epoch) return false;
    if (tail.compare_exchange_weak(word, tail_word(epoch, index + 1), std::memory_order_acq_rel,
                                   std::memory_order_acquire))
      return true;
  }
}

void unref_consumer(RingConsumer* c) noexcept {
  if (c != nullptr && c->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) detail::destroy_node(c);
}

/// A consumed frame's last holder let go: only the consumer's reference is left, so the frame goes back
/// to the producer, on whatever thread dropped that holder. Runs once per consumed frame: after the
/// consumer's reference is taken the count reaches 1 once, and with one reference nobody can raise it.
void take_back_frame(detail::NodeOwner* self, MemNode* n) noexcept {
  auto* c = static_cast<RingConsumer*>(self);
  const std::uint64_t index = c->pending.load(std::memory_order_acquire) - 1;
  if (!hand_back(*c->tail, c->epoch, index)) c->replaced.store(true, std::memory_order_relaxed);
  c->pending.store(0, std::memory_order_release);
  detail::unref(n);  // the consumer's reference: the frame's node goes (and the mapping, if it was the last)
  unref_consumer(c);
}

}  // namespace

void detail::RingConsumerTraits::free(RingConsumer* c) noexcept { unref_consumer(c); }

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
                                                {0}, {tail_word(0, 0)}};
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
  auto* side = detail::make_node<RingConsumer>();
  if (side == nullptr) return fail(Errc::out_of_host_memory, "no memory for the ring's consumer record");
  side->take_back = &take_back_frame;
  side->tail = &c->tail;
  // A new epoch: from here on only this consumer moves the consumed count on.
  std::uint64_t word = c->tail.load(std::memory_order_acquire);
  while (!c->tail.compare_exchange_weak(word, tail_word(epoch_of(word) + 1, count_of(word)),
                                        std::memory_order_acq_rel, std::memory_order_acquire)) {
  }
  side->epoch = (epoch_of(word) + 1) & 0xffffu;
  SharedFrameRing ring;
  ring.control_ = c;
  ring.memory_ = std::move(memory);
  ring.frames_offset_ = static_cast<std::size_t>(offset);
  ring.frame_bytes_ = static_cast<std::size_t>(bytes);
  ring.frame_count_ = static_cast<std::uint32_t>(count);
  ring.next_ = count_of(word);
  ring.side_.reset(side);
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
  if (!producer && epoch_of(control_->tail.load(std::memory_order_acquire)) != side_.get()->epoch)
    return fail(Errc::released, "another consumer attached to the ring since: this one was replaced");
  return {};
}

Result<Buffer> SharedFrameRing::frame(std::uint64_t index) const noexcept {
  return memory_.sub(frames_offset_ + static_cast<std::size_t>(index % frame_count_) * frame_bytes_, frame_bytes_);
}

Result<Buffer> SharedFrameRing::acquire() noexcept {
  EDGEMEM_TRY(check_role(true, nullptr));
  if (held_.valid()) return fail(Errc::busy, "the frame acquired before is not published yet");
  const std::uint64_t head = control_->head.load(std::memory_order_relaxed);
  if (((head - control_->tail.load(std::memory_order_acquire)) & kCountMask) >= frame_count_)
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
  // next_, not the shared consumed count: a consumed frame still held has not gone back yet.
  if (control_->head.load(std::memory_order_acquire) == next_) return fail(Errc::exhausted, "no published frame");
  EDGEMEM_TRY_ASSIGN(Buffer f, frame(next_));
  EDGEMEM_TRY(touch(q, f, Access::write_discard));
  // Owned by nobody until consumed() names its owner: handles dropped before that hand nothing back.
  detail::node_of(f)->ownership = detail::NodeOwnership::pool_block;
  EDGEMEM_TRY_ASSIGN(Buffer mine, f.sub(0, frame_bytes_));
  held_ = std::move(f);
  current_ = next_++;
  return mine;
}

Result<void> SharedFrameRing::consumed(Queue& q) noexcept {
  EDGEMEM_TRY(check_role(false, &q));
  if (!held_.valid()) return fail(Errc::invalid_argument, "no frame taken");
  if (side_.get()->pending.load(std::memory_order_acquire) != 0)
    return fail(Errc::busy, "the frame consumed before is still held (a handle or a DLPack tensor): it goes back first");
  // A write_discard map: it waits for every command on the frame, this process's reads on other
  // queues included (a read map would wait only for writers), and the bytes are no longer needed.
  EDGEMEM_TRY(touch(q, held_, Access::write_discard));
  // The frame goes back when only the consumer's own reference is left: at once below when the ring's
  // handle was the last holder, else from the last holder's destructor or deleter (take_back_frame).
  MemNode* n = detail::node_of(held_);
  side_.get()->replaced.store(false, std::memory_order_relaxed);
  side_.get()->pending.store(current_ + 1, std::memory_order_release);
  side_.get()->refs.fetch_add(1, std::memory_order_relaxed);  // the frame's, let go by take_back_frame
  detail::retain(n);                                    // the consumer's reference on the frame
  n->owner.store(side_.get(), std::memory_order_release);
  held_ = Buffer();
  if (side_.get()->pending.load(std::memory_order_acquire) == 0 && side_.get()->replaced.load(std::memory_order_relaxed))
    return fail(Errc::released, "another consumer attached to the ring since: the frame was not handed back");
  return {};
}

std::uint64_t SharedFrameRing::published() const noexcept {
  // A moved-from ring keeps a stale control_ (its moves are the defaults): valid() says whether it is ours.
  return valid() ? control_->head.load(std::memory_order_acquire) : 0;
}

std::uint64_t SharedFrameRing::consumed_count() const noexcept {
  return valid() ? count_of(control_->tail.load(std::memory_order_acquire)) : 0;
}

}  // namespace edgemem
