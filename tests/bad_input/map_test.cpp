// Bad inputs around mappings: ranges and element types, host flags, double and conflicting
// mappings, slot exhaustion, transfers into mapped ranges, release while mapped, unmapping twice.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bad_input/catalogue.hpp"

using namespace edgemem;
using emt::bad::Scene;

namespace {
constexpr std::size_t kBytes = 1024;

/// The bytes a mapping shows, as text (so a scene can watch a range mapped for writing).
template <class T>
std::string seen(const Mapping<T>& m) {
  return std::string(reinterpret_cast<const char*>(m.data()), m.size_bytes());
}
}  // namespace

BAD_INPUT("Queue::map: zero bytes") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::invalid_argument, [&] { return f.q.map(b, Access::read, 0, 0); });
}

BAD_INPUT("Queue::map: range past the end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::out_of_range, [&] { return f.q.map(b, Access::write, kBytes - 4, 8); });
  s.expect(Errc::out_of_range, [&] { return f.q.map(b, Access::read, 8, SIZE_MAX - 4); });
}

BAD_INPUT("Queue::map<uint32_t>: offset not a multiple of alignof(T)") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::misaligned, [&] { return f.q.map<std::uint32_t>(b, Access::read, 2, 16); });
}

BAD_INPUT("Queue::map<uint32_t>: size not a multiple of sizeof(T)") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::misaligned, [&] { return f.q.map<std::uint32_t>(b, Access::write, 0, 6); });
}

BAD_INPUT("Queue::map: unknown Access value") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  s.expect(Errc::invalid_argument, [&] { return f.q.map(b, static_cast<Access>(5)); });
}

BAD_INPUT("Queue::map: write or write_discard on a host_read_only buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes, Storage::shared, MemFlags::host_read_only);
  s.expect(Errc::access_denied, [&] { return f.q.map(b, Access::write); });
  s.expect(Errc::access_denied, [&] { return f.q.map(b, Access::write_discard, 0, 64); });
}

BAD_INPUT("Queue::map: read on a host_write_only buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes, Storage::shared, MemFlags::host_write_only);
  s.expect(Errc::access_denied, [&] { return f.q.map(b, Access::read); });
}

BAD_INPUT("Queue::map: write or write_discard through a const Buffer&") {
  emt::Fixture f;
  Scene s(f);
  const Buffer& b = s.make(kBytes, Storage::shared);
  s.expect(Errc::invalid_argument, [&] { return f.q.map<const std::uint32_t>(b, Access::write, 0, 64); });
  s.expect(Errc::invalid_argument, [&] { return f.q.map(b, Access::write_discard); });
}

BAD_INPUT("Queue::map: a second write mapping of the same range") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make_unwatched(kBytes);
  const emt::Bytes before = f.snapshot(b);
  auto m = f.q.map<unsigned char>(b, Access::write, 0, 256);
  REQUIRE_OK(m);
  s.watch("first mapping", [&] { return seen(*m); });
  s.expect(Errc::busy, [&] { return f.q.map(b, Access::write, 0, 256); });
  s.expect(Errc::busy, [&] { return f.q.map(b, Access::write_discard, 128, 8); });
  CHECK(m->mapped());
  CHECK_OK(m->unmap());
  CHECK(f.snapshot(b) == before);
}

BAD_INPUT("Queue::map: read mapping over an open write mapping") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make_unwatched(kBytes);
  auto m = f.q.map<unsigned char>(b, Access::write_discard, 64, 64);
  REQUIRE_OK(m);
  std::memset(m->data(), 0x42, 64);  // what this mapping holds must survive the refused map
  s.watch("first mapping", [&] { return seen(*m); });
  s.expect(Errc::busy, [&] { return f.q.map(b, Access::read, 100, 4); });
  CHECK_OK(m->unmap());
  emt::Bytes back(64);
  CHECK_OK(f.q.read(b, 64, back.data(), 64));
  CHECK(back == emt::Bytes(64, 0x42));
}

BAD_INPUT("Queue::map: write mapping through a sub-buffer over an open read mapping") {
  emt::Fixture f;
  Scene s(f);
  const std::size_t A = f.align();
  Buffer& root = s.make(4 * A);
  auto sub = root.sub(A, A);
  REQUIRE_OK(sub);
  s.watch(*sub);
  auto m = f.q.map(root, Access::read, 0, 2 * A);
  REQUIRE_OK(m);
  s.expect(Errc::busy, [&] { return f.q.map(*sub, Access::write, 0, 8); });
  s.expect(Errc::busy, [&] { return f.q.map(*sub, Access::write_discard); });
}

