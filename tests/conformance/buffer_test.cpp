// Buffer creation: create, from_host, wrap, like; flags, storage, properties and their errors.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

const Storage kStorages[] = {Storage::device, Storage::host, Storage::shared};

/// Page-aligned caller memory for wrap(), freed on scope exit.
struct PageMemory {
  explicit PageMemory(std::size_t n) : bytes(n), p(static_cast<unsigned char*>(std::aligned_alloc(4096, n))) {}
  ~PageMemory() { std::free(p); }
  PageMemory(const PageMemory&) = delete;
  PageMemory& operator=(const PageMemory&) = delete;
  std::size_t bytes;
  unsigned char* p;
};

}  // namespace

TEST_CASE("Buffer::create: every storage gives a root buffer that round-trips data") {
  emt::Fixture f;
  for (Storage s : kStorages) {
    CAPTURE(static_cast<int>(s));
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{4096}, 8 * f.align() + 5}) {
      CAPTURE(n);
      auto b = Buffer::create(f.ctx, n, s);
      REQUIRE_OK(b);
      CHECK(b->valid());
      CHECK(b->size() == n);
      CHECK(b->origin() == 0);
      CHECK_FALSE(b->is_sub());
      CHECK(b->storage() == s);
      CHECK(b->flags() == MemFlags::read_write);
      CHECK(b->is_host_accessible() == (s != Storage::device || f.ctx.info().caps.unified_memory));
      CHECK(b->shares_root_with(*b));
      const emt::Bytes data = emt::random_bytes(n);
      CHECK_OK(f.q.write(*b, 0, data.data(), n));
      CHECK(f.snapshot(*b) == data);
    }
  }
}

TEST_CASE("Buffer::create: invalid_argument for zero bytes, out_of_range past max_alloc_bytes") {
  emt::Fixture f;
  const std::size_t max = f.ctx.info().max_alloc_bytes;
  CHECK_ERRC(Buffer::create(f.ctx, 0), Errc::invalid_argument);
  for (Storage s : kStorages) CHECK_ERRC(Buffer::create(f.ctx, 0, s), Errc::invalid_argument);
  if (max < SIZE_MAX) CHECK_ERRC(Buffer::create(f.ctx, max + 1), Errc::out_of_range);
  CHECK_ERRC(Buffer::create(f.ctx, SIZE_MAX), Errc::out_of_range);
  CHECK_ERRC(Buffer::create(f.ctx, SIZE_MAX, Storage::shared), Errc::out_of_range);
  CHECK(f.ctx.valid());
}

TEST_CASE("Buffer::create: flag combinations") {
  emt::Fixture f;
  const MemFlags good[] = {
      MemFlags::read_write,
      MemFlags::read_only,
      MemFlags::write_only,
      MemFlags::host_read_only,
      MemFlags::host_write_only,
      MemFlags::host_no_access,
      MemFlags::read_only | MemFlags::host_read_only,
      MemFlags::write_only | MemFlags::host_write_only,
      MemFlags::read_only | MemFlags::host_no_access,
      MemFlags::write_only | MemFlags::host_no_access,
  };
  for (MemFlags fl : good) {
    CAPTURE(static_cast<std::uint32_t>(fl));
    auto b = Buffer::create(f.ctx, 256, Storage::device, fl);
    CHECK_OK(b);
    if (b) CHECK(b->flags() == fl);
  }
  const MemFlags bad[] = {
      MemFlags::read_only | MemFlags::write_only,
      MemFlags::host_read_only | MemFlags::host_write_only,
      MemFlags::host_read_only | MemFlags::host_no_access,
      MemFlags::host_write_only | MemFlags::host_no_access,
      MemFlags::read_only | MemFlags::write_only | MemFlags::host_read_only,
      static_cast<MemFlags>(1u << 5),
      static_cast<MemFlags>(1u << 31),
  };
  unsigned char data[256] = {7};
  for (MemFlags fl : bad) {
    CAPTURE(static_cast<std::uint32_t>(fl));
    CHECK_ERRC(Buffer::create(f.ctx, 256, Storage::device, fl), Errc::invalid_argument);
    CHECK_ERRC(Buffer::from_host(f.ctx, data, sizeof data, Storage::host, fl), Errc::invalid_argument);
    CHECK_ERRC(Buffer::wrap(f.ctx, data, sizeof data, fl), Errc::invalid_argument);
  }
  CHECK(data[0] == 7);  // a failed wrap() does not touch the caller memory
}

