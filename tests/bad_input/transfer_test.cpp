// Bad inputs to the linear transfers (write, read, fill, copy, migrate), wait lists and events.
#include <cstdint>
#include <vector>

#include "bad_input/catalogue.hpp"

using namespace edgemem;
using emt::bad::Scene;

namespace {
constexpr std::size_t kBytes = 1024;
}  // namespace

// ---- write / read ---------------------------------------------------------------------------------

BAD_INPUT("Queue::write: null source") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::invalid_argument, [&] { return f.q.write(b, 0, nullptr, 16); });
  s.expect(Errc::invalid_argument, [&] { return f.q.write_async(b, 0, nullptr, 16); });
}

BAD_INPUT("Queue::write: zero bytes") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes src = emt::random_bytes(16);
  s.expect(Errc::invalid_argument, [&] { return f.q.write(b, 0, src.data(), 0); });
}

BAD_INPUT("Queue::write: range one byte past the end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes src = emt::random_bytes(kBytes + 1);
  s.expect(Errc::out_of_range, [&] { return f.q.write(b, 0, src.data(), kBytes + 1); });
  s.expect(Errc::out_of_range, [&] { return f.q.write_async(b, kBytes - 8, src.data(), 9); });
}

BAD_INPUT("Queue::write: offset + size overflows SIZE_MAX") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes src = emt::random_bytes(16);
  // The size is refused before a byte of `src` is read.
  s.expect(Errc::out_of_range, [&] { return f.q.write(b, 16, src.data(), SIZE_MAX - 8); });
}

BAD_INPUT("Queue::read: null destination") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::invalid_argument, [&] { return f.q.read(b, 0, nullptr, 16); });
}

BAD_INPUT("Queue::read: offset past the end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  emt::Bytes dst(16, 0xEE);
  s.expect(Errc::out_of_range, [&] { return f.q.read(b, kBytes + 1, dst.data(), 1); });
  s.expect(Errc::out_of_range, [&] { return f.q.read_async(b, SIZE_MAX, dst.data(), 1); });
  CHECK(dst == emt::Bytes(16, 0xEE));
}

BAD_INPUT("Queue::write: host_read_only buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes, Storage::device, MemFlags::host_read_only);
  const emt::Bytes src = emt::random_bytes(16);
  s.expect(Errc::access_denied, [&] { return f.q.write(b, 0, src.data(), 16); });
}

BAD_INPUT("Queue::read: host_write_only buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes, Storage::device, MemFlags::host_write_only);
  emt::Bytes dst(16, 0xEE);
  s.expect(Errc::access_denied, [&] { return f.q.read(b, 0, dst.data(), 16); });
  CHECK(dst == emt::Bytes(16, 0xEE));
}

BAD_INPUT("Queue::write and read: host_no_access buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes, Storage::device, MemFlags::host_no_access);
  emt::Bytes host = emt::random_bytes(16);
  s.expect(Errc::access_denied, [&] { return f.q.write(b, 0, host.data(), 16); });
  s.expect(Errc::access_denied, [&] { return f.q.read(b, 0, host.data(), 16); });
}

// ---- fill -----------------------------------------------------------------------------------------

BAD_INPUT("Queue::fill: pattern of 3 bytes") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const unsigned char pat[4] = {1, 2, 3, 4};
  s.expect(Errc::invalid_argument, [&] { return f.q.fill(b, 0, 48, pat, 3); });
}

BAD_INPUT("Queue::fill: pattern of 256 bytes") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const emt::Bytes pat = emt::random_bytes(256);
  s.expect(Errc::invalid_argument, [&] { return f.q.fill(b, 0, 512, pat.data(), 256); });
}

BAD_INPUT("Queue::fill: pattern of 0 bytes") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const unsigned char pat = 1;
  s.expect(Errc::invalid_argument, [&] { return f.q.fill(b, 0, 16, &pat, 0); });
}

BAD_INPUT("Queue::fill: null pattern") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::invalid_argument, [&] { return f.q.fill_async(b, 0, 16, nullptr, 4); });
}

BAD_INPUT("Queue::fill: size not a multiple of the pattern") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const std::uint32_t pat = 0xA5A5A5A5u;
  s.expect(Errc::misaligned, [&] { return f.q.fill(b, 0, 10, &pat, 4); });
}

BAD_INPUT("Queue::fill: offset not a multiple of the pattern") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const std::uint64_t pat = 0x0123456789ABCDEFull;
  s.expect(Errc::misaligned, [&] { return f.q.fill(b, 4, 16, &pat, 8); });
}

