// Bad inputs to the rectangular transfers: extents, pitches, regions, host spans, overflow, overlap.
#include <cstdint>

#include "bad_input/catalogue.hpp"

using namespace edgemem;
using emt::bad::Scene;

namespace {
constexpr std::size_t kBytes = 4096;  // a 64 x 64 "image" of bytes
/// A rect of `x` bytes x `y` rows at row pitch 64, buffer and host alike.
Rect rect(std::size_t x, std::size_t y) {
  Rect r;
  r.region = Extent3{x, y, 1};
  r.buffer.row_pitch = 64;
  r.host.row_pitch = 64;
  return r;
}
}  // namespace

BAD_INPUT("write_rect: a zero region extent") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes host = emt::random_bytes(kBytes);
  for (const Extent3 e : {Extent3{0, 4, 1}, Extent3{16, 0, 1}, Extent3{16, 4, 0}}) {
    Rect r = rect(16, 4);
    r.region = e;
    s.expect(Errc::invalid_argument, [&] { return f.q.write_rect(b, r, host.data(), host.size()); });
  }
}

BAD_INPUT("write_rect: buffer row pitch smaller than region.x") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes host = emt::random_bytes(kBytes);
  Rect r = rect(32, 4);
  r.buffer.row_pitch = 31;
  s.expect(Errc::invalid_argument, [&] { return f.q.write_rect(b, r, host.data(), host.size()); });
}

BAD_INPUT("read_rect: host slice pitch smaller than region.y * row pitch") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  emt::Bytes host(kBytes, 0xEE);
  Rect r = rect(16, 4);
  r.region.z = 2;
  r.host.slice_pitch = 3 * 64;
  s.expect(Errc::invalid_argument, [&] { return f.q.read_rect(b, r, host.data(), host.size()); });
  CHECK(host == emt::Bytes(kBytes, 0xEE));
}

BAD_INPUT("write_rect: slice pitch not a multiple of the row pitch") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes host = emt::random_bytes(kBytes);
  Rect r = rect(16, 4);
  r.region.z = 2;
  r.buffer.slice_pitch = 4 * 64 + 8;
  s.expect(Errc::invalid_argument, [&] { return f.q.write_rect(b, r, host.data(), host.size()); });
}

BAD_INPUT("write_rect: region one row past the buffer end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes host = emt::random_bytes(2 * kBytes);
  Rect r = rect(64, 64);
  r.buffer.origin.y = 1;
  s.expect(Errc::out_of_range, [&] { return f.q.write_rect(b, r, host.data(), host.size()); });
}

BAD_INPUT("write_rect: last row one byte past the buffer end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes host = emt::random_bytes(kBytes);
  Rect r = rect(16, 4);
  r.buffer.origin = Offset3{49, 60, 0};  // last row ends at 63 * 64 + 49 + 16 = kBytes + 1
  s.expect(Errc::out_of_range, [&] { return f.q.write_rect(b, r, host.data(), host.size()); });
}

BAD_INPUT("read_rect: host span shorter than the region") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  emt::Bytes host(3 * 64 + 15, 0xEE);  // one byte short of 4 rows of 16 at pitch 64
  const Rect r = rect(16, 4);
  s.expect(Errc::out_of_range, [&] { return f.q.read_rect(b, r, host.data(), host.size()); });
  CHECK(host == emt::Bytes(3 * 64 + 15, 0xEE));
}

BAD_INPUT("write_rect: host span of zero bytes") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes host = emt::random_bytes(64);
  s.expect(Errc::out_of_range, [&] { return f.q.write_rect(b, rect(16, 1), host.data(), 0); });
}

BAD_INPUT("write_rect: origin overflows SIZE_MAX") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes host = emt::random_bytes(kBytes);
  Rect r = rect(16, 4);
  r.buffer.origin.z = SIZE_MAX / 2;
  r.buffer.slice_pitch = 4 * 64;
  s.expect(Errc::out_of_range, [&] { return f.q.write_rect(b, r, host.data(), host.size()); });
  r = rect(16, 4);
  r.host.origin.x = SIZE_MAX - 8;
  s.expect(Errc::out_of_range, [&] { return f.q.write_rect(b, r, host.data(), host.size()); });
}

BAD_INPUT("write_rect: rows * row pitch overflows SIZE_MAX") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes host = emt::random_bytes(kBytes);
  Rect r = rect(16, SIZE_MAX / 32);
  s.expect(Errc::out_of_range, [&] { return f.q.write_rect(b, r, host.data(), host.size()); });
}

