// Steady-state promise: after pool, ring and heap creation, 10,000 cycles of acquire (or heap
// create_buffer / create_buffer_from_host / create_buffer_like), map write_discard, write, read back,
// release (or destroy), and 2,000 two-queue rounds (async write of a pool block on one queue, async read
// of it on another, after a warm-up of 200: the ordering table keeps their events) make
//   - zero allocations through edgemem's allocator policy (AllocatorStats::total_allocations), on every
//     backend and with every allocator policy: edgemem itself allocates nothing;
//   - zero malloc/new calls in the whole process on the host backend without sanitizers (counted by
//     the interposer in malloc_counter.cpp), where no driver allocates behind edgemem's back.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <edgemem/edgemem.hpp>

#ifndef EDGEMEM_TEST_COUNT_MALLOC
#define EDGEMEM_TEST_COUNT_MALLOC 0
#endif
#if EDGEMEM_TEST_COUNT_MALLOC
#include "malloc_counter.hpp"
#endif

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

/// What one phase of cycles cost: malloc/new calls in the process (host backend without sanitizers,
/// else 0) and allocations through edgemem's allocator policy.
struct Cost {
  std::size_t malloc_calls = 0;
  std::size_t edgemem_allocations = 0;
};

/// Runs `body` with both counters on.
template <class Body>
Cost measure(Body&& body) noexcept {
  Cost c;
  const std::size_t before = DefaultAllocator::stats().total_allocations;
#if EDGEMEM_TEST_COUNT_MALLOC
  edgemem_test::start_counting();
#endif
  body();
#if EDGEMEM_TEST_COUNT_MALLOC
  c.malloc_calls = edgemem_test::stop_counting();
#endif
  c.edgemem_allocations = DefaultAllocator::stats().total_allocations - before;
  return c;
}

struct Counts {
  int failures = 0;
  Cost pool, ring, heap, two_queues, views;
};

Counts run() noexcept {
  Counts c;
  auto ctx = Context::create();
  if (!ctx) return Counts{1, {}, {}, {}, {}, {}};
  auto q = Queue::create(*ctx);
  auto q2 = Queue::create(*ctx);
  if (!q || !q2) return Counts{1, {}, {}, {}, {}, {}};

  FixedPool<8> pool;
  FixedPool<> dyn_pool;
  FrameRing<4> ring;
  Heap heap;
  if (!pool.init(*ctx, *q, kBlock) || !dyn_pool.init(*ctx, *q, kBlock, 8) || !ring.init(*ctx, *q, kBlock) ||
      !heap.init(*ctx, *q, kBlock, 16, Storage::shared))
    return Counts{1, {}, {}, {}, {}, {}};
  std::uint32_t host[kBlock / 4 + 1];
  for (std::size_t i = 0; i < sizeof host / 4; ++i) host[i] = static_cast<std::uint32_t>(i * 2654435761u);
  auto model = heap.create_buffer(2 * kBlock);  // a buffer for create_buffer_like to copy the size of
  if (!model) return Counts{1, {}, {}, {}, {}, {}};

  c.pool = measure([&] {
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
  });

  c.ring = measure([&] {
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
  });

  c.heap = measure([&] {
    for (int i = 0; i < kCycles; ++i) {
      // create_buffer, create_buffer_from_host and create_buffer_like in turn; several live at once.
      auto a = heap.create_buffer(kBlock + 1);
      auto b = heap.create_buffer_from_host(*q, host, sizeof host);
      auto l = heap.create_buffer_like(*model);
      if (!a || !b || !l) {
        ++c.failures;
        continue;
      }
      std::uint32_t first = 0;
      if (!q->read(*b, 0, &first, sizeof first) || first != host[0]) ++c.failures;
      c.failures += !cycle(*q, *a, static_cast<std::uint32_t>(i));
      c.failures += !cycle(*q, *b, static_cast<std::uint32_t>(i) * 3u);
      c.failures += !cycle(*q, *l, static_cast<std::uint32_t>(i) * 5u);
      if (!a->release()) ++c.failures;  // b and l are destroyed at the end of the iteration
    }
  });
  // Two queues on blocks of one pool: each round's write on q and read on q2 are ordered by the table
  // (the read waits for the write, the next round's write for the read), their events kept there.
  auto two_queue_rounds = [&](int rounds) {
    for (int i = 0; i < rounds; ++i) {
      auto a = pool.acquire();
      if (!a) {
        ++c.failures;
        continue;
      }
      const std::uint32_t word = static_cast<std::uint32_t>(i) * 7u;
      std::uint32_t back = ~word;
      auto w = q->write_async(*a, 0, &word, sizeof word);
      auto r = q2->read_async(*a, 0, &back, sizeof back);
      if (!w || !r || !r->wait() || back != word) ++c.failures;
    }
  };
  two_queue_rounds(200);
  c.two_queues = measure([&] { two_queue_rounds(2000); });
  // Views made and dropped one at a time, of a plain buffer and of a pool block: a root keeps its last
  // dead view's storage for the next one, so after the first no view allocates.
  auto root = Buffer::create(*ctx, 4 * kBlock);
  auto block = pool.acquire();
  if (!root || !block) return Counts{1, {}, {}, {}, {}, {}};
  auto view_rounds = [&](int rounds) {
    for (int i = 0; i < rounds; ++i) {
      auto v = root->sub((static_cast<std::size_t>(i) % 3 + 1) * kBlock, kBlock);
      auto w = block->buffer().sub(0, kBlock);
      if (!v || !w) {
        ++c.failures;
        continue;
      }
      c.failures += !cycle(*q, *v, static_cast<std::uint32_t>(i)) + !cycle(*q, *w, static_cast<std::uint32_t>(i) * 11u);
    }
  };
  view_rounds(1);
  c.views = measure([&] { view_rounds(kCycles); });
  if (!block->release()) ++c.failures;
  model = Buffer{};
  if (pool.stats().in_use != 0 || dyn_pool.stats().in_use != 0 || ring.stats().pool.in_use != 0 ||
      heap.free_pages() != 16 || heap.live_buffers() != 0)
    ++c.failures;
  return c;
}

}  // namespace

