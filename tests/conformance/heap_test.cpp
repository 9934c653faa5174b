// Heap: paged arena creation and its errors, first-fit page runs, page accounting, contents,
// buffers giving their pages back (deferred while mapped or sub-buffered), is_page_mappable,
// exhaustion by fragmentation, max_buffers, every host-access flag, the destruction policy (buffers
// outliving the heap), a 4-thread stress test, static-arena exhaustion and fault injection.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
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
struct HeapState {
  std::size_t free_pages, largest;
  bool operator==(const HeapState& o) const { return free_pages == o.free_pages && largest == o.largest; }
};
HeapState state(const Heap& h) { return HeapState{h.free_pages(), h.largest_free_run()}; }

/// Writes random bytes into `b` and reads them back; true when they match.
bool round_trip_ok(emt::Fixture& f, Buffer& b) {
  const emt::Bytes data = emt::random_bytes(b.size());
  return f.q.write(b, 0, data.data(), data.size()) && f.snapshot(b) == data;
}
}  // namespace

TEST_CASE("Heap init: errors leave the heap uninitialised") {
  emt::Fixture f;
  const std::size_t A = f.align();
  Heap heap;
  CHECK(heap.page_count() == 0);
  CHECK_ERRC(heap.create_buffer(A), Errc::released);
  Context dead;
  Queue dead_q;
  CHECK_ERRC(heap.init(dead, f.q, A, 4), Errc::released);
  CHECK_ERRC(heap.init(f.ctx, dead_q, A, 4), Errc::released);
  CHECK_ERRC(heap.init(f.ctx, f.q, 0, 4), Errc::invalid_argument);
  CHECK_ERRC(heap.init(f.ctx, f.q, A, 0), Errc::invalid_argument);
  if (A > 1) CHECK_ERRC(heap.init(f.ctx, f.q, A + A / 2, 4), Errc::misaligned);
  CHECK_ERRC(heap.init(f.ctx, f.q, A, SIZE_MAX / 2), Errc::out_of_range);
  CHECK_ERRC(heap.init(f.ctx, f.q, A, f.ctx.info().max_alloc_bytes / A + 1), Errc::out_of_range);
  emt::OtherContext other(64);
  CHECK_ERRC(heap.init(f.ctx, other.q, A, 4), Errc::invalid_argument);
  CHECK(heap.page_count() == 0);
  CHECK(heap.page_size() == 0);
  REQUIRE_OK_CALL(heap.init(f.ctx, f.q, A, 4));
  CHECK_ERRC(heap.init(f.ctx, f.q, A, 4), Errc::invalid_argument);
  CHECK(heap.page_count() == 4);
  CHECK(heap.page_size() == A);
}

TEST_CASE("Heap: first-fit runs, page accounting, contents, pages back on destruction") {
  emt::Fixture f;
  const std::size_t P = 2 * f.align();
  Heap heap;
  REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 8));
  CHECK(heap.free_pages() == 8);
  CHECK(heap.largest_free_run() == 8);

  auto a = heap.create_buffer(2 * P);  // pages 0-1
  auto b = heap.create_buffer(1);      // page 2 (a partial page still takes a page)
  auto c = heap.create_buffer(P + 1);  // pages 3-4
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  REQUIRE_OK(c);
  CHECK(a->size() == 2 * P);
  CHECK(b->size() == 1);
  CHECK(c->size() == P + 1);
  CHECK(a->origin() == 0);
  CHECK(b->origin() == 2 * P);
  CHECK(c->origin() == 3 * P);
  CHECK(heap.free_pages() == 3);
  CHECK(heap.largest_free_run() == 3);

  emt::Bytes da = emt::random_bytes(2 * P), dc = emt::random_bytes(P + 1);
  CHECK_OK(f.q.write(*a, 0, da.data(), da.size()));
  CHECK_OK(f.q.write(*c, 0, dc.data(), dc.size()));
  CHECK_OK(b->release());  // page 2 free again
  CHECK(heap.free_pages() == 4);
  auto d = heap.create_buffer(P);  // first fit: the hole at page 2
  REQUIRE_OK(d);
  CHECK(d->origin() == 2 * P);
  CHECK(f.snapshot(*a) == da);
  CHECK(f.snapshot(*c) == dc);

  const HeapState before = state(heap);
  CHECK_ERRC(heap.create_buffer(4 * P), Errc::exhausted);  // 3 pages free, not 4
  CHECK(state(heap) == before);
  CHECK_ERRC(heap.create_buffer(0), Errc::invalid_argument);
  CHECK_ERRC(heap.create_buffer(8 * P + 1), Errc::out_of_range);
  CHECK(state(heap) == before);

  a = Buffer{};
  c = Buffer{};
  d = Buffer{};
  CHECK(heap.free_pages() == 8);
  CHECK(heap.largest_free_run() == 8);
}