BAD_INPUT("read_rect: null destination") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::invalid_argument, [&] { return f.q.read_rect(b, rect(16, 4), nullptr, kBytes); });
}

BAD_INPUT("write_rect_async: host_read_only buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes, Storage::device, MemFlags::host_read_only);
  const emt::Bytes host = emt::random_bytes(kBytes);
  s.expect(Errc::access_denied, [&] { return f.q.write_rect_async(b, rect(16, 4), host.data(), host.size()); });
}

BAD_INPUT("copy_rect: overlapping regions of one buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  CopyRect r;
  r.region = Extent3{16, 4, 1};
  r.src.row_pitch = r.dst.row_pitch = 64;
  r.src.origin = Offset3{0, 0, 0};
  r.dst.origin = Offset3{8, 3, 0};  // dst row 0 meets src row 3
  s.expect(Errc::overlap, [&] { return f.q.copy_rect(b, b, r); });
  r.dst.origin = Offset3{0, 0, 0};
  r.dst.row_pitch = 16;  // a packed destination over the same bytes
  s.expect(Errc::overlap, [&] { return f.q.copy_rect_async(b, b, r); });
}

BAD_INPUT("copy_rect: destination region past the end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& a = s.make(kBytes);
  Buffer& b = s.make(kBytes / 2);
  CopyRect r;
  r.region = Extent3{64, 64, 1};  // the whole of a; b holds only 32 rows
  s.expect(Errc::out_of_range, [&] { return f.q.copy_rect(a, b, r); });
}

BAD_INPUT("copy_rect: source pitch smaller than the region") {
  emt::Fixture f;
  Scene s(f);
  Buffer& a = s.make(kBytes);
  Buffer& b = s.make(kBytes);
  CopyRect r;
  r.region = Extent3{32, 4, 1};
  r.src.row_pitch = 16;
  s.expect(Errc::invalid_argument, [&] { return f.q.copy_rect(a, b, r); });
}

// ---- host memory inside the buffer's own wrapped memory (Buffer::wrap) ------------------------------

BAD_INPUT("write_rect: host rows inside the buffer's own wrapped memory") {
  emt::Fixture f;
  std::vector<unsigned char> host = emt::random_bytes(kBytes);  // outlives the scene's buffer over it
  Scene s(f);
  Buffer& w = s.make_wrapped(host);
  // Buffer rows 0..3 from host rows 2..5 of the same memory: rows 2 and 3 are both.
  s.expect(Errc::overlap, [&] { return f.q.write_rect(w, rect(16, 4), host.data() + 2 * 64, kBytes - 2 * 64); });
  // Each host row [33, 49) + 64k shares only its last byte with buffer row [48, 64) + 64k.
  Rect r = rect(16, 4);
  r.buffer.origin.x = 48;
  s.expect(Errc::overlap, [&] { return f.q.write_rect_async(w, r, host.data() + 33, kBytes - 33); });
  // Rows that interleave without sharing a byte (buffer rows at x 0..15, host rows at x 16..31) are
  // refused too: host memory anywhere in the wrapped memory is (PoCL skips such transfers silently).
  s.expect(Errc::overlap, [&] { return f.q.write_rect(w, rect(16, 4), host.data() + 16, kBytes - 16); });
}

BAD_INPUT("read_rect: host rows inside the buffer's own wrapped memory") {
  emt::Fixture f;
  std::vector<unsigned char> host = emt::random_bytes(kBytes);  // outlives the scene's buffer over it
  Scene s(f);
  Buffer& w = s.make_wrapped(host);
  Rect r = rect(16, 4);
  r.buffer.origin.y = 8;  // buffer rows 8..11 into the same rows
  s.expect(Errc::overlap, [&] { return f.q.read_rect(w, r, host.data() + 8 * 64, kBytes - 8 * 64); });
  r.host.slice_pitch = 64 * 4;
  r.region.z = 2;  // host slice 1 lies at x 8..23 of rows 8..11, buffer slice 0 at x 0..15 of the same rows
  s.expect(Errc::overlap, [&] { return f.q.read_rect_async(w, r, host.data() + 4 * 64 + 8, kBytes - 4 * 64 - 8); });
  r.region.z = 1;
  s.expect(Errc::overlap, [&] { return f.q.read_rect(w, r, host.data() + 8 * 64 + 16, kBytes - 8 * 64 - 16); });
}
