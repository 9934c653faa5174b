// FrameRing: producer/consumer order, overflow policies (refuse / drop_oldest), publish errors,
// take_for, release policy, and a two-thread pipeline checking every frame's contents.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <edgemem/fault.hpp>

#include "test_helpers.hpp"

using namespace edgemem;

// REQUIRE_OK evaluates its argument twice; this one evaluates a call once.
#ifndef REQUIRE_OK_CALL
#define REQUIRE_OK_CALL(expr)       \
  do {                              \
    auto emt_call_ = (expr);        \
    REQUIRE_OK(emt_call_);          \
  } while (false)
#endif

namespace {

/// Fills the whole frame with `tag` (as 32-bit words) through a write_discard mapping.
bool stamp(Queue& q, PooledBuffer& frame, std::uint32_t tag) {
  auto m = q.map<std::uint32_t>(frame, Access::write_discard, 0, frame.size() / 4 * 4);
  if (!m) return false;
  for (auto& w : *m) w = tag;
  return true;
}

/// Reads the frame's first word back.
std::uint32_t first_word(Queue& q, const PooledBuffer& frame) {
  std::uint32_t w = 0;
  return q.read(frame, 0, &w, sizeof w) ? w : 0;
}

}  // namespace

TEST_CASE("FrameRing: uninitialised, init errors, in-order hand-over") {
  emt::Fixture f;
  FrameRing<3> ring;
  CHECK_ERRC(ring.acquire(), Errc::released);
  CHECK_ERRC(ring.take(), Errc::released);
  CHECK_ERRC(ring.take_for(std::chrono::milliseconds(1)), Errc::released);
  CHECK_ERRC(ring.publish(PooledBuffer{}), Errc::released);
  CHECK_ERRC(ring.init(f.ctx, f.q, 0), Errc::invalid_argument);
  CHECK_ERRC(ring.init(f.ctx, f.q, 64, static_cast<Overflow>(7)), Errc::invalid_argument);
  Queue dead_q;
  CHECK_ERRC(ring.init(f.ctx, dead_q, 64), Errc::released);
  CHECK(ring.frame_bytes() == 0);

  REQUIRE_OK_CALL(ring.init(f.ctx, f.q, 256));
  CHECK(ring.frame_bytes() % f.align() == 0);
  CHECK(ring.frame_bytes() == (256 + f.align() - 1) / f.align() * f.align());
  CHECK(ring.stats().pool.block_bytes == ring.frame_bytes());
  {
    FrameRing<1> odd;  // a frame size that is not a multiple of the base alignment is rounded up
    REQUIRE_OK_CALL(odd.init(f.ctx, f.q, f.align() + 1));
    CHECK(odd.frame_bytes() == 2 * f.align());
    auto fr = odd.acquire();
    REQUIRE_OK(fr);
    CHECK(fr->size() == odd.frame_bytes());
  }
  CHECK_ERRC(ring.take(), Errc::exhausted);
  for (std::uint32_t i = 1; i <= 3; ++i) {
    auto fr = ring.acquire();
    REQUIRE_OK(fr);
    CHECK(stamp(f.q, *fr, 0xF0000000u + i));
    CHECK_OK(ring.publish(std::move(*fr)));
    CHECK_FALSE(fr->valid());
  }
  RingStats s = ring.stats();
  CHECK(s.published == 3);
  CHECK(s.pending == 3);
  CHECK(s.pool.in_use == 3);
  for (std::uint32_t i = 1; i <= 3; ++i) {
    auto fr = ring.take();
    REQUIRE_OK(fr);
    CHECK(first_word(f.q, *fr) == 0xF0000000u + i);  // publish order
  }  // each frame returns as it goes
  s = ring.stats();
  CHECK(s.taken == 3);
  CHECK(s.pending == 0);
  CHECK(s.pool.in_use == 0);
  CHECK(s.pool.high_water == 3);
}

