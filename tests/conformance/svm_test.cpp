// Shared virtual memory (svm.hpp, issue #16): creation for each grain, like(), sub() views, the queue
// commands on SVM (write / read / fill / copy) with real bytes and every Errc, the calls that
// have no buffer object for SVM (unsupported), plain buffers, released handles and other contexts.
// Each case reads the device's caps: a grain or capability the device lacks is checked to answer
// Errc::unsupported, so the same source runs on the host backend (every EDGEMEM_HOST_CAPS set),
// PoCL and coarse-only GPUs. Maps, host_span, migrate, pools and heaps: svm_map_test.cpp.
#include <cstdint>
#include <cstring>
#include <vector>

#include "svm_helpers.hpp"

using namespace edgemem;
using emt::grain_name;
using emt::kSvmGrains;

TEST_CASE("svm: create for each grain, size and alignment; the pointer is aligned; unsupported grains") {
  emt::Fixture f;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    for (std::size_t align : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8},
                              std::size_t{16}, std::size_t{32}, std::size_t{64}, std::size_t{128}}) {
      CAPTURE(align);
      for (std::size_t bytes : {std::size_t{1}, std::size_t{100}, std::size_t{4096}, std::size_t{65536 + 3}}) {
        auto s = Svm::create(f.ctx, bytes, g, align);
        REQUIRE_OK(s);
        CHECK(s->valid());
        CHECK(s->size() == bytes);
        CHECK(s->grain() == g);
        CHECK(s->is_svm());
        CHECK_FALSE(s->is_sub());
        CHECK(s->origin() == 0);
        REQUIRE(s->pointer() != nullptr);
        CHECK(s->svm_pointer() == s->pointer());
        // edgemem never aligns to less than svm_max_alignment (128), whatever was asked.
        CHECK(reinterpret_cast<std::uintptr_t>(s->pointer()) % svm_max_alignment == 0);
      }
    }
    // Bytes written reach the whole allocation (the last byte of an odd size included).
    auto s = Svm::create(f.ctx, 4097, g, 64);
    REQUIRE_OK(s);
    const emt::Bytes data = emt::random_bytes(4097);
    CHECK_OK(f.q.write(*s, 0, data.data(), data.size()));
    CHECK(f.snapshot(*s) == data);
    // Bad input: no driver call, nothing made.
    CHECK_ERRC(Svm::create(f.ctx, 0, g), Errc::invalid_argument);
    CHECK_ERRC(Svm::create(f.ctx, 64, g, 3), Errc::invalid_argument);
    CHECK_ERRC(Svm::create(f.ctx, 64, g, 48), Errc::invalid_argument);
    CHECK_ERRC(Svm::create(f.ctx, 64, g, 256), Errc::out_of_range);
    CHECK_ERRC(Svm::create(f.ctx, 64, g, std::size_t{1} << 20), Errc::out_of_range);
    CHECK_ERRC(Svm::create(f.ctx, f.ctx.info().max_alloc_bytes + 1, g), Errc::out_of_range);
    CHECK_ERRC(Svm::create(f.ctx, SIZE_MAX, g), Errc::out_of_range);
  }
  CHECK_ERRC(Svm::create(f.ctx, 64, static_cast<SvmGrain>(7)), Errc::invalid_argument);
  CHECK_ERRC(Svm::create(Context{}, 64, SvmGrain::coarse), Errc::released);
}

