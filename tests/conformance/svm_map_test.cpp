// Shared virtual memory, host access and pools (svm.hpp, issue #16): maps of coarse and fine SVM with
// the buffer mapping rules, host_span() of fine grain, migrate, FixedPool and Heap over SVM, and the live-object counters. Each case checks the
// device's caps: a grain it lacks answers Errc::unsupported (svm_helpers.hpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "svm_helpers.hpp"

using namespace edgemem;
using emt::grain_name;
using emt::kSvmGrains;

TEST_CASE("svm: map and unmap: bytes written in a mapping are what q.read sees, and back") {
  emt::Fixture f;
  const std::size_t A = f.align(), bytes = 8 * A;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto s = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(s);
    std::byte* const base = static_cast<std::byte*>(s->pointer());
    {
      auto m = f.q.map<std::uint32_t>(*s, Access::write_discard);
      REQUIRE_OK(m);
      CHECK(m->size() == bytes / 4);
      CHECK(static_cast<void*>(m->data()) == s->pointer());  // SVM maps at its own address
      for (std::size_t i = 0; i < m->size(); ++i) (*m)[i] = 0x5a000000u + static_cast<std::uint32_t>(i);
      CHECK_OK(m->unmap());
    }
    std::vector<std::uint32_t> got(bytes / 4);
    CHECK_OK(f.q.read(*s, 0, got.data(), bytes));
    for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == 0x5a000000u + i);
    // q.write, then a read map sees it; a ranged write map of a view; its async unmap.
    const emt::Bytes data = emt::random_bytes(bytes);
    CHECK_OK(f.q.write(*s, 0, data.data(), bytes));
    {
      auto r = f.q.map<const unsigned char>(static_cast<const Svm&>(*s), Access::read, A, 2 * A);
      REQUIRE_OK(r);
      CHECK(static_cast<const void*>(r->data()) == base + A);
      CHECK(emt::Bytes(r->begin(), r->end()) == emt::Bytes(data.begin() + A, data.begin() + 3 * A));
    }
    emt::Bytes want = data;
    auto v = s->sub(2 * A, 4 * A);
    REQUIRE_OK(v);
    {
      auto w = f.q.map<unsigned char>(*v, Access::write, A, A);
      REQUIRE_OK(w);
      CHECK(static_cast<void*>(w->data()) == base + 3 * A);
      CHECK(emt::Bytes(w->begin(), w->end()) == emt::Bytes(data.begin() + 3 * A, data.begin() + 4 * A));
      for (std::size_t i = 0; i < A; ++i) (*w)[i] = static_cast<unsigned char>(i * 3 + 1);
      for (std::size_t i = 0; i < A; ++i) want[3 * A + i] = static_cast<unsigned char>(i * 3 + 1);
      auto e = w->unmap_async();
      REQUIRE_OK(e);
      CHECK_FALSE(w->mapped());
    }
    CHECK(f.snapshot(*s) == want);
    {
      auto w = f.q.map<std::uint64_t>(*s, Access::write, 0, A);  // left to the guard's destructor
      REQUIRE_OK(w);
      (*w)[0] = 0x0123456789abcdefull;
      std::memcpy(want.data(), &(*w)[0], 8);
    }
    CHECK(f.snapshot(*s) == want);
    CHECK_ERRC(f.q.map<std::uint32_t>(*s, Access::read, 2, 8), Errc::misaligned);
    CHECK_ERRC(f.q.map<std::uint32_t>(*s, Access::read, 0, 6), Errc::misaligned);
    CHECK_ERRC(f.q.map(*s, Access::read, bytes - 4, 8), Errc::out_of_range);
    CHECK_ERRC(f.q.map(*s, Access::read, 0, 0), Errc::invalid_argument);
    CHECK_ERRC(f.q.map(*s, static_cast<Access>(9)), Errc::invalid_argument);
    {  // Read maps at one address, of two sizes and on two queues: each unmaps once, in any order.
      auto qb = Queue::create(f.ctx);
      REQUIRE_OK(qb);
      auto r1 = f.q.map<const unsigned char>(static_cast<const Svm&>(*s), Access::read, 0, A);
      auto r2 = f.q.map<const unsigned char>(static_cast<const Svm&>(*s), Access::read, 0, 2 * A);
      auto r3 = qb->map<const unsigned char>(static_cast<const Svm&>(*s), Access::read, 0, A);
      REQUIRE_OK(r1);
      REQUIRE_OK(r2);
      REQUIRE_OK(r3);
      CHECK((*r2)[A + 1] == want[A + 1]);
      CHECK_OK(r2->unmap());
      CHECK((*r1)[1] == want[1]);
      CHECK((*r3)[2] == want[2]);
      CHECK_OK(r1->unmap());
      CHECK_OK(r3->unmap());
    }
    {  // A handle dropped while mapped: the mapping stays valid and unmaps later.
      auto m = f.q.map<unsigned char>(*s, Access::write, 0, A);
      REQUIRE_OK(m);
      *s = Svm{};
      CHECK_FALSE(s->valid());
      (*m)[0] = 0xab;
      CHECK_OK(m->unmap());
    }
    CHECK(f.ctx.unreported_errors().count == 0);
  }
}