TEST_CASE("FrameRing publish errors leave the frame with the producer") {
  emt::Fixture f;
  FrameRing<2> ring, other_ring;
  REQUIRE_OK_CALL(ring.init(f.ctx, f.q, 128));
  REQUIRE_OK_CALL(other_ring.init(f.ctx, f.q, 128));
  auto foreign = other_ring.acquire();
  REQUIRE_OK(foreign);
  CHECK_ERRC(ring.publish(std::move(*foreign)), Errc::invalid_argument);
  CHECK(foreign->valid());
  FixedPool<1> pool;
  REQUIRE_OK_CALL(pool.init(f.ctx, f.q, 128));
  auto pooled = pool.acquire();
  REQUIRE_OK(pooled);
  CHECK_ERRC(ring.publish(std::move(*pooled)), Errc::invalid_argument);
  CHECK(pooled->valid());

  auto fr = ring.acquire();
  REQUIRE_OK(fr);
  {
    auto m = f.q.map<unsigned char>(*fr, Access::write_discard);
    REQUIRE_OK(m);
    const RingStats s = ring.stats();
    CHECK_ERRC(ring.publish(std::move(*fr)), Errc::busy);  // still mapped
    CHECK(fr->valid());
    CHECK(ring.stats().published == s.published);
    CHECK(ring.stats().pending == 0);
  }
  CHECK_OK(ring.publish(std::move(*fr)));
  CHECK(ring.stats().pending == 1);
}

TEST_CASE("FrameRing overflow: refuse returns exhausted, drop_oldest reuses the oldest frame") {
  emt::Fixture f;
  FrameRing<2> refuse;
  REQUIRE_OK_CALL(refuse.init(f.ctx, f.q, 64, Overflow::refuse));
  for (int i = 0; i < 2; ++i) {
    auto fr = refuse.acquire();
    REQUIRE_OK(fr);
    CHECK_OK(refuse.publish(std::move(*fr)));
  }
  RingStats before = refuse.stats();
  CHECK_ERRC(refuse.acquire(), Errc::exhausted);
  RingStats after = refuse.stats();
  CHECK(after.refused == before.refused + 1);
  CHECK(after.pending == 2);
  CHECK(after.dropped == 0);
  CHECK(after.pool.in_use == 2);

  FrameRing<2> drop;
  REQUIRE_OK_CALL(drop.init(f.ctx, f.q, 64, Overflow::drop_oldest));
  for (std::uint32_t i = 1; i <= 2; ++i) {
    auto fr = drop.acquire();
    REQUIRE_OK(fr);
    CHECK(stamp(f.q, *fr, i));
    CHECK_OK(drop.publish(std::move(*fr)));
  }
  auto reused = drop.acquire();  // consumer behind: frame 1 is dropped and handed back
  REQUIRE_OK(reused);
  CHECK(first_word(f.q, *reused) == 1u);
  CHECK(drop.stats().dropped == 1);
  CHECK(drop.stats().pending == 1);
  CHECK(stamp(f.q, *reused, 3));
  CHECK_OK(drop.publish(std::move(*reused)));
  auto held = drop.take();
  REQUIRE_OK(held);
  CHECK(first_word(f.q, *held) == 2u);
  auto held2 = drop.take();
  REQUIRE_OK(held2);
  CHECK(first_word(f.q, *held2) == 3u);
  // Both frames with the consumer, none published: even drop_oldest has nothing to drop.
  before = drop.stats();
  CHECK_ERRC(drop.acquire(), Errc::exhausted);
  CHECK(drop.stats().refused == before.refused + 1);
  CHECK(drop.stats().dropped == before.dropped);
}