TEST_CASE("svm: like() makes a new allocation of the same size and grain; moves and release") {
  emt::Fixture f;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto a = Svm::create(f.ctx, 3000, g, 16);
    REQUIRE_OK(a);
    const emt::Bytes data = emt::random_bytes(3000);
    CHECK_OK(f.q.write(*a, 0, data.data(), data.size()));
    auto b = Svm::like(*a);
    REQUIRE_OK(b);
    CHECK(b->size() == 3000);
    CHECK(b->grain() == g);
    CHECK(b->is_svm());
    CHECK(b->pointer() != a->pointer());
    CHECK(reinterpret_cast<std::uintptr_t>(b->pointer()) % svm_max_alignment == 0);
    CHECK_FALSE(b->shares_root_with(*a));
    const emt::Bytes other = emt::random_bytes(3000);
    CHECK_OK(f.q.write(*b, 0, other.data(), other.size()));
    CHECK(f.snapshot(*a) == data);  // its own memory
    CHECK(f.snapshot(*b) == other);
    auto view = a->sub(f.align(), f.align());
    REQUIRE_OK(view);
    auto from_view = Svm::like(*view);  // a view's size, a fresh root
    REQUIRE_OK(from_view);
    CHECK(from_view->size() == f.align());
    CHECK_FALSE(from_view->is_sub());

    // Move-only: the moved-from handle is released.
    void* const p = a->pointer();
    Svm moved = std::move(*a);
    CHECK(moved.pointer() == p);
    CHECK_FALSE(a->valid());
    CHECK(a->pointer() == nullptr);
    CHECK(a->size() == 0);
    CHECK_FALSE(a->is_svm());
    CHECK(a->grain() == SvmGrain::coarse);
    CHECK_ERRC(Svm::like(*a), Errc::released);
    Buffer as_buffer = std::move(moved);  // an Svm is a Buffer: the SVM travels with it
    CHECK(as_buffer.is_svm());
    CHECK(as_buffer.svm_pointer() == p);
    CHECK(f.snapshot(as_buffer) == data);
    CHECK_OK(as_buffer.release());
    CHECK_OK(as_buffer.release());  // idempotent
    CHECK(as_buffer.svm_pointer() == nullptr);
    CHECK(f.snapshot(*view) == emt::Bytes(data.begin() + f.align(), data.begin() + 2 * f.align()));  // kept alive
  }
  CHECK_ERRC(Svm::like(Svm{}), Errc::released);
}

TEST_CASE("svm: sub() views: pointer, bounds, nesting, and the bytes they reach") {
  emt::Fixture f;
  const std::size_t A = f.align();
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto root = Svm::create(f.ctx, 8 * A, g);
    REQUIRE_OK(root);
    std::byte* const base = static_cast<std::byte*>(root->pointer());
    auto v = root->sub(A, 4 * A);
    REQUIRE_OK(v);
    CHECK(v->pointer() == base + A);
    CHECK(v->svm_pointer() == base + A);
    CHECK(v->size() == 4 * A);
    CHECK(v->origin() == A);
    CHECK(v->is_sub());
    CHECK(v->is_svm());
    CHECK(v->grain() == g);
    CHECK(v->shares_root_with(*root));
    auto vv = v->sub(A, 2 * A);  // resolved against the root
    REQUIRE_OK(vv);
    CHECK(vv->pointer() == base + 2 * A);
    CHECK(vv->origin() == 2 * A);
    auto whole = root->sub(0, 8 * A);
    REQUIRE_OK(whole);
    CHECK(whole->pointer() == base);
    // Bounds.
    CHECK_ERRC(root->sub(0, 0), Errc::invalid_argument);
    CHECK_ERRC(root->sub(A, 0), Errc::invalid_argument);
    CHECK_ERRC(root->sub(7 * A, 2 * A), Errc::out_of_range);
    CHECK_ERRC(root->sub(8 * A, 1), Errc::out_of_range);
    CHECK_ERRC(root->sub(SIZE_MAX, 2), Errc::out_of_range);
    CHECK_ERRC(root->sub(A, SIZE_MAX), Errc::out_of_range);
    CHECK_ERRC(v->sub(3 * A, 2 * A), Errc::out_of_range);  // inside the root, past the view
    if (A > 1) {
      CHECK_ERRC(root->sub(1, A), Errc::misaligned);
      CHECK_ERRC(v->sub(A / 2, A), Errc::misaligned);
    }
    CHECK_ERRC(Svm{}.sub(0, A), Errc::released);
    // A write through the view lands at its origin in the root; a read of the root sees it.
    emt::Bytes all(8 * A, 0x11);
    CHECK_OK(f.q.write(*root, 0, all.data(), all.size()));
    const emt::Bytes data = emt::random_bytes(2 * A);
    CHECK_OK(f.q.write(*vv, 0, data.data(), data.size()));
    std::memcpy(all.data() + 2 * A, data.data(), data.size());
    CHECK(f.snapshot(*root) == all);
    CHECK(f.snapshot(*v) == emt::Bytes(all.begin() + A, all.begin() + 5 * A));
    // The view keeps the memory alive after the root's handle goes.
    CHECK_OK(root->release());
    CHECK_FALSE(root->valid());
    CHECK(f.snapshot(*vv) == data);
    CHECK(vv->pointer() == base + 2 * A);
  }
}

