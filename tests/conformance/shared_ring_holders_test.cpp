// SharedFrameRing (shared_frame_ring.hpp) and who holds a frame (issue #29.3 and "to settle" c): a
// consumed frame goes back to the producer only once its last holder in the consumer's process let
// go (the handle take() returned, a sub-buffer of it, a DLPack tensor, whose deleter may run on
// another thread); a consumer replaced by a newer attach can neither take nor hand back a frame.
// Each race is played in order on one thread (the "other side" held at a known point): a hung
// consumer is one that simply makes its next call late.
#include <edgemem/config.hpp>

#include <cstring>
#include <string>
#include <thread>
#include <utility>

#if EDGEMEM_HAS_DLPACK
#include <edgemem/dlpack.hpp>
#endif

#include "external_helpers.hpp"
#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// A producer ring of `count` frames with a consumer attached, or neither on a device without
/// exportable memory (then `ok` is false and the test has checked `unsupported`).
struct RingPair {
  emt::Fixture& f;
  SharedFrameRing producer;
  SharedFrameRing consumer;
  bool ok = false;
  RingPair(emt::Fixture& fx, std::uint32_t count) : f(fx) {
    auto ring = SharedFrameRing::create(f.ctx, 64, count);
    if (!f.ctx.info().caps.unified_memory) {
      CHECK_ERRC(ring, Errc::unsupported);
      return;
    }
    REQUIRE_OK(ring);
    producer = std::move(*ring);
    consumer = attach();
    ok = consumer.valid();
  }
  /// Another consumer of the same ring (a restarted process).
  SharedFrameRing attach() {
    auto h = producer.export_handle();
    CHECK_OK(h);
    if (!h) return SharedFrameRing();
    auto c = SharedFrameRing::attach(f.ctx, std::move(*h));
    CHECK_OK(c);
    return c ? std::move(*c) : SharedFrameRing();
  }
  /// Publishes one frame holding the text "frame <its index>".
  void publish() {
    auto fr = producer.acquire();
    REQUIRE_OK(fr);
    char text[64] = {};
    std::snprintf(text, sizeof text, "frame %llu", static_cast<unsigned long long>(producer.frame_index()));
    REQUIRE_OK(f.q.write(*fr, 0, text, sizeof text));
    REQUIRE_OK(producer.publish(f.q));
  }
  /// The text a frame holds.
  std::string text(const Buffer& fr) {
    char text[64] = {};
    CHECK_OK(f.q.read(fr, 0, text, sizeof text));
    text[63] = 0;
    return text;
  }
};

}  // namespace

TEST_CASE("shared ring holders: the consumer's handle and its sub-buffers keep a consumed frame (#29.3)") {
  emt::Fixture f;
  RingPair r(f, 2);
  if (!r.ok) return;
  r.publish();
  r.publish();
  auto fr = r.consumer.take(f.q);
  REQUIRE_OK(fr);
  CHECK(r.text(*fr) == "frame 0");
  auto part = fr->sub(0, f.align());
  REQUIRE_OK(part);
  CHECK_OK(r.consumer.consumed(f.q));
  CHECK(r.producer.consumed_count() == 0);  // before #29.3: 1, and the producer took the frame back
  CHECK_ERRC(r.producer.acquire(), Errc::exhausted);
  *fr = Buffer();
  CHECK(r.producer.consumed_count() == 0);  // the sub-buffer still holds it
  *part = Buffer();
  CHECK(r.producer.consumed_count() == 1);  // the last holder went: the frame is back
  auto again = r.producer.acquire();
  REQUIRE_OK(again);
  CHECK(r.producer.frame_index() == 2);
  // A frame consumed with nothing else holding it goes back at once, as before.
  auto next = r.consumer.take(f.q);
  REQUIRE_OK(next);
  CHECK(r.text(*next) == "frame 1");
  *next = Buffer();
  CHECK_OK(r.consumer.consumed(f.q));
  CHECK(r.producer.consumed_count() == 2);
}

TEST_CASE("shared ring holders: the next frame may be taken while one consumed goes back; they go back in order") {
  emt::Fixture f;
  RingPair r(f, 3);
  if (!r.ok) return;
  for (int i = 0; i < 3; ++i) r.publish();
  auto first = r.consumer.take(f.q);
  REQUIRE_OK(first);
  CHECK_OK(r.consumer.consumed(f.q));
  // The usual loop `fr = take(q)` takes the next frame while the old handle still lives.
  auto second = r.consumer.take(f.q);
  REQUIRE_OK(second);
  CHECK(r.consumer.frame_index() == 1);
  CHECK(r.text(*second) == "frame 1");
  CHECK_ERRC(r.consumer.consumed(f.q), Errc::busy);  // frame 0 is still held: it goes back first
  CHECK(r.producer.consumed_count() == 0);
  *first = Buffer();
  CHECK(r.producer.consumed_count() == 1);
  *second = Buffer();
  CHECK_OK(r.consumer.consumed(f.q));
  CHECK(r.producer.consumed_count() == 2);
}

TEST_CASE("shared ring holders: a moved-from ring is empty and reads nothing of the shared memory, even once its "
          "successor is gone") {
  emt::Fixture f;
  RingPair r(f, 2);
  if (!r.ok) return;
  r.publish();
  SharedFrameRing moved = std::move(r.producer);
  CHECK(moved.published() == 1);
  CHECK_FALSE(r.producer.valid());
  CHECK(r.producer.published() == 0);
  CHECK(r.producer.consumed_count() == 0);
  CHECK(r.producer.frame_bytes() == 0);
  CHECK(r.producer.frame_count() == 0);
  CHECK_ERRC(r.producer.export_handle(), Errc::released);
  moved = SharedFrameRing();  // the producer's mapping goes with its last holder here
  r.consumer = SharedFrameRing();
  CHECK(r.producer.published() == 0);  // nothing read from the unmapped memory
  CHECK(r.producer.consumed_count() == 0);
}

