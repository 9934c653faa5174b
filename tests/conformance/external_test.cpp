// External memory (external.hpp, issue #17): Buffer::import of memfds, dma-bufs and host pointers
// (zero-copy both ways, offsets, views, lifetime, the copy path only when allowed, every Errc),
// with open fds counted so no import leaks one. Runs unchanged on every backend: a device with a
// driver import path reports it, others the mmap path. Export and IPC handles: export_test.cpp.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "external_helpers.hpp"
#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// The bytes of `fd` at `offset` (pread), `n` long.
emt::Bytes fd_bytes(int fd, std::size_t offset, std::size_t n) {
  emt::Bytes out(n);
  const ssize_t got = pread(fd, out.data(), n, static_cast<off_t>(offset));
  if (got != static_cast<ssize_t>(n)) out.clear();
  return out;
}

bool fd_write(int fd, std::size_t offset, const emt::Bytes& b) {
  return pwrite(fd, b.data(), b.size(), static_cast<off_t>(offset)) == static_cast<ssize_t>(b.size());
}

/// Maps `buf` for reading and unmaps it: after it, host memory a USE_HOST_PTR buffer uses holds the
/// device's view (caller memory's rule, external.hpp).
bool sync_to_host(Queue& q, Buffer& buf) {
  auto m = q.map<unsigned char>(buf, Access::read);
  return m && m->unmap();
}

/// A write_discard map and unmap of `bytes` bytes at `offset`: after it, the device sees what was
/// written into the memory from outside (caller memory's rule; free on unified memory).
bool sync_from_host(Queue& q, Buffer& buf, std::size_t offset, std::size_t bytes) {
  auto m = q.map<unsigned char>(buf, Access::write_discard, offset, bytes);
  return m && m->unmap();
}

}  // namespace

TEST_CASE("external: a memfd import is the same memory both ways") {
  emt::Fixture f;
  const std::size_t n = std::size_t{1} << 20;
  const int fd = emt::make_memfd(n, emt::Seals::shrink);
  REQUIRE(fd >= 0);
  const emt::Bytes first = emt::random_bytes(n);
  REQUIRE(fd_write(fd, 0, first));
  const int fds = emt::open_fds();
  {
    auto b = Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, n));
    REQUIRE_OK(b);
    CHECK(b->size() == n);
    CHECK(b->import_path() == ImportPath::mmap_host_ptr);
    CHECK(std::strcmp(to_string(b->import_path()), "mmap_host_ptr") == 0);
    CHECK(b->is_host_accessible());
    CHECK(f.snapshot(*b) == first);
    // The fd's writes reach the device after a write_discard map, edgemem's the fd after a map.
    const emt::Bytes second = emt::random_bytes(4096);
    REQUIRE(fd_write(fd, 8192, second));
    REQUIRE(sync_from_host(f.q, *b, 8192, 4096));
    emt::Bytes got(4096);
    CHECK_OK(f.q.read(*b, 8192, got.data(), got.size()));
    CHECK(got == second);
    const emt::Bytes third = emt::random_bytes(n / 2);
    CHECK_OK(f.q.write(*b, n / 4, third.data(), third.size()));
    REQUIRE(sync_to_host(f.q, *b));
    CHECK(fd_bytes(fd, n / 4, n / 2) == third);
    CHECK(emt::open_fds() == fds + 1);  // the buffer's own duplicate
  }
  CHECK(emt::open_fds() == fds);
  close(fd);
}