TEST_CASE("svm: write and read, blocking and async with wait lists") {
  emt::Fixture f;
  const std::size_t bytes = 64 * 1024;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto s = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(s);
    emt::Bytes data = emt::random_bytes(bytes);
    CHECK_OK(f.q.write(*s, 0, data.data(), bytes));
    emt::Bytes back(bytes, 0);
    CHECK_OK(f.q.read(*s, 0, back.data(), bytes));
    CHECK(back == data);
    // Ranged, odd offsets and sizes.
    const emt::Bytes part = emt::random_bytes(1001);
    CHECK_OK(f.q.write(*s, 333, part.data(), part.size()));
    std::memcpy(data.data() + 333, part.data(), part.size());
    emt::Bytes mid(999);
    CHECK_OK(f.q.read(*s, 335, mid.data(), mid.size()));
    CHECK(mid == emt::Bytes(data.begin() + 335, data.begin() + 335 + 999));
    // Async: a write after three other events, a read after the write, the host waits for the read.
    const emt::Bytes next = emt::random_bytes(bytes);
    auto before = emt::markers(f.q, 3);
    ENSURE(before.size() == 3);
    auto w = f.q.write_async(*s, 0, next.data(), bytes, before);
    REQUIRE_OK(w);
    emt::Bytes got(bytes, 0);
    const Event after_write[] = {std::move(*w)};
    auto r = f.q.read_async(*s, 0, got.data(), bytes, after_write);
    REQUIRE_OK(r);
    CHECK_OK(r->wait());
    CHECK(got == next);
    CHECK_OK(after_write[0].wait());
    // Bad input changes nothing.
    CHECK_ERRC(f.q.write(*s, 0, nullptr, 16), Errc::invalid_argument);
    CHECK_ERRC(f.q.write(*s, 0, next.data(), 0), Errc::invalid_argument);
    CHECK_ERRC(f.q.read(*s, 0, nullptr, 16), Errc::invalid_argument);
    CHECK_ERRC(f.q.write(*s, bytes - 8, next.data(), 16), Errc::out_of_range);
    CHECK_ERRC(f.q.read(*s, bytes, got.data(), 1), Errc::out_of_range);
    CHECK_ERRC(f.q.write(*s, SIZE_MAX, next.data(), 2), Errc::out_of_range);
    CHECK_ERRC(emt::settle(f.q.write_async(*s, bytes, next.data(), 1)), Errc::out_of_range);
    CHECK_ERRC(emt::settle(f.q.read_async(*s, 1, got.data(), bytes)), Errc::out_of_range);
    Event dead;
    const Event dead_list[] = {std::move(dead)};
    CHECK_ERRC(emt::settle(f.q.write_async(*s, 0, next.data(), 16, dead_list)), Errc::released);
    CHECK(f.snapshot(*s) == next);
  }
}

