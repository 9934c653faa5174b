// Linear transfers that fail: every documented Errc of write/read/fill/copy/migrate, blocking and
// async, and that a failed call changes neither the buffer nor the host memory.
#include <cstdint>
#include <cstring>

#include "test_helpers.hpp"

using namespace edgemem;

TEST_CASE("write / write_async: documented errors leave the buffer unchanged") {
  emt::Fixture f;
  emt::OtherContext other(256);
  const std::size_t n = 1024;
  emt::Bytes data;
  Buffer b = f.filled(n, data);
  ENSURE(b.valid());
  const emt::Bytes src = emt::random_bytes(n);
  for (int async = 0; async < 2; ++async) {
    CAPTURE(async);
    auto write = [&](Queue& q, Buffer& dst, std::size_t off, const void* p, std::size_t bytes) -> Result<void> {
      return async ? emt::settle(q.write_async(dst, off, p, bytes)) : q.write(dst, off, p, bytes);
    };
    Queue no_queue;
    Buffer no_buffer;
    CHECK_ERRC(write(no_queue, b, 0, src.data(), 16), Errc::released);
    CHECK_ERRC(write(f.q, no_buffer, 0, src.data(), 16), Errc::released);
    CHECK_ERRC(write(f.q, b, 0, nullptr, 16), Errc::invalid_argument);
    CHECK_ERRC(write(f.q, b, 0, src.data(), 0), Errc::invalid_argument);
    CHECK_ERRC(write(f.q, other.buf, 0, src.data(), 16), Errc::invalid_argument);
    CHECK_ERRC(write(f.q, b, 1, src.data(), n), Errc::out_of_range);
    CHECK_ERRC(write(f.q, b, n, src.data(), 1), Errc::out_of_range);
    CHECK_ERRC(write(f.q, b, n + 1, src.data(), 1), Errc::out_of_range);
    CHECK_ERRC(write(f.q, b, 1, src.data(), SIZE_MAX), Errc::out_of_range);
    CHECK_ERRC(write(f.q, b, SIZE_MAX, src.data(), 1), Errc::out_of_range);
    CHECK_ERRC(write(f.q, b, SIZE_MAX, src.data(), SIZE_MAX), Errc::out_of_range);
    CHECK(b.valid());
    CHECK(b.size() == n);
    CHECK(f.snapshot(b) == data);
    CHECK(other.unchanged());
  }
}

TEST_CASE("write / fill: access_denied on host_read_only and host_no_access buffers; host_write_only accepts") {
  emt::Fixture f;
  const std::size_t n = 512;
  const emt::Bytes src = emt::random_bytes(n);
  const std::uint32_t pattern = 0x01020304u;
  for (MemFlags fl : {MemFlags::host_read_only, MemFlags::host_no_access,
                      MemFlags::read_only | MemFlags::host_read_only}) {
    CAPTURE(static_cast<unsigned>(fl));
    emt::Bytes data;
    Buffer b = f.filled(n, data, Storage::device, fl);
    ENSURE(b.valid());
    CHECK_ERRC(f.q.write(b, 0, src.data(), n), Errc::access_denied);
    CHECK_ERRC(f.q.write_async(b, 0, src.data(), n), Errc::access_denied);
    CHECK_ERRC(f.q.fill(b, 0, n, &pattern, 4), Errc::access_denied);
    CHECK_ERRC(f.q.fill_async(b, 0, n, &pattern, 4), Errc::access_denied);
    CHECK(f.snapshot(b) == data);
  }
  emt::Bytes data;
  Buffer wo = f.filled(n, data, Storage::host, MemFlags::host_write_only);
  ENSURE(wo.valid());
  CHECK_OK(f.q.write(wo, 0, src.data(), n));
  CHECK(f.snapshot(wo) == src);
  CHECK_OK(emt::settle(f.q.fill_async(wo, 0, n, &pattern, 4)));
  emt::Bytes filled(n);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(&filled[i], reinterpret_cast<const unsigned char*>(&pattern) + i % 4, 1);
  CHECK(f.snapshot(wo) == filled);
}