BAD_INPUT("Queue::fill: range past the end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  const std::uint32_t pat = 7;
  s.expect(Errc::out_of_range, [&] { return f.q.fill(b, kBytes - 4, 8, &pat, 4); });
}

BAD_INPUT("Queue::fill: host_read_only buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes, Storage::shared, MemFlags::host_read_only);
  const unsigned char pat = 9;
  s.expect(Errc::access_denied, [&] { return f.q.fill(b, 0, 16, &pat, 1); });
}

// ---- copy -----------------------------------------------------------------------------------------

BAD_INPUT("Queue::copy: overlapping ranges of one buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::overlap, [&] { return f.q.copy(b, b, 0, 100, 200); });
  s.expect(Errc::overlap, [&] { return f.q.copy_async(b, b, 300, 0, 301); });
  s.expect(Errc::overlap, [&] { return f.q.copy(b, b, 0, 0, kBytes); });
}

BAD_INPUT("Queue::copy: overlapping sub-buffers of one root") {
  emt::Fixture f;
  Scene s(f);
  const std::size_t A = f.align();
  Buffer& root = s.make(4 * A);
  auto a = root.sub(0, 2 * A);
  auto b = root.sub(A, 2 * A);
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  s.watch(*a);
  s.watch(*b);
  // a's second half is b's first half.
  s.expect(Errc::overlap, [&] { return f.q.copy(*a, *b, A, 0, 1); });
  s.expect(Errc::overlap, [&] { return f.q.copy(*b, *a, 0, A, A); });
  s.expect(Errc::overlap, [&] { return f.q.copy(root, *b, A, 0, A); });
}

BAD_INPUT("Queue::copy: source range past the end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& a = s.make(kBytes);
  Buffer& b = s.make(2 * kBytes);
  s.expect(Errc::out_of_range, [&] { return f.q.copy(a, b, 1, 0, kBytes); });
}

BAD_INPUT("Queue::copy: destination range past the end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& a = s.make(2 * kBytes);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::out_of_range, [&] { return f.q.copy(a, b, 0, 8, kBytes); });
  s.expect(Errc::out_of_range, [&] { return f.q.copy(a, b, 0, SIZE_MAX, 1); });
}

BAD_INPUT("Queue::copy: zero bytes") {
  emt::Fixture f;
  Scene s(f);
  Buffer& a = s.make(kBytes);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::invalid_argument, [&] { return f.q.copy(a, b, 0, 0, 0); });
}

// ---- migrate, wait lists, events ------------------------------------------------------------------

BAD_INPUT("Queue::migrate: unknown Migration value") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::invalid_argument, [&] { return f.q.migrate(b, static_cast<Migration>(9)); });
}

BAD_INPUT("wait list: a released event") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  std::vector<Event> waits = f.events(3);
  ENSURE(waits.size() == 3);
  CHECK_OK(waits[1].release());
  const emt::Bytes src = emt::random_bytes(16);
  s.expect(Errc::released, [&] { return f.q.write_async(b, 0, src.data(), 16, waits); });
  CHECK(waits[0].valid());
  CHECK(waits[2].valid());
}

BAD_INPUT("wait list: a moved-from event") {
  emt::Fixture f;
  Scene s(f);
  Buffer& a = s.make(kBytes);
  Buffer& b = s.make(kBytes);
  std::vector<Event> waits = f.events(2);
  ENSURE(waits.size() == 2);
  Event kept = std::move(waits[0]);
  s.expect(Errc::released, [&] { return f.q.copy_async(a, b, 0, 0, 16, waits); });
  CHECK(kept.valid());
}

BAD_INPUT("wait list: 33 events, the last one released (past the first 32)") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  std::vector<Event> waits = f.events(33);
  ENSURE(waits.size() == 33);
  CHECK_OK(waits[32].release());
  const std::uint32_t pat = 3;
  s.expect(Errc::released, [&] { return f.q.fill_async(b, 0, 16, &pat, 4, waits); });
  for (std::size_t i = 0; i < 32; ++i) CHECK(waits[i].valid());
}

BAD_INPUT("Queue::marker and barrier: released or moved-from queue") {
  emt::Fixture f;
  Scene s(f);
  s.make(kBytes);
  std::vector<Event> waits = f.events(2);
  ENSURE(waits.size() == 2);
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  Queue moved_to = std::move(*q2);
  Queue never;
  s.expect(Errc::released, [&] { return q2->marker(); });
  s.expect(Errc::released, [&] { return q2->barrier(waits); });
  s.expect(Errc::released, [&] { return never.marker(waits); });
  CHECK(moved_to.valid());
  CHECK(waits[0].valid());
}