TEST_CASE("Buffer::from_host copies the data in; later changes to the source do not reach it") {
  emt::Fixture f;
  for (Storage s : kStorages) {
    CAPTURE(static_cast<int>(s));
    emt::Bytes src = emt::random_bytes(3 * f.align() + 17);
    const emt::Bytes original = src;
    auto b = Buffer::from_host(f.ctx, src.data(), src.size(), s);
    REQUIRE_OK(b);
    CHECK(b->size() == src.size());
    CHECK(b->storage() == s);
    CHECK(f.snapshot(*b) == original);
    for (auto& c : src) c = static_cast<unsigned char>(c ^ 0xa5u);
    CHECK(f.snapshot(*b) == original);
  }
}

TEST_CASE("Buffer::from_host: invalid_argument for null data or zero bytes, out_of_range past max_alloc_bytes") {
  emt::Fixture f;
  unsigned char data[64] = {1};
  CHECK_ERRC(Buffer::from_host(f.ctx, nullptr, 64), Errc::invalid_argument);
  CHECK_ERRC(Buffer::from_host(f.ctx, nullptr, 64, Storage::shared), Errc::invalid_argument);
  CHECK_ERRC(Buffer::from_host(f.ctx, data, 0), Errc::invalid_argument);
  // The size check comes before any byte is read, so a short source is never overrun.
  const std::size_t max = f.ctx.info().max_alloc_bytes;
  if (max < SIZE_MAX) CHECK_ERRC(Buffer::from_host(f.ctx, data, max + 1), Errc::out_of_range);
  CHECK_ERRC(Buffer::from_host(f.ctx, data, SIZE_MAX), Errc::out_of_range);
}

TEST_CASE("Buffer::wrap uses caller memory: its contents are the buffer's, visible again after map/read") {
  emt::Fixture f;
  const std::size_t n = 4096;
  PageMemory mem(n);
  ENSURE(mem.p != nullptr);
  const emt::Bytes initial = emt::random_bytes(n);
  std::memcpy(mem.p, initial.data(), n);

  auto w = Buffer::wrap(f.ctx, mem.p, n);
  REQUIRE_OK(w);
  Buffer& b = *w;
  CHECK(b.size() == n);
  CHECK(b.storage() == Storage::host);
  CHECK(b.is_host_accessible());
  CHECK_FALSE(b.is_sub());
  CHECK(f.snapshot(b) == initial);

  // A device-side write shows in the caller memory once the range is mapped.
  const emt::Bytes update = emt::random_bytes(1024);
  CHECK_OK(f.q.write(b, 512, update.data(), update.size()));
  {
    auto m = f.q.map<unsigned char>(b, Access::read, 512, 1024);
    REQUIRE_OK(m);
    CHECK(emt::Bytes(m->begin(), m->end()) == update);
    CHECK(std::memcmp(mem.p + 512, update.data(), update.size()) == 0);
  }
  // A write through a map shows in the caller memory and in reads.
  const emt::Bytes through_map = emt::random_bytes(n);
  {
    auto m = f.q.map<unsigned char>(b, Access::write);
    REQUIRE_OK(m);
    std::memcpy(m->data(), through_map.data(), n);
    CHECK_OK(m->unmap());
  }
  CHECK(f.snapshot(b) == through_map);
  {
    auto m = f.q.map<unsigned char>(b, Access::read);
    REQUIRE_OK(m);
    CHECK(std::memcmp(mem.p, through_map.data(), n) == 0);
  }
  CHECK_OK(b.release());
  // After release the memory is the caller's again, with the last contents.
  CHECK(std::memcmp(mem.p, through_map.data(), n) == 0);
}