TEST_CASE("svm: fill with 1..128-byte patterns; misaligned; unsupported above the device's widest") {
  emt::Fixture f;
  const std::size_t bytes = 2048, widest = f.ctx.info().caps.max_fill_pattern_bytes;
  unsigned char pattern[129];  // (pattern + 1 is a 128-byte pattern too)
  for (std::size_t i = 0; i < sizeof pattern; ++i) pattern[i] = static_cast<unsigned char>(0x80 + i);
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto s = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(s);
    emt::Bytes want = emt::random_bytes(bytes);
    CHECK_OK(f.q.write(*s, 0, want.data(), bytes));
    for (std::size_t p = 1; p <= 128; p *= 2) {
      CAPTURE(p);
      if (p > widest) {
        CHECK_ERRC(f.q.fill(*s, 0, 4 * p, pattern, p), Errc::unsupported);
        CHECK_ERRC(emt::settle(f.q.fill_async(*s, 0, 4 * p, pattern, p)), Errc::unsupported);
        CHECK(f.snapshot(*s) == want);
        continue;
      }
      // At offset p (not the root's base alignment), 3 repetitions; then async at 4p, 2 repetitions.
      CHECK_OK(f.q.fill(*s, p, 3 * p, pattern, p));
      for (std::size_t i = 0; i < 3 * p; ++i) want[p + i] = pattern[i % p];
      auto before = emt::markers(f.q, 2);
      auto e = f.q.fill_async(*s, 4 * p, 2 * p, pattern + 1, p, before);
      REQUIRE_OK(e);
      CHECK_OK(e->wait());
      for (std::size_t i = 0; i < 2 * p; ++i) want[4 * p + i] = pattern[1 + i % p];
      CHECK(f.snapshot(*s) == want);
      if (p > 1) {
        CHECK_ERRC(f.q.fill(*s, 1, p, pattern, p), Errc::misaligned);
        CHECK_ERRC(f.q.fill(*s, 0, p + 1, pattern, p), Errc::misaligned);
        CHECK_ERRC(f.q.fill(*s, p / 2, p, pattern, p), Errc::misaligned);
      }
      CHECK_ERRC(f.q.fill(*s, bytes - p, 2 * p, pattern, p), Errc::out_of_range);
      CHECK(f.snapshot(*s) == want);
    }
    // A view: the fill lands at the view's origin.
    if (widest >= 4) {
      auto v = s->sub(f.align(), f.align());
      REQUIRE_OK(v);
      CHECK_OK(f.q.fill(*v, 0, f.align(), pattern, 4));
      for (std::size_t i = 0; i < f.align(); ++i) want[f.align() + i] = pattern[i % 4];
      CHECK(f.snapshot(*s) == want);
    }
    CHECK_ERRC(f.q.fill(*s, 0, 16, nullptr, 1), Errc::invalid_argument);
    CHECK_ERRC(f.q.fill(*s, 0, 48, pattern, 3), Errc::invalid_argument);
    CHECK_ERRC(f.q.fill(*s, 0, 256, pattern, 256), Errc::invalid_argument);
    CHECK_ERRC(f.q.fill(*s, 0, 0, pattern, 1), widest >= 1 ? Errc::invalid_argument : Errc::unsupported);
    CHECK(f.snapshot(*s) == want);
  }
}

