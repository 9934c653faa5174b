// Bad inputs to SharedFrameRing (shared_frame_ring.hpp): create, attach, acquire, publish, take and
// consumed, with the producer and the consumer in one process. Every case also counts open fds and
// re-reads a recorded memfd import (ExtScene), and watches the ring's shared indices. A ring needs
// exportable memory: on a device without unified memory a case checks create's unsupported answer
// and ends there. attach's checks of foreign memory use handles over the case's own memfds and run
// on every device. Run them with -tc='bad_input: SharedFrameRing*'.
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>

#include "bad_input/external_scene.hpp"

using namespace edgemem;
using emt::bad::ext::ExtScene;

namespace {

constexpr std::uint32_t kFrames = 3;

/// A producer ring and a consumer attached to it, both tracked (indices, frame index) across bad calls.
struct RingPair {
  SharedFrameRing producer, consumer;
  bool ok = false;

  explicit RingPair(ExtScene& e) {
    if (!e.f.ctx.info().caps.unified_memory) {
      MESSAGE("the device has no unified memory: checking SharedFrameRing::create's unsupported answer");
      e.expect(Errc::unsupported, [&] { return SharedFrameRing::create(e.f.ctx, 1000, kFrames); });
      return;
    }
    auto p = SharedFrameRing::create(e.f.ctx, 1000, kFrames);
    CHECK_MESSAGE(static_cast<bool>(p), "SharedFrameRing::create -> " << emt::describe(p));
    if (!p) return;
    producer = std::move(*p);
    auto h = producer.export_handle();
    CHECK_MESSAGE(static_cast<bool>(h), "export_handle -> " << emt::describe(h));
    if (!h) return;
    auto c = SharedFrameRing::attach(e.f.ctx, std::move(*h));
    CHECK_MESSAGE(static_cast<bool>(c), "SharedFrameRing::attach -> " << emt::describe(c));
    if (!c) return;
    consumer = std::move(*c);
    e.track("SharedFrameRing state", [this] { return state(); });
    ok = true;
  }
  std::string state() const {
    std::ostringstream o;
    o << "published " << producer.published() << ", consumed " << producer.consumed_count() << ", producer frame "
      << producer.frame_index() << ", consumer frame " << consumer.frame_index() << ", consumer sees "
      << consumer.published() << "/" << consumer.consumed_count();
    return o.str();
  }
  /// Acquires, writes and publishes `n` frames (outside any expect).
  bool publish(ExtScene& e, unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      auto f = producer.acquire();
      if (!f) return false;
      const emt::Bytes bytes = emt::random_bytes(f->size());
      if (!e.f.q.write(*f, 0, bytes.data(), bytes.size()) || !producer.publish(e.f.q)) return false;
    }
    return true;
  }
};

}  // namespace

// ---- create ----------------------------------------------------------------------------------------

BAD_INPUT("SharedFrameRing::create: released context") {
  ExtScene e;
  auto gone = Context::create();
  REQUIRE_OK(gone);
  CHECK_OK(gone->release());
  e.expect(Errc::released, [&] { return SharedFrameRing::create(*gone, 1000, kFrames); });
  e.expect(Errc::released, [&] { return SharedFrameRing::create(Context{}, 0, 0); });  // before the sizes
}

BAD_INPUT("SharedFrameRing::create: zero frame bytes or zero frames") {
  ExtScene e;  // the arguments are checked before the capability: the same answer on every device
  e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::create(e.f.ctx, 0, kFrames); });
  e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::create(e.f.ctx, 1000, 0); });
  e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::create(e.f.ctx, 0, 0); });
}

BAD_INPUT("SharedFrameRing::create: more than 2^20 frames") {
  ExtScene e;
  e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::create(e.f.ctx, 64, (1u << 20) + 1); });
  e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::create(e.f.ctx, 64, UINT32_MAX); });
}

BAD_INPUT("SharedFrameRing::create: a ring whose size overflows") {
  ExtScene e;
  e.expect(Errc::out_of_range, [&] { return SharedFrameRing::create(e.f.ctx, SIZE_MAX / 2, 4); });
  e.expect(Errc::out_of_range, [&] { return SharedFrameRing::create(e.f.ctx, SIZE_MAX, 1); });
  e.expect(Errc::out_of_range, [&] { return SharedFrameRing::create(e.f.ctx, SIZE_MAX / 8, 1u << 20); });
}

