// Rectangular transfers that fail: every documented Errc of write_rect/read_rect/copy_rect and their
// async forms; a failed call changes neither buffer nor host memory.
#include <cstdint>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// Malformed or out-of-range geometries for a buffer of 1024 bytes and host memory of 1024 bytes,
/// with the Errc each must produce.
struct BadRect {
  const char* what;
  Rect rect;
  Errc expect;
};

const std::size_t kBytes = 1024;

const BadRect kBad[] = {
    {"region.x == 0", {{}, {}, {0, 4, 1}}, Errc::invalid_argument},
    {"region.y == 0", {{}, {}, {16, 0, 1}}, Errc::invalid_argument},
    {"region.z == 0", {{}, {}, {16, 4, 0}}, Errc::invalid_argument},
    {"buffer row pitch < region.x", {{{}, 15, 0}, {}, {16, 4, 1}}, Errc::invalid_argument},
    {"host row pitch < region.x", {{}, {{}, 8, 0}, {16, 4, 1}}, Errc::invalid_argument},
    {"buffer slice pitch < rows * row pitch", {{{}, 32, 96}, {}, {16, 4, 2}}, Errc::invalid_argument},
    {"host slice pitch < rows * row pitch", {{}, {{}, 16, 48}, {16, 4, 2}}, Errc::invalid_argument},
    {"buffer slice pitch not a multiple of row pitch", {{{}, 32, 140}, {}, {16, 4, 2}}, Errc::invalid_argument},
    {"host slice pitch not a multiple of row pitch", {{}, {{}, 16, 72}, {16, 4, 2}}, Errc::invalid_argument},
    {"region past the buffer end", {{{0, 0, 0}, 64, 0}, {}, {16, 17, 1}}, Errc::out_of_range},
    {"buffer origin past the end", {{{0, 0, 2}, 16, 512}, {}, {16, 1, 1}}, Errc::out_of_range},
    {"buffer origin.x one byte too far", {{{1009, 0, 0}, 0, 0}, {}, {16, 1, 1}}, Errc::out_of_range},
    {"region past the host memory", {{}, {{0, 0, 0}, 128, 0}, {16, 9, 1}}, Errc::out_of_range},
    {"host origin past the end", {{}, {{0, 1, 0}, 1024, 0}, {16, 1, 1}}, Errc::out_of_range},
    {"buffer origin.z * slice pitch overflows", {{{0, 0, SIZE_MAX / 2}, 16, 64}, {}, {16, 4, 1}}, Errc::out_of_range},
    {"buffer origin.x overflows", {{{SIZE_MAX, 0, 0}, 16, 0}, {}, {16, 1, 1}}, Errc::out_of_range},
    {"host origin.y * row pitch overflows", {{}, {{0, SIZE_MAX / 8, 0}, 16, 0}, {16, 1, 1}}, Errc::out_of_range},
    {"region.y * row pitch overflows", {{}, {}, {16, SIZE_MAX / 8, 1}}, Errc::out_of_range},
    {"region.z * slice pitch overflows", {{}, {}, {16, 4, SIZE_MAX / 16}}, Errc::out_of_range},
};

}  // namespace

TEST_CASE("write_rect / read_rect (+async): released, null pointer, other context") {
  emt::Fixture f;
  emt::OtherContext other(kBytes);
  emt::Bytes data;
  Buffer b = f.filled(kBytes, data);
  ENSURE(b.valid());
  const Rect ok{{}, {}, {16, 4, 1}};
  const emt::Bytes src = emt::random_bytes(kBytes);
  const emt::Bytes sentinel = emt::random_bytes(kBytes);
  emt::Bytes dst = sentinel;
  Queue no_queue;
  Buffer no_buffer;
  CHECK_ERRC(no_queue.write_rect(b, ok, src.data(), kBytes), Errc::released);
  CHECK_ERRC(no_queue.write_rect_async(b, ok, src.data(), kBytes), Errc::released);
  CHECK_ERRC(no_queue.read_rect(b, ok, dst.data(), kBytes), Errc::released);
  CHECK_ERRC(no_queue.read_rect_async(b, ok, dst.data(), kBytes), Errc::released);
  CHECK_ERRC(f.q.write_rect(no_buffer, ok, src.data(), kBytes), Errc::released);
  CHECK_ERRC(f.q.write_rect_async(no_buffer, ok, src.data(), kBytes), Errc::released);
  CHECK_ERRC(f.q.read_rect(no_buffer, ok, dst.data(), kBytes), Errc::released);
  CHECK_ERRC(f.q.read_rect_async(no_buffer, ok, dst.data(), kBytes), Errc::released);
  CHECK_ERRC(f.q.write_rect(b, ok, nullptr, kBytes), Errc::invalid_argument);
  CHECK_ERRC(f.q.write_rect_async(b, ok, nullptr, kBytes), Errc::invalid_argument);
  CHECK_ERRC(f.q.read_rect(b, ok, nullptr, kBytes), Errc::invalid_argument);
  CHECK_ERRC(f.q.read_rect_async(b, ok, nullptr, kBytes), Errc::invalid_argument);
  CHECK_ERRC(f.q.write_rect(other.buf, ok, src.data(), kBytes), Errc::invalid_argument);
  CHECK_ERRC(f.q.write_rect_async(other.buf, ok, src.data(), kBytes), Errc::invalid_argument);
  CHECK_ERRC(f.q.read_rect(other.buf, ok, dst.data(), kBytes), Errc::invalid_argument);
  CHECK_ERRC(f.q.read_rect_async(other.buf, ok, dst.data(), kBytes), Errc::invalid_argument);
  CHECK(dst == sentinel);
  CHECK(f.snapshot(b) == data);
  CHECK(other.unchanged());
}

