// Rectangular transfers that succeed: write_rect, read_rect, copy_rect (blocking and async), checked
// against a reference computed on the CPU.
#include <cstdint>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// A side with zero pitches resolved as documented in rect.hpp.
RectSide resolved(RectSide s, const Extent3& r) {
  if (s.row_pitch == 0) s.row_pitch = r.x;
  if (s.slice_pitch == 0) s.slice_pitch = r.y * s.row_pitch;
  return s;
}

std::size_t at(const RectSide& s, std::size_t x, std::size_t y, std::size_t z) {
  return (s.origin.z + z) * s.slice_pitch + (s.origin.y + y) * s.row_pitch + s.origin.x + x;
}

/// One past the last byte a side touches.
std::size_t extent_of(const RectSide& side, const Extent3& r) {
  const RectSide s = resolved(side, r);
  return at(s, r.x - 1, r.y - 1, r.z - 1) + 1;
}

/// CPU reference of a rectangular copy.
void ref_copy(emt::Bytes& dst, const RectSide& d, const emt::Bytes& src, const RectSide& s, const Extent3& r) {
  const RectSide dr = resolved(d, r), sr = resolved(s, r);
  for (std::size_t z = 0; z < r.z; ++z)
    for (std::size_t y = 0; y < r.y; ++y)
      for (std::size_t x = 0; x < r.x; ++x) dst[at(dr, x, y, z)] = src[at(sr, x, y, z)];
}

struct Geometry {
  RectSide buffer, host;
  Extent3 region;
};

/// 3D, non-trivial pitches on both sides; 2D with default pitches; one row; one byte.
const Geometry kGeometries[] = {
    {{{7, 2, 1}, 64, 640}, {{3, 1, 0}, 33, 198}, {20, 5, 3}},
    {{{0, 0, 0}, 0, 0}, {{0, 0, 0}, 0, 0}, {48, 6, 1}},
    {{{5, 3, 0}, 100, 0}, {{0, 0, 0}, 0, 0}, {37, 4, 2}},
    {{{13, 0, 2}, 0, 0}, {{1, 2, 3}, 9, 27}, {9, 1, 1}},
    {{{100, 10, 1}, 128, 2048}, {{0, 0, 0}, 1, 1}, {1, 1, 1}},
};

}  // namespace

TEST_CASE("write_rect / write_rect_async match a CPU reference") {
  emt::Fixture f;
  int index = 0;
  for (const Geometry& g : kGeometries) {
    const int geometry = index++;
    CAPTURE(geometry);
    for (int async = 0; async < 2; ++async) {
      CAPTURE(async);
      const std::size_t buffer_bytes = extent_of(g.buffer, g.region) + 11;
      const emt::Bytes host = emt::random_bytes(extent_of(g.host, g.region));
      emt::Bytes data;
      Buffer b = f.filled(buffer_bytes, data);
      ENSURE(b.valid());
      const Rect rect{g.buffer, g.host, g.region};
      if (async) CHECK_OK(emt::settle(f.q.write_rect_async(b, rect, host.data(), host.size())));
      else CHECK_OK(f.q.write_rect(b, rect, host.data(), host.size()));
      ref_copy(data, g.buffer, host, g.host, g.region);
      CHECK(f.snapshot(b) == data);
    }
  }
}

TEST_CASE("read_rect / read_rect_async match a CPU reference and leave other host bytes alone") {
  emt::Fixture f;
  int index = 0;
  for (const Geometry& g : kGeometries) {
    const int geometry = index++;
    CAPTURE(geometry);
    for (int async = 0; async < 2; ++async) {
      CAPTURE(async);
      emt::Bytes data;
      Buffer b = f.filled(extent_of(g.buffer, g.region), data);
      ENSURE(b.valid());
      emt::Bytes host = emt::random_bytes(extent_of(g.host, g.region) + 5);
      emt::Bytes expect = host;
      const Rect rect{g.buffer, g.host, g.region};
      if (async) CHECK_OK(emt::settle(f.q.read_rect_async(b, rect, host.data(), host.size())));
      else CHECK_OK(f.q.read_rect(b, rect, host.data(), host.size()));
      ref_copy(expect, g.host, data, g.buffer, g.region);
      CHECK(host == expect);
      CHECK(f.snapshot(b) == data);
    }
  }
}