TEST_CASE("svm: copy SVM<->SVM, SVM<->Buffer both ways, views of one root (overlap refused)") {
  emt::Fixture f;
  const std::size_t A = f.align(), bytes = 8 * A;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    emt::Bytes a_data, buf_data;
    auto a = Svm::create(f.ctx, bytes, g);
    auto b = Svm::create(f.ctx, bytes, emt::has_grain(f.ctx, SvmGrain::coarse) ? SvmGrain::coarse : g);
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    a_data = emt::random_bytes(bytes);
    emt::Bytes b_data(bytes, 0x3c);
    CHECK_OK(f.q.write(*a, 0, a_data.data(), bytes));
    CHECK_OK(f.q.write(*b, 0, b_data.data(), bytes));
    Buffer buf = f.filled(bytes, buf_data);
    ENSURE(buf.valid());

    // SVM -> SVM, blocking and async with a wait list.
    CHECK_OK(f.q.copy(*a, *b, 3, 2 * A + 5, A));
    std::memcpy(b_data.data() + 2 * A + 5, a_data.data() + 3, A);
    CHECK(f.snapshot(*b) == b_data);
    auto before = emt::markers(f.q, 2);
    auto e = f.q.copy_async(*a, *b, 0, 0, A, before);
    REQUIRE_OK(e);
    CHECK_OK(e->wait());
    std::memcpy(b_data.data(), a_data.data(), A);
    CHECK(f.snapshot(*b) == b_data);
    // SVM -> Buffer and Buffer -> SVM.
    CHECK_OK(f.q.copy(*a, buf, A + 1, 7, 2 * A));
    std::memcpy(buf_data.data() + 7, a_data.data() + A + 1, 2 * A);
    CHECK(f.snapshot(buf) == buf_data);
    CHECK_OK(emt::settle(f.q.copy_async(buf, *a, 5 * A, 4 * A + 9, A - 1)));
    std::memcpy(a_data.data() + 4 * A + 9, buf_data.data() + 5 * A, A - 1);
    CHECK(f.snapshot(*a) == a_data);
    // Views on both sides (an SVM view and a sub-buffer).
    auto sv = a->sub(2 * A, 2 * A);
    auto bv = buf.sub(4 * A, 2 * A);
    REQUIRE_OK(sv);
    REQUIRE_OK(bv);
    CHECK_OK(f.q.copy(*sv, *bv, 1, 2, A));
    std::memcpy(buf_data.data() + 4 * A + 2, a_data.data() + 2 * A + 1, A);
    CHECK(f.snapshot(buf) == buf_data);
    CHECK_OK(f.q.copy(*bv, *sv, 0, A, A));
    std::memcpy(a_data.data() + 3 * A, buf_data.data() + 4 * A, A);
    CHECK(f.snapshot(*a) == a_data);
    // Two views of one root: disjoint is fine, overlapping is refused.
    auto v1 = a->sub(0, 2 * A);
    auto v2 = a->sub(4 * A, 2 * A);
    auto v3 = a->sub(A, 2 * A);
    REQUIRE_OK(v1);
    REQUIRE_OK(v2);
    REQUIRE_OK(v3);
    CHECK_OK(f.q.copy(*v1, *v2, 0, 0, 2 * A));
    std::memcpy(a_data.data() + 4 * A, a_data.data(), 2 * A);
    CHECK(f.snapshot(*a) == a_data);
    CHECK_ERRC(f.q.copy(*v1, *v3, 0, 0, 2 * A), Errc::overlap);
    CHECK_ERRC(f.q.copy(*v3, *v1, 0, A, 1), Errc::overlap);  // root byte A on both sides
    CHECK_ERRC(emt::settle(f.q.copy_async(*a, *a, 0, 1, A)), Errc::overlap);
    CHECK_ERRC(f.q.copy(*a, *v1, 0, 0, A), Errc::overlap);
    CHECK_OK(f.q.copy(*a, *a, 0, 6 * A, A));  // one root, disjoint ranges
    std::memcpy(a_data.data() + 6 * A, a_data.data(), A);
    // Range errors.
    CHECK_ERRC(f.q.copy(*a, *b, bytes - 1, 0, 2), Errc::out_of_range);
    CHECK_ERRC(f.q.copy(*a, buf, 0, bytes, 1), Errc::out_of_range);
    CHECK_ERRC(f.q.copy(*a, *b, 0, 0, 0), Errc::invalid_argument);
    CHECK(f.snapshot(*a) == a_data);
    CHECK(f.snapshot(*b) == b_data);
    CHECK(f.snapshot(buf) == buf_data);
  }
}

