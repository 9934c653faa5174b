// Pool and frame-ring stress: 8 threads, 100,000 acquire/release cycles each (EDGEMEM_STRESS_CYCLES
// overrides the count), with an ownership map (one atomic owner id per block index, set by
// compare-and-swap on acquire and cleared the same way before the block goes back) proving no block
// is handed out twice; at the end every block is back and the statistics agree with what the
// threads saw. Its own executable so it can run under ThreadSanitizer on its own:
//   meson test -C <build> --suite stress        or   <build>/tests/stress/edgemem_stress
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "conformance/test_helpers.hpp"

using namespace edgemem;

namespace {

constexpr int kThreads = 8;

/// Cycles per thread: 100,000 unless EDGEMEM_STRESS_CYCLES says otherwise.
long cycles_per_thread() {
  const char* env = std::getenv("EDGEMEM_STRESS_CYCLES");
  const long n = env != nullptr ? std::atol(env) : 0;
  return n > 0 ? n : 100000;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr int kFree = -1;

}  // namespace

TEST_CASE("stress: FixedPool, 8 threads x 100,000 acquire/release cycles, ownership map") {
  emt::Fixture f;
  constexpr std::size_t kBlocks = 3;  // far fewer blocks than threads: acquires contend and fail
  FixedPool<kBlocks> pool;
  auto init = pool.init(f.ctx, f.q, 64, kBlocks, Storage::shared);
  REQUIRE_OK(init);
  const long cycles = cycles_per_thread();
  std::atomic<int> owner[kBlocks];
  for (auto& o : owner) o.store(kFree);
  std::atomic<long> double_handouts{0}, lost_clears{0}, bad_blocks{0}, data_errors{0}, errors{0};
  std::atomic<long> exhausted{0}, done{0};

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto q = Queue::create(f.ctx);
      if (!q) {
        errors.fetch_add(1);
        return;
      }
      long my_exhausted = 0;
      for (long i = 0; i < cycles;) {
        auto b = (i % 16 == 0) ? pool.acquire_for(std::chrono::milliseconds(1)) : pool.acquire();
        if (!b) {
          if (b.error().code == Errc::exhausted) ++my_exhausted;
          else errors.fetch_add(1);
          std::this_thread::yield();
          continue;
        }
        const std::uint32_t slot = b->slot();
        if (slot >= kBlocks || !pool.owns(*b) || b->size() != pool.block_bytes()) {
          bad_blocks.fetch_add(1);
          continue;
        }
        int expected = kFree;
        if (!owner[slot].compare_exchange_strong(expected, t, std::memory_order_acq_rel)) double_handouts.fetch_add(1);
        if (i % 64 == 0) {  // the block's bytes are ours alone while we hold it
          const std::uint64_t tag = (static_cast<std::uint64_t>(t) << 32) | static_cast<std::uint64_t>(i);
          std::uint64_t back = 0;
          if (!q->write(*b, 0, &tag, sizeof tag) || !q->read(*b, 0, &back, sizeof back) || back != tag)
            data_errors.fetch_add(1);
        }
        expected = t;
        if (!owner[slot].compare_exchange_strong(expected, kFree, std::memory_order_acq_rel)) lost_clears.fetch_add(1);
        *b = PooledBuffer{};  // gives the block back (after the owner was cleared)
        ++i;
      }
      exhausted.fetch_add(my_exhausted);
      done.fetch_add(cycles);
    });
  }
  for (auto& th : threads) th.join();
  const double secs = seconds_since(t0);

  CHECK(errors.load() == 0);
  CHECK(bad_blocks.load() == 0);
  CHECK(double_handouts.load() == 0);
  CHECK(lost_clears.load() == 0);
  CHECK(data_errors.load() == 0);
  CHECK(done.load() == kThreads * cycles);
  const PoolStats s = pool.stats();
  CHECK(s.capacity == kBlocks);
  CHECK(s.in_use == 0);  // none lost
  // How many blocks were out at once depends on the scheduler (on a loaded 2-core machine the threads
  // may never hold all three together); the taking of all of them below then makes it kBlocks.
  CHECK(s.high_water >= 1);
  CHECK(s.high_water <= kBlocks);
  CHECK(s.failed_acquires == static_cast<std::size_t>(exhausted.load()));  // every refusal seen, and counted once
  for (auto& o : owner) CHECK(o.load() == kFree);
  // Every block is back: all of them can be taken at once, each slot once, then none.
  std::vector<PooledBuffer> all;
  bool seen[kBlocks] = {};
  for (std::size_t i = 0; i < kBlocks; ++i) {
    auto b = pool.acquire();
    REQUIRE_OK(b);
    CHECK_FALSE(seen[b->slot()]);
    seen[b->slot()] = true;
    all.push_back(std::move(*b));
  }
  CHECK_ERRC(pool.acquire(), Errc::exhausted);
  CHECK(pool.stats().high_water == kBlocks);
  all.clear();
  CHECK(pool.stats().in_use == 0);
  CHECK_OK(pool.release());

  const long total = kThreads * cycles;
  std::printf("stress FixedPool<%zu>: %d threads x %ld cycles = %ld acquire/release in %.3f s = %.0f acquires/s "
              "(%ld refused while all blocks were out)\n",
              kBlocks, kThreads, cycles, total, secs, static_cast<double>(total) / secs,
              static_cast<long>(exhausted.load()));
}

