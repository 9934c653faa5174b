// Linear transfers that succeed: write, read, fill, copy, migrate, in blocking and async form.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "test_helpers.hpp"

using namespace edgemem;

TEST_CASE("write/read round trip at offsets, blocking and async, every storage") {
  emt::Fixture f;
  for (Storage s : {Storage::device, Storage::host, Storage::shared}) {
    CAPTURE(static_cast<int>(s));
    emt::Bytes data;
    Buffer b = f.filled(4096 + 13, data, s);
    ENSURE(b.valid());
    const emt::Bytes a = emt::random_bytes(1000);
    CHECK_OK(f.q.write(b, 7, a.data(), a.size()));
    std::copy(a.begin(), a.end(), data.begin() + 7);
    emt::Bytes part(333);
    CHECK_OK(f.q.read(b, 500, part.data(), part.size()));
    CHECK(part == emt::Bytes(data.begin() + 500, data.begin() + 833));

    const emt::Bytes c = emt::random_bytes(2048);
    auto we = f.q.write_async(b, b.size() - c.size(), c.data(), c.size());
    REQUIRE_OK(we);
    CHECK(we->valid());
    CHECK_OK(we->wait());
    std::copy(c.begin(), c.end(), data.end() - static_cast<std::ptrdiff_t>(c.size()));
    emt::Bytes all(b.size());
    auto re = f.q.read_async(b, 0, all.data(), all.size());
    REQUIRE_OK(re);
    CHECK_OK(re->wait());
    auto done = re->is_complete();
    REQUIRE_OK(done);
    CHECK(*done);
    CHECK(all == data);

    // The last byte alone, and the first.
    unsigned char last = 0, first = 0;
    CHECK_OK(f.q.read(b, b.size() - 1, &last, 1));
    CHECK_OK(f.q.read(b, 0, &first, 1));
    CHECK(last == data.back());
    CHECK(first == data.front());
  }
}

TEST_CASE("fill: every pattern size 1..128 writes the repeated pattern and nothing else") {
  emt::Fixture f;
  for (std::size_t p = 1; p <= 128; p *= 2) {
    CAPTURE(p);
    for (int async = 0; async < 2; ++async) {
      CAPTURE(async);
      emt::Bytes data;
      Buffer b = f.filled(2048, data);
      ENSURE(b.valid());
      const emt::Bytes pattern = emt::random_bytes(p);
      const std::size_t off = 3 * p, n = 5 * p;
      if (async) {
        auto e = f.q.fill_async(b, off, n, pattern.data(), p);
        REQUIRE_OK(e);
        CHECK_OK(e->wait());
      } else {
        CHECK_OK(f.q.fill(b, off, n, pattern.data(), p));
      }
      for (std::size_t i = 0; i < n; ++i) data[off + i] = pattern[i % p];
      CHECK(f.snapshot(b) == data);
    }
  }
}

TEST_CASE("fill: the whole of a sub-buffer, seen through the root") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer root = f.filled(4 * A, data);
  ENSURE(root.valid());
  auto s = root.sub(A, 2 * A);
  REQUIRE_OK(s);
  const std::uint32_t pattern = 0xdeadbeefu;
  CHECK_OK(f.q.fill(*s, 0, s->size(), &pattern, sizeof pattern));
  for (std::size_t i = 0; i < 2 * A; ++i) std::memcpy(&data[A + i], reinterpret_cast<const unsigned char*>(&pattern) + i % 4, 1);
  CHECK(f.snapshot(root) == data);
}