TEST_CASE("copy_rect / copy_rect_async between buffers match a CPU reference") {
  emt::Fixture f;
  int index = 0;
  for (const Geometry& g : kGeometries) {
    const int geometry = index++;
    CAPTURE(geometry);
    for (int async = 0; async < 2; ++async) {
      CAPTURE(async);
      emt::Bytes ds, dd;
      Buffer src = f.filled(extent_of(g.host, g.region), ds);
      Buffer dst = f.filled(extent_of(g.buffer, g.region) + 3, dd, Storage::shared);
      ENSURE(src.valid());
      ENSURE(dst.valid());
      const CopyRect rect{g.host, g.buffer, g.region};
      if (async) CHECK_OK(emt::settle(f.q.copy_rect_async(src, dst, rect)));
      else CHECK_OK(f.q.copy_rect(src, dst, rect));
      ref_copy(dd, g.buffer, ds, g.host, g.region);
      CHECK(f.snapshot(dst) == dd);
      CHECK(f.snapshot(src) == ds);
    }
  }
}

TEST_CASE("rect transfers on a sub-buffer are relative to the sub") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer root = f.filled(8 * A, data);
  ENSURE(root.valid());
  auto sub = root.sub(2 * A, 4 * A);
  REQUIRE_OK(sub);
  const Extent3 region{A / 4 + 1, 3, 2};
  const RectSide bside{{3, 1, 0}, A / 4 + 8, 0};
  const RectSide hside{};
  const emt::Bytes host = emt::random_bytes(extent_of(hside, region));
  ENSURE(extent_of(bside, region) <= sub->size());
  CHECK_OK(f.q.write_rect(*sub, Rect{bside, hside, region}, host.data(), host.size()));
  emt::Bytes view(data.begin() + 2 * A, data.begin() + 6 * A);
  ref_copy(view, bside, host, hside, region);
  std::copy(view.begin(), view.end(), data.begin() + 2 * A);
  CHECK(f.snapshot(root) == data);

  emt::Bytes back(host.size(), 0);
  CHECK_OK(f.q.read_rect(*sub, Rect{bside, hside, region}, back.data(), back.size()));
  CHECK(back == host);

  // copy_rect from the sub into the root's first 2A bytes (disjoint from the sub).
  const RectSide dside{{0, 0, 0}, A / 4 + 1, 0};
  ENSURE(extent_of(dside, region) <= 2 * A);
  CHECK_OK(f.q.copy_rect(*sub, root, CopyRect{bside, dside, region}));
  emt::Bytes expect = data;
  ref_copy(expect, dside, view, bside, region);
  CHECK(f.snapshot(root) == expect);
}

TEST_CASE("copy_rect within one buffer: interleaved regions that share no byte succeed") {
  emt::Fixture f;
  // 8 rows of 64 bytes: copy the left half of each row onto its right half.
  {
    emt::Bytes data;
    Buffer b = f.filled(512, data);
    ENSURE(b.valid());
    const CopyRect r{{{0, 0, 0}, 64, 0}, {{32, 0, 0}, 64, 0}, {32, 8, 1}};
    CHECK_OK(f.q.copy_rect(b, b, r));
    emt::Bytes expect = data;
    ref_copy(expect, r.dst, data, r.src, r.region);
    CHECK(f.snapshot(b) == expect);
  }
  // Even rows onto odd rows (row pitch 128 over 64-byte rows), async, 2 slices.
  {
    emt::Bytes data;
    Buffer b = f.filled(2048, data);
    ENSURE(b.valid());
    const CopyRect r{{{0, 0, 0}, 128, 1024}, {{64, 0, 0}, 128, 1024}, {64, 8, 2}};
    CHECK_OK(emt::settle(f.q.copy_rect_async(b, b, r)));
    emt::Bytes expect = data;
    ref_copy(expect, r.dst, data, r.src, r.region);
    CHECK(f.snapshot(b) == expect);
  }
  // Slices interleaved: slice pitch 2 * slice size, destination starts one slice later.
  {
    emt::Bytes data;
    Buffer b = f.filled(4096, data);
    ENSURE(b.valid());
    const CopyRect r{{{0, 0, 0}, 32, 512}, {{0, 8, 0}, 32, 512}, {32, 8, 4}};
    CHECK_OK(f.q.copy_rect(b, b, r));
    emt::Bytes expect = data;
    ref_copy(expect, r.dst, data, r.src, r.region);
    CHECK(f.snapshot(b) == expect);
  }
  // Different pitches on each side: bounding ranges [0, 672) and [184, 456) overlap, rows do not.
  {
    emt::Bytes data;
    Buffer b = f.filled(1024, data);
    ENSURE(b.valid());
    const CopyRect r{{{0, 0, 0}, 64, 512}, {{40, 0, 1}, 48, 0}, {32, 3, 2}};
    CHECK_OK(f.q.copy_rect(b, b, r));
    emt::Bytes expect = data;
    ref_copy(expect, r.dst, data, r.src, r.region);
    CHECK(f.snapshot(b) == expect);
  }
  // Two subs of one root whose rect regions interleave without sharing a byte.
  {
    const std::size_t A = f.align();
    emt::Bytes data;
    Buffer root = f.filled(8 * A, data);
    ENSURE(root.valid());
    auto s1 = root.sub(0, 4 * A);
    auto s2 = root.sub(A, 4 * A);
    REQUIRE_OK(s1);
    REQUIRE_OK(s2);
    // Source rows at root [0, A/2) and [2A, 2.5A); destination rows at root [1.5A, 2A) and [3.5A, 4A):
    // the bounding ranges overlap, the rows do not.
    const CopyRect r{{{0, 0, 0}, 2 * A, 0}, {{A / 2, 0, 0}, 2 * A, 0}, {A / 2, 2, 1}};
    CHECK_OK(f.q.copy_rect(*s1, *s2, r));
    emt::Bytes v1(data.begin(), data.begin() + 4 * A);
    emt::Bytes v2(data.begin() + A, data.begin() + 5 * A);
    ref_copy(v2, r.dst, v1, r.src, r.region);
    std::copy(v2.begin(), v2.end(), data.begin() + A);
    CHECK(f.snapshot(root) == data);
  }
}