TEST_CASE("read / read_async: documented errors leave buffer and destination unchanged") {
  emt::Fixture f;
  emt::OtherContext other(256);
  const std::size_t n = 1024;
  emt::Bytes data;
  Buffer b = f.filled(n, data);
  ENSURE(b.valid());
  const emt::Bytes sentinel = emt::random_bytes(n + 8);
  emt::Bytes dst = sentinel;
  for (int async = 0; async < 2; ++async) {
    CAPTURE(async);
    auto read = [&](Queue& q, const Buffer& s, std::size_t off, void* p, std::size_t bytes) -> Result<void> {
      return async ? emt::settle(q.read_async(s, off, p, bytes)) : q.read(s, off, p, bytes);
    };
    Queue no_queue;
    Buffer no_buffer;
    CHECK_ERRC(read(no_queue, b, 0, dst.data(), 16), Errc::released);
    CHECK_ERRC(read(f.q, no_buffer, 0, dst.data(), 16), Errc::released);
    CHECK_ERRC(read(f.q, b, 0, nullptr, 16), Errc::invalid_argument);
    CHECK_ERRC(read(f.q, b, 0, dst.data(), 0), Errc::invalid_argument);
    CHECK_ERRC(read(f.q, other.buf, 0, dst.data(), 16), Errc::invalid_argument);
    CHECK_ERRC(read(f.q, b, 0, dst.data(), n + 1), Errc::out_of_range);
    CHECK_ERRC(read(f.q, b, n, dst.data(), 1), Errc::out_of_range);
    CHECK_ERRC(read(f.q, b, 1, dst.data(), SIZE_MAX), Errc::out_of_range);
    CHECK_ERRC(read(f.q, b, SIZE_MAX, dst.data(), 2), Errc::out_of_range);
    CHECK(dst == sentinel);
    CHECK(b.size() == n);
    CHECK(f.snapshot(b) == data);
  }
  for (MemFlags fl : {MemFlags::host_write_only, MemFlags::host_no_access,
                      MemFlags::write_only | MemFlags::host_write_only}) {
    CAPTURE(static_cast<unsigned>(fl));
    emt::Bytes contents;
    Buffer wb = f.filled(n, contents, Storage::shared, fl);
    ENSURE(wb.valid());
    CHECK_ERRC(f.q.read(wb, 0, dst.data(), n), Errc::access_denied);
    CHECK_ERRC(f.q.read_async(wb, 0, dst.data(), n), Errc::access_denied);
    CHECK(dst == sentinel);
    CHECK(f.snapshot(wb) == contents);
  }
  emt::Bytes contents;
  Buffer ro = f.filled(n, contents, Storage::device, MemFlags::host_read_only);
  ENSURE(ro.valid());
  CHECK_OK(f.q.read(ro, 0, dst.data(), n));
  CHECK(emt::Bytes(dst.begin(), dst.begin() + n) == contents);
}

TEST_CASE("fill / fill_async: pattern size, misalignment and range errors") {
  emt::Fixture f;
  emt::OtherContext other(256);
  const std::size_t n = 1024;
  emt::Bytes data;
  Buffer b = f.filled(n, data);
  ENSURE(b.valid());
  const emt::Bytes pattern = emt::random_bytes(512);
  for (int async = 0; async < 2; ++async) {
    CAPTURE(async);
    auto fill = [&](Queue& q, Buffer& dst, std::size_t off, std::size_t bytes, const void* p,
                    std::size_t pb) -> Result<void> {
      return async ? emt::settle(q.fill_async(dst, off, bytes, p, pb)) : q.fill(dst, off, bytes, p, pb);
    };
    Queue no_queue;
    Buffer no_buffer;
    CHECK_ERRC(fill(no_queue, b, 0, 16, pattern.data(), 4), Errc::released);
    CHECK_ERRC(fill(f.q, no_buffer, 0, 16, pattern.data(), 4), Errc::released);
    CHECK_ERRC(fill(f.q, b, 0, 16, nullptr, 4), Errc::invalid_argument);
    for (std::size_t bad : {std::size_t{0}, std::size_t{3}, std::size_t{5}, std::size_t{6}, std::size_t{12},
                            std::size_t{96}, std::size_t{256}, std::size_t{512}}) {
      CAPTURE(bad);
      CHECK_ERRC(fill(f.q, b, 0, 512, pattern.data(), bad), Errc::invalid_argument);
    }
    CHECK_ERRC(fill(f.q, b, 0, 0, pattern.data(), 4), Errc::invalid_argument);
    CHECK_ERRC(fill(f.q, other.buf, 0, 16, pattern.data(), 4), Errc::invalid_argument);
    CHECK_ERRC(fill(f.q, b, 0, n + 4, pattern.data(), 4), Errc::out_of_range);
    CHECK_ERRC(fill(f.q, b, n, 4, pattern.data(), 4), Errc::out_of_range);
    CHECK_ERRC(fill(f.q, b, 4, SIZE_MAX - 3, pattern.data(), 4), Errc::out_of_range);
    CHECK_ERRC(fill(f.q, b, 1, SIZE_MAX, pattern.data(), 1), Errc::out_of_range);
    CHECK_ERRC(fill(f.q, b, 2, 8, pattern.data(), 4), Errc::misaligned);    // offset not a multiple
    CHECK_ERRC(fill(f.q, b, 4, 6, pattern.data(), 4), Errc::misaligned);    // size not a multiple
    CHECK_ERRC(fill(f.q, b, 64, 96, pattern.data(), 128), Errc::misaligned);
    CHECK_ERRC(fill(f.q, b, 8, 128, pattern.data(), 16), Errc::misaligned);
    CHECK_ERRC(fill(f.q, b, 1, 2, pattern.data(), 2), Errc::misaligned);
    CHECK(b.size() == n);
    CHECK(f.snapshot(b) == data);
    CHECK(other.unchanged());
  }
}

