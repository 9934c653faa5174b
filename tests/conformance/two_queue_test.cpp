// Two queues on one context, as the README's camera pattern uses them (a producer queue and a consumer
// queue), and one queue shared by several threads. Nothing may be lost or torn: a command on one queue
// that touches bytes another queue still writes or reads waits for it, memory that goes back to a pool,
// ring or heap is handed out again only with its pending commands ordered before the next owner's, and
// an unmap's bytes are what the other queue reads. Frames are EDGEMEM_TEST_FRAME_MIB MiB (default 2;
// the H100 runs use 16 and 64).
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include "conformance/test_helpers.hpp"

using namespace edgemem;

namespace {

std::size_t frame_bytes() { return emt::test_frame_bytes(2); }
int rounds() { return emt::test_rounds(12); }

/// A second queue on the fixture's context.
Queue second_queue(emt::Fixture& f) {
  auto q = Queue::create(f.ctx);
  REQUIRE_MESSAGE(static_cast<bool>(q), "Queue::create -> " << emt::describe(q));
  return std::move(*q);
}

std::vector<std::uint32_t> words(std::size_t bytes, std::uint32_t value) {
  return std::vector<std::uint32_t>(bytes / 4, value);
}

using emt::wrong_words;

/// A memory source the tests drive alike: a one-block FixedPool or a one-buffer Heap.
struct OneBlockPool {
  FixedPool<1> pool;
  Result<Buffer> take(emt::Fixture&) {
    auto b = pool.acquire();
    if (!b) return fail(b.error());
    return std::move(b->buffer());
  }
};
struct OneRunHeap {
  Heap heap;
  Result<Buffer> take(emt::Fixture&) { return heap.create_buffer(heap.page_size()); }
};

/// The new owner's command on queue A must come after the old owner's pending write on queue B.
template <class Source>
void write_then_drop_then_reuse(emt::Fixture& f, Source& src, bool new_owner_maps) {
  Queue qb = second_queue(f);
  const std::size_t bytes = frame_bytes();
  std::size_t torn = 0;
  for (int round = 0; round < rounds(); ++round) {
    const auto stale = words(bytes, 0x0b000000u + round);
    const auto fresh = words(bytes, 0x0a000000u + round);
    Event pending;
    {
      auto block = src.take(f);
      REQUIRE_OK(block);
      auto e = qb.write_async(*block, 0, stale.data(), bytes);  // old owner, queue B
      REQUIRE_OK(e);
      pending = std::move(*e);
    }  // the last handle goes while the write is queued
    auto block = src.take(f);  // the same memory, at once
    REQUIRE_OK(block);
    if (new_owner_maps) {
      auto m = f.q.map<std::uint32_t>(*block, Access::write_discard);
      REQUIRE_OK(m);
      for (auto& w : *m) w = fresh[0];
    } else {
      CHECK_OK(f.q.write(*block, 0, fresh.data(), bytes));
    }
    std::vector<std::uint32_t> got(bytes / 4);
    CHECK_OK(f.q.read(*block, 0, got.data(), bytes));
    CHECK_OK(pending.wait());
    std::vector<std::uint32_t> later(bytes / 4);
    CHECK_OK(f.q.read(*block, 0, later.data(), bytes));  // the old write never lands afterwards
    torn += wrong_words(got, fresh[0]) != 0 || wrong_words(later, fresh[0]) != 0;
  }
  CHECK_MESSAGE(torn == 0, torn << " of " << rounds() << " rounds saw the old owner's bytes");
}

/// The old owner's pending read on queue B must see its own bytes, not the next owner's write on A.
template <class Source>
void read_then_drop_then_reuse(emt::Fixture& f, Source& src) {
  Queue qb = second_queue(f);
  const std::size_t bytes = frame_bytes();
  std::size_t torn = 0;
  for (int round = 0; round < rounds(); ++round) {
    const auto mine = words(bytes, 0x0c000000u + round);
    const auto next = words(bytes, 0x0d000000u + round);
    std::vector<std::uint32_t> got(bytes / 4);
    Event pending;
    {
      auto block = src.take(f);
      REQUIRE_OK(block);
      CHECK_OK(qb.write(*block, 0, mine.data(), bytes));
      auto e = qb.read_async(*block, 0, got.data(), bytes);
      REQUIRE_OK(e);
      pending = std::move(*e);
    }
    auto block = src.take(f);
    REQUIRE_OK(block);
    CHECK_OK(f.q.write(*block, 0, next.data(), bytes));
    CHECK_OK(pending.wait());
    torn += wrong_words(got, mine[0]) != 0;
  }
  CHECK_MESSAGE(torn == 0, torn << " of " << rounds() << " rounds read the next owner's bytes");
}

}  // namespace