TEST_CASE("svm: map conflict rules: busy for conflicting maps, transfers and release of a mapped Svm") {
  emt::Fixture f;
  const std::size_t A = f.align(), bytes = 8 * A;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto s = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(s);
    emt::Bytes want = emt::random_bytes(bytes);
    CHECK_OK(f.q.write(*s, 0, want.data(), bytes));
    auto other = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(other);
    auto view = s->sub(A, 2 * A);
    REQUIRE_OK(view);
    const emt::Bytes fresh = emt::random_bytes(A);
    const unsigned char pat = 0x42;
    emt::Bytes back(A);
    {
      auto w = f.q.map(*s, Access::write, 0, 2 * A);
      REQUIRE_OK(w);
      CHECK_ERRC(f.q.write(*s, A, fresh.data(), A), Errc::busy);
      CHECK_ERRC(f.q.write(*view, 0, fresh.data(), 1), Errc::busy);  // root byte A, through a view
      CHECK_ERRC(f.q.read(*s, 0, back.data(), 1), Errc::busy);
      CHECK_ERRC(f.q.fill(*s, 0, A, &pat, 1), f.ctx.info().caps.max_fill_pattern_bytes >= 1 ? Errc::busy : Errc::unsupported);
      CHECK_ERRC(f.q.copy(*other, *s, 0, A, A), Errc::busy);
      CHECK_ERRC(f.q.copy(*s, *other, 0, 0, A), Errc::busy);
      CHECK_ERRC(f.q.map(*s, Access::read, A, 1), Errc::busy);
      CHECK_ERRC(f.q.map(*view, Access::write, 0, A), Errc::busy);
      CHECK_ERRC(s->release(), Errc::busy);
      CHECK_ERRC(s->release(f.q), Errc::busy);
      CHECK(s->valid());
      if (f.ctx.info().caps.migration) CHECK_ERRC(f.q.migrate(*s, Migration::to_host), Errc::busy);
      // Bytes outside the mapping stay open to transfers.
      CHECK_OK(f.q.write(*s, 4 * A, fresh.data(), A));
      std::memcpy(want.data() + 4 * A, fresh.data(), A);
      CHECK_OK(f.q.read(*s, 5 * A, back.data(), A));
      CHECK(back == emt::Bytes(want.begin() + 5 * A, want.begin() + 6 * A));
      CHECK_OK(f.q.copy(*s, *other, 6 * A, 0, A));
      CHECK_OK(view->release());  // another handle: not the one mapped through
      CHECK_OK(w->unmap());
    }
    {
      auto r = f.q.map(*s, Access::read, 0, A);
      REQUIRE_OK(r);
      auto r2 = f.q.map(*s, Access::read, 0, 2 * A);  // read + read coexist
      CHECK_OK(r2);
      CHECK_OK(f.q.read(*s, 0, back.data(), A));  // reading under a read map is fine
      CHECK(back == emt::Bytes(want.begin(), want.begin() + A));
      CHECK_ERRC(f.q.write(*s, 0, fresh.data(), A), Errc::busy);
      CHECK_ERRC(f.q.map(*s, Access::write_discard, A - 1, 2), Errc::busy);
      CHECK_ERRC(s->release(), Errc::busy);
    }
    CHECK(f.snapshot(*s) == want);
    CHECK_OK(s->release());
    CHECK_FALSE(s->valid());
  }
}