BAD_INPUT("SharedFrameRing::create: a ring over the device's max allocation") {
  ExtScene e;
  const std::size_t max = e.f.ctx.info().max_alloc_bytes;
  e.expect(Errc::out_of_range, [&] { return SharedFrameRing::create(e.f.ctx, max, 2); });
  e.expect(Errc::out_of_range, [&] { return SharedFrameRing::create(e.f.ctx, max, 1); });  // + its control block
  e.expect(Errc::out_of_range, [&] { return SharedFrameRing::create(e.f.ctx, max / 4 + 1, 4); });
}

BAD_INPUT("SharedFrameRing::create: a device without unified memory") {
  ExtScene e;
  RingPair r(e);  // checks the unsupported answer on such a device
  if (r.ok) MESSAGE("the device has unified memory: create and attach succeed");
}

// ---- attach ----------------------------------------------------------------------------------------

BAD_INPUT("SharedFrameRing::attach: an empty or already used handle") {
  ExtScene e;
  e.expect(Errc::released, [&] { return SharedFrameRing::attach(e.f.ctx, IpcHandle{}); });
  IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(0, e.page));
  IpcHandle moved = std::move(h);
  e.expect(Errc::released, [&] { return SharedFrameRing::attach(e.f.ctx, std::move(h)); });
  e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::attach(e.f.ctx, std::move(moved)); }, -1);
  e.expect(Errc::released, [&] { return SharedFrameRing::attach(e.f.ctx, std::move(moved)); });  // used
}

BAD_INPUT("SharedFrameRing::attach: memory that holds no ring (zeros, random bytes)") {
  ExtScene e;
  IpcHandle zeros = e.handle_of(4 * e.page, emt::Seals::fixed, e.descriptor(0, 4 * e.page));
  e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::attach(e.f.ctx, std::move(zeros)); }, -1);
  const int fd = emt::make_memfd(4 * e.page, emt::Seals::fixed);
  const emt::Bytes junk = emt::random_bytes(4 * e.page);
  REQUIRE(pwrite(fd, junk.data(), junk.size(), 0) == static_cast<ssize_t>(junk.size()));
  auto random = IpcHandle::adopt(fd, e.descriptor(0, 4 * e.page));
  REQUIRE_OK(random);
  e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::attach(e.f.ctx, std::move(*random)); }, -1);
}

BAD_INPUT("SharedFrameRing::attach: memory too small for a ring's control block") {
  ExtScene e;
  for (const std::size_t n : {std::size_t{1}, std::size_t{16}}) {
    IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(0, n));
    e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::attach(e.f.ctx, std::move(h)); }, -1);
  }
}

BAD_INPUT("SharedFrameRing::attach: a handle smaller than its ring's layout") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  auto h = r.producer.export_handle();
  REQUIRE_OK(h);
  IpcDescriptor d = h->descriptor();
  d.bytes = e.f.align() * 2;  // the control block and less than a frame
  auto small = IpcHandle::adopt(h->release_fd(), d);
  REQUIRE_OK(small);
  e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::attach(e.f.ctx, std::move(*small)); }, -1);
}

BAD_INPUT("SharedFrameRing::attach: a handle of a frame, not of the ring's memory") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  auto frame = r.producer.acquire();
  REQUIRE_OK(frame);
  // A frame is a view of the ring's memory: not exported on its own (#29.6) ...
  e.expect(Errc::access_denied, [&] { return frame->export_handle(); });
  // ... so a peer makes such a handle itself: the ring's fd, described as the frame's bytes.
  auto ring = r.producer.export_handle();
  REQUIRE_OK(ring);
  IpcDescriptor d = ring->descriptor();
  d.offset = frame->origin();
  d.bytes = frame->size();
  auto h = IpcHandle::adopt(ring->release_fd(), d);
  REQUIRE_OK(h);
  e.expect(Errc::invalid_argument, [&] { return SharedFrameRing::attach(e.f.ctx, std::move(*h)); }, -1);
}

// ---- the producer's and the consumer's calls -------------------------------------------------------

BAD_INPUT("SharedFrameRing: an empty ring answers released to every call") {
  ExtScene e;
  SharedFrameRing empty;
  e.expect(Errc::released, [&] { return empty.acquire(); });
  e.expect(Errc::released, [&] { return empty.publish(e.f.q); });
  e.expect(Errc::released, [&] { return empty.take(e.f.q); });
  e.expect(Errc::released, [&] { return empty.consumed(e.f.q); });
  e.expect(Errc::released, [&] { return empty.export_handle(); });
}