TEST_CASE("svm: calls with no buffer object for SVM are unsupported (rect, image views, native)") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes buf_data;
  Buffer buf = f.filled(8 * A, buf_data);
  ENSURE(buf.valid());
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    const emt::Bytes data = emt::random_bytes(8 * A);
    auto s = Svm::create(f.ctx, data.size(), g);
    REQUIRE_OK(s);
    CHECK_OK(f.q.write(*s, 0, data.data(), data.size()));
    auto v = s->sub(A, 2 * A);
    REQUIRE_OK(v);
    emt::Bytes host(256, 0x77);
    const Rect rect{{}, {}, {16, 2, 1}};
    const CopyRect crect{{}, {}, {16, 2, 1}};
    for (Svm* m : {&*s, &*v}) {
      CHECK_ERRC(f.q.write_rect(*m, rect, host.data(), host.size()), Errc::unsupported);
      CHECK_ERRC(emt::settle(f.q.write_rect_async(*m, rect, host.data(), host.size())), Errc::unsupported);
      CHECK_ERRC(f.q.read_rect(*m, rect, host.data(), host.size()), Errc::unsupported);
      CHECK_ERRC(emt::settle(f.q.read_rect_async(*m, rect, host.data(), host.size())), Errc::unsupported);
      CHECK_ERRC(f.q.copy_rect(*m, buf, crect), Errc::unsupported);
      CHECK_ERRC(f.q.copy_rect(buf, *m, crect), Errc::unsupported);
      CHECK_ERRC(emt::settle(f.q.copy_rect_async(buf, *m, crect)), Errc::unsupported);
      CHECK_ERRC(m->native(), Errc::unsupported);
      CHECK_ERRC(Image::view(*m, ImageDesc::shape(1, 1, 16, 4, ChannelType::unorm_int8)), Errc::unsupported);
      CHECK_ERRC(Image::view(*m, ImageDesc::shape(1, 2, 16, 4, ChannelType::unorm_int8), 64), Errc::unsupported);
    }
    CHECK(host == emt::Bytes(256, 0x77));
    const ImageDesc desc = ImageDesc::shape(1, 1, 16, 4, ChannelType::unorm_int8);
    auto img = Image::create(f.ctx, desc);
    if (!f.ctx.info().caps.images) {
      CHECK_ERRC(img, Errc::unsupported);
    } else {
      REQUIRE_OK(img);
      const ImageRegion region{{0, 0, 0}, {16, 1, 1}};
      CHECK_ERRC(f.q.copy_image_to_buffer(*img, region, *s, 0), Errc::unsupported);
      CHECK_ERRC(emt::settle(f.q.copy_image_to_buffer_async(*img, region, *v, 0)), Errc::unsupported);
      CHECK_ERRC(f.q.copy_buffer_to_image(*s, 0, *img, region), Errc::unsupported);
      CHECK_ERRC(emt::settle(f.q.copy_buffer_to_image_async(*v, 0, *img, region)), Errc::unsupported);
    }
    CHECK(f.snapshot(*s) == data);
  }
  CHECK(f.snapshot(buf) == buf_data);
}