TEST_CASE("copy / copy_async: range, context and overlap errors") {
  emt::Fixture f;
  emt::OtherContext other(1024);
  const std::size_t A = f.align();
  const std::size_t n = 8 * A;
  emt::Bytes da, db;
  Buffer a = f.filled(n, da);
  Buffer b = f.filled(n, db);
  ENSURE(a.valid());
  ENSURE(b.valid());
  auto s1 = a.sub(0, 4 * A);
  auto s2 = a.sub(2 * A, 4 * A);
  REQUIRE_OK(s1);
  REQUIRE_OK(s2);
  for (int async = 0; async < 2; ++async) {
    CAPTURE(async);
    auto copy = [&](Queue& q, const Buffer& s, Buffer& d, std::size_t so, std::size_t dof,
                    std::size_t bytes) -> Result<void> {
      return async ? emt::settle(q.copy_async(s, d, so, dof, bytes)) : q.copy(s, d, so, dof, bytes);
    };
    Queue no_queue;
    Buffer no_buffer;
    CHECK_ERRC(copy(no_queue, a, b, 0, 0, 16), Errc::released);
    CHECK_ERRC(copy(f.q, no_buffer, b, 0, 0, 16), Errc::released);
    CHECK_ERRC(copy(f.q, a, no_buffer, 0, 0, 16), Errc::released);
    CHECK_ERRC(copy(f.q, a, b, 0, 0, 0), Errc::invalid_argument);
    CHECK_ERRC(copy(f.q, other.buf, b, 0, 0, 16), Errc::invalid_argument);
    CHECK_ERRC(copy(f.q, a, other.buf, 0, 0, 16), Errc::invalid_argument);
    CHECK_ERRC(copy(f.q, a, b, 1, 0, n), Errc::out_of_range);
    CHECK_ERRC(copy(f.q, a, b, 0, 1, n), Errc::out_of_range);
    CHECK_ERRC(copy(f.q, a, b, n, 0, 1), Errc::out_of_range);
    CHECK_ERRC(copy(f.q, a, b, 1, 0, SIZE_MAX), Errc::out_of_range);
    CHECK_ERRC(copy(f.q, a, b, 0, SIZE_MAX, 1), Errc::out_of_range);
    // Overlap within one buffer.
    CHECK_ERRC(copy(f.q, a, a, 0, 10, 100), Errc::overlap);
    CHECK_ERRC(copy(f.q, a, a, 10, 0, 100), Errc::overlap);
    CHECK_ERRC(copy(f.q, a, a, 0, 0, n), Errc::overlap);
    CHECK_ERRC(copy(f.q, a, a, 5, 5, 1), Errc::overlap);
    // Overlap between two overlapping subs of one root: s1 [0,4A), s2 [2A,6A) of a.
    CHECK_ERRC(copy(f.q, *s1, *s2, 2 * A, 0, A), Errc::overlap);        // both are root [2A,3A)
    CHECK_ERRC(copy(f.q, *s1, *s2, 2 * A, A / 2, A), Errc::overlap);    // root [2A,3A) -> [2.5A,3.5A)
    CHECK_ERRC(copy(f.q, *s2, *s1, 0, 2 * A + 1, 2), Errc::overlap);    // root [2A,2A+2) vs [2A+1,2A+3)
    CHECK_ERRC(copy(f.q, *s1, a, A, A + 1, 2), Errc::overlap);          // sub against its root
    CHECK(a.size() == n);
    CHECK(s1->size() == 4 * A);
    CHECK(f.snapshot(a) == da);
    CHECK(f.snapshot(b) == db);
    CHECK(other.unchanged());
  }
  // Touching but not overlapping: allowed.
  CHECK_OK(f.q.copy(*s1, *s2, 2 * A - 1, 0, 1));  // root byte 2A-1 -> 2A
  da[2 * A] = da[2 * A - 1];
  CHECK(f.snapshot(a) == da);
}

TEST_CASE("migrate / migrate_async: released and other-context errors") {
  emt::Fixture f;
  emt::OtherContext other(256);
  Queue no_queue;
  Buffer no_buffer;
  emt::Bytes data;
  Buffer b = f.filled(256, data);
  ENSURE(b.valid());
  for (Migration m : {Migration::to_host, Migration::to_device, Migration::to_device_discard}) {
    CAPTURE(static_cast<int>(m));
    CHECK_ERRC(no_queue.migrate(b, m), Errc::released);
    CHECK_ERRC(no_queue.migrate_async(b, m), Errc::released);
    CHECK_ERRC(f.q.migrate(no_buffer, m), Errc::released);
    CHECK_ERRC(f.q.migrate_async(no_buffer, m), Errc::released);
    CHECK_ERRC(f.q.migrate(other.buf, m), Errc::invalid_argument);
    CHECK_ERRC(f.q.migrate_async(other.buf, m), Errc::invalid_argument);
  }
  CHECK(f.snapshot(b) == data);
  CHECK(other.unchanged());
}