TEST_CASE("svm: host_span for fine grain; access_denied for coarse; misaligned sizes") {
  emt::Fixture f;
  const std::size_t A = f.align(), bytes = 16 * A;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto s = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(s);
    if (g == SvmGrain::coarse) {
      CHECK_ERRC(s->host_span<std::uint32_t>(), Errc::access_denied);
      CHECK_ERRC(s->host_span<std::byte>(), Errc::access_denied);
      auto v = s->sub(A, A);
      REQUIRE_OK(v);
      CHECK_ERRC(v->host_span<std::uint8_t>(), Errc::access_denied);
      continue;
    }
    auto span = s->host_span<std::uint32_t>();
    REQUIRE_OK(span);
    CHECK(static_cast<void*>(span->data()) == s->pointer());
    CHECK(span->size() == bytes / 4);
    // q.write, finished: the span sees it.
    std::vector<std::uint32_t> words(bytes / 4);
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = 0x77000000u + static_cast<std::uint32_t>(i);
    CHECK_OK(f.q.write(*s, 0, words.data(), bytes));
    CHECK_OK(f.q.finish());
    CHECK(std::equal(span->data(), span->data() + span->size(), words.begin()));
    // Host stores through the span, then q.read after q.finish sees them.
    for (std::size_t i = 0; i < span->size(); ++i) (*span)[i] = 0x0f000000u ^ static_cast<std::uint32_t>(i * 5);
    CHECK_OK(f.q.finish());
    std::vector<std::uint32_t> got(bytes / 4);
    CHECK_OK(f.q.read(*s, 0, got.data(), bytes));
    for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == (0x0f000000u ^ static_cast<std::uint32_t>(i * 5)));
    // A view's span starts at its pointer.
    auto v = s->sub(2 * A, 3 * A);
    REQUIRE_OK(v);
    auto vspan = v->host_span<unsigned char>();
    REQUIRE_OK(vspan);
    CHECK(static_cast<void*>(vspan->data()) == v->pointer());
    CHECK(vspan->size() == 3 * A);
    std::memset(vspan->data(), 0xee, vspan->size());
    CHECK_OK(f.q.read(*s, 2 * A, got.data(), 4));
    CHECK(got[0] == 0xeeeeeeeeu);
    // The span as the host side of a transfer on its own Svm, any byte of the allocation: refused before
    // the backend (overlap: as host memory it would not be ordered like SVM), the bytes unchanged;
    // copy() moves bytes between ranges of one allocation.
    for (std::size_t i = 0; i < 64; ++i) (*vspan)[i] = static_cast<unsigned char>(i);
    CHECK_ERRC(f.q.write(*s, 0, vspan->data(), 64), Errc::overlap);  // root [0, 64) from root [2A, 2A + 64)
    CHECK_ERRC(f.q.read(*s, 0, vspan->data() + 64, 64), Errc::overlap);
    CHECK_OK(f.q.copy(*s, *s, 2 * A, 0, 64));
    CHECK_OK(f.q.copy(*s, *s, 0, 2 * A + 64, 64));
    CHECK_OK(f.q.finish());
    for (std::size_t i = 0; i < 64; ++i) CHECK((*vspan)[64 + i] == i);
    CHECK_ERRC(f.q.write(*v, 1, vspan->data(), 64), Errc::overlap);
    CHECK_ERRC(f.q.write(*s, 2 * A + 63, vspan->data(), 64), Errc::overlap);
    CHECK_ERRC(emt::settle(f.q.read_async(*v, 0, vspan->data() + 32, 64)), Errc::overlap);
    CHECK_ERRC(f.q.read(*s, 2 * A - 63, vspan->data(), 64), Errc::overlap);
    CHECK_OK(f.q.finish());
    for (std::size_t i = 0; i < 128; ++i) CHECK((*vspan)[i] == i % 64);
    // Element size must divide the size.
    auto odd = Svm::create(f.ctx, 4098, g);
    REQUIRE_OK(odd);
    CHECK_ERRC(odd->host_span<std::uint32_t>(), Errc::misaligned);
    CHECK_ERRC(odd->host_span<std::uint64_t>(), Errc::misaligned);
    auto halves = odd->host_span<std::uint16_t>();
    REQUIRE_OK(halves);
    CHECK(halves->size() == 2049);
  }
}