TEST_CASE("Heap: exhaustion by fragmentation, from_host and like") {
  emt::Fixture f;
  const std::size_t P = f.align();
  Heap heap;
  REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 4, Storage::shared));
  std::vector<Buffer> pages;
  for (int i = 0; i < 4; ++i) {
    auto b = heap.create_buffer(P);
    REQUIRE_OK(b);
    pages.push_back(std::move(*b));
  }
  CHECK_ERRC(heap.create_buffer(1), Errc::exhausted);
  pages[0] = Buffer{};
  pages[2] = Buffer{};
  CHECK(heap.free_pages() == 2);
  CHECK(heap.largest_free_run() == 1);
  const HeapState before = state(heap);
  CHECK_ERRC(heap.create_buffer(2 * P), Errc::exhausted);  // two free pages, but not contiguous
  CHECK(state(heap) == before);

  const emt::Bytes data = emt::random_bytes(P - 3);
  auto h = heap.create_buffer_from_host(f.q, data.data(), data.size());
  REQUIRE_OK(h);
  CHECK(h->origin() == 0);
  CHECK(f.snapshot(*h) == data);
  CHECK_ERRC(heap.create_buffer_from_host(f.q, nullptr, 4), Errc::invalid_argument);
  Queue dead_q;
  CHECK_ERRC(heap.create_buffer_from_host(dead_q, data.data(), 4), Errc::released);
  emt::OtherContext other(64);
  CHECK_ERRC(heap.create_buffer_from_host(other.q, data.data(), 4), Errc::invalid_argument);
  CHECK(heap.free_pages() == 1);

  auto l = heap.create_buffer_like(*h);
  REQUIRE_OK(l);
  CHECK(l->size() == h->size());
  CHECK(l->origin() == 2 * P);
  CHECK_ERRC(heap.create_buffer_like(Buffer{}), Errc::released);
  CHECK_ERRC(heap.create_buffer_like(other.buf), Errc::exhausted);  // no page left
  CHECK(heap.free_pages() == 0);
}

TEST_CASE("Heap: is_page_mappable follows mappings; pages stay used while mapped or sub-buffered") {
  emt::Fixture f;
  const std::size_t P = f.align();
  Heap heap;
  REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 4));
  auto b = heap.create_buffer(3 * P);
  REQUIRE_OK(b);
  for (std::size_t p = 0; p < 4; ++p) CHECK(heap.is_page_mappable(p));
  CHECK_FALSE(heap.is_page_mappable(4));
  {
    auto m = f.q.map<unsigned char>(*b, Access::read, P, P);
    REQUIRE_OK(m);
    CHECK(heap.is_page_mappable(0));
    CHECK_FALSE(heap.is_page_mappable(1));
    CHECK(heap.is_page_mappable(2));
    Buffer handle = std::move(*b);
    handle = Buffer{};  // the handle goes; the mapping keeps the pages
    CHECK(heap.free_pages() == 1);
  }
  CHECK(heap.is_page_mappable(1));
  CHECK(heap.free_pages() == 4);

  auto c = heap.create_buffer(2 * P);
  REQUIRE_OK(c);
  auto s = c->sub(P, P);
  REQUIRE_OK(s);
  *c = Buffer{};
  CHECK(heap.free_pages() == 2);  // the sub-buffer keeps the whole run
  *s = Buffer{};
  CHECK(heap.free_pages() == 4);
}

