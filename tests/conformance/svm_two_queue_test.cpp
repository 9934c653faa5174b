// Shared virtual memory on two queues of one context (issue #16's "release under pending work is safe"):
// a read on queue B waits for queue A's write without a wait list; an Svm released (release() or
// release(queue)) while its writes are still queued is freed only after them, and a new allocation
// works at once; an SVM pool block returned with a write pending carries it to its next owner on the
// other queue; and two threads with a queue each work on distinct views of one Svm. Frames are
// EDGEMEM_TEST_FRAME_MIB MiB (default 16), rounds EDGEMEM_TEST_ROUNDS (default 4). Every grain the
// device has is run; one it lacks is checked unsupported.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "svm_helpers.hpp"

using namespace edgemem;
using emt::grain_name;
using emt::kSvmGrains;

namespace {

/// EDGEMEM_TEST_FRAME_MIB MiB (default 16), at most an eighth of the device's largest allocation (the
/// static allocator's arena is 16 MiB by default), a multiple of the base alignment.
std::size_t frame_bytes(const Context& ctx) {
  const std::size_t cap = ctx.info().max_alloc_bytes / 8 / ctx.base_align() * ctx.base_align();
  const std::size_t want = emt::test_frame_bytes(16);
  return want < cap ? want : cap;
}
int rounds() { return emt::test_rounds(4); }

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

/// Writes (async and a fill) on `qa` (or, with `fresh_writer`, a new queue each round) into a new Svm,
/// drops it with `drop(svm, writer)` while they are queued, then makes a new Svm of the same size,
/// writes and reads it on `qb`. The first one's events complete.
template <class Drop>
void release_under_pending_work(emt::Fixture& f, Queue& qa, Queue& qb, SvmGrain g, Drop&& drop,
                                bool fresh_writer = false) {
  const std::size_t bytes = frame_bytes(f.ctx);
  std::size_t wrong = 0;
  for (int round = 0; round < rounds(); ++round) {
    const auto first = words(bytes, 0x21000000u + round), second = words(bytes, 0x22000000u + round);
    const std::uint32_t pattern = 0x23000000u + round;
    std::vector<Event> pending;
    Queue own;
    if (fresh_writer) {
      auto made = Queue::create(f.ctx);
      REQUIRE_OK(made);
      own = std::move(*made);
    }
    Queue& writer = fresh_writer ? own : qa;
    {
      auto s = Svm::create(f.ctx, bytes, g);
      REQUIRE_OK(s);
      for (int i = 0; i < 3; ++i) {
        auto w = writer.write_async(*s, 0, (i % 2 == 0 ? first : second).data(), bytes);
        REQUIRE_OK(w);
        pending.push_back(std::move(*w));
        auto fl = writer.fill_async(*s, bytes / 2, bytes / 2, &pattern, f.ctx.info().caps.max_fill_pattern_bytes >= 4 ? 4 : 1);
        if (f.ctx.info().caps.max_fill_pattern_bytes >= 1) {
          REQUIRE_OK(fl);
          pending.push_back(std::move(*fl));
        } else {
          CHECK_ERRC(fl, Errc::unsupported);
        }
      }
      CHECK_OK(drop(*s, writer));
      CHECK_FALSE(s->valid());
    }  // nothing of it is left but the queued commands
    auto next = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(next);
    const auto fresh = words(bytes, 0x24000000u + round);
    CHECK_OK(qb.write(*next, 0, fresh.data(), bytes));
    std::vector<std::uint32_t> got(bytes / 4);
    CHECK_OK(qb.read(*next, 0, got.data(), bytes));
    wrong += wrong_words(got, fresh[0]) != 0;
    for (auto& e : pending) CHECK_OK(e.wait());
    CHECK_OK(qb.read(*next, 0, got.data(), bytes));  // nothing landed in the new one afterwards
    wrong += wrong_words(got, fresh[0]) != 0;
  }
  CHECK_OK(qa.finish());
  CHECK_OK(qb.finish());
  CHECK_MESSAGE(wrong == 0, wrong << " reads of the new allocation were wrong");
  CHECK(f.ctx.unreported_errors().count == 0);
}

}  // namespace

TEST_CASE("svm: two queues: B reads what A wrote async, without a wait list") {
  emt::Fixture f;
  Queue qb = second_queue(f);
  const std::size_t bytes = frame_bytes(f.ctx);
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto s = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(s);
    std::size_t wrong = 0;
    for (int round = 0; round < rounds(); ++round) {
      const auto data = words(bytes, 0x31000000u + round);
      auto w = f.q.write_async(*s, 0, data.data(), bytes);
      REQUIRE_OK(w);
      std::vector<std::uint32_t> got(bytes / 4);
      if (round % 2 == 0) {
        CHECK_OK(qb.read(*s, 0, got.data(), bytes));
      } else {
        auto r = qb.read_async(*s, 0, got.data(), bytes);
        REQUIRE_OK(r);
        CHECK_OK(r->wait());
      }
      wrong += wrong_words(got, data[0]) != 0;
      CHECK_OK(w->wait());
    }
    CHECK_MESSAGE(wrong == 0, wrong << " of " << rounds() << " rounds read before A's write");
  }
}

