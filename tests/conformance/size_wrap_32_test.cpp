// 32-bit size_t (armhf, other ILP32 targets): sizes and offsets whose sum or product passes 2^32.
// On ILP32 each input below wraps to a small value that naive arithmetic would accept (the CHECKs on
// `wraps_to` show where it lands); edgemem must still answer out_of_range and change nothing.
// Linear and rect cases run everywhere (on LP64 the same inputs are merely past the end); the
// pool/ring/heap case only at 32 bits, where the requests cannot exist (on LP64 they are 4 GiB
// allocations a large device may grant).
#include <cstdint>
#include <vector>

#include "test_helpers.hpp"

using namespace edgemem;

// Evaluates a Result call once and returns from the test case when it failed.
#define REQUIRE_OK_CALL_SW(expr) \
  do {                           \
    auto emt_sw_ = (expr);       \
    REQUIRE_OK(emt_sw_);         \
  } while (false)

namespace {

constexpr bool kIlp32 = sizeof(std::size_t) == 4;
constexpr std::size_t kN = 16384;  // buffer bytes: a multiple of every base alignment up to 4096

/// The sum as size_t arithmetic computes it (wrapping modulo 2^32 on ILP32).
constexpr std::size_t wraps_to(std::size_t a, std::size_t b) noexcept { return a + b; }

}  // namespace

TEST_CASE("size_t wrap at 2^32: linear offset + size is out_of_range and changes nothing") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer b = f.filled(kN, data);
  ENSURE(b.valid());
  // offset + bytes = 2^32 + 16 and 2^32 + 8 (16 and 8 on ILP32, both inside the buffer).
  const std::size_t off_hi = 0xFFFFFFF0u, len_lo = 0x20;
  const std::size_t off_lo = 0x10, len_hi = 0xFFFFFFF8u;
  // A 4096-aligned origin for sub(): 0xFFFFF000 + 0x2000 = 2^32 + 4096.
  const std::size_t sub_off = 0xFFFFF000u, sub_len = 0x2000;
  if (kIlp32) {
    CHECK(wraps_to(off_hi, len_lo) == 16);
    CHECK(wraps_to(off_lo, len_hi) == 8);
    CHECK(wraps_to(sub_off, sub_len) == 4096);
  }
  std::vector<unsigned char> host(64, 0xA5);
  const std::uint32_t pattern = 0x01020304u;
  for (const auto& range : {std::pair<std::size_t, std::size_t>{off_hi, len_lo}, {off_lo, len_hi}}) {
    const std::size_t off = range.first, len = range.second;
    CAPTURE(off);
    CAPTURE(len);
    CHECK_ERRC(f.q.write(b, off, host.data(), len), Errc::out_of_range);
    CHECK_ERRC(f.q.read(b, off, host.data(), len), Errc::out_of_range);
    CHECK_ERRC(emt::settle(f.q.write_async(b, off, host.data(), len)), Errc::out_of_range);
    CHECK_ERRC(emt::settle(f.q.read_async(b, off, host.data(), len)), Errc::out_of_range);
    CHECK_ERRC(f.q.fill(b, off, len, &pattern, sizeof pattern), Errc::out_of_range);
    CHECK_ERRC(f.q.map(b, Access::read, off, len), Errc::out_of_range);
    CHECK_ERRC(f.q.map<std::uint32_t>(b, Access::write, off, len), Errc::out_of_range);
  }
  emt::Bytes other_data;
  Buffer c = f.filled(kN, other_data);
  ENSURE(c.valid());
  CHECK_ERRC(f.q.copy(b, c, off_hi, 0, len_lo), Errc::out_of_range);
  CHECK_ERRC(f.q.copy(b, c, 0, off_hi, len_lo), Errc::out_of_range);
  CHECK_ERRC(f.q.copy(b, c, off_lo, off_lo, len_hi), Errc::out_of_range);
  CHECK_ERRC(f.q.copy(b, b, 0, off_hi, len_lo), Errc::out_of_range);  // same root: range before overlap
  CHECK_ERRC(b.sub(sub_off, sub_len), Errc::out_of_range);
  CHECK_ERRC(b.sub(0, sub_off + sub_len + kN), Errc::out_of_range);  // 2^32 + 4096 + kN wraps past kN
  auto half = b.sub(kN / 2, kN / 2);
  REQUIRE_OK(half);
  CHECK_ERRC(half->sub(sub_off, sub_len), Errc::out_of_range);  // sub of a sub: origin + offset wraps too
  CHECK(f.snapshot(b) == data);
  CHECK(f.snapshot(c) == other_data);
  CHECK(std::vector<unsigned char>(64, 0xA5) == host);
}