TEST_CASE("svm: migrate moves nothing visible, or is unsupported without caps.svm_migration") {
  emt::Fixture f;
  const bool can = f.ctx.info().caps.svm_migration;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    const emt::Bytes data = emt::random_bytes(8 * f.align());
    auto s = Svm::create(f.ctx, data.size(), g);
    REQUIRE_OK(s);
    CHECK_OK(f.q.write(*s, 0, data.data(), data.size()));
    auto v = s->sub(f.align(), 2 * f.align());
    REQUIRE_OK(v);
    for (Migration to : {Migration::to_host, Migration::to_device}) {
      if (!can) {
        CHECK_ERRC(f.q.migrate(*s, to), Errc::unsupported);
        CHECK_ERRC(f.q.migrate(*v, to), Errc::unsupported);
        CHECK_ERRC(emt::settle(f.q.migrate_async(*s, to)), Errc::unsupported);
      } else {
        CHECK_OK(f.q.migrate(*s, to));
        CHECK_OK(f.q.migrate(*v, to));
        auto before = emt::markers(f.q, 1);
        CHECK_OK(emt::settle(f.q.migrate_async(*s, to, before)));
      }
      CHECK(f.snapshot(*s) == data);
    }
    CHECK_ERRC(f.q.migrate(*s, static_cast<Migration>(9)), Errc::invalid_argument);
  }
}

TEST_CASE("svm: FixedPool<4> over SVM: blocks are SVM at block_bytes stride, zeroed, usable; stats; release") {
  emt::Fixture f;
  const std::size_t A = f.align();
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    FixedPool<4> pool;
    if (!emt::has_grain(f.ctx, g)) {
      CHECK_ERRC(pool.init(f.ctx, f.q, A, 4, g), Errc::unsupported);
      CHECK(pool.capacity() == 0);
      CHECK_ERRC(pool.acquire(), Errc::released);
      continue;
    }
    CHECK_ERRC(pool.init(f.ctx, f.q, 0, 4, g), Errc::invalid_argument);
    CHECK_ERRC(pool.init(f.ctx, f.q, A, 5, g), Errc::out_of_range);
    emt::OtherContext other(64);
    CHECK_ERRC(pool.init(f.ctx, other.q, A, 4, g), Errc::invalid_argument);
    CHECK(pool.capacity() == 0);
    auto init = pool.init(f.ctx, f.q, A + 1, 4, g);
    REQUIRE_OK(init);
    const std::size_t B = pool.block_bytes();
    CHECK(B == 2 * A);
    CHECK(pool.capacity() == 4);
    CHECK_ERRC(pool.init(f.ctx, f.q, A, 4, g), Errc::invalid_argument);  // already initialised
    std::vector<PooledBuffer> out;
    for (int i = 0; i < 4; ++i) {
      auto b = pool.acquire();
      REQUIRE_OK(b);
      CHECK(b->buffer().is_svm());
      CHECK(b->buffer().svm_pointer() != nullptr);
      CHECK(b->size() == B);
      CHECK(pool.owns(*b));
      CHECK_ERRC(b->buffer().native(), Errc::unsupported);
      CHECK(f.snapshot(*b) == emt::Bytes(B, 0));  // zero-filled at init
      out.push_back(std::move(*b));
    }
    CHECK_ERRC(pool.acquire(), Errc::exhausted);
    // Distinct pointers, block i at slot * block_bytes from the first.
    std::byte* first = static_cast<std::byte*>(out[0].buffer().svm_pointer());
    for (auto& b : out) first = std::min(first, static_cast<std::byte*>(b.buffer().svm_pointer()));
    CHECK(reinterpret_cast<std::uintptr_t>(first) % svm_max_alignment == 0);
    for (auto& b : out) CHECK(static_cast<std::byte*>(b.buffer().svm_pointer()) == first + b.slot() * B);
    for (std::size_t i = 1; i < out.size(); ++i) CHECK(out[i].buffer().shares_root_with(out[0]));
    // Write / read through every block; neighbours untouched.
    std::vector<emt::Bytes> data;
    for (auto& b : out) {
      data.push_back(emt::random_bytes(B));
      CHECK_OK(f.q.write(b, 0, data.back().data(), B));
    }
    for (std::size_t i = 0; i < out.size(); ++i) CHECK(f.snapshot(out[i]) == data[i]);
    auto sv = out[1].sub(A, A);  // a view of a block
    REQUIRE_OK(sv);
    CHECK(sv->svm_pointer() == static_cast<std::byte*>(out[1].buffer().svm_pointer()) + A);
    PoolStats st = pool.stats();
    CHECK(st.in_use == 4);
    CHECK(st.high_water == 4);
    CHECK(st.failed_acquires == 1);
    CHECK(st.block_bytes == B);
    CHECK_ERRC(pool.release(), Errc::busy);
    CHECK_OK(out[2].release());
    CHECK(pool.stats().in_use == 3);
    auto again = pool.acquire();  // the same block, the bytes it was returned with
    REQUIRE_OK(again);
    CHECK(f.snapshot(*again) == data[2]);
    out[2] = std::move(*again);
    out.clear();
    CHECK(pool.stats().in_use == 1);  // the view keeps its block out
    CHECK_OK(sv->release());
    CHECK(pool.stats().in_use == 0);
    CHECK_OK(pool.release());
    CHECK(pool.capacity() == 0);
    CHECK_OK(pool.release());  // idempotent
  }
}