TEST_CASE("Heap destruction policy: release() refused while buffers live; destructor detaches") {
  emt::Fixture f;
  const std::size_t P = f.align();
  const AllocatorStats base = DefaultAllocator::stats();
  Buffer survivor;
  {
    Heap heap;
    REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 2));
    auto b = heap.create_buffer(P);
    REQUIRE_OK(b);
    const HeapState s = state(heap);
    CHECK_ERRC(heap.release(), Errc::busy);
    CHECK(state(heap) == s);
    *b = Buffer{};
    CHECK_OK(heap.release());
    CHECK_OK(heap.release());
    CHECK_ERRC(heap.create_buffer(P), Errc::released);
    REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 3));
    auto c = heap.create_buffer(2 * P);
    REQUIRE_OK(c);
    survivor = std::move(*c);
  }
  const emt::Bytes data = emt::random_bytes(2 * P);
  CHECK_OK(f.q.write(survivor, 0, data.data(), data.size()));
  CHECK(f.snapshot(survivor) == data);
  survivor = Buffer{};
  CHECK(DefaultAllocator::stats().allocations == base.allocations);
}

TEST_CASE("Heap: max_buffers bounds live buffers; create/destroy needs no allocator call") {
  emt::Fixture f;
  const std::size_t P = f.align();
  Heap heap;
  CHECK(heap.max_buffers() == 0);
  CHECK(heap.live_buffers() == 0);
  REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 8, Storage::device, MemFlags::read_write, 2));
  CHECK(heap.max_buffers() == 2);
  auto a = heap.create_buffer(P);
  auto b = heap.create_buffer(P);
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  CHECK(heap.live_buffers() == 2);
  const HeapState before = state(heap);
  CHECK_ERRC(heap.create_buffer(P), Errc::exhausted);  // pages free, but no node slot
  CHECK(state(heap) == before);
  CHECK(heap.live_buffers() == 2);
  *a = Buffer{};
  CHECK(heap.live_buffers() == 1);
  const std::size_t allocations = DefaultAllocator::stats().total_allocations;
  for (int i = 0; i < 100; ++i) {
    auto c = heap.create_buffer(3 * P);
    REQUIRE_OK(c);
    CHECK(f.snapshot(*c).size() == 3 * P);
  }
  CHECK(DefaultAllocator::stats().total_allocations == allocations);  // node storage came with init()
  CHECK_OK(b->release());
  CHECK(heap.live_buffers() == 0);
  CHECK_OK(heap.release());
  CHECK(heap.max_buffers() == 0);

  REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 4, Storage::device, MemFlags::read_write, 100));
  CHECK(heap.max_buffers() == 4);  // clamped: at most page_count buffers can ever live
  CHECK_OK(heap.release());
  REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 4));
  CHECK(heap.max_buffers() == 4);  // 0: page_count
}

TEST_CASE("Heap: buffers outliving the heap keep working; its bookkeeping goes with the last one") {
  emt::Fixture f;
  const std::size_t P = f.align();
  const AllocatorStats base = DefaultAllocator::stats();
  Buffer a, b;
  {
    Heap heap;
    REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 4, Storage::shared));
    auto x = heap.create_buffer(P);
    auto y = heap.create_buffer(2 * P);
    REQUIRE_OK(x);
    REQUIRE_OK(y);
    a = std::move(*x);
    b = std::move(*y);
  }
  const emt::Bytes data = emt::random_bytes(2 * P);
  {
    auto m = f.q.map<unsigned char>(b, Access::write_discard);
    REQUIRE_OK(m);
    std::memcpy(m->data(), data.data(), data.size());
    b = Buffer{};  // the handle goes; the mapping keeps the run (and the book) alive
    CHECK(DefaultAllocator::stats().allocations > base.allocations);
    auto s = a.sub(0, P);
    REQUIRE_OK(s);
    a = Buffer{};
    CHECK(round_trip_ok(f, *s));
  }
  CHECK(DefaultAllocator::stats().allocations == base.allocations);  // nothing leaked
}