TEST_CASE("Buffer::wrap: errors") {
  emt::Fixture f;
  PageMemory mem(4096);
  ENSURE(mem.p != nullptr);
  std::memset(mem.p, 0x3c, 4096);
  CHECK_ERRC(Buffer::wrap(f.ctx, nullptr, 4096), Errc::invalid_argument);
  CHECK_ERRC(Buffer::wrap(f.ctx, mem.p, 0), Errc::invalid_argument);
  const std::size_t max = f.ctx.info().max_alloc_bytes;
  if (max < SIZE_MAX) CHECK_ERRC(Buffer::wrap(f.ctx, mem.p, max + 1), Errc::out_of_range);
  CHECK_ERRC(Buffer::wrap(f.ctx, mem.p, SIZE_MAX), Errc::out_of_range);
  CHECK(mem.p[0] == 0x3c);
  CHECK(mem.p[4095] == 0x3c);

  // A wrapped host_read_only buffer refuses host writes and keeps the caller's bytes.
  auto ro = Buffer::wrap(f.ctx, mem.p, 4096, MemFlags::host_read_only);
  REQUIRE_OK(ro);
  CHECK(ro->flags() == MemFlags::host_read_only);
  const emt::Bytes data = emt::random_bytes(64);
  CHECK_ERRC(f.q.write(*ro, 0, data.data(), data.size()), Errc::access_denied);
  emt::Bytes back(4096);
  CHECK_OK(f.q.read(*ro, 0, back.data(), back.size()));
  CHECK(back == emt::Bytes(4096, 0x3c));
}

TEST_CASE("Buffer::like copies shape, storage and flags into a fresh root, not contents") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer src = f.filled(4 * f.align(), data, Storage::shared, MemFlags::read_only);
  ENSURE(src.valid());
  auto l = Buffer::like(src);
  REQUIRE_OK(l);
  CHECK(l->size() == src.size());
  CHECK(l->storage() == Storage::shared);
  CHECK(l->flags() == MemFlags::read_only);
  CHECK(l->origin() == 0);
  CHECK_FALSE(l->is_sub());
  CHECK_FALSE(l->shares_root_with(src));
  // Independent storage: writing the copy leaves the source as it was.
  const emt::Bytes other = emt::random_bytes(src.size());
  CHECK_OK(f.q.write(*l, 0, other.data(), other.size()));
  CHECK(f.snapshot(src) == data);
  CHECK(f.snapshot(*l) == other);

  // like() of a sub-buffer: the sub's size, as a new root.
  auto sub = src.sub(f.align(), 2 * f.align());
  REQUIRE_OK(sub);
  auto ls = Buffer::like(*sub);
  REQUIRE_OK(ls);
  CHECK(ls->size() == 2 * f.align());
  CHECK_FALSE(ls->is_sub());
  CHECK(ls->origin() == 0);
  CHECK(ls->storage() == Storage::shared);
  CHECK(ls->flags() == MemFlags::read_only);
  CHECK_FALSE(ls->shares_root_with(src));

  // like() of a wrapped buffer allocates its own memory.
  unsigned char mem[256];
  std::memset(mem, 0x11, sizeof mem);
  auto w = Buffer::wrap(f.ctx, mem, sizeof mem, MemFlags::host_write_only);
  REQUIRE_OK(w);
  auto lw = Buffer::like(*w);
  REQUIRE_OK(lw);
  CHECK(lw->size() == sizeof mem);
  CHECK(lw->flags() == MemFlags::host_write_only);
  const emt::Bytes fresh = emt::random_bytes(sizeof mem);
  CHECK_OK(f.q.write(*lw, 0, fresh.data(), fresh.size()));
  CHECK_OK(w->release());
  CHECK(mem[0] == 0x11);
  CHECK(mem[255] == 0x11);
}

TEST_CASE("Buffer::like: released for a released or moved-from buffer") {
  emt::Fixture f;
  Buffer empty;
  CHECK_ERRC(Buffer::like(empty), Errc::released);
  auto b = Buffer::create(f.ctx, 128);
  REQUIRE_OK(b);
  Buffer taken = std::move(*b);
  CHECK_ERRC(Buffer::like(*b), Errc::released);
  CHECK_OK(taken.release());
  CHECK_ERRC(Buffer::like(taken), Errc::released);
}