TEST_CASE("FrameRing drop_oldest: reusing the oldest frame is not a failed acquire; a refusal counts once") {
  emt::Fixture f;
  FrameRing<2> drop;
  REQUIRE_OK_CALL(drop.init(f.ctx, f.q, 64, Overflow::drop_oldest));
  for (int i = 0; i < 2; ++i) {
    auto fr = drop.acquire();
    REQUIRE_OK(fr);
    CHECK_OK(drop.publish(std::move(*fr)));
  }
  for (int i = 0; i < 5; ++i) {  // the consumer is behind: every acquire reuses the oldest frame
    auto fr = drop.acquire();
    REQUIRE_OK(fr);
    CHECK_OK(drop.publish(std::move(*fr)));
  }
  RingStats s = drop.stats();
  CHECK(s.dropped == 5);
  CHECK(s.refused == 0);
  CHECK(s.pool.failed_acquires == 0);
  auto a = drop.take();
  auto b = drop.take();
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  CHECK_ERRC(drop.acquire(), Errc::exhausted);  // both frames with the consumer: a real failure
  s = drop.stats();
  CHECK(s.refused == 1);
  CHECK(s.pool.failed_acquires == 1);

  FrameRing<1> refuse;
  REQUIRE_OK_CALL(refuse.init(f.ctx, f.q, 64, Overflow::refuse));
  auto only = refuse.acquire();
  REQUIRE_OK(only);
  CHECK_ERRC(refuse.acquire(), Errc::exhausted);
  CHECK(refuse.stats().refused == 1);
  CHECK(refuse.stats().pool.failed_acquires == 1);
}

TEST_CASE("FrameRing take_for and release") {
  emt::Fixture f;
  FrameRing<2> ring;
  REQUIRE_OK_CALL(ring.init(f.ctx, f.q, 64));
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_ERRC(ring.take_for(std::chrono::milliseconds(20)), Errc::exhausted);
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(20));

  auto held = ring.acquire();
  REQUIRE_OK(held);
  auto pending = ring.acquire();
  REQUIRE_OK(pending);
  CHECK_OK(ring.publish(std::move(*pending)));
  CHECK_ERRC(ring.release(), Errc::busy);  // the producer still holds a frame
  CHECK(ring.stats().pending == 1);
  *held = PooledBuffer{};
  CHECK_OK(ring.release());  // drops the unconsumed frame
  CHECK(ring.frame_bytes() == 0);
  CHECK_ERRC(ring.acquire(), Errc::released);
  CHECK_OK(ring.release());
  REQUIRE_OK_CALL(ring.init(f.ctx, f.q, 64));
  CHECK(ring.stats().published == 0);
}

TEST_CASE("FrameRing::take_for(nanoseconds::max()) waits for a publish from another thread (threads)") {
  emt::Fixture f;
  FrameRing<2> ring;
  REQUIRE_OK_CALL(ring.init(f.ctx, f.q, 64));
  // now + timeout used to overflow (UBSan) and answer exhausted at once.
  CHECK_ERRC(ring.take_for(std::chrono::nanoseconds::min()), Errc::exhausted);
  CHECK_ERRC(ring.take_for(std::chrono::nanoseconds::zero()), Errc::exhausted);
  auto fr = ring.acquire();
  REQUIRE_OK(fr);
  CHECK(stamp(f.q, *fr, 77u));
  std::atomic<bool> published{false};
  bool publish_ok = false;
  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    published.store(true);
    publish_ok = static_cast<bool>(ring.publish(std::move(*fr)));
  });
  auto got = ring.take_for(std::chrono::nanoseconds::max());
  const bool after_publish = published.load();
  producer.join();
  CHECK(publish_ok);
  REQUIRE_OK(got);
  CHECK(after_publish);
  CHECK(first_word(f.q, *got) == 77u);
}