TEST_CASE("external: an import at an offset, its views, and the caller's fd closed at once") {
  emt::Fixture f;
  const std::size_t page = emt::page_size();
  const int fds = emt::open_fds();
  const int fd = emt::make_memfd(4 * page, emt::Seals::shrink);
  REQUIRE(fd >= 0);
  const emt::Bytes all = emt::random_bytes(4 * page);
  REQUIRE(fd_write(fd, 0, all));
  auto b = Buffer::import(f.ctx, ExternalMemory::memfd(fd, page, 2 * page));
  close(fd);  // the buffer keeps its own duplicate
  REQUIRE_OK(b);
  CHECK(f.snapshot(*b) == emt::Bytes(all.begin() + page, all.begin() + 3 * page));
  const std::size_t at = f.align() * 2 <= page ? f.align() * 2 : page;
  auto view = b->sub(at, page);
  REQUIRE_OK(view);
  CHECK(view->import_path() == ImportPath::mmap_host_ptr);
  CHECK(f.snapshot(*view) == emt::Bytes(all.begin() + page + at, all.begin() + 2 * page + at));
  CHECK_OK(b->release());
  // The view keeps the memory (and the fd) alive.
  const emt::Bytes fresh = emt::random_bytes(page);
  CHECK_OK(f.q.write(*view, 0, fresh.data(), fresh.size()));
  CHECK(f.snapshot(*view) == fresh);
  CHECK(emt::open_fds() == fds + 1);
  CHECK_OK(view->release());
  CHECK(emt::open_fds() == fds);
}

TEST_CASE("external: memory that misses the alignment rule is refused, or copied when allowed") {
  emt::Fixture f;
  const std::size_t page = emt::page_size();
  if (f.align() < 2 || f.align() > page) return;  // every offset is aligned on such a device
  const std::size_t off = f.align() / 2;
  const int fd = emt::make_memfd(2 * page, emt::Seals::shrink);
  REQUIRE(fd >= 0);
  const emt::Bytes all = emt::random_bytes(2 * page);
  REQUIRE(fd_write(fd, 0, all));
  const int fds = emt::open_fds();
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(fd, off, page)), Errc::misaligned);
  CHECK(emt::open_fds() == fds);
  ImportOptions copy;
  copy.allow_copy = true;
  auto b = Buffer::import(f.ctx, ExternalMemory::memfd(fd, off, page), copy);
  REQUIRE_OK(b);
  CHECK(b->import_path() == ImportPath::copy);
  CHECK(emt::open_fds() == fds);  // a copy keeps no fd
  CHECK(f.snapshot(*b) == emt::Bytes(all.begin() + off, all.begin() + off + page));
  // A copy: later writes to the fd are not seen.
  REQUIRE(fd_write(fd, off, emt::Bytes(page, 0xee)));
  CHECK(f.snapshot(*b) == emt::Bytes(all.begin() + off, all.begin() + off + page));
  // A host pointer follows the same rule.
  std::vector<unsigned char> host(3 * page, 0x5a);
  unsigned char* aligned = host.data() + (f.align() - reinterpret_cast<std::uintptr_t>(host.data()) % f.align());
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::host_pointer(aligned + off, page)), Errc::misaligned);
  auto h = Buffer::import(f.ctx, ExternalMemory::host_pointer(aligned + off, page), copy);
  REQUIRE_OK(h);
  CHECK(h->import_path() == ImportPath::copy);
  close(fd);
}

TEST_CASE("external: a host pointer is used zero-copy") {
  emt::Fixture f;
  const std::size_t n = 256 * 1024;
  void* mem = std::aligned_alloc(4096, n);
  REQUIRE(mem != nullptr);
  std::memset(mem, 0x11, n);
  {
    auto b = Buffer::import(f.ctx, ExternalMemory::host_pointer(mem, n));
    REQUIRE_OK(b);
    CHECK(b->import_path() == ImportPath::host_ptr);
    CHECK(f.snapshot(*b) == emt::Bytes(n, 0x11));
    const emt::Bytes fresh = emt::random_bytes(n);
    CHECK_OK(f.q.write(*b, 0, fresh.data(), n));
    REQUIRE(sync_to_host(f.q, *b));
    CHECK(std::memcmp(mem, fresh.data(), n) == 0);
  }
  std::free(mem);
}

