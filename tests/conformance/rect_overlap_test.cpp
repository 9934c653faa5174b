// copy_rect within one root buffer, over many random geometries: the call must return overlap exactly
// when the two regions share a byte (checked by brute force on the CPU), and otherwise copy exactly
// what the CPU reference copies.
#include <cstdint>
#include <random>
#include <vector>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

struct Side {
  std::size_t x, y, z, row, slice;
};

std::size_t byte_at(const Side& s, std::size_t x, std::size_t y, std::size_t z) {
  return (s.z + z) * s.slice + (s.y + y) * s.row + s.x + x;
}

std::size_t end_of(const Side& s, const Extent3& r) { return byte_at(s, r.x - 1, r.y - 1, r.z - 1) + 1; }

/// A random side with explicit, valid pitches for `r`.
Side random_side(std::mt19937& gen, const Extent3& r) {
  auto pick = [&gen](std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(gen);
  };
  Side s{};
  s.row = r.x + pick(0, 12);
  s.slice = s.row * (r.y + pick(0, 3));
  s.x = pick(0, 20);
  s.y = pick(0, 3);
  s.z = pick(0, 2);
  return s;
}

RectSide to_rect(const Side& s) { return RectSide{{s.x, s.y, s.z}, s.row, s.slice}; }

}  // namespace

TEST_CASE("copy_rect overlap detection agrees with a brute-force byte check; copies match the reference") {
  emt::Fixture f;
  std::mt19937 gen(20240611u);
  const std::size_t root_bytes = 4096;
  emt::Bytes data;
  Buffer root = f.filled(root_bytes, data);
  ENSURE(root.valid());
  const std::size_t A = f.align();
  // Two subs of the root with different origins so that the bases differ too (when the root allows).
  const std::size_t sub_origin = A <= root_bytes / 4 ? A : 0;
  auto sub = root.sub(sub_origin, root_bytes - sub_origin);
  REQUIRE_OK(sub);

  int overlaps = 0, copies = 0;
  for (int iter = 0; iter < 400; ++iter) {
    CAPTURE(iter);
    const Extent3 region{std::uniform_int_distribution<std::size_t>(1, 24)(gen),
                         std::uniform_int_distribution<std::size_t>(1, 5)(gen),
                         std::uniform_int_distribution<std::size_t>(1, 3)(gen)};
    Side s = random_side(gen, region);
    Side d = random_side(gen, region);
    const bool through_sub = (iter % 3) == 2;
    const std::size_t dst_base = through_sub ? sub_origin : 0;
    if (end_of(s, region) > root_bytes || dst_base + end_of(d, region) > root_bytes) continue;

    // Brute force: which root bytes does each side touch?
    std::vector<char> touched(root_bytes, 0);
    for (std::size_t z = 0; z < region.z; ++z)
      for (std::size_t y = 0; y < region.y; ++y)
        for (std::size_t x = 0; x < region.x; ++x) touched[byte_at(s, x, y, z)] = 1;
    bool overlap = false;
    for (std::size_t z = 0; z < region.z && !overlap; ++z)
      for (std::size_t y = 0; y < region.y && !overlap; ++y)
        for (std::size_t x = 0; x < region.x && !overlap; ++x) overlap = touched[dst_base + byte_at(d, x, y, z)] != 0;

    const CopyRect rect{to_rect(s), to_rect(d), region};
    Buffer& dst = through_sub ? *sub : root;
    auto r = (iter % 2) ? f.q.copy_rect(root, dst, rect) : emt::settle(f.q.copy_rect_async(root, dst, rect));
    if (overlap) {
      ++overlaps;
      CHECK_MESSAGE(!r, "overlapping regions were copied");
      if (!r) CHECK(r.error().code == Errc::overlap);
    } else {
      ++copies;
      CHECK_MESSAGE(static_cast<bool>(r), "disjoint regions refused: " << emt::describe(r));
      if (r) {
        const emt::Bytes before = data;
        for (std::size_t z = 0; z < region.z; ++z)
          for (std::size_t y = 0; y < region.y; ++y)
            for (std::size_t x = 0; x < region.x; ++x)
              data[dst_base + byte_at(d, x, y, z)] = before[byte_at(s, x, y, z)];
      }
    }
    if (iter % 25 == 0) CHECK(f.snapshot(root) == data);
  }
  CHECK(f.snapshot(root) == data);
  MESSAGE("copy_rect within one root: " << overlaps << " overlapping, " << copies << " disjoint geometries");
  CHECK(overlaps > 20);
  CHECK(copies > 20);
}

namespace {

/// copy_rect of `rect` within `b` (holding `data`), checked against the CPU reference.
void copy_within_and_check(emt::Fixture& f, Buffer& b, emt::Bytes& data, const CopyRect& rect) {
  CHECK_OK(f.q.copy_rect(b, b, rect));
  const emt::Bytes before = data;
  const Extent3& r = rect.region;
  for (std::size_t z = 0; z < r.z; ++z)
    for (std::size_t y = 0; y < r.y; ++y) {
      const std::size_t s = rect.src.origin.x + (rect.src.origin.y + y) * rect.src.row_pitch +
                            (rect.src.origin.z + z) * rect.src.slice_pitch;
      const std::size_t d = rect.dst.origin.x + (rect.dst.origin.y + y) * rect.dst.row_pitch +
                            (rect.dst.origin.z + z) * rect.dst.slice_pitch;
      std::copy(before.begin() + s, before.begin() + s + r.x, data.begin() + d);
    }
  CHECK(f.snapshot(b) == data);
}

}  // namespace

TEST_CASE("copy_rect within one large buffer, interleaved rows: the overlap check is linear in the rows") {
  // The check used to cost O(region.z^2 * region.y): seconds for thousands of slices before any
  // transfer. Both shapes below are even rows onto odd rows of a 1920-byte-row image.
  emt::Fixture f;
  const std::size_t row = 1920, rows = 2000;
  emt::Bytes data;
  Buffer b = f.filled(2 * row * rows, data);
  ENSURE(b.valid());
  SUBCASE("2000 rows of one slice, row pitch 2 * row") {
    const CopyRect r{{{0, 0, 0}, 2 * row, 0}, {{row, 0, 0}, 2 * row, 0}, {row, rows, 1}};
    copy_within_and_check(f, b, data, r);
  }
  SUBCASE("2000 slices of one row, slice pitch 2 * row") {
    const CopyRect r{{{0, 0, 0}, row, 2 * row}, {{0, 1, 0}, row, 2 * row}, {row, 1, rows}};
    copy_within_and_check(f, b, data, r);
  }
  SUBCASE("40000 slices of 48-byte rows, slice pitch 96; an overlap found only at the last source slice") {
    const std::size_t w = 48, p = 96, n = 40000;
    CopyRect r{{{0, 0, 0}, w, p}, {{w, 0, 0}, w, p}, {w, 1, n}};
    ENSURE(b.size() >= n * p);
    copy_within_and_check(f, b, data, r);
    // Destination rows from the last source row's last byte on: only that pair of rows shares a byte.
    r.dst.origin.x = (n - 1) * p + w - 1;
    ENSURE(b.size() >= r.dst.origin.x + (n - 1) * p + w);
    CHECK_ERRC(f.q.copy_rect(b, b, r), Errc::overlap);
    r.dst.origin.x += 1;  // one byte later: disjoint
    copy_within_and_check(f, b, data, r);
  }
}