TEST_CASE("copy between buffers, within one buffer and between subs of one root") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes da, db;
  Buffer a = f.filled(8 * A, da);
  Buffer b = f.filled(8 * A, db, Storage::shared);
  ENSURE(a.valid());
  ENSURE(b.valid());

  CHECK_OK(f.q.copy(a, b, 3, 2 * A + 1, A + 7));
  std::copy(da.begin() + 3, da.begin() + 3 + static_cast<std::ptrdiff_t>(A + 7), db.begin() + 2 * A + 1);
  CHECK(f.snapshot(b) == db);
  CHECK(f.snapshot(a) == da);

  // Within one buffer, adjacent but not overlapping ranges.
  CHECK_OK(f.q.copy(a, a, 0, A, A));
  std::copy(da.begin(), da.begin() + A, da.begin() + A);
  CHECK(f.snapshot(a) == da);

  // Two subs of one root whose byte ranges are disjoint (the subs themselves overlap).
  auto s1 = a.sub(0, 4 * A);
  auto s2 = a.sub(2 * A, 4 * A);
  REQUIRE_OK(s1);
  REQUIRE_OK(s2);
  CHECK_OK(f.q.copy(*s1, *s2, 0, 2 * A, A));  // root [0, A) -> root [4A, 5A)
  std::copy(da.begin(), da.begin() + A, da.begin() + 4 * A);
  CHECK(f.snapshot(a) == da);

  // Async copy, whole buffer into a like() buffer.
  auto c = Buffer::like(a);
  REQUIRE_OK(c);
  auto e = f.q.copy_async(a, *c, 0, 0, a.size());
  REQUIRE_OK(e);
  CHECK_OK(e->wait());
  CHECK(f.snapshot(*c) == da);
}

TEST_CASE("copy ignores host access flags (it runs on the device)") {
  emt::Fixture f;
  emt::Bytes data, other;
  Buffer src = f.filled(512, data, Storage::device, MemFlags::host_no_access);
  Buffer dst = f.filled(512, other, Storage::device, MemFlags::host_read_only);
  ENSURE(src.valid());
  ENSURE(dst.valid());
  CHECK_OK(f.q.copy(src, dst, 0, 0, 512));
  CHECK(f.snapshot(dst) == data);
}

TEST_CASE("async chain with wait lists: write -> copy -> read") {
  emt::Fixture f;
  const std::size_t n = 64 * 1024;
  auto a = Buffer::create(f.ctx, n);
  auto b = Buffer::create(f.ctx, n, Storage::shared);
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  const emt::Bytes src = emt::random_bytes(n);
  emt::Bytes dst(n, 0);
  auto e1 = f.q.write_async(*a, 0, src.data(), n);
  REQUIRE_OK(e1);
  auto e2 = f.q.copy_async(*a, *b, 0, 0, n, *e1);
  REQUIRE_OK(e2);
  auto e3 = f.q.read_async(*b, 0, dst.data(), n, *e2);
  REQUIRE_OK(e3);
  CHECK_OK(e3->wait());
  CHECK(dst == src);
  // Earlier events are complete once a later command that waited for them is.
  for (const Event* e : {&*e1, &*e2, &*e3}) {
    auto c = e->is_complete();
    REQUIRE_OK(c);
    CHECK(*c);
  }

  // A longer chain: fill -> write -> copy back -> read, each waiting on all previous events.
  Event evs[3];
  const std::uint16_t pat = 0x1234;
  auto f1 = f.q.fill_async(*a, 0, n, &pat, sizeof pat);
  REQUIRE_OK(f1);
  evs[0] = std::move(*f1);
  const emt::Bytes mid = emt::random_bytes(256);
  auto w = f.q.write_async(*b, 256, mid.data(), mid.size(), WaitList(evs, 1));
  REQUIRE_OK(w);
  evs[1] = std::move(*w);
  auto cp = f.q.copy_async(*b, *a, 256, 1024, 256, WaitList(evs, 2));
  REQUIRE_OK(cp);
  evs[2] = std::move(*cp);
  auto rd = f.q.read_async(*a, 0, dst.data(), n, evs);
  REQUIRE_OK(rd);
  CHECK_OK(rd->wait());
  emt::Bytes expect(n);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(&expect[i], reinterpret_cast<const unsigned char*>(&pat) + i % 2, 1);
  std::copy(mid.begin(), mid.end(), expect.begin() + 1024);
  CHECK(dst == expect);
}

TEST_CASE("async commands on one in-order queue complete in order; finish waits for all") {
  emt::Fixture f;
  const std::size_t n = 4096;
  auto b = Buffer::create(f.ctx, n);
  REQUIRE_OK(b);
  std::vector<emt::Bytes> versions;
  std::vector<Event> events;
  for (int i = 0; i < 8; ++i) versions.push_back(emt::random_bytes(n));
  for (const auto& v : versions) {
    auto e = f.q.write_async(*b, 0, v.data(), n);
    REQUIRE_OK(e);
    events.push_back(std::move(*e));
  }
  emt::Bytes out(n);
  auto r = f.q.read_async(*b, 0, out.data(), n);
  REQUIRE_OK(r);
  CHECK_OK(f.q.finish());
  CHECK(out == versions.back());
  for (const auto& e : events) {
    auto c = e.is_complete();
    REQUIRE_OK(c);
    CHECK(*c);
  }
}

