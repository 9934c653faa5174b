// Steady-state promise: after pool, ring and heap creation, 10,000 cycles of acquire, map
// write_discard, write, read back, release make zero malloc/new calls in the whole process on the
// host backend, with any allocator policy (counted by the interposer in malloc_counter.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <edgemem/edgemem.hpp>

#include "malloc_counter.hpp"

using namespace edgemem;

namespace {

constexpr int kCycles = 10000;
constexpr std::size_t kBlock = 1024;

/// One cycle on a buffer: map write_discard and fill with `seed`, write a word, read back both.
bool cycle(Queue& q, Buffer& b, std::uint32_t seed) noexcept {
  {
    auto m = q.map<std::uint32_t>(b, Access::write_discard, 0, kBlock);
    if (!m) return false;
    for (std::size_t i = 0; i < m->size(); ++i) (*m)[i] = seed + static_cast<std::uint32_t>(i);
  }
  const std::uint32_t word = seed ^ 0xA5A5A5A5u;
  if (!q.write(b, 8, &word, sizeof word)) return false;
  std::uint32_t back[4] = {};
  if (!q.read(b, 0, back, sizeof back)) return false;
  return back[0] == seed && back[1] == seed + 1 && back[2] == word && back[3] == seed + 3;
}

struct Counts {
  int failures = 0;
  std::size_t pool_calls = 0, ring_calls = 0, heap_calls = 0;
};

Counts run() noexcept {
  Counts c;
  auto ctx = Context::create();
  if (!ctx) return Counts{1, 0, 0, 0};
  auto q = Queue::create(*ctx);
  if (!q) return Counts{1, 0, 0, 0};

  FixedPool<8> pool;
  FixedPool<> dyn_pool;
  FrameRing<4> ring;
  Heap heap;
  if (!pool.init(*ctx, *q, kBlock) || !dyn_pool.init(*ctx, *q, kBlock, 8) || !ring.init(*ctx, *q, kBlock) ||
      !heap.init(*ctx, *q, kBlock, 16))
    return Counts{1, 0, 0, 0};

  edgemem_test::start_counting();
  for (int i = 0; i < kCycles; ++i) {
    auto a = pool.acquire();
    auto b = dyn_pool.acquire();
    if (!a || !b) {
      ++c.failures;
      continue;
    }
    c.failures += !cycle(*q, *a, static_cast<std::uint32_t>(i)) + !cycle(*q, *b, static_cast<std::uint32_t>(~i));
    if (!a->release()) ++c.failures;
  }  // b returns by destruction
  c.pool_calls = edgemem_test::stop_counting();

  edgemem_test::start_counting();
  for (int i = 0; i < kCycles; ++i) {
    auto frame = ring.acquire();
    if (!frame) {
      ++c.failures;
      continue;
    }
    c.failures += !cycle(*q, *frame, static_cast<std::uint32_t>(i));
    if (!ring.publish(std::move(*frame))) ++c.failures;
    auto got = ring.take();
    std::uint32_t w = 0;
    if (!got || !q->read(*got, 0, &w, sizeof w) || w != static_cast<std::uint32_t>(i)) ++c.failures;
  }
  c.ring_calls = edgemem_test::stop_counting();

  edgemem_test::start_counting();
  for (int i = 0; i < kCycles; ++i) {
    auto b = heap.create_buffer(kBlock + 1);
    if (!b) {
      ++c.failures;
      continue;
    }
    c.failures += !cycle(*q, *b, static_cast<std::uint32_t>(i));
  }
  c.heap_calls = edgemem_test::stop_counting();
  if (pool.stats().in_use != 0 || dyn_pool.stats().in_use != 0 || ring.stats().pool.in_use != 0 ||
      heap.free_pages() != 16)
    ++c.failures;
  return c;
}

}  // namespace

TEST_CASE("pool, ring (and heap with allocator=static): zero malloc/new in the steady state") {
  edgemem_test::start_counting();
  void* (*volatile do_malloc)(std::size_t) = std::malloc;  // the counter itself works
  void* probe = do_malloc(16);
  std::free(probe);
  CHECK(edgemem_test::stop_counting() == 1);

  const Counts c = run();
  CHECK(c.failures == 0);
  CHECK(c.pool_calls == 0);
  CHECK(c.ring_calls == 0);
  MESSAGE("malloc/new calls over " << kCycles << " cycles: pool " << c.pool_calls << ", ring " << c.ring_calls
                                   << ", heap " << c.heap_calls << " (allocator=" EDGEMEM_ALLOCATOR_NAME ")");
  // Heap::create_buffer makes one bookkeeping node through the allocator policy (see heap.hpp):
  // zero malloc only when that policy never touches the heap.
  if (EDGEMEM_ALLOCATOR_STATIC) CHECK(c.heap_calls == 0);
  else CHECK(c.heap_calls <= static_cast<std::size_t>(kCycles));
}