TEST_CASE("FrameRing: two threads, every frame arrives intact and in order") {
  emt::Fixture f;
  for (Overflow policy : {Overflow::refuse, Overflow::drop_oldest}) {
    CAPTURE(static_cast<int>(policy));
    FrameRing<4> ring;
    REQUIRE_OK_CALL(ring.init(f.ctx, f.q, 4 * f.align(), policy));
    constexpr std::uint32_t kFrames = 3000;
    std::atomic<bool> producer_done{false};
    std::atomic<int> errors{0};
    std::thread producer([&] {
      auto q = Queue::create(f.ctx);
      if (!q) {
        errors.fetch_add(1);
        producer_done = true;
        return;
      }
      for (std::uint32_t seq = 1; seq <= kFrames;) {
        auto fr = ring.acquire();
        if (!fr) {
          if (fr.error().code != Errc::exhausted) errors.fetch_add(1);
          std::this_thread::yield();
          continue;
        }
        if (!stamp(*q, *fr, seq) || !ring.publish(std::move(*fr))) errors.fetch_add(1);
        ++seq;
      }
      producer_done = true;
    });
    std::uint32_t last = 0, received = 0, bad = 0;
    std::vector<std::uint32_t> words(4 * f.align() / 4);
    for (;;) {
      auto fr = ring.take_for(std::chrono::milliseconds(5));
      if (!fr) {
        if (producer_done.load() && ring.stats().pending == 0) break;
        continue;
      }
      if (!f.q.read(*fr, 0, words.data(), words.size() * 4)) ++bad;
      for (std::uint32_t w : words) bad += (w != words[0]);  // a frame is never torn
      if (words[0] <= last) ++bad;                         // strictly in order
      last = words[0];
      ++received;
    }
    producer.join();
    const RingStats s = ring.stats();
    CHECK(errors.load() == 0);
    CHECK(bad == 0);
    CHECK(received == s.taken);
    CHECK(s.published == kFrames);
    CHECK(s.taken + s.dropped == kFrames);
    if (policy == Overflow::refuse) CHECK(received == kFrames);
    CHECK(last == kFrames);
    CHECK(s.pool.in_use == 0);
    MESSAGE("policy " << static_cast<int>(policy) << ": taken " << s.taken << ", dropped " << s.dropped
                      << ", refused " << s.refused);
  }
}

TEST_CASE("FrameRing: publishing an empty frame; destroying the ring while the consumer holds a frame") {
  emt::Fixture f;
  const AllocatorStats base = DefaultAllocator::stats();
  PooledBuffer held;
  {
    FrameRing<3> ring;
    REQUIRE_OK_CALL(ring.init(f.ctx, f.q, 64));
    CHECK_ERRC(ring.publish(PooledBuffer{}), Errc::released);  // initialised ring, empty frame
    CHECK(ring.stats().published == 0);
    for (std::uint32_t i = 1; i <= 2; ++i) {
      auto fr = ring.acquire();
      REQUIRE_OK(fr);
      CHECK(stamp(f.q, *fr, i));
      CHECK_OK(ring.publish(std::move(*fr)));
    }
    auto got = ring.take();
    REQUIRE_OK(got);
    held = std::move(*got);
    CHECK_ERRC(ring.release(), Errc::busy);  // the consumer holds a frame
  }  // destroyed with one unconsumed frame (dropped) and one frame out (detached, still usable)
  CHECK(held.valid());
  CHECK(first_word(f.q, held) == 1u);
  CHECK(stamp(f.q, held, 9));
  CHECK(first_word(f.q, held) == 9u);
  held = PooledBuffer{};
  CHECK(DefaultAllocator::stats().allocations == base.allocations);  // nothing leaked
}

#if EDGEMEM_FAULT_INJECTION
TEST_CASE("FrameRing under fault injection: acquire, publish, take and return pass no fault point") {
  emt::Fixture f;
  for (Overflow policy : {Overflow::refuse, Overflow::drop_oldest}) {
    FrameRing<2> ring;
    REQUIRE_OK_CALL(ring.init(f.ctx, f.q, 64, policy));
    fault::arm(0);
    int failures = 0;
    for (int i = 0; i < 100; ++i) {
      auto a = ring.acquire();
      auto b = ring.acquire();
      failures += !a || !b || !ring.publish(std::move(*a)) || !ring.publish(std::move(*b));
      auto dropped = ring.acquire();  // refuse: exhausted; drop_oldest: the oldest frame
      failures += (policy == Overflow::drop_oldest) != static_cast<bool>(dropped);
      auto t = ring.take();
      auto t2 = ring.take_for(std::chrono::milliseconds(1));
      failures += !t || (policy == Overflow::refuse && !t2);
    }
    const std::uint64_t points = fault::count();
    fault::disarm();
    CHECK(failures == 0);
    CHECK(points == 0);  // no backend call, no allocation
  }
}
#endif