TEST_CASE("pool, ring and heap cycles: zero allocations in the steady state") {
#if EDGEMEM_TEST_COUNT_MALLOC
  edgemem_test::start_counting();
  void* (*volatile do_malloc)(std::size_t) = std::malloc;  // the counter itself works
  void* probe = do_malloc(16);
  std::free(probe);
  CHECK(edgemem_test::stop_counting() == 1);
#endif

  const Counts c = run();
  CHECK(c.failures == 0);
  MESSAGE("over " << kCycles << " cycles (backend=" EDGEMEM_BACKEND_NAME ", allocator=" EDGEMEM_ALLOCATOR_NAME
                  << "): edgemem allocations pool " << c.pool.edgemem_allocations << ", ring "
                  << c.ring.edgemem_allocations << ", heap " << c.heap.edgemem_allocations << ", two queues "
                  << c.two_queues.edgemem_allocations << ", views " << c.views.edgemem_allocations
                  << "; process malloc/new calls "
                  << std::string(EDGEMEM_TEST_COUNT_MALLOC ? "" : "(not counted on this build) ") << "pool " << c.pool.malloc_calls
                  << ", ring " << c.ring.malloc_calls << ", heap " << c.heap.malloc_calls << ", views "
                  << c.views.malloc_calls);
  CHECK(c.pool.edgemem_allocations == 0);
  CHECK(c.ring.edgemem_allocations == 0);
  CHECK(c.heap.edgemem_allocations == 0);
  CHECK(c.two_queues.edgemem_allocations == 0);
  CHECK(c.pool.malloc_calls == 0);
  CHECK(c.ring.malloc_calls == 0);
  CHECK(c.heap.malloc_calls == 0);
  CHECK(c.two_queues.malloc_calls == 0);
  CHECK(c.views.edgemem_allocations == 0);
  CHECK(c.views.malloc_calls == 0);
}

TEST_CASE("views with native(): a frame's 40 views of distinct bytes, made and dropped in order, allocate nothing "
          "in the steady state and get their native sub-objects back") {
  constexpr std::size_t kViews = 40;
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  const std::size_t step = ctx->base_align() > kBlock ? ctx->base_align() : kBlock;
  auto root = Buffer::create(*ctx, kViews * step);
  REQUIRE(root.has_value());
  NativeMem last[kViews] = {};
  int failures = 0, changed = 0;
  auto frame = [&](bool compare) {
    Buffer views[kViews];
    for (std::size_t i = 0; i < kViews; ++i) {
      auto v = root->sub(i * step, kBlock);
      if (!v) {
        ++failures;
        continue;
      }
      auto n = v->native();
      if (!n) {
        ++failures;
        continue;
      }
      if (compare && !(*n == last[i])) ++changed;
      last[i] = *n;
      views[i] = std::move(*v);
    }
    for (Buffer& v : views) v = Buffer{};  // dropped in the order they were made
  };
  for (int i = 0; i < 3; ++i) frame(false);
  const Cost cost = measure([&] {
    for (int i = 0; i < 200; ++i) frame(true);
  });
  CHECK(failures == 0);
  CHECK(cost.edgemem_allocations == 0);
  CHECK(changed == 0);  // each view found the sub-object its bytes had the frame before
}