TEST_CASE("write_rect / read_rect / copy_rect (+async): malformed and out-of-range geometry") {
  emt::Fixture f;
  emt::Bytes data, data2;
  Buffer b = f.filled(kBytes, data);
  Buffer b2 = f.filled(kBytes, data2);
  ENSURE(b.valid());
  ENSURE(b2.valid());
  const emt::Bytes src = emt::random_bytes(kBytes);
  const emt::Bytes sentinel = emt::random_bytes(kBytes);
  emt::Bytes dst = sentinel;
  for (const BadRect& bad : kBad) {
    CAPTURE(bad.what);
    CHECK_ERRC(f.q.write_rect(b, bad.rect, src.data(), kBytes), bad.expect);
    CHECK_ERRC(f.q.write_rect_async(b, bad.rect, src.data(), kBytes), bad.expect);
    CHECK_ERRC(f.q.read_rect(b, bad.rect, dst.data(), kBytes), bad.expect);
    CHECK_ERRC(f.q.read_rect_async(b, bad.rect, dst.data(), kBytes), bad.expect);
    // copy_rect: the buffer side as the source and the host side as the destination, and swapped.
    const CopyRect c1{bad.rect.buffer, bad.rect.host, bad.rect.region};
    const CopyRect c2{bad.rect.host, bad.rect.buffer, bad.rect.region};
    CHECK_ERRC(f.q.copy_rect(b, b2, c1), bad.expect);
    CHECK_ERRC(f.q.copy_rect_async(b, b2, c1), bad.expect);
    CHECK_ERRC(f.q.copy_rect(b2, b, c2), bad.expect);
    CHECK_ERRC(f.q.copy_rect_async(b2, b, c2), bad.expect);
  }
  // Host memory shorter than the region needs.
  const Rect fits{{}, {}, {16, 4, 1}};
  CHECK_ERRC(f.q.write_rect(b, fits, src.data(), 63), Errc::out_of_range);
  CHECK_ERRC(f.q.read_rect_async(b, fits, dst.data(), 63), Errc::out_of_range);
  CHECK_ERRC(f.q.write_rect(b, fits, src.data(), 0), Errc::out_of_range);
  CHECK_OK(f.q.read_rect(b, fits, dst.data(), 64));  // exactly enough
  emt::Bytes expect = sentinel;
  std::copy(data.begin(), data.begin() + 64, expect.begin());
  CHECK(dst == expect);
  CHECK(b.size() == kBytes);
  CHECK(f.snapshot(b) == data);
  CHECK(f.snapshot(b2) == data2);
}

