// Issue #29.7: two buffers over the same memory (two imports of one memfd, an export and its own
// import, two host-pointer imports of one allocation) are seen to alias like two views of one root:
// an overlapping copy or copy_rect between them is Errc::overlap and changes nothing; disjoint bytes
// copy as usual. Before the fix the copy between a buffer and its own export imported back was
// accepted (and with memmove-less copies corrupted 65,152 of 65,536 bytes).
#include <cstdlib>
#include <cstring>
#include <utility>

#include <unistd.h>

#include "external_helpers.hpp"
#include "test_helpers.hpp"

using namespace edgemem;

namespace {
constexpr std::size_t kBytes = 65536;
}  // namespace

TEST_CASE("aliasing: a buffer and its own export imported back overlap (#29.7)") {
  emt::Fixture f;
  auto a = Buffer::create_exportable(f.ctx, kBytes);
  if (!f.ctx.info().caps.unified_memory) {
    CHECK_ERRC(a, Errc::unsupported);
    return;
  }
  REQUIRE_OK(a);
  const emt::Bytes first = emt::random_bytes(kBytes);
  REQUIRE_OK(f.q.write(*a, 0, first.data(), kBytes));
  auto h = a->export_handle();
  REQUIRE_OK(h);
  auto b = Buffer::import(f.ctx, std::move(*h));
  REQUIRE_OK(b);
  // The copy: 65,280 bytes from byte 0 of the export to byte 256 of the import (the same file).
  CHECK_ERRC(f.q.copy(*a, *b, 0, 256, kBytes - 256), Errc::overlap);
  CHECK_ERRC(f.q.copy(*b, *a, 256, 0, kBytes - 256), Errc::overlap);
  CHECK_ERRC(f.q.copy(*a, *b, kBytes - 1, kBytes - 1, 1), Errc::overlap);  // the same byte
  CopyRect rect;
  rect.region = Extent3{64, 4, 1};
  rect.src.row_pitch = rect.dst.row_pitch = 1024;
  rect.dst.origin = Offset3{32, 2, 0};  // rows 2..5 of the destination meet rows 0..3 of the source
  CHECK_ERRC(f.q.copy_rect(*a, *b, rect), Errc::overlap);
  CHECK(f.snapshot(*a) == first);  // nothing changed
  // Disjoint bytes of the one file copy as usual, both ways.
  CHECK_OK(f.q.copy(*a, *b, 0, kBytes / 2, kBytes / 4));
  emt::Bytes expect = first;
  std::memcpy(expect.data() + kBytes / 2, first.data(), kBytes / 4);
  rect.dst.origin = Offset3{0, 8, 0};  // rows 8..11: disjoint
  CHECK_OK(f.q.copy_rect(*b, *a, rect));
  for (std::size_t row = 0; row < 4; ++row)
    std::memcpy(expect.data() + (8 + row) * 1024, expect.data() + row * 1024, 64);
  {
    auto m = f.q.map<unsigned char>(*b, Access::read);  // caller memory's rule: device writes reach the file
    REQUIRE_OK(m);
  }
  CHECK(f.snapshot(*a) == expect);
  // A view is not exported (#29.6: the peer would get the whole file); imports at an offset of one file
  // are the next case's.
  auto view = a->sub(f.align() * 4, 8192);
  REQUIRE_OK(view);
  CHECK_ERRC(view->export_handle(), Errc::access_denied);
}

TEST_CASE("aliasing: two imports of one memfd (through two fds) overlap where their file ranges meet (#29.7)") {
  emt::Fixture f;
  const int fd = emt::make_memfd(kBytes, emt::Seals::shrink);
  REQUIRE(fd >= 0);
  const int other = dup(fd);  // another fd of the same file
  REQUIRE(other >= 0);
  const std::size_t page = emt::page_size();
  auto whole = Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, kBytes));
  auto tail = Buffer::import(f.ctx, ExternalMemory::memfd(other, page, kBytes - page));
  close(fd);
  close(other);
  if (!whole && whole.error().code == Errc::unsupported) return;  // no import path on this device
  REQUIRE_OK(whole);
  REQUIRE_OK(tail);
  const emt::Bytes first = emt::random_bytes(kBytes);
  REQUIRE_OK(f.q.write(*whole, 0, first.data(), kBytes));
  // Byte 0 of `tail` is byte `page` of `whole`.
  CHECK_ERRC(f.q.copy(*whole, *tail, page, 0, 16), Errc::overlap);
  CHECK_ERRC(f.q.copy(*tail, *whole, 0, 0, page + 1), Errc::overlap);
  CHECK(f.snapshot(*whole) == first);
  CHECK_OK(f.q.copy(*tail, *whole, 0, 0, page));  // whole's first page: before tail's bytes
  CHECK_OK(f.q.copy(*whole, *tail, page, page, 16));
  {
    auto m = f.q.map<unsigned char>(*tail, Access::read);
    REQUIRE_OK(m);
    CHECK(std::memcmp(m->data() + page, first.data() + page, 16) == 0);
  }
}

TEST_CASE("aliasing: two host-pointer imports of one allocation overlap by address") {
  emt::Fixture f;
  void* p = nullptr;
  REQUIRE(posix_memalign(&p, 4096, kBytes) == 0);
  std::memset(p, 7, kBytes);
  {
    auto a = Buffer::import(f.ctx, ExternalMemory::host_pointer(p, kBytes));
    auto b = Buffer::import(f.ctx, ExternalMemory::host_pointer(static_cast<unsigned char*>(p) + 4096, 8192));
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    CHECK_ERRC(f.q.copy(*a, *b, 4096, 0, 64), Errc::overlap);
    CHECK_OK(f.q.copy(*a, *b, 0, 0, 64));
  }
  std::free(p);
}