TEST_CASE("Heap: every host-access flag, init touches the arena with a device fill") {
  emt::Fixture f;
  const std::size_t P = f.align();
  const MemFlags all[] = {MemFlags::read_write,
                          MemFlags::host_read_only,
                          MemFlags::host_write_only,
                          MemFlags::host_no_access,
                          MemFlags::read_only | MemFlags::host_no_access,
                          MemFlags::write_only | MemFlags::host_read_only};
  for (MemFlags flags : all) {
    CAPTURE(static_cast<unsigned>(flags));
    Heap heap;
    REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 4, Storage::device, flags));
    auto b = heap.create_buffer(2 * P);
    REQUIRE_OK(b);
    CHECK(b->flags() == flags);
    CHECK(f.snapshot(*b) == emt::Bytes(2 * P, 0));  // zero-filled at creation
    const emt::Bytes data = emt::random_bytes(P);
    const bool host_writes = !has(flags, MemFlags::host_read_only) && !has(flags, MemFlags::host_no_access);
    if (host_writes) {
      auto h = heap.create_buffer_from_host(f.q, data.data(), data.size());
      REQUIRE_OK(h);
      CHECK(f.snapshot(*h) == data);
    } else {
      const HeapState before = state(heap);
      CHECK_ERRC(heap.create_buffer_from_host(f.q, data.data(), data.size()), Errc::access_denied);
      CHECK(state(heap) == before);
    }
  }
  Heap bad;
  CHECK_ERRC(bad.init(f.ctx, f.q, P, 4, Storage::device, MemFlags::read_only | MemFlags::write_only),
             Errc::invalid_argument);
  CHECK_ERRC(bad.init(f.ctx, f.q, P, 4, Storage::device, MemFlags::host_read_only | MemFlags::host_no_access),
             Errc::invalid_argument);
  CHECK(bad.page_count() == 0);
}

TEST_CASE("Heap stress: 4 threads create and destroy runs; no two live runs share a page") {
  emt::Fixture f;
  const std::size_t P = f.align();
  constexpr std::size_t kPages = 24;
  constexpr int kThreads = 4;
  Heap heap;
  REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, kPages, Storage::shared, MemFlags::read_write, 8));
  std::atomic<int> page_owner[kPages];
  for (auto& o : page_owner) o.store(-1);
  std::atomic<int> violations{0}, errors{0};
  std::atomic<long> made{0};
  const auto stop_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto q = Queue::create(f.ctx);
      if (!q) {
        errors.fetch_add(1);
        return;
      }
      std::uint32_t tag = static_cast<std::uint32_t>(t + 1) << 24;
      for (int i = 0; std::chrono::steady_clock::now() < stop_at; ++i) {
        const std::size_t pages = 1 + static_cast<std::size_t>((i + t) % 3);
        auto b = heap.create_buffer(pages * P - 1);
        if (!b) {
          if (b.error().code != Errc::exhausted) errors.fetch_add(1);
          continue;
        }
        const std::size_t first = b->origin() / P;
        for (std::size_t p = first; p < first + pages; ++p) {
          int expected = -1;
          if (!page_owner[p].compare_exchange_strong(expected, t)) violations.fetch_add(1);
        }
        ++tag;
        std::uint32_t back = 0;
        if (!q->write(*b, 0, &tag, sizeof tag) || !q->read(*b, 0, &back, sizeof back) || back != tag)
          violations.fetch_add(1);
        for (std::size_t p = first; p < first + pages; ++p) page_owner[p].store(-1);
        made.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(violations.load() == 0);
  CHECK(errors.load() == 0);
  CHECK(made.load() > 100);
  CHECK(heap.free_pages() == kPages);
  CHECK(heap.largest_free_run() == kPages);
  CHECK(heap.live_buffers() == 0);
  MESSAGE("4-thread heap stress: " << made.load() << " create/destroy cycles");
}