TEST_CASE("migrate to host and to device, blocking and async, keeps contents") {
  emt::Fixture f;
  for (Storage s : {Storage::device, Storage::host, Storage::shared}) {
    CAPTURE(static_cast<int>(s));
    emt::Bytes data;
    Buffer b = f.filled(4 * f.align(), data, s);
    ENSURE(b.valid());
    CHECK_OK(f.q.migrate(b, Migration::to_host));
    CHECK(f.snapshot(b) == data);
    CHECK_OK(f.q.migrate(b, Migration::to_device));
    CHECK(f.snapshot(b) == data);
    auto e1 = f.q.migrate_async(b, Migration::to_host);
    REQUIRE_OK(e1);
    auto e2 = f.q.migrate_async(b, Migration::to_device, *e1);
    REQUIRE_OK(e2);
    CHECK_OK(e2->wait());
    CHECK(f.snapshot(b) == data);
    // A sub-buffer migrates too.
    auto sub = b.sub(f.align(), f.align());
    REQUIRE_OK(sub);
    CHECK_OK(f.q.migrate(*sub, Migration::to_host));
    CHECK_OK(f.q.migrate(*sub, Migration::to_device));
    CHECK(f.snapshot(b) == data);
  }
}

TEST_CASE("migrate to_device_discard: contents undefined afterwards, the buffer stays usable") {
  emt::Fixture f;
  for (Storage s : {Storage::device, Storage::host, Storage::shared}) {
    CAPTURE(static_cast<int>(s));
    emt::Bytes data;
    Buffer b = f.filled(4 * f.align(), data, s);
    ENSURE(b.valid());
    CHECK_OK(f.q.migrate(b, Migration::to_device_discard));
    auto e3 = f.q.migrate_async(b, Migration::to_device_discard);
    CHECK_OK(e3);
    const emt::Bytes fresh = emt::random_bytes(b.size());
    CHECK_OK(f.q.write(b, 0, fresh.data(), fresh.size()));
    CHECK(f.snapshot(b) == fresh);
  }
}

TEST_CASE("migrate works for buffers the host may not access") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer b = f.filled(512, data, Storage::device, MemFlags::host_no_access);
  ENSURE(b.valid());
  CHECK_OK(f.q.migrate(b, Migration::to_host));
  CHECK_OK(f.q.migrate(b, Migration::to_device));
  CHECK(f.snapshot(b) == data);
}

// Issue #30's H100 fuzz crash (backends/opencl/tests/driver_bugs/nvidia): NVIDIA's driver segfaults reading a native sub-buffer
// after its parent was migrated to the host (backends/opencl/tests/driver_bugs/nvidia/repro_sub_buffer_migrate.c: raw OpenCL
// calls, no edgemem). edgemem's commands on a view run on its root at the view's offset, so the same
// sequence through edgemem, with the view's native sub-object made, reads and writes the right bytes.
TEST_CASE("a sub-buffer whose native object exists reads and writes after its root migrated to the host") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer b = f.filled(4 * f.align(), data, Storage::device);
  ENSURE(b.valid());
  auto sub = b.sub(f.align(), f.align());
  REQUIRE_OK(sub);
  REQUIRE_OK(sub->native());
  CHECK_OK(f.q.migrate(*sub, Migration::to_device_discard));
  const emt::Bytes part = emt::random_bytes(f.align() / 2);
  REQUIRE_OK(f.q.write(*sub, 0, part.data(), part.size()));
  std::copy(part.begin(), part.end(), data.begin() + static_cast<std::ptrdiff_t>(f.align()));
  CHECK(f.snapshot(b) == data);
  CHECK_OK(f.q.migrate(b, Migration::to_host));
  CHECK(f.snapshot(b) == data);
  CHECK_OK(f.q.migrate(b, Migration::to_host));
  emt::Bytes got(f.align());
  REQUIRE_OK(f.q.read(*sub, 0, got.data(), got.size()));
  CHECK(got == emt::Bytes(data.begin() + static_cast<std::ptrdiff_t>(f.align()),
                          data.begin() + static_cast<std::ptrdiff_t>(2 * f.align())));
}