BAD_INPUT("Queue::marker and barrier: a released event in the wait list, also past the first 32") {
  emt::Fixture f;
  Scene s(f);
  s.make(kBytes);
  std::vector<Event> waits = f.events(40);
  ENSURE(waits.size() == 40);
  Event dead;
  s.expect(Errc::released, [&] { return f.q.marker(dead); });
  CHECK_OK(waits[35].release());
  s.expect(Errc::released, [&] { return f.q.barrier(waits); });
  s.expect(Errc::released, [&] { return f.q.marker(WaitList(waits.data() + 30, 10)); });
}

BAD_INPUT("wait_all: a released or moved-from event") {
  emt::Fixture f;
  Scene s(f);
  s.make(kBytes);
  std::vector<Event> evs = f.events(3);
  ENSURE(evs.size() == 3);
  Event taken = std::move(evs[2]);
  s.expect(Errc::released, [&] { return wait_all(evs); });
  CHECK(evs[0].valid());
  CHECK(taken.valid());
}

BAD_INPUT("Event::wait and is_complete: released or moved-from event") {
  emt::Fixture f;
  Scene s(f);
  s.make(kBytes);
  std::vector<Event> evs = f.events(2);
  ENSURE(evs.size() == 2);
  CHECK_OK(evs[0].release());
  Event moved_to = std::move(evs[1]);
  const Event never;
  s.expect(Errc::released, [&] { return evs[0].wait(); });
  s.expect(Errc::released, [&] { return evs[1].is_complete(); });
  s.expect(Errc::released, [&] { return never.wait(); });
  CHECK_OK(moved_to.wait());
}

// ---- wrapped caller memory aliasing (Buffer::wrap) --------------------------------------------------

BAD_INPUT("Queue::copy: two wrapped buffers over overlapping caller memory") {
  emt::Fixture f;
  Scene s(f);
  std::vector<unsigned char> host = emt::random_bytes(2 * kBytes);
  auto a = Buffer::wrap(f.ctx, host.data(), kBytes);
  auto b = Buffer::wrap(f.ctx, host.data() + kBytes / 2, kBytes);  // b's first half is a's second half
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  s.watch(*a);
  s.watch(*b);
  s.expect(Errc::overlap, [&] { return f.q.copy(*a, *b, kBytes / 2, 0, 16); });
  s.expect(Errc::overlap, [&] { return f.q.copy(*b, *a, 0, 0, kBytes); });
  CopyRect r;
  r.region = Extent3{16, 4, 1};
  r.src.row_pitch = r.dst.row_pitch = 64;
  r.src.origin.y = 8;  // a's rows 8..11 are b's rows 0..3
  s.expect(Errc::overlap, [&] { return f.q.copy_rect(*a, *b, r); });
  CHECK_OK(f.q.copy(*a, *b, 0, kBytes / 2, 16));  // disjoint bytes of the same memory: fine
}

BAD_INPUT("Queue::write and read: host pointer inside the buffer's own wrapped memory") {
  emt::Fixture f;
  std::vector<unsigned char> host = emt::random_bytes(kBytes);  // outlives the scene's buffer over it
  Scene s(f);
  Buffer& w = s.make_wrapped(host);
  s.expect(Errc::overlap, [&] { return f.q.write(w, 0, host.data() + 64, 128); });
  s.expect(Errc::overlap, [&] { return f.q.read(w, 128, host.data() + 64, 128); });
  // Disjoint bytes of the same memory are refused too (PoCL 3.1 skips such a write silently).
  s.expect(Errc::overlap, [&] { return f.q.write(w, 0, host.data() + 512, 128); });
  s.expect(Errc::overlap, [&] { return f.q.read(w, 0, host.data() + kBytes - 1, 1); });
}

BAD_INPUT("Queue::fill: pattern inside the buffer's own wrapped memory, in the filled range") {
  emt::Fixture f;
  std::vector<unsigned char> host = emt::random_bytes(kBytes);  // outlives the scene's buffer over it
  Scene s(f);
  Buffer& w = s.make_wrapped(host);
  s.expect(Errc::overlap, [&] { return f.q.fill(w, 0, 256, host.data() + 64, 4); });
  s.expect(Errc::overlap, [&] { return f.q.fill_async(w, 128, 128, host.data() + 252, 8); });  // last 4 bytes
  CHECK_OK(f.q.fill(w, 512, 256, host.data() + 64, 4));  // the pattern outside the filled range: fine
  CHECK_OK(f.q.fill(w, 256, 256, host.data() + 248, 8));  // ends where the filled range starts
}