TEST_CASE("external: a memfd given as a dma-buf takes the mmap path; an opaque fd needs the driver") {
  emt::Fixture f;
  const std::size_t page = emt::page_size();
  const int fd = emt::make_memfd(2 * page, emt::Seals::shrink);
  REQUIRE(fd >= 0);
  const emt::Bytes all = emt::random_bytes(2 * page);
  REQUIRE(fd_write(fd, 0, all));
  const int fds = emt::open_fds();
  if ((f.ctx.info().caps.external_memory & (external_dma_buf | external_arm_import)) == 0) {
    auto b = Buffer::import(f.ctx, ExternalMemory::dma_buf(fd, page, page));
    REQUIRE_OK(b);
    CHECK(b->import_path() == ImportPath::mmap_host_ptr);
    CHECK(f.snapshot(*b) == emt::Bytes(all.begin() + page, all.end()));
    // Host maps of a dma-buf are bracketed with DMA_BUF_IOCTL_SYNC (a memfd ignores it).
    auto m = f.q.map<unsigned char>(*b, Access::write);
    REQUIRE_OK(m);
    (*m)[0] = 0x42;
    CHECK_OK(m->unmap());
    CHECK(fd_bytes(fd, page, 1) == emt::Bytes(1, 0x42));
  }
  if ((f.ctx.info().caps.external_memory & external_opaque_fd) == 0)
    CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::opaque_fd(fd, page)), Errc::unsupported);
  CHECK(emt::open_fds() == fds);
  close(fd);
}

TEST_CASE("external: a real dma-buf (udmabuf) imports zero-copy with bracketed host maps") {
  emt::Fixture f;
  const std::size_t n = 64 * emt::page_size();
  int memfd = -1;
  std::string why;
  const int dmabuf = emt::make_udmabuf(n, memfd, why);
  if (dmabuf < 0) EMT_SKIP(why);
  const emt::Bytes first = emt::random_bytes(n);
  REQUIRE(fd_write(memfd, 0, first));
  {
    auto b = Buffer::import(f.ctx, ExternalMemory::dma_buf(dmabuf, 0, n));
    REQUIRE_OK(b);
    CHECK(b->import_path() != ImportPath::copy);
    CHECK(f.snapshot(*b) == first);
    const emt::Bytes fresh = emt::random_bytes(n);
    CHECK_OK(f.q.write(*b, 0, fresh.data(), n));
    REQUIRE(sync_to_host(f.q, *b));
    CHECK(fd_bytes(memfd, 0, n) == fresh);
  }
  close(dmabuf);
  close(memfd);
}

TEST_CASE("external: bad imports get their Errc and leave no fd, mapping or object behind") {
  emt::Fixture f;
  const std::size_t page = emt::page_size();
  const int fd = emt::make_memfd(2 * page, emt::Seals::shrink);
  const int sealed = emt::make_memfd(2 * page, emt::Seals::fixed);
  int pipe_fds[2] = {-1, -1};
  REQUIRE(fd >= 0);
  REQUIRE(sealed >= 0);
  REQUIRE(pipe(pipe_fds) == 0);
  const int closed = emt::make_memfd(page, emt::Seals::shrink);
  close(closed);
  const int fds = emt::open_fds();
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(-1, 0, page)), Errc::invalid_argument);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(closed, 0, page)), Errc::invalid_argument);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::dma_buf(closed, 0, page)), Errc::invalid_argument);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(pipe_fds[0], 0, page)), Errc::invalid_argument);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::dma_buf(pipe_fds[0], 0, page)), Errc::invalid_argument);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, 0)), Errc::invalid_argument);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, 2 * page + 1)), Errc::out_of_range);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(fd, page, page + 1)), Errc::out_of_range);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(fd, 3 * page, page)), Errc::out_of_range);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(fd, SIZE_MAX - 10, page)), Errc::out_of_range);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::dma_buf(fd, page, 2 * page)), Errc::out_of_range);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, f.ctx.info().max_alloc_bytes + 1)),
             Errc::out_of_range);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::host_pointer(nullptr, page)), Errc::invalid_argument);
  ExternalMemory unknown = ExternalMemory::memfd(fd, 0, page);
  unknown.type = static_cast<HandleType>(99);
  CHECK_ERRC(Buffer::import(f.ctx, unknown), Errc::invalid_argument);
  ImportOptions bad_flags;
  bad_flags.flags = MemFlags::read_only | MemFlags::write_only;
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, page), bad_flags), Errc::invalid_argument);
  ImportOptions must_seal;
  must_seal.require_sealed = true;
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, page), must_seal), Errc::invalid_argument);
  auto ok = Buffer::import(f.ctx, ExternalMemory::memfd(sealed, 0, page), must_seal);
  CHECK_OK(ok);
  CHECK_ERRC(Buffer::import(Context{}, ExternalMemory::memfd(fd, 0, page)), Errc::released);
  if (ok) CHECK_OK(ok->release());
  CHECK(emt::open_fds() == fds);
  for (int d : {fd, sealed, pipe_fds[0], pipe_fds[1]}) close(d);
}

