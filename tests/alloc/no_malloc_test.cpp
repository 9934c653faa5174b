// allocator=static promise: the library never calls malloc/new. Every public operation runs while
// a malloc/new interposer counts calls; the count must stay 0.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>

#include <edgemem/edgemem.hpp>

#include "malloc_counter.hpp"

using namespace edgemem;

namespace {

// Runs every public operation once; returns the number of calls that failed (want 0).
int exercise_everything() noexcept {
  int failures = 0;
  auto ok = [&failures](bool b) { failures += b ? 0 : 1; };

  auto ctx = Context::create();
  ok(ctx.has_value());
  if (!ctx) return failures;
  auto q = Queue::create(*ctx);
  ok(q.has_value());
  if (!q) return failures;
  const std::size_t align = ctx->base_align();

  unsigned char host[4096];
  for (std::size_t i = 0; i < sizeof host; ++i) host[i] = static_cast<unsigned char>(i * 7 + 1);

  auto a = Buffer::create(*ctx, 4 * align, Storage::device);
  auto b = Buffer::from_host(*ctx, host, 4 * align, Storage::shared);
  auto w = Buffer::wrap(*ctx, host, sizeof host);
  ok(a && b && w);
  if (!a || !b || !w) return failures;
  auto l = Buffer::like(*a);
  auto s = a->sub(align, 2 * align);
  ok(l && s);
  if (!l || !s) return failures;
  auto ss = s->sub(align, align);
  ok(ss.has_value());

  unsigned char out[4096] = {};
  ok(q->write(*a, 0, host, align).has_value());
  ok(q->read(*a, 0, out, align).has_value());
  const std::uint32_t pattern = 0xA5A5F00Du;
  ok(q->fill(*l, 0, 4 * align, &pattern, sizeof pattern).has_value());
  ok(q->copy(*b, *a, 0, 0, align).has_value());
  Rect rect;
  rect.region = Extent3{16, 4, 1};
  rect.buffer.row_pitch = 32;
  ok(q->write_rect(*a, rect, host, sizeof host).has_value());
  ok(q->read_rect(*a, rect, out, sizeof out).has_value());
  CopyRect crect;
  crect.region = Extent3{16, 4, 1};
  ok(q->copy_rect(*a, *l, crect).has_value());
  ok(q->migrate(*a, Migration::to_host).has_value());

  {
    auto e1 = q->write_async(*a, 0, host, 64);
    ok(e1.has_value());
    if (e1) {
      auto e2 = q->read_async(*a, 0, out, 64, *e1);
      ok(e2 && e2->wait().has_value());
      auto done = e1->is_complete();
      ok(done && *done);
    }
  }
  {
    // A wait list past 32 events (folded into markers on the stack), marker, barrier, wait_all.
    Event evs[40];
    bool filled = true;
    for (Event& e : evs) {
      auto r = q->fill_async(*l, 0, align, &pattern, sizeof pattern);
      filled = filled && r.has_value();
      if (r) e = std::move(*r);
    }
    ok(filled);
    auto marker = q->marker(evs);
    auto barrier = q->barrier(WaitList(evs, 33));
    auto copied = q->copy_async(*b, *a, 0, 0, align, evs);
    ok(marker && barrier && copied);
    ok(wait_all(evs).has_value());
    if (copied) ok(wait_all(*copied).has_value());
    if (marker) ok(marker->wait().has_value());
  }
  {
    const Buffer& const_b = *b;
    auto cm = q->map<const std::uint8_t>(const_b, Access::read, 0, 64);
    ok(cm.has_value());
  }
  {
    auto m = q->map<std::uint32_t>(*s, Access::write_discard);
    ok(m.has_value());
    if (m) {
      for (auto& v : *m) v = 0x01020304u;
      ok(m->unmap().has_value());
    }
    auto r = q->map<std::uint8_t>(*a, Access::read, 0, 64);
    ok(r.has_value());
  }
  ok(q->finish().has_value());
  ok(s->release().has_value());
  ok(a->release().has_value());
  ok(q->release().has_value());
  ok(ctx->release().has_value());
  return failures;
}

}  // namespace

TEST_CASE("allocator=static: the library makes no malloc/new call") {
  REQUIRE(EDGEMEM_ALLOCATOR_STATIC == 1);
  // The counter itself works.
  edgemem_test::start_counting();
  void* (*volatile do_malloc)(std::size_t) = std::malloc;  // volatile: the pair cannot be optimised away
  void* probe = do_malloc(16);
  std::free(probe);
  const std::size_t probe_calls = edgemem_test::stop_counting();
  CHECK(probe_calls == 1);

  const AllocatorStats before = DefaultAllocator::stats();
  edgemem_test::start_counting();
  const int failures = exercise_everything();
  const std::size_t calls = edgemem_test::stop_counting();
  const AllocatorStats after = DefaultAllocator::stats();

  CHECK(failures == 0);
  CHECK(calls == 0);
  CHECK(after.peak_bytes > 0);
  CHECK(after.in_use_bytes == before.in_use_bytes);   // everything returned to the arena
  CHECK(after.allocations == before.allocations);
}
