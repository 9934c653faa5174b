// Heap: paged arena creation and its errors, first-fit page runs, page accounting, contents,
// buffers giving their pages back (deferred while mapped or sub-buffered), is_page_mappable,
// exhaustion by fragmentation, and the destruction policy.
#include <cstdint>
#include <cstring>
#include <vector>

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