TEST_CASE("svm: plain buffers are not SVM; released handles answer released") {
  emt::Fixture f;
  const std::size_t A = f.align();
  auto plain = Buffer::create(f.ctx, 4 * A);
  REQUIRE_OK(plain);
  CHECK_FALSE(plain->is_svm());
  CHECK(plain->svm_pointer() == nullptr);
  auto sub = plain->sub(A, A);
  REQUIRE_OK(sub);
  CHECK_FALSE(sub->is_svm());
  CHECK(sub->svm_pointer() == nullptr);
  CHECK_OK(plain->native());
  auto shared = Buffer::create(f.ctx, A, Storage::shared);
  REQUIRE_OK(shared);
  CHECK_FALSE(shared->is_svm());
  CHECK(shared->svm_pointer() == nullptr);
  CHECK_FALSE(Buffer{}.is_svm());
  CHECK(Buffer{}.svm_pointer() == nullptr);
  CHECK_FALSE(Svm{}.is_svm());

  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto s = Svm::create(f.ctx, 4 * A, g);
    REQUIRE_OK(s);
    auto v = s->sub(0, A);
    REQUIRE_OK(v);
    CHECK_OK(s->release());
    CHECK_OK(s->release());  // idempotent
    CHECK_OK(s->release(f.q));
    CHECK_OK(v->release(f.q));  // in the queue's order
    for (Svm* dead : {&*s, &*v}) {
      CHECK_FALSE(dead->valid());
      CHECK_FALSE(dead->is_svm());
      CHECK(dead->pointer() == nullptr);
      CHECK(dead->size() == 0);
      unsigned char bytes[16] = {};
      const unsigned char pat = 1;
      CHECK_ERRC(f.q.write(*dead, 0, bytes, 16), Errc::released);
      CHECK_ERRC(f.q.read(*dead, 0, bytes, 16), Errc::released);
      CHECK_ERRC(emt::settle(f.q.read_async(*dead, 0, bytes, 16)), Errc::released);
      CHECK_ERRC(f.q.fill(*dead, 0, 16, &pat, 1), Errc::released);
      CHECK_ERRC(f.q.copy(*dead, *plain, 0, 0, 16), Errc::released);
      CHECK_ERRC(f.q.copy(*plain, *dead, 0, 0, 16), Errc::released);
      CHECK_ERRC(f.q.migrate(*dead, Migration::to_host), Errc::released);
      CHECK_ERRC(f.q.map(*dead, Access::read, 0, 16), Errc::released);
      CHECK_ERRC(dead->sub(0, 16), Errc::released);
      CHECK_ERRC(dead->host_span<std::uint8_t>(), Errc::released);
      CHECK_ERRC(dead->native(), Errc::released);
      CHECK_ERRC(Svm::like(*dead), Errc::released);
    }
    Queue dead_q;
    auto live = Svm::create(f.ctx, A, g);
    REQUIRE_OK(live);
    unsigned char bytes[16] = {};
    CHECK_ERRC(dead_q.write(*live, 0, bytes, 16), Errc::released);
    CHECK_ERRC(live->release(dead_q), Errc::released);
    CHECK(live->valid());
  }
}

TEST_CASE("svm: an Svm of another context is refused with invalid_argument") {
  emt::Fixture f;
  emt::OtherContext other(64);
  const std::size_t A = f.align();
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) {
      CHECK_ERRC(Svm::create(other.ctx, 64, g), Errc::unsupported);
      continue;
    }
    auto mine = Svm::create(f.ctx, 4 * A, g);
    auto theirs = Svm::create(other.ctx, 4 * A, g);
    REQUIRE_OK(mine);
    REQUIRE_OK(theirs);
    const emt::Bytes data = emt::random_bytes(4 * A);
    CHECK_OK(other.q.write(*theirs, 0, data.data(), data.size()));
    emt::Bytes bytes(16);
    const unsigned char pat = 1;
    CHECK_ERRC(f.q.write(*theirs, 0, bytes.data(), 16), Errc::invalid_argument);
    CHECK_ERRC(f.q.read(*theirs, 0, bytes.data(), 16), Errc::invalid_argument);
    CHECK_ERRC(emt::settle(f.q.write_async(*theirs, 0, bytes.data(), 16)), Errc::invalid_argument);
    CHECK_ERRC(f.q.fill(*theirs, 0, 16, &pat, 1), Errc::invalid_argument);
    CHECK_ERRC(f.q.copy(*theirs, *mine, 0, 0, 16), Errc::invalid_argument);
    CHECK_ERRC(f.q.copy(*mine, *theirs, 0, 0, 16), Errc::invalid_argument);
    CHECK_ERRC(f.q.copy(other.buf, *mine, 0, 0, 16), Errc::invalid_argument);
    CHECK_ERRC(f.q.migrate(*theirs, Migration::to_host), Errc::invalid_argument);
    CHECK_ERRC(f.q.map(*theirs, Access::read), Errc::invalid_argument);
    CHECK_ERRC(theirs->release(f.q), Errc::invalid_argument);
    CHECK(theirs->valid());
    auto view = theirs->sub(A, A);
    REQUIRE_OK(view);
    CHECK_ERRC(f.q.write(*view, 0, bytes.data(), 16), Errc::invalid_argument);
    emt::Bytes back(4 * A);
    CHECK_OK(other.q.read(*theirs, 0, back.data(), back.size()));
    CHECK(back == data);
    CHECK(other.unchanged());
  }
}