BAD_INPUT("Queue::map: more than max_mappings_per_buffer mappings of one handle") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  std::vector<Mapping<std::byte>> open;
  for (std::size_t i = 0; i < emt::kMaxMaps; ++i) {
    auto m = f.q.map(b, Access::read, 8 * i, 8);
    REQUIRE_OK(m);
    open.push_back(std::move(*m));
  }
  s.expect(Errc::exhausted, [&] { return f.q.map(b, Access::read, 512, 8); });
  for (const auto& m : open) CHECK(m.mapped());
}

BAD_INPUT("Queue::write: into a mapped range") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  auto m = f.q.map(b, Access::read, 256, 16);
  REQUIRE_OK(m);
  const emt::Bytes src = emt::random_bytes(32);
  s.expect(Errc::busy, [&] { return f.q.write(b, 250, src.data(), 32); });
}

BAD_INPUT("Queue::read: a range mapped for writing") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make_unwatched(kBytes);
  const emt::Bytes before = f.snapshot(b);
  auto m = f.q.map<unsigned char>(b, Access::write, 0, 64);
  REQUIRE_OK(m);
  s.watch("mapping", [&] { return seen(*m); });
  emt::Bytes dst(16, 0xEE);
  s.expect(Errc::busy, [&] { return f.q.read(b, 60, dst.data(), 16); });
  CHECK(dst == emt::Bytes(16, 0xEE));
  CHECK_OK(m->unmap());
  CHECK(f.snapshot(b) == before);
}

BAD_INPUT("Queue::copy and fill: into a mapped range") {
  emt::Fixture f;
  Scene s(f);
  Buffer& a = s.make(kBytes);
  Buffer& b = s.make(kBytes);
  auto m = f.q.map(b, Access::read, 0, 128);
  REQUIRE_OK(m);
  const std::uint32_t pat = 5;
  s.expect(Errc::busy, [&] { return f.q.copy(a, b, 0, 64, 128); });
  s.expect(Errc::busy, [&] { return f.q.fill(b, 124, 8, &pat, 4); });
}

BAD_INPUT("Queue::migrate: a mapped buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  auto m = f.q.map(b, Access::read, 0, 8);
  REQUIRE_OK(m);
  s.expect(Errc::busy, [&] { return f.q.migrate(b, Migration::to_host); });
}

BAD_INPUT("Buffer::release: while mapped") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  auto m = f.q.map<unsigned char>(b, Access::read, 0, kBytes);
  REQUIRE_OK(m);
  const emt::Bytes before(m->begin(), m->end());
  s.expect(Errc::busy, [&] { return b.release(); });
  CHECK(b.valid());
  CHECK(m->mapped());
  CHECK(emt::Bytes(m->begin(), m->end()) == before);
}

BAD_INPUT("PooledBuffer::release: while mapped") {
  emt::Fixture f;
  Scene s(f);
  FixedPool<2> pool;
  REQUIRE_OK_DO(pool.init(f.ctx, f.q, 256));
  auto blk = pool.acquire();
  REQUIRE_OK(blk);
  s.watch(blk->buffer());
  s.watch(pool);
  auto m = f.q.map(*blk, Access::read);
  REQUIRE_OK(m);
  s.expect(Errc::busy, [&] { return blk->release(); });
  CHECK(blk->valid());
}

BAD_INPUT("Mapping::unmap: twice") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  auto m = f.q.map(b, Access::read, 0, 64);
  REQUIRE_OK(m);
  CHECK_OK(m->unmap());
  s.expect(Errc::released, [&] { return m->unmap(); });
  CHECK_FALSE(m->mapped());
}

BAD_INPUT("Mapping::unmap: moved-from guard") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  auto m = f.q.map(b, Access::read, 0, 64);
  REQUIRE_OK(m);
  Mapping<std::byte> owner = std::move(*m);
  s.expect(Errc::released, [&] { return m->unmap(); });
  CHECK(owner.mapped());
  Mapping<std::byte> never;
  s.expect(Errc::released, [&] { return never.unmap(); });
}