BAD_INPUT("SharedFrameRing: wrong roles (the consumer acquires or publishes, the producer takes)") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  REQUIRE(r.publish(e, 1));
  e.expect(Errc::invalid_argument, [&] { return r.consumer.acquire(); });
  e.expect(Errc::invalid_argument, [&] { return r.consumer.publish(e.f.q); });
  e.expect(Errc::invalid_argument, [&] { return r.producer.take(e.f.q); });
  e.expect(Errc::invalid_argument, [&] { return r.producer.consumed(e.f.q); });
}

BAD_INPUT("SharedFrameRing::acquire: the ring is full") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  REQUIRE(r.publish(e, kFrames));
  e.expect(Errc::exhausted, [&] { return r.producer.acquire(); });
  e.expect(Errc::exhausted, [&] { return r.producer.acquire(); });  // still full, still nothing changed
}

BAD_INPUT("SharedFrameRing::take: the ring is empty") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  e.expect(Errc::exhausted, [&] { return r.consumer.take(e.f.q); });
  auto f = r.producer.acquire();  // acquired is not published
  REQUIRE_OK(f);
  e.expect(Errc::exhausted, [&] { return r.consumer.take(e.f.q); });
}

BAD_INPUT("SharedFrameRing::acquire and take: busy (the frame before is not handed on)") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  REQUIRE(r.publish(e, 1));
  auto mine = r.producer.acquire();
  REQUIRE_OK(mine);
  e.expect(Errc::busy, [&] { return r.producer.acquire(); });
  auto taken = r.consumer.take(e.f.q);
  REQUIRE_OK(taken);
  e.expect(Errc::busy, [&] { return r.consumer.take(e.f.q); });
}

BAD_INPUT("SharedFrameRing::publish and consumed: no frame acquired or taken") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  e.expect(Errc::invalid_argument, [&] { return r.producer.publish(e.f.q); });
  e.expect(Errc::invalid_argument, [&] { return r.consumer.consumed(e.f.q); });
  REQUIRE(r.publish(e, 1));  // published once: publishing again needs a new acquire
  e.expect(Errc::invalid_argument, [&] { return r.producer.publish(e.f.q); });
}

BAD_INPUT("SharedFrameRing::publish, take and consumed: a queue of another context") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  emt::OtherContext other(64);
  auto f = r.producer.acquire();
  REQUIRE_OK(f);
  e.expect(Errc::invalid_argument, [&] { return r.producer.publish(other.q); });
  REQUIRE_OK_DO(r.producer.publish(e.f.q));
  e.expect(Errc::invalid_argument, [&] { return r.consumer.take(other.q); });
  auto t = r.consumer.take(e.f.q);
  REQUIRE_OK(t);
  e.expect(Errc::invalid_argument, [&] { return r.consumer.consumed(other.q); });
  CHECK(other.unchanged());
}

BAD_INPUT("SharedFrameRing::publish, take and consumed: a released queue") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  Queue released;
  auto f = r.producer.acquire();
  REQUIRE_OK(f);
  e.expect(Errc::released, [&] { return r.producer.publish(released); });
  REQUIRE_OK_DO(r.producer.publish(e.f.q));
  e.expect(Errc::released, [&] { return r.consumer.take(released); });
  auto t = r.consumer.take(e.f.q);
  REQUIRE_OK(t);
  e.expect(Errc::released, [&] { return r.consumer.consumed(released); });
}

BAD_INPUT("SharedFrameRing::consumed: busy while the frame consumed before is still held (#29.3)") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  REQUIRE(r.publish(e, 2));
  auto first = r.consumer.take(e.f.q);
  REQUIRE_OK(first);
  REQUIRE_OK_DO(r.consumer.consumed(e.f.q));  // `first` still holds frame 0: it has not gone back
  auto second = r.consumer.take(e.f.q);
  REQUIRE_OK(second);
  e.expect(Errc::busy, [&] { return r.consumer.consumed(e.f.q); });  // frames go back in order
}

BAD_INPUT("SharedFrameRing::take and consumed: a consumer replaced by a newer attach (#29, to settle c)") {
  ExtScene e;
  RingPair r(e);
  if (!r.ok) return;
  REQUIRE(r.publish(e, 2));
  auto taken = r.consumer.take(e.f.q);
  REQUIRE_OK(taken);
  auto h = r.producer.export_handle();
  REQUIRE_OK(h);
  auto newer = SharedFrameRing::attach(e.f.ctx, std::move(*h));
  REQUIRE_OK(newer);
  e.expect(Errc::released, [&] { return r.consumer.consumed(e.f.q); });
  *taken = Buffer();
  e.expect(Errc::released, [&] { return r.consumer.take(e.f.q); });
}