TEST_CASE("svm: two queues: an Svm released with commands queued is freed after them") {
  emt::Fixture f;
  Queue qb = second_queue(f);
  // Each subcase runs every grain the device has (a lacking one is checked unsupported).
  auto each_grain = [&](auto&& drop) {
    for (SvmGrain g : kSvmGrains) {
      CAPTURE(grain_name(g));
      if (emt::lacks_grain_checked(f.ctx, g)) continue;
      release_under_pending_work(f, f.q, qb, g, drop);
    }
  };
  SUBCASE("release()") {
    each_grain([](Svm& s, Queue&) { return s.release(); });
  }
  SUBCASE("release(B)") {
    each_grain([&](Svm& s, Queue&) { return s.release(qb); });
  }
  SUBCASE("release() after the queue that wrote it is released") {
    for (SvmGrain g : kSvmGrains) {
      CAPTURE(grain_name(g));
      if (emt::lacks_grain_checked(f.ctx, g)) continue;
      release_under_pending_work(
          f, f.q, qb, g,
          [](Svm& s, Queue& writer) {
            (void)writer.release();  // the writer's handle goes first; its commands still reach s
            return s.release();
          },
          true);
    }
  }
  SUBCASE("release(A) while B also reads a view of it") {
    each_grain([&](Svm& s, Queue&) -> Result<void> {
      auto v = s.sub(0, f.align());
      if (!v) return fail(v.error());
      unsigned char byte = 0;
      auto r = qb.read_async(*v, 0, &byte, 1);
      if (!r) return fail(r.error());
      EDGEMEM_TRY(s.release(f.q));
      return r->wait();
    });
  }
}

TEST_CASE("svm: two queues: an SVM pool block returned with A's write queued is read on B by its next owner") {
  emt::Fixture f;
  Queue qb = second_queue(f);
  const std::size_t bytes = frame_bytes(f.ctx);
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    FixedPool<1> pool;
    if (!emt::has_grain(f.ctx, g)) {
      CHECK_ERRC(pool.init(f.ctx, f.q, bytes, 1, g), Errc::unsupported);
      continue;
    }
    auto init = pool.init(f.ctx, f.q, bytes, 1, g);
    REQUIRE_OK(init);
    std::size_t wrong = 0;
    for (int round = 0; round < rounds(); ++round) {
      const auto data = words(bytes, 0x41000000u + round);
      Event pending;
      {
        auto block = pool.acquire();
        REQUIRE_OK(block);
        CHECK(block->buffer().is_svm());
        auto w = f.q.write_async(*block, 0, data.data(), bytes);
        REQUIRE_OK(w);
        pending = std::move(*w);
      }  // returned at once, the write still queued on A
      auto block = pool.acquire();
      REQUIRE_OK(block);
      std::vector<std::uint32_t> got(bytes / 4);
      CHECK_OK(qb.read(*block, 0, got.data(), bytes));
      wrong += wrong_words(got, data[0]) != 0;
      CHECK_OK(pending.wait());
    }
    CHECK_MESSAGE(wrong == 0, wrong << " of " << rounds() << " rounds read before the old owner's write");
    CHECK(pool.stats().in_use == 0);
  }
}

TEST_CASE("svm: two threads, a queue each, write and read distinct views of one Svm") {
  emt::Fixture f;
  constexpr int kThreads = 2;
  const std::size_t A = f.align();
  const std::size_t part = (frame_bytes(f.ctx) / kThreads + A - 1) / A * A;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto s = Svm::create(f.ctx, part * kThreads, g);
    REQUIRE_OK(s);
    std::atomic<int> wrong{0}, failed{0};
    std::vector<Svm> views;
    for (int t = 0; t < kThreads; ++t) {
      auto view = s->sub(t * part, part);
      REQUIRE_OK(view);
      views.push_back(std::move(*view));
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t, v = std::move(views[t])]() mutable {
        auto q = Queue::create(f.ctx);
        if (!q) {
          ++failed;
          return;
        }
        std::vector<std::uint32_t> got(part / 4);
        for (int i = 0; i < 4 * rounds(); ++i) {
          const std::uint32_t value = static_cast<std::uint32_t>(t << 24 | i);
          const auto data = words(part, value);
          if (i % 2 == 0) {
            if (!q->write(v, 0, data.data(), part)) ++failed;
            if (!q->read(v, 0, got.data(), part)) ++failed;
          } else {
            auto w = q->write_async(v, 0, data.data(), part);
            auto r = q->read_async(v, 0, got.data(), part);
            if (!w || !r || !r->wait() || !w->wait()) ++failed;
          }
          wrong += wrong_words(got, value) != 0;
        }
        if (!v.release(*q)) ++failed;
      });
    }
    for (auto& th : threads) th.join();
    CHECK(failed == 0);
    CHECK(wrong == 0);
    // Each thread's last round is in its part.
    std::vector<std::uint32_t> got(part / 4);
    for (int t = 0; t < kThreads; ++t) {
      CHECK_OK(f.q.read(*s, t * part, got.data(), part));
      CHECK(wrong_words(got, static_cast<std::uint32_t>(t << 24 | (4 * rounds() - 1))) == 0);
    }
  }
}