TEST_CASE("stress: FrameRing, 4 producers + 4 consumers x 100,000 frames, ownership map") {
  emt::Fixture f;
  constexpr std::size_t kFrames = 8;
  constexpr int kProducers = kThreads / 2;
  constexpr int kConsumers = kThreads - kProducers;
  FrameRing<kFrames> ring;
  auto init = ring.init(f.ctx, f.q, 64, Overflow::refuse);
  REQUIRE_OK(init);
  const long per_producer = cycles_per_thread();
  const long total = kProducers * per_producer;

  // Owner states per frame slot: kFree, a producer id (0..), kPublished, or kConsumerBase + consumer id.
  constexpr int kPublished = 1000;
  constexpr int kConsumerBase = 2000;
  std::atomic<int> owner[kFrames];
  for (auto& o : owner) o.store(kFree);
  std::atomic<long> violations{0}, data_errors{0}, errors{0}, refused{0}, taken{0};

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      auto q = Queue::create(f.ctx);
      if (!q) {
        errors.fetch_add(1);
        return;
      }
      long my_refused = 0;
      for (long i = 0; i < per_producer;) {
        auto fr = ring.acquire();
        if (!fr) {
          if (fr.error().code == Errc::exhausted) ++my_refused;
          else errors.fetch_add(1);
          std::this_thread::yield();
          continue;
        }
        const std::uint32_t slot = fr->slot();
        if (slot >= kFrames) {
          violations.fetch_add(1);
          continue;
        }
        int expected = kFree;
        if (!owner[slot].compare_exchange_strong(expected, p, std::memory_order_acq_rel)) violations.fetch_add(1);
        if (i % 64 == 0) {
          const std::uint64_t tag = (static_cast<std::uint64_t>(p) << 32) | static_cast<std::uint64_t>(i);
          if (!q->write(*fr, 0, &tag, sizeof tag)) data_errors.fetch_add(1);
        } else {
          const std::uint64_t zero = 0;
          if (i % 64 == 1 && !q->write(*fr, 0, &zero, sizeof zero)) data_errors.fetch_add(1);
        }
        expected = p;
        if (!owner[slot].compare_exchange_strong(expected, kPublished, std::memory_order_acq_rel))
          violations.fetch_add(1);
        if (!ring.publish(std::move(*fr))) {
          errors.fetch_add(1);
          continue;
        }
        ++i;
      }
      refused.fetch_add(my_refused);
    });
  }
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&, c] {
      auto q = Queue::create(f.ctx);
      if (!q) {
        errors.fetch_add(1);
        return;
      }
      while (taken.load() < total) {
        auto fr = ring.take_for(std::chrono::milliseconds(1));
        if (!fr) {
          if (fr.error().code != Errc::exhausted) errors.fetch_add(1);
          continue;
        }
        const long n = taken.fetch_add(1);
        const std::uint32_t slot = fr->slot();
        if (slot >= kFrames) {
          violations.fetch_add(1);
          continue;
        }
        int expected = kPublished;
        if (!owner[slot].compare_exchange_strong(expected, kConsumerBase + c, std::memory_order_acq_rel))
          violations.fetch_add(1);
        if (n % 64 == 0) {  // the bytes a producer wrote are intact (a tag, or zero after a reset)
          std::uint64_t back = 0;
          if (!q->read(*fr, 0, &back, sizeof back)) data_errors.fetch_add(1);
          else if (back != 0 && (back >> 32) >= static_cast<std::uint64_t>(kProducers)) data_errors.fetch_add(1);
        }
        expected = kConsumerBase + c;
        if (!owner[slot].compare_exchange_strong(expected, kFree, std::memory_order_acq_rel)) violations.fetch_add(1);
        *fr = PooledBuffer{};  // back to the ring's pool
      }
    });
  }
  for (auto& th : threads) th.join();
  const double secs = seconds_since(t0);

  CHECK(errors.load() == 0);
  CHECK(violations.load() == 0);
  CHECK(data_errors.load() == 0);
  const RingStats s = ring.stats();
  CHECK(s.published == static_cast<std::size_t>(total));
  CHECK(s.taken == static_cast<std::size_t>(total));
  CHECK(taken.load() == total);
  CHECK(s.dropped == 0);
  CHECK(s.pending == 0);
  CHECK(s.refused == static_cast<std::size_t>(refused.load()));
  CHECK(s.pool.in_use == 0);  // none lost
  CHECK(s.pool.high_water <= kFrames);
  for (auto& o : owner) CHECK(o.load() == kFree);
  CHECK_OK(ring.release());

  std::printf("stress FrameRing<%zu>: %d producers + %d consumers, %ld frames each way in %.3f s = %.0f "
              "acquire+publish+take+return cycles/s (%ld acquires refused: consumers behind)\n",
              kFrames, kProducers, kConsumers, total, secs, static_cast<double>(total) / secs,
              static_cast<long>(refused.load()));
}