/// The three hand-over cases for one memory source.
template <class Source>
void hand_over_cases(emt::Fixture& f, Source& src) {
  SUBCASE("the next owner writes") { write_then_drop_then_reuse(f, src, false); }
  SUBCASE("the next owner maps write_discard") { write_then_drop_then_reuse(f, src, true); }
  SUBCASE("a pending read keeps its bytes") { read_then_drop_then_reuse(f, src); }
}

TEST_CASE("two queues: a FixedPool block dropped with a write pending is ordered before its next owner") {
  emt::Fixture f;
  OneBlockPool src;
  auto init = src.pool.init(f.ctx, f.q, frame_bytes(), 1);
  REQUIRE_OK(init);
  hand_over_cases(f, src);
  CHECK(src.pool.stats().in_use == 0);
}

TEST_CASE("two queues: a Heap run dropped with commands pending is ordered before its next owner") {
  emt::Fixture f;
  OneRunHeap src;
  auto init = src.heap.init(f.ctx, f.q, frame_bytes(), 1);
  REQUIRE_OK(init);
  hand_over_cases(f, src);
  CHECK(src.heap.free_pages() == 1);
}

TEST_CASE("two queues: bytes written through a mapping are what the other queue reads after unmap") {
  emt::Fixture f;
  Queue qb = second_queue(f);
  const std::size_t bytes = frame_bytes();
  auto buf = Buffer::create(f.ctx, bytes);
  REQUIRE_OK(buf);
  std::size_t stale = 0;
  for (int round = 0; round < rounds(); ++round) {
    const std::uint32_t value = 0x0e000000u + round;
    auto m = f.q.map<std::uint32_t>(*buf, round % 2 == 0 ? Access::write_discard : Access::write);
    REQUIRE_OK(m);
    for (auto& w : *m) w = value;
    std::vector<std::uint32_t> got(bytes / 4);
    if (round % 3 == 0) {
      CHECK_OK(m->unmap());  // blocking: the write-back is done
      CHECK_OK(qb.read(*buf, 0, got.data(), bytes));
    } else if (round % 3 == 1) {
      auto e = m->unmap_async();  // the read on B waits for it without a wait list
      REQUIRE_OK(e);
      CHECK_OK(qb.read(*buf, 0, got.data(), bytes));
    } else {
      *m = Mapping<std::uint32_t>{};  // the guard's own unmap
      auto e = qb.read_async(*buf, 0, got.data(), bytes);
      REQUIRE_OK(e);
      CHECK_OK(e->wait());
    }
    stale += wrong_words(got, value) != 0;
  }
  CHECK_MESSAGE(stale == 0, stale << " of " << rounds() << " rounds read stale bytes on the other queue");
  CHECK(f.ctx.unreported_errors().count == 0);
}