TEST_CASE("svm: Heap over SVM: runs are SVM at their page offsets, usable; release") {
  emt::Fixture f;
  const std::size_t A = f.align();
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    Heap heap;
    if (!emt::has_grain(f.ctx, g)) {
      CHECK_ERRC(heap.init(f.ctx, f.q, A, 8, g), Errc::unsupported);
      CHECK(heap.page_count() == 0);
      CHECK_ERRC(heap.create_buffer(A), Errc::released);
      continue;
    }
    CHECK_ERRC(heap.init(f.ctx, f.q, 0, 8, g), Errc::invalid_argument);
    auto init = heap.init(f.ctx, f.q, A, 8, g);
    REQUIRE_OK(init);
    CHECK(heap.free_pages() == 8);
    auto a = heap.create_buffer(3 * A);
    auto b = heap.create_buffer(A);
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    CHECK(a->is_svm());
    CHECK(b->is_svm());
    CHECK(b->svm_pointer() == static_cast<std::byte*>(a->svm_pointer()) + 3 * A);  // first fit
    CHECK(a->shares_root_with(*b));
    CHECK_ERRC(a->native(), Errc::unsupported);
    CHECK(f.snapshot(*a) == emt::Bytes(3 * A, 0));
    const emt::Bytes data = emt::random_bytes(2 * A);
    auto c = heap.create_buffer_from_host(f.q, data.data(), data.size());
    REQUIRE_OK(c);
    CHECK(c->is_svm());
    CHECK(f.snapshot(*c) == data);
    auto d = heap.create_buffer_like(*c);
    REQUIRE_OK(d);
    CHECK(d->is_svm());
    CHECK(d->size() == 2 * A);
    CHECK(heap.free_pages() == 0);
    CHECK_ERRC(heap.create_buffer(A), Errc::exhausted);
    const emt::Bytes more = emt::random_bytes(3 * A);
    CHECK_OK(f.q.write(*a, 0, more.data(), more.size()));
    CHECK(f.snapshot(*a) == more);
    CHECK(f.snapshot(*c) == data);
    CHECK_ERRC(heap.release(), Errc::busy);
    CHECK_OK(a->release());
    CHECK(heap.free_pages() == 3);
    auto e = heap.create_buffer(3 * A);  // back on the pages a had
    REQUIRE_OK(e);
    CHECK(e->svm_pointer() == static_cast<std::byte*>(b->svm_pointer()) - 3 * A);
    for (Buffer* x : {&*b, &*c, &*d, &*e}) CHECK_OK(x->release());
    CHECK(heap.live_buffers() == 0);
    CHECK_OK(heap.release());
    CHECK(heap.page_count() == 0);
  }
}

TEST_CASE("svm: live objects count an Svm as a buffer and its views as sub-buffers") {
  emt::Fixture f;
  if (!emt::has_any_svm(f.ctx)) {
    for (SvmGrain g : kSvmGrains) CHECK(emt::lacks_grain_checked(f.ctx, g));
    return;
  }
  SvmGrain g = SvmGrain::coarse;
  for (SvmGrain h : kSvmGrains)
    if (emt::has_grain(f.ctx, h)) {
      g = h;
      break;
    }
  const LiveObjects start = live_objects();
  {
    auto s = Svm::create(f.ctx, 4 * f.align(), g);
    REQUIRE_OK(s);
    auto v = s->sub(f.align(), f.align());
    REQUIRE_OK(v);
    if (live_objects_enabled) {
      CHECK(live_objects().buffers - start.buffers == 1);
      CHECK(live_objects().sub_buffers - start.sub_buffers == 1);
    }
    {
      auto m = f.q.map(*s, Access::read);
      REQUIRE_OK(m);
      if (live_objects_enabled) CHECK(live_objects().mappings - start.mappings == 1);
    }
    CHECK_OK(s->release());
    if (live_objects_enabled) CHECK(live_objects().buffers - start.buffers == 1);  // the view keeps it
  }
  const LiveObjects end = live_objects();
  CHECK(end.buffers == start.buffers);
  CHECK(end.sub_buffers == start.sub_buffers);
  CHECK(end.mappings == start.mappings);
}