TEST_CASE("shared ring holders: a frame taken and never consumed is not handed back when the consumer goes") {
  emt::Fixture f;
  RingPair r(f, 2);
  if (!r.ok) return;
  r.publish();
  auto fr = r.consumer.take(f.q);
  REQUIRE_OK(fr);
  r.consumer = SharedFrameRing();  // dies before consumed()
  *fr = Buffer();
  CHECK(r.producer.consumed_count() == 0);
  SharedFrameRing restarted = r.attach();
  auto seen = restarted.take(f.q);
  REQUIRE_OK(seen);
  CHECK(restarted.frame_index() == 0);  // seen again, as after a death
  CHECK(r.text(*seen) == "frame 0");
}

TEST_CASE("shared ring holders: a replaced (hung) consumer can neither take nor hand back a frame (#29 c)") {
  emt::Fixture f;
  RingPair r(f, 3);
  if (!r.ok) return;
  r.publish();
  r.publish();
  auto hung = r.consumer.take(f.q);  // the first consumer takes frame 0 and hangs
  REQUIRE_OK(hung);
  SharedFrameRing replacement = r.attach();  // its restarted replacement
  auto fr = replacement.take(f.q);
  REQUIRE_OK(fr);
  CHECK(replacement.frame_index() == 0);  // the frame the hung one had, seen again
  // The hung consumer wakes up: before the fix its consumed() moved the ring on under the replacement,
  // which was still reading frame 0, and its take() then took frame 1 too.
  CHECK_ERRC(r.consumer.consumed(f.q), Errc::released);
  CHECK(r.producer.consumed_count() == 0);
  *hung = Buffer();
  CHECK_ERRC(r.consumer.take(f.q), Errc::released);
  CHECK(r.producer.consumed_count() == 0);
  *fr = Buffer();
  CHECK_OK(replacement.consumed(f.q));
  CHECK(r.producer.consumed_count() == 1);
  auto next = replacement.take(f.q);
  REQUIRE_OK(next);
  CHECK(replacement.frame_index() == 1);
  CHECK(r.text(*next) == "frame 1");
}

TEST_CASE("shared ring holders: a consumer replaced while its consumed frame is still held hands nothing back (#29 c)") {
  emt::Fixture f;
  RingPair r(f, 2);
  if (!r.ok) return;
  r.publish();
  auto fr = r.consumer.take(f.q);
  REQUIRE_OK(fr);
  CHECK_OK(r.consumer.consumed(f.q));  // consumed, but its handle still holds the frame
  SharedFrameRing replacement = r.attach();
  *fr = Buffer();  // the last holder goes after the replacement attached: nothing goes back
  CHECK(r.producer.consumed_count() == 0);
  auto seen = replacement.take(f.q);
  REQUIRE_OK(seen);
  CHECK(replacement.frame_index() == 0);
  *seen = Buffer();
  CHECK_OK(replacement.consumed(f.q));
  CHECK(r.producer.consumed_count() == 1);
}

#if EDGEMEM_HAS_DLPACK
TEST_CASE("shared ring holders: a frame a DLPack tensor holds is not handed back until its deleter ran (#29.3)") {
  emt::Fixture f;
  RingPair r(f, 2);
  if (!r.ok) return;
  r.publish();
  r.publish();
  auto fr = r.consumer.take(f.q);
  REQUIRE_OK(fr);
  const std::int64_t shape[1] = {64};
  auto t = to_dlpack(*fr, DLDataType{kDLUInt, 8, 1}, shape, 1);
  REQUIRE_OK(t);
  *fr = Buffer();  // only the tensor holds the frame now
  CHECK_OK(r.consumer.consumed(f.q));
  CHECK(r.producer.consumed_count() == 0);
  // Before the fix the producer got frame 0 back here and wrote "frame 2" under the live tensor.
  auto refused = r.producer.acquire();
  CHECK_ERRC(refused, Errc::exhausted);
  CHECK(std::strcmp(static_cast<const char*>((*t)->dl_tensor.data), "frame 0") == 0);
  (*t)->deleter(*t);
  CHECK(r.producer.consumed_count() == 1);
  r.publish();  // frame 2, into frame 0's memory, now that nobody reads it
  CHECK(r.producer.frame_index() == 2);
}

TEST_CASE("shared ring holders threads: a tensor's deleter on another thread hands the frame back there; the ring may go first") {
  emt::Fixture f;
  RingPair r(f, 2);
  if (!r.ok) return;
  r.publish();
  auto fr = r.consumer.take(f.q);
  REQUIRE_OK(fr);
  const std::int64_t shape[1] = {64};
  auto t = to_dlpack(*fr, DLDataType{kDLUInt, 8, 1}, shape, 1);
  REQUIRE_OK(t);
  *fr = Buffer();
  CHECK_OK(r.consumer.consumed(f.q));
  r.consumer = SharedFrameRing();  // the consumer's ring goes before the tensor
  CHECK(r.producer.consumed_count() == 0);
  DLManagedTensor* tensor = *t;
  std::thread([tensor] { tensor->deleter(tensor); }).join();
  CHECK(r.producer.consumed_count() == 1);
}
#endif