TEST_CASE("size_t wrap at 2^32: rect extents, pitches and origins are out_of_range") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer b = f.filled(kN, data);
  ENSURE(b.valid());
  // region.y * row_pitch = 0x10001 * 0x10000 = 2^32 + 2^16; the last row ends at 2^32 + 16 (16 on ILP32).
  Rect tall;
  tall.buffer.row_pitch = 0x10000;
  tall.region = Extent3{16, 0x10001, 1};
  if (kIlp32) CHECK(wraps_to(std::size_t{0x10000} * 0x10000, 16) == 16);
  std::vector<unsigned char> host(16 * 0x10001, 0x3C);  // the host side itself is in range
  CHECK_ERRC(f.q.write_rect(b, tall, host.data(), host.size()), Errc::out_of_range);
  CHECK_ERRC(f.q.read_rect(b, tall, host.data(), host.size()), Errc::out_of_range);

  // origin.y * row_pitch = 2^32 (0 on ILP32).
  Rect low_row;
  low_row.buffer.origin = Offset3{0, 0x10000, 0};
  low_row.buffer.row_pitch = 0x10000;
  low_row.region = Extent3{16, 1, 1};
  CHECK_ERRC(f.q.write_rect(b, low_row, host.data(), 16), Errc::out_of_range);
  // origin.z * slice_pitch = 0x1000 * 0x100000 = 2^32 (0 on ILP32).
  Rect low_slice;
  low_slice.buffer.origin = Offset3{0, 0, 0x1000};
  low_slice.buffer.row_pitch = 0x1000;
  low_slice.buffer.slice_pitch = 0x100000;
  low_slice.region = Extent3{16, 1, 1};
  CHECK_ERRC(f.q.write_rect(b, low_slice, host.data(), 16), Errc::out_of_range);
  // The host side wraps: origin.y * row_pitch = 2^32 in a 64-byte host span.
  Rect host_wrap;
  host_wrap.host.origin = Offset3{0, 0x10000, 0};
  host_wrap.host.row_pitch = 0x10000;
  host_wrap.region = Extent3{16, 1, 1};
  CHECK_ERRC(f.q.read_rect(b, host_wrap, host.data(), 64), Errc::out_of_range);
  // copy_rect: the source side wraps, then the destination side.
  emt::Bytes other_data;
  Buffer c = f.filled(kN, other_data);
  ENSURE(c.valid());
  CopyRect cr;
  cr.src = low_row.buffer;
  cr.region = Extent3{16, 1, 1};
  CHECK_ERRC(f.q.copy_rect(b, c, cr), Errc::out_of_range);
  std::swap(cr.src, cr.dst);
  CHECK_ERRC(f.q.copy_rect(b, c, cr), Errc::out_of_range);
  CHECK(f.snapshot(b) == data);
  CHECK(f.snapshot(c) == other_data);
  CHECK(std::vector<unsigned char>(host.size(), 0x3C) == host);
}

TEST_CASE("size_t wrap at 2^32: pool, ring and heap totals are out_of_range (ILP32 only)" *
          doctest::skip(!kIlp32)) {
  emt::Fixture f;
  // block_bytes * count = 0x10000 * 0x10001 = 2^32 + 2^16 (64 KiB on ILP32).
  CHECK(wraps_to(std::size_t{0x10000} * 0x10000, 0x10000) == 0x10000);
  {
    FixedPool<> pool;
    CHECK_ERRC(pool.init(f.ctx, f.q, 0x10000, 0x10001), Errc::out_of_range);
    CHECK(pool.capacity() == 0);
    CHECK_ERRC(pool.acquire(), Errc::released);
    // 128 * 2^25 = 2^32 (0 on ILP32).
    CHECK_ERRC(pool.init(f.ctx, f.q, 128, std::size_t{1} << 25), Errc::out_of_range);
    CHECK(pool.capacity() == 0);
    REQUIRE_OK_CALL_SW(pool.init(f.ctx, f.q, 128, 4));  // still usable afterwards
  }
  {
    FrameRing<4> ring;  // 4 frames of 2^30 bytes = 2^32 (0 on ILP32)
    CHECK_ERRC(ring.init(f.ctx, f.q, std::size_t{1} << 30), Errc::out_of_range);
    CHECK_ERRC(ring.acquire(), Errc::released);
  }
  {
    Heap heap;  // 0x10001 pages of 64 KiB = 2^32 + 2^16 (64 KiB on ILP32)
    CHECK_ERRC(heap.init(f.ctx, f.q, 0x10000, 0x10001), Errc::out_of_range);
    CHECK(heap.page_count() == 0);
    CHECK_ERRC(heap.create_buffer(16), Errc::released);
    REQUIRE_OK_CALL_SW(heap.init(f.ctx, f.q, f.align(), 16));
    // A request whose page count rounds up past SIZE_MAX, and one that is simply larger than the heap.
    CHECK_ERRC(heap.create_buffer(SIZE_MAX - 1), Errc::out_of_range);
    CHECK_ERRC(heap.create_buffer(0xFFFFFF00u), Errc::out_of_range);
    CHECK(heap.free_pages() == 16);
  }
}