#if EDGEMEM_FAULT_INJECTION
// With -Dfault_injection=true: Heap::init and create_buffer* fail cleanly at every fault point with
// the injected Errc (fill -> out_of_device_memory: deferred allocation shows up at init), and a
// create/destroy cycle passes no allocation point (its node storage came with init()).
TEST_CASE("Heap under fault injection: init and create_buffer fail cleanly; no allocation per buffer") {
  emt::Fixture f;
  const std::size_t P = f.align();
  const AllocatorStats base = DefaultAllocator::stats();
  fault::arm(0);
  {
    Heap probe;
    REQUIRE_OK_CALL(probe.init(f.ctx, f.q, P, 8));
  }
  std::uint64_t points = fault::count();
  fault::disarm();
  bool saw_fill = false;
  for (std::uint64_t k = 1; k <= points; ++k) {
    CAPTURE(k);
    Heap heap;
    fault::arm(k);
    auto r = heap.init(f.ctx, f.q, P, 8);
    fault::disarm();
    REQUIRE(fault::fired());
    CAPTURE(fault::last().call);
    CHECK_ERRC(r, fault::last().code);
    CHECK(heap.page_count() == 0);
    CHECK(DefaultAllocator::stats().allocations == base.allocations);
    if (std::string(fault::last().call) == "fill") {
      saw_fill = true;
      CHECK(fault::last().code == Errc::out_of_device_memory);
    }
  }
  CHECK(saw_fill);

  Heap heap;
  REQUIRE_OK_CALL(heap.init(f.ctx, f.q, P, 8));
  auto keep = heap.create_buffer(P);
  REQUIRE_OK(keep);
  const emt::Bytes data = emt::random_bytes(2 * P);
  fault::arm(0);
  {
    auto b = heap.create_buffer_from_host(f.q, data.data(), data.size());
    auto l = heap.create_buffer_like(*keep);
    CHECK((b && l));
  }
  points = fault::count();
  const std::uint64_t allocations = fault::count(fault::Point::allocation);
  fault::disarm();
  CHECK(allocations == 0);
  for (std::uint64_t k = 1; k <= points; ++k) {
    CAPTURE(k);
    const HeapState before = state(heap);
    fault::arm(k);
    auto b = heap.create_buffer_from_host(f.q, data.data(), data.size());
    auto l = b ? heap.create_buffer_like(*keep) : Result<Buffer>(fail(Errc::busy, "not reached"));
    fault::disarm();
    REQUIRE(fault::fired());
    CAPTURE(fault::last().call);
    CHECK_MESSAGE((!b || !l), "a fired fault must fail the call it hit");
    if (!b) CHECK_ERRC(b, fault::last().code);
    else CHECK_ERRC(l, fault::last().code);
    b = Buffer{};
    CHECK(state(heap) == before);  // the pages of the failed call went back
    CHECK(heap.live_buffers() == 1);
  }
}
#endif

#if EDGEMEM_ALLOCATOR_STATIC
TEST_CASE("Heap: an exhausted static arena makes init() out_of_host_memory") {
  emt::Fixture f;
  const AllocatorStats before = DefaultAllocator::stats();
  std::vector<std::pair<void*, std::size_t>> taken;  // the arena in halving chunks (vector: C++ heap)
  for (std::size_t chunk = EDGEMEM_STATIC_ARENA_BYTES; chunk >= 16; chunk /= 2)
    while (void* p = DefaultAllocator::allocate(chunk, 16)) taken.emplace_back(p, chunk);
  Heap heap;
  CHECK_ERRC(heap.init(f.ctx, f.q, f.align(), 64), Errc::out_of_host_memory);
  CHECK(heap.page_count() == 0);
  CHECK(heap.max_buffers() == 0);
  for (const auto& t : taken) DefaultAllocator::deallocate(t.first, t.second, 16);
  const AllocatorStats after = DefaultAllocator::stats();
  CHECK(after.in_use_bytes == before.in_use_bytes);
  CHECK(after.allocations == before.allocations);
  REQUIRE_OK_CALL(heap.init(f.ctx, f.q, f.align(), 64));  // works again once the arena has room
}
#endif