TEST_CASE("write_rect / read_rect: host access flags") {
  emt::Fixture f;
  const Rect r{{{8, 1, 0}, 32, 0}, {}, {16, 4, 1}};
  const emt::Bytes src = emt::random_bytes(64);
  emt::Bytes dst(64, 0x77);
  for (MemFlags fl : {MemFlags::host_read_only, MemFlags::host_no_access}) {
    emt::Bytes data;
    Buffer b = f.filled(256, data, Storage::device, fl);
    ENSURE(b.valid());
    CHECK_ERRC(f.q.write_rect(b, r, src.data(), src.size()), Errc::access_denied);
    CHECK_ERRC(f.q.write_rect_async(b, r, src.data(), src.size()), Errc::access_denied);
    CHECK(f.snapshot(b) == data);
  }
  for (MemFlags fl : {MemFlags::host_write_only, MemFlags::host_no_access}) {
    emt::Bytes data;
    Buffer b = f.filled(256, data, Storage::device, fl);
    ENSURE(b.valid());
    CHECK_ERRC(f.q.read_rect(b, r, dst.data(), dst.size()), Errc::access_denied);
    CHECK_ERRC(f.q.read_rect_async(b, r, dst.data(), dst.size()), Errc::access_denied);
    CHECK(dst == emt::Bytes(64, 0x77));
    CHECK(f.snapshot(b) == data);
  }
  // Host access flags do not restrict copy_rect.
  emt::Bytes ds, dd;
  Buffer s = f.filled(256, ds, Storage::device, MemFlags::host_no_access);
  Buffer d = f.filled(256, dd, Storage::device, MemFlags::host_read_only);
  ENSURE(s.valid());
  ENSURE(d.valid());
  CHECK_OK(f.q.copy_rect(s, d, CopyRect{r.buffer, r.buffer, r.region}));
  for (std::size_t y = 0; y < 4; ++y)
    for (std::size_t x = 0; x < 16; ++x) dd[(1 + y) * 32 + 8 + x] = ds[(1 + y) * 32 + 8 + x];
  CHECK(f.snapshot(d) == dd);
}

TEST_CASE("copy_rect (+async): released, other context, overlap") {
  emt::Fixture f;
  emt::OtherContext other(kBytes);
  const std::size_t A = f.align();
  emt::Bytes data, data2;
  Buffer b = f.filled(8 * A, data);
  Buffer b2 = f.filled(8 * A, data2);
  ENSURE(b.valid());
  ENSURE(b2.valid());
  const CopyRect ok{{}, {}, {16, 4, 1}};
  Queue no_queue;
  Buffer no_buffer;
  CHECK_ERRC(no_queue.copy_rect(b, b2, ok), Errc::released);
  CHECK_ERRC(no_queue.copy_rect_async(b, b2, ok), Errc::released);
  CHECK_ERRC(f.q.copy_rect(no_buffer, b2, ok), Errc::released);
  CHECK_ERRC(f.q.copy_rect_async(b, no_buffer, ok), Errc::released);
  CHECK_ERRC(f.q.copy_rect(other.buf, b2, ok), Errc::invalid_argument);
  CHECK_ERRC(f.q.copy_rect_async(b, other.buf, ok), Errc::invalid_argument);

  // Same buffer, same region.
  CHECK_ERRC(f.q.copy_rect(b, b, ok), Errc::overlap);
  CHECK_ERRC(f.q.copy_rect_async(b, b, ok), Errc::overlap);
  // Same buffer, destination shifted by one row: rows 1..3 are shared.
  const CopyRect shifted{{{0, 0, 0}, 16, 0}, {{0, 1, 0}, 16, 0}, {16, 4, 1}};
  CHECK_ERRC(f.q.copy_rect(b, b, shifted), Errc::overlap);
  // Same buffer, different pitches: source row [64, 96) meets destination row [40, 72).
  const CopyRect pitches{{{0, 0, 0}, 64, 512}, {{40, 0, 0}, 48, 0}, {32, 3, 2}};
  CHECK_ERRC(f.q.copy_rect(b, b, pitches), Errc::overlap);
  // Interleaved x ranges that share one byte per row.
  const CopyRect one_byte{{{0, 0, 0}, 64, 0}, {{31, 0, 0}, 64, 0}, {32, 8, 1}};
  CHECK_ERRC(f.q.copy_rect_async(b, b, one_byte), Errc::overlap);
  // Two overlapping subs of one root: s1 [0,4A), s2 [A,5A); s1 row at root [A, A+16) vs s2 row at root [A+8, ...).
  auto s1 = b.sub(0, 4 * A);
  auto s2 = b.sub(A, 4 * A);
  REQUIRE_OK(s1);
  REQUIRE_OK(s2);
  const CopyRect subs{{{0, 1, 0}, A, 0}, {{8, 0, 0}, A, 0}, {16, 2, 1}};
  CHECK_ERRC(f.q.copy_rect(*s1, *s2, subs), Errc::overlap);
  CHECK_ERRC(f.q.copy_rect_async(*s2, *s1, CopyRect{subs.dst, subs.src, subs.region}), Errc::overlap);
  // A sub against its root.
  const CopyRect root_sub{{{0, 0, 0}, 0, 0}, {{A, 0, 0}, 0, 0}, {16, 1, 1}};
  CHECK_ERRC(f.q.copy_rect(*s2, b, root_sub), Errc::overlap);

  CHECK(f.snapshot(b) == data);
  CHECK(f.snapshot(b2) == data2);
  CHECK(other.unchanged());
}