TEST_CASE("external: two queues on an imported frame: the reader waits for the other queue's writer") {
  // The camera pattern on imported memory: queue A fills a large frame (async), queue B reads it at
  // once; edgemem makes B wait for A, as for any buffer. Then B writes and A reads, both async.
  emt::Fixture f;
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  const std::size_t n = emt::test_frame_bytes(16);
  const int fd = emt::make_memfd(n, emt::Seals::shrink);
  REQUIRE(fd >= 0);
  auto b = Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, n));
  close(fd);
  REQUIRE_OK(b);
  for (int round = 0; round < emt::test_rounds(3); ++round) {
    const emt::Bytes frame = emt::random_bytes(n);
    auto written = f.q.write_async(*b, 0, frame.data(), n);
    REQUIRE_OK(written);
    emt::Bytes got(n);
    CHECK_OK(q2->read(*b, 0, got.data(), n));
    CHECK(got == frame);
    const std::uint32_t word = 0x1000u + static_cast<std::uint32_t>(round);
    auto filled = q2->fill_async(*b, n / 2, n / 2, &word, sizeof word);
    REQUIRE_OK(filled);
    auto back = f.q.read_async(*b, n / 2, got.data(), n / 2);
    REQUIRE_OK(back);
    CHECK_OK(back->wait());
    bool all = true;
    for (std::size_t i = 0; i < n / 2 && all; i += 4) all = std::memcmp(got.data() + i, &word, 4) == 0;
    CHECK(all);
    CHECK_OK(written->wait());
    CHECK_OK(filled->wait());
  }
}

TEST_CASE("external: dropping an import while an async write into it is queued waits before unmapping") {
  emt::Fixture f;
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  const std::size_t n = emt::test_frame_bytes(16);
  const int fd = emt::make_memfd(n, emt::Seals::shrink);
  REQUIRE(fd >= 0);
  const emt::Bytes frame = emt::random_bytes(n);
  Result<Event> written = fail(Errc::released, "not yet");
  Result<Event> filled = fail(Errc::released, "not yet");
  {
    auto b = Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, n));
    REQUIRE_OK(b);
    written = f.q.write_async(*b, 0, frame.data(), n);
    REQUIRE_OK(written);
    // A second queue's command on it too, then the only handle goes with both still queued.
    const std::uint32_t word = 7;
    filled = q2->fill_async(*b, n - 4096, 4096, &word, sizeof word);
    CHECK_OK(filled);
  }
  CHECK_OK(written->wait());
  if (filled) CHECK_OK(filled->wait());
  CHECK_OK(f.q.finish());
  if (f.ctx.info().caps.unified_memory) {  // (a discrete GPU's copy is not written back when dropped)
    emt::Bytes back(n - 4096);
    REQUIRE(pread(fd, back.data(), back.size(), 0) == static_cast<ssize_t>(back.size()));
    CHECK(back == emt::Bytes(frame.begin(), frame.begin() + static_cast<long>(n - 4096)));
  }
  close(fd);
}