TEST_CASE("two queues: a copy on B waits for a write on A to its source, without a wait list") {
  emt::Fixture f;
  Queue qb = second_queue(f);
  const std::size_t bytes = frame_bytes();
  auto a = Buffer::create(f.ctx, bytes);
  auto b = Buffer::create(f.ctx, bytes);
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  std::size_t wrong = 0;
  for (int round = 0; round < rounds(); ++round) {
    const auto data = words(bytes, 0x0f000000u + round);
    auto w = f.q.write_async(*a, 0, data.data(), bytes);
    REQUIRE_OK(w);
    auto c = qb.copy_async(*a, *b, 0, 0, bytes);
    REQUIRE_OK(c);
    std::vector<std::uint32_t> got(bytes / 4);
    CHECK_OK(f.q.read(*b, 0, got.data(), bytes));  // and a read on A waits for the copy on B
    wrong += wrong_words(got, data[0]) != 0;
  }
  CHECK_MESSAGE(wrong == 0, wrong << " of " << rounds() << " rounds copied or read too early");
}

TEST_CASE("two queues: release(queue) orders a block's next owner after everything queued on that queue") {
  emt::Fixture f;
  Queue qb = second_queue(f);
  const std::size_t bytes = frame_bytes();
  FixedPool<1> pool;
  auto init = pool.init(f.ctx, f.q, bytes, 1);
  REQUIRE_OK(init);
  std::size_t torn = 0;
  for (int round = 0; round < rounds(); ++round) {
    const auto stale = words(bytes, 0x1b000000u + round);
    const auto fresh = words(bytes, 0x1a000000u + round);
    auto block = pool.acquire();
    REQUIRE_OK(block);
    auto e = qb.write_async(*block, 0, stale.data(), bytes);
    REQUIRE_OK(e);
    CHECK_OK(block->release(qb));
    CHECK_FALSE(block->valid());
    CHECK_OK(block->release(qb));  // idempotent
    auto next = pool.acquire();  // free at once
    REQUIRE_OK(next);
    CHECK_OK(f.q.write(*next, 0, fresh.data(), bytes));
    CHECK_OK(e->wait());
    std::vector<std::uint32_t> got(bytes / 4);
    CHECK_OK(f.q.read(*next, 0, got.data(), bytes));
    torn += wrong_words(got, fresh[0]) != 0;
  }
  CHECK(torn == 0);
  // Errors change nothing.
  auto block = pool.acquire();
  REQUIRE_OK(block);
  {
    auto m = f.q.map(*block, Access::read);
    REQUIRE_OK(m);
    CHECK_ERRC(block->release(qb), Errc::busy);
    CHECK(block->valid());
  }
  Queue dead;
  CHECK_ERRC(block->release(dead), Errc::released);
  emt::OtherContext other(64);
  CHECK_ERRC(block->release(other.q), Errc::invalid_argument);
  CHECK(block->valid());
  CHECK(pool.stats().in_use == 1);
}

TEST_CASE("two queues, two threads: FrameRing frames arrive whole (producer maps, consumer reads async)") {
  emt::Fixture f;
  Queue qb = second_queue(f);
  const std::size_t bytes = frame_bytes();
  FrameRing<3> ring;
  auto init = ring.init(f.ctx, f.q, bytes);
  REQUIRE_OK(init);
  const int frames = 4 * rounds();
  std::atomic<int> torn{0}, received{0}, errors{0};
  std::thread consumer([&] {
    std::vector<std::uint32_t> got(bytes / 4);
    for (int i = 0; i < frames; ++i) {
      auto frame = ring.take_for(std::chrono::seconds(30));
      if (!frame) {
        ++errors;
        return;
      }
      auto e = qb.read_async(*frame, 0, got.data(), bytes);
      *frame = PooledBuffer{};  // the frame goes back while its read is still queued
      if (!e || !e->wait()) {
        ++errors;
        continue;
      }
      torn += wrong_words(got, 0x40000000u + static_cast<std::uint32_t>(i)) != 0;
      ++received;
    }
  });
  for (int i = 0; i < frames; ++i) {
    PooledBuffer frame;
    for (;;) {  // (Debian's tl-expected 1.0 cannot re-assign a Result of a move-only type)
      auto r = ring.acquire();
      if (r) {
        frame = std::move(*r);
        break;
      }
      REQUIRE(r.error().code == Errc::exhausted);
      std::this_thread::yield();
    }
    {
      auto m = f.q.map<std::uint32_t>(frame, Access::write_discard);
      REQUIRE_OK(m);
      for (auto& w : *m) w = 0x40000000u + static_cast<std::uint32_t>(i);
      if (i % 2 == 1) CHECK_OK(m->unmap_async());
    }
    CHECK_OK(ring.publish(std::move(frame)));
  }
  consumer.join();
  CHECK(errors == 0);
  CHECK(received == frames);
  CHECK_MESSAGE(torn == 0, torn << " of " << frames << " frames arrived torn");
  CHECK(f.ctx.unreported_errors().count == 0);
}

