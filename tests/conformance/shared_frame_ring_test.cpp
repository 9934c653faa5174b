// SharedFrameRing (shared_frame_ring.hpp, issue #17) in one process: the producer's and the
// consumer's side over one exported memory, frames in order with their bytes, a full and an empty
// ring, a re-attached consumer, and every Errc. Two processes: tests/ipc.
#include <cstring>
#include <utility>

#include "external_helpers.hpp"
#include "test_helpers.hpp"

using namespace edgemem;

TEST_CASE("shared ring: frames go from producer to consumer in order; full, empty and re-attach") {
  emt::Fixture f;
  auto ring = SharedFrameRing::create(f.ctx, 1000, 3);
  if (!f.ctx.info().caps.unified_memory) {
    CHECK_ERRC(ring, Errc::unsupported);
    return;
  }
  REQUIRE_OK(ring);
  CHECK(ring->frame_bytes() % f.align() == 0);
  CHECK(ring->frame_bytes() >= 1000);
  CHECK(ring->frame_count() == 3);
  auto h = ring->export_handle();
  REQUIRE_OK(h);
  auto consumer = SharedFrameRing::attach(f.ctx, std::move(*h));
  REQUIRE_OK(consumer);
  CHECK(consumer->frame_bytes() == ring->frame_bytes());
  CHECK(consumer->frame_count() == 3);
  CHECK_ERRC(consumer->take(f.q), Errc::exhausted);
  std::vector<emt::Bytes> sent;
  for (int i = 0; i < 3; ++i) {
    auto frame = ring->acquire();
    REQUIRE_OK(frame);
    CHECK(ring->frame_index() == static_cast<std::uint64_t>(i));
    CHECK_ERRC(ring->acquire(), Errc::busy);
    sent.push_back(emt::random_bytes(frame->size()));
    CHECK_OK(f.q.write(*frame, 0, sent.back().data(), frame->size()));
    CHECK_OK(ring->publish(f.q));
  }
  CHECK_ERRC(ring->acquire(), Errc::exhausted);  // full: nothing consumed yet
  CHECK(ring->published() == 3);
  for (int i = 0; i < 2; ++i) {
    auto frame = consumer->take(f.q);
    REQUIRE_OK(frame);
    CHECK(consumer->frame_index() == static_cast<std::uint64_t>(i));
    CHECK_ERRC(consumer->take(f.q), Errc::busy);
    CHECK(f.snapshot(*frame) == sent[static_cast<std::size_t>(i)]);
    CHECK_OK(consumer->consumed(f.q));
  }
  CHECK(ring->consumed_count() == 2);
  // A consumer that attaches again resumes at the first unconsumed frame.
  auto h2 = ring->export_handle();
  REQUIRE_OK(h2);
  auto again = SharedFrameRing::attach(f.ctx, std::move(*h2));
  REQUIRE_OK(again);
  auto third = again->take(f.q);
  REQUIRE_OK(third);
  CHECK(again->frame_index() == 2);
  CHECK(f.snapshot(*third) == sent[2]);
  CHECK_OK(again->consumed(f.q));
  // The producer reuses frames the consumer handed back.
  auto fourth = ring->acquire();
  REQUIRE_OK(fourth);
  CHECK(ring->frame_index() == 3);
}

TEST_CASE("shared ring: bad calls get their Errc and change nothing") {
  emt::Fixture f;
  if (!f.ctx.info().caps.unified_memory) return;
  CHECK_ERRC(SharedFrameRing::create(Context{}, 64, 2), Errc::released);
  CHECK_ERRC(SharedFrameRing::create(f.ctx, 0, 2), Errc::invalid_argument);
  CHECK_ERRC(SharedFrameRing::create(f.ctx, 64, 0), Errc::invalid_argument);
  CHECK_ERRC(SharedFrameRing::create(f.ctx, 64, (1u << 20) + 1), Errc::invalid_argument);
  CHECK_ERRC(SharedFrameRing::create(f.ctx, SIZE_MAX / 2, 4), Errc::out_of_range);
  CHECK_ERRC(SharedFrameRing::create(f.ctx, f.ctx.info().max_alloc_bytes, 2), Errc::out_of_range);
  SharedFrameRing empty;
  CHECK_FALSE(empty.valid());
  CHECK_ERRC(empty.acquire(), Errc::released);
  CHECK_ERRC(empty.publish(f.q), Errc::released);
  CHECK_ERRC(empty.take(f.q), Errc::released);
  CHECK_ERRC(empty.consumed(f.q), Errc::released);
  CHECK_ERRC(empty.export_handle(), Errc::released);
  CHECK(empty.published() == 0);
  auto ring = SharedFrameRing::create(f.ctx, 256, 2);
  REQUIRE_OK(ring);
  auto h = ring->export_handle();
  REQUIRE_OK(h);
  auto consumer = SharedFrameRing::attach(f.ctx, std::move(*h));
  REQUIRE_OK(consumer);
  // Roles.
  CHECK_ERRC(ring->take(f.q), Errc::invalid_argument);
  CHECK_ERRC(ring->consumed(f.q), Errc::invalid_argument);
  CHECK_ERRC(consumer->acquire(), Errc::invalid_argument);
  CHECK_ERRC(consumer->publish(f.q), Errc::invalid_argument);
  // Nothing held.
  CHECK_ERRC(ring->publish(f.q), Errc::invalid_argument);
  CHECK_ERRC(consumer->consumed(f.q), Errc::invalid_argument);
  // Queues.
  Queue released;
  auto frame = ring->acquire();
  REQUIRE_OK(frame);
  CHECK_ERRC(ring->publish(released), Errc::released);
  emt::OtherContext other(64);
  CHECK_ERRC(ring->publish(other.q), Errc::invalid_argument);
  CHECK(ring->published() == 0);
  CHECK_OK(ring->publish(f.q));
  CHECK(ring->published() == 1);
  // Memory that holds no ring, and a handle used twice.
  auto plain = Buffer::create_exportable(f.ctx, 4096);
  REQUIRE_OK(plain);
  auto ph = plain->export_handle();
  REQUIRE_OK(ph);
  CHECK_ERRC(SharedFrameRing::attach(f.ctx, std::move(*ph)), Errc::invalid_argument);
  CHECK_ERRC(SharedFrameRing::attach(f.ctx, std::move(*ph)), Errc::released);
  // A moved-from ring is empty; the moved-to one works.
  SharedFrameRing moved = std::move(*consumer);
  CHECK_FALSE(consumer->valid());
  CHECK_ERRC(consumer->take(f.q), Errc::released);
  auto got = moved.take(f.q);
  CHECK_OK(got);
}