TEST_CASE("rect round trip: write_rect then read_rect with different host layouts") {
  emt::Fixture f;
  const Extent3 region{24, 7, 3};
  const RectSide bside{{4, 2, 1}, 40, 40 * 12};
  auto b = Buffer::create(f.ctx, extent_of(bside, region));
  REQUIRE_OK(b);
  const RectSide packed{};
  const emt::Bytes img = emt::random_bytes(extent_of(packed, region));
  CHECK_OK(f.q.write_rect(*b, Rect{bside, packed, region}, img.data(), img.size()));
  const RectSide padded{{2, 1, 0}, 31, 31 * 9};
  emt::Bytes out = emt::random_bytes(extent_of(padded, region));
  emt::Bytes expect = out;
  ref_copy(expect, padded, img, packed, region);
  auto e = f.q.read_rect_async(*b, Rect{bside, padded, region}, out.data(), out.size());
  REQUIRE_OK(e);
  CHECK_OK(e->wait());
  CHECK(out == expect);
}

namespace {

/// copy_rect within the one sub-buffer `b` (at least 1024 bytes): 8 rows of 128 bytes, the left
/// half of each row onto its right half (same pitches), then 4 rows of 24 bytes at pitch 64 onto
/// rows at pitch 48 in the buffer's second half (different pitches); blocking and async, each
/// checked against the CPU reference. `b` is filled with random bytes first.
void copy_rect_within(emt::Fixture& f, Buffer& b) {
  ENSURE(b.size() >= 1024);
  const CopyRect same_pitch{{{0, 0, 0}, 128, 0}, {{64, 0, 0}, 128, 0}, {64, 8, 1}};
  const CopyRect other_pitch{{{8, 0, 0}, 64, 256}, {{0, 0, 0}, 48, 192}, {24, 4, 2}};
  CopyRect shifted = other_pitch;
  shifted.dst.origin.x = 512 + 5;  // rows of the destination in [512, 1024)
  for (const CopyRect& r : {same_pitch, shifted}) {
    for (int async = 0; async < 2; ++async) {
      CAPTURE(async);
      emt::Bytes data = emt::random_bytes(b.size());
      CHECK_OK(f.q.write(b, 0, data.data(), data.size()));
      if (async) CHECK_OK(emt::settle(f.q.copy_rect_async(b, b, r)));
      else CHECK_OK(f.q.copy_rect(b, b, r));
      emt::Bytes expect = data;
      ref_copy(expect, r.dst, data, r.src, r.region);
      CHECK(f.snapshot(b) == expect);
    }
  }
}

}  // namespace

TEST_CASE("copy_rect within one sub-buffer: sub(), FixedPool block, Heap buffer (same and different pitches)") {
  emt::Fixture f;
  const std::size_t A = f.align();
  const std::size_t block = (2048 + A - 1) / A * A;
  SUBCASE("Buffer::sub") {
    auto root = Buffer::create(f.ctx, 2 * block);
    REQUIRE_OK(root);
    auto sub = root->sub(block, block);
    REQUIRE_OK(sub);
    copy_rect_within(f, *sub);
  }
  SUBCASE("FixedPool block") {
    FixedPool<2> pool;
    auto init = pool.init(f.ctx, f.q, block);
    REQUIRE_OK(init);
    auto a = pool.acquire();
    auto b = pool.acquire();
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    copy_rect_within(f, *b);  // the second block: a sub-buffer at a non-zero origin
  }
  SUBCASE("Heap buffer") {
    Heap heap;
    auto init = heap.init(f.ctx, f.q, block, 4);
    REQUIRE_OK(init);
    auto first = heap.create_buffer(block);
    auto second = heap.create_buffer(block);
    REQUIRE_OK(first);
    REQUIRE_OK(second);
    copy_rect_within(f, *second);
  }
}