TEST_CASE("one queue, four threads: concurrent commands on one Queue (threads)") {
  emt::Fixture f;
  constexpr int kThreads = 4;
  const std::size_t part = 64 * 1024;
  auto buf = Buffer::create(f.ctx, part * kThreads);
  REQUIRE_OK(buf);
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::uint32_t> data(part / 4), got(part / 4);
      for (int i = 0; i < 50; ++i) {
        const std::uint32_t value = static_cast<std::uint32_t>(t << 24 | i);
        for (auto& w : data) w = value;
        if (!f.q.write(*buf, t * part, data.data(), part)) ++failed;
        auto e = f.q.read_async(*buf, t * part, got.data(), part);
        if (!e || !e->wait()) ++failed;
        wrong += wrong_words(got, value) != 0;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failed == 0);
  CHECK(wrong == 0);
  CHECK_OK(f.q.finish());
}

TEST_CASE("read mappings of the same bytes share one native mapping: every unmap succeeds") {
  emt::Fixture f;
  std::vector<unsigned char> host(8192);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<unsigned char>(i * 7);
  const std::vector<unsigned char> want = host;
  auto buf = Buffer::wrap(f.ctx, host.data(), host.size());
  REQUIRE_OK(buf);
  {
    auto a = f.q.map<unsigned char>(*buf, Access::read, 0, 4096);
    auto b = f.q.map<unsigned char>(*buf, Access::read, 0, 4096);
    auto c = f.q.map<unsigned char>(*buf, Access::read, 1024, 1024);
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    REQUIRE_OK(c);
    CHECK(std::vector<unsigned char>(b->begin(), b->end()) == std::vector<unsigned char>(want.begin(), want.begin() + 4096));
    CHECK(std::vector<unsigned char>(c->begin(), c->end()) ==
          std::vector<unsigned char>(want.begin() + 1024, want.begin() + 2048));
    CHECK_OK(a->unmap());  // the first of the group: the others still read
    CHECK((*c)[0] == want[1024]);
    CHECK_ERRC(f.q.map(*buf, Access::write, 0, 16), Errc::busy);  // still mapped for reading
    auto e = c->unmap_async();
    CHECK_OK(e);
    if (e) CHECK_OK(e->wait());
    CHECK_OK(b->unmap());  // the last: the native unmap
  }
  auto w = f.q.map<unsigned char>(*buf, Access::write, 0, 16);  // nothing left mapped
  CHECK_OK(w);
  if (w) CHECK_OK(w->unmap());
  // Same first byte, the second longer: two native mappings (a driver may give both one address);
  // each is unmapped once.
  {
    auto a = f.q.map<unsigned char>(*buf, Access::read, 0, 128);
    auto b = f.q.map<unsigned char>(*buf, Access::read, 0, 256);
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    CHECK((*b)[200] == want[200]);
    CHECK_OK(a->unmap());
    CHECK_OK(b->unmap());
  }
  // Two read mappings left to their destructors.
  {
    auto a = f.q.map<unsigned char>(*buf, Access::read, 0, 64);
    auto b = f.q.map<unsigned char>(*buf, Access::read, 0, 64);
    CHECK_OK(a);
    CHECK_OK(b);
  }
  CHECK(f.ctx.unreported_errors().count == 0);
  CHECK_OK(buf->release());
}
