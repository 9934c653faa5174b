// Read-only sharing (issue #29 item 4, docs/security.md): an import with MemFlags::read_only is mapped
// PROT_READ, so an O_RDONLY fd or a memfd sealed F_SEAL_WRITE / F_SEAL_FUTURE_WRITE imports; every
// write through the API to such memory is access_denied (never a SIGSEGV on the PROT_READ mapping);
// exportable memory made with PeerAccess::read_only cannot be written by a peer, by any fd of it.
// Open fds are counted around every call. Every backend (the memory is the host's on both).
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "external_helpers.hpp"
#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// The permissions ("r--s", "rw-s", ...) of the mapping of this process that holds `p`, from
/// /proc/self/maps; "" when none does.
std::string perms_of(const void* p) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return {};
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  char line[512];
  std::string found;
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long begin = 0, end = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s", &begin, &end, perms) == 3 && at >= begin && at < end) {
      found = perms;
      break;
    }
  }
  std::fclose(maps);
  return found;
}

/// The permissions of the mapping under `b`'s first byte (through a read map of it).
std::string mapping_perms(Queue& q, const Buffer& b) {
  auto m = q.map<const unsigned char>(b, Access::read);
  if (!m) return "map failed";
  return perms_of(m->data());
}

/// A file descriptor of the same memfd opened again, read-only (as a peer given O_RDONLY would hold it).
int reopen(int fd, int flags) {
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  return open(path.c_str(), flags | O_CLOEXEC);
}

/// Checks that every write through the API to `ro` (read-only memory) is access_denied and changes
/// nothing (its bytes still `expect`), and that reads, read maps and copies out of it work.
void check_writes_refused(emt::Fixture& f, Buffer& ro, const emt::Bytes& expect) {
  const std::size_t n = ro.size();
  const emt::Bytes junk = emt::random_bytes(n);
  auto other = Buffer::from_host(f.ctx, junk.data(), n);
  REQUIRE_OK(other);
  const unsigned char zero = 0;
  // A device that cannot fill answers that first (its capability is checked before the memory).
  const Errc fill_errc = f.ctx.info().caps.max_fill_pattern_bytes >= 1 ? Errc::access_denied : Errc::unsupported;
  CHECK_ERRC(f.q.write(ro, 0, junk.data(), n), Errc::access_denied);
  CHECK_ERRC(f.q.write_async(ro, 0, junk.data(), n), Errc::access_denied);
  CHECK_ERRC(f.q.fill(ro, 0, n, &zero, 1), fill_errc);
  CHECK_ERRC(f.q.fill_async(ro, 0, n, &zero, 1), fill_errc);
  CHECK_ERRC(f.q.copy(*other, ro, 0, 0, n), Errc::access_denied);
  CHECK_ERRC(f.q.copy_async(*other, ro, 0, 0, n), Errc::access_denied);
  const Rect rect{RectSide{}, RectSide{}, Extent3{64, 2, 1}};
  CHECK_ERRC(f.q.write_rect(ro, rect, junk.data(), junk.size()), Errc::access_denied);
  const CopyRect crect{RectSide{}, RectSide{}, Extent3{64, 2, 1}};
  CHECK_ERRC(f.q.copy_rect(*other, ro, crect), Errc::access_denied);
  CHECK_ERRC(f.q.map<unsigned char>(ro, Access::write), Errc::access_denied);
  CHECK_ERRC(f.q.map<unsigned char>(ro, Access::write_discard), Errc::access_denied);
  if (f.ctx.info().caps.migration) {
    CHECK_ERRC(f.q.migrate(ro, Migration::to_host), Errc::access_denied);
    CHECK_ERRC(f.q.migrate(ro, Migration::to_device_discard), Errc::access_denied);
    CHECK_OK(f.q.migrate(ro, Migration::to_device));
  }
  // A view narrows, never widens: its writes are refused too.
  auto view = ro.sub(0, 64, MemFlags::read_only);
  REQUIRE_OK(view);
  CHECK_ERRC(f.q.write(*view, 0, junk.data(), 64), Errc::access_denied);
  CHECK_ERRC(f.q.map<unsigned char>(*view, Access::write), Errc::access_denied);
  // Reading works, and nothing was written.
  CHECK(f.snapshot(ro) == expect);
  CHECK(f.snapshot(*view) == emt::Bytes(expect.begin(), expect.begin() + 64));
  CHECK_OK(f.q.copy(ro, *other, 0, 0, n));
  CHECK(f.snapshot(*other) == expect);
  {
    auto m = f.q.map<unsigned char>(ro, Access::read);
    REQUIRE_OK(m);
    CHECK(std::memcmp(m->data(), expect.data(), n) == 0);
  }
}

/// Imports `m` read-only. A device that would write its own copy back into the PROT_READ mapping at
/// maps (no unified memory: NVIDIA's OpenCL) answers unsupported; then allow_copy gives a copy
/// (ImportPath::copy, which does not see later writes). `in_place` says which happened.
Result<Buffer> import_read_only(emt::Fixture& f, const ExternalMemory& m, bool& in_place) {
  ImportOptions ro;
  ro.flags = MemFlags::read_only;
  auto b = Buffer::import(f.ctx, m, ro);
  in_place = static_cast<bool>(b);
  if (b || b.error().code != Errc::unsupported || emt::read_only_wraps_in_place(f.ctx)) return b;  // (in place: must work)
  MESSAGE("read-only memory is not used in place here: " << b.error().message);
  ro.allow_copy = true;
  auto c = Buffer::import(f.ctx, m, ro);
  if (c) CHECK(c->import_path() == ImportPath::copy);
  return c;
}

}  // namespace

TEST_CASE("read-only sharing: an O_RDONLY fd imports with MemFlags::read_only, mapped PROT_READ; writes are access_denied") {
  emt::Fixture f;
  const std::size_t n = 4 * emt::page_size();
  const int fds = emt::open_fds();
  {
    const int memfd = emt::make_memfd(n, emt::Seals::fixed);
    REQUIRE(memfd >= 0);
    const emt::Bytes first = emt::random_bytes(n);
    REQUIRE(pwrite(memfd, first.data(), n, 0) == static_cast<ssize_t>(n));
    const int ro_fd = reopen(memfd, O_RDONLY);
    REQUIRE(ro_fd >= 0);
    // Without MemFlags::read_only: refused up front (the old code's mmap failed: backend_failure).
    const int before = emt::open_fds();
    CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(ro_fd, 0, n)), Errc::access_denied);
    CHECK(emt::open_fds() == before);
    bool in_place = false;
    {
      auto b = import_read_only(f, ExternalMemory::memfd(ro_fd, 0, n), in_place);
      REQUIRE_OK(b);
      if (in_place) {
        CHECK(b->import_path() == ImportPath::mmap_host_ptr);
        CHECK(mapping_perms(f.q, *b) == "r--s");
      }
      check_writes_refused(f, *b, first);
      // The producer's writes (through its own fd) are seen (a copy keeps the bytes of the import).
      const emt::Bytes second = emt::random_bytes(n);
      REQUIRE(pwrite(memfd, second.data(), n, 0) == static_cast<ssize_t>(n));
      CHECK(f.snapshot(*b) == (in_place ? second : first));
      // Re-exporting it is refused: the fd is writable by whoever reopens it (the memfd has no write seal).
      if (in_place) CHECK_ERRC(b->export_handle(), Errc::access_denied);
    }
    // A read-write fd imported read-only is read-only memory too (PROT_READ), and a read-write import
    // of the same fd maps rw.
    {
      auto b = import_read_only(f, ExternalMemory::memfd(memfd, 0, n), in_place);
      REQUIRE_OK(b);
      if (in_place) CHECK(mapping_perms(f.q, *b) == "r--s");
      CHECK_ERRC(f.q.write(*b, 0, &n, 1), Errc::access_denied);
      auto rw = Buffer::import(f.ctx, ExternalMemory::memfd(memfd, 0, n));
      REQUIRE_OK(rw);
      CHECK(mapping_perms(f.q, *rw) == "rw-s");
    }
    close(ro_fd);
    close(memfd);
  }
  CHECK(emt::open_fds() == fds);
}

TEST_CASE("read-only sharing: write-sealed memfds (F_SEAL_WRITE, F_SEAL_FUTURE_WRITE) import read-only, also through an IpcHandle") {
  emt::Fixture f;
  const std::size_t n = 2 * emt::page_size();
  const int fds = emt::open_fds();
  for (const int seal : {F_SEAL_WRITE, F_SEAL_FUTURE_WRITE}) {
    CAPTURE(seal);
    const int memfd = emt::make_memfd(n, emt::Seals::fixed);
    REQUIRE(memfd >= 0);
    const emt::Bytes bytes = emt::random_bytes(n);
    REQUIRE(pwrite(memfd, bytes.data(), n, 0) == static_cast<ssize_t>(n));
    REQUIRE(fcntl(memfd, F_ADD_SEALS, seal) == 0);
    CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(memfd, 0, n)), Errc::access_denied);
    bool in_place = false;
    {
      auto b = import_read_only(f, ExternalMemory::memfd(memfd, 0, n), in_place);
      REQUIRE_OK(b);
      check_writes_refused(f, *b, bytes);
    }
    if (!in_place) {  // (the device writes into caller memory at maps) an IpcHandle import has no copy path
      IpcDescriptor d;
      d.bytes = n;
      auto h = IpcHandle::adopt(fcntl(memfd, F_DUPFD_CLOEXEC, 0), d);
      REQUIRE_OK(h);
      CHECK_ERRC(Buffer::import(f.ctx, std::move(*h), MemFlags::read_only), Errc::unsupported);
      close(memfd);
      continue;
    }
    {
      ImportOptions ro;
      ro.flags = MemFlags::read_only;
      auto b = Buffer::import(f.ctx, ExternalMemory::memfd(memfd, 0, n), ro);
      REQUIRE_OK(b);
      CHECK(mapping_perms(f.q, *b) == "r--s");
      // A write-sealed memfd is re-exported: no peer can write it either.
      auto again = b->export_handle();
      REQUIRE_OK(again);
      CHECK_ERRC(Buffer::import(f.ctx, std::move(*again)), Errc::access_denied);  // consumed: the fd closed
      auto h = b->export_handle();
      REQUIRE_OK(h);
      auto c = Buffer::import(f.ctx, std::move(*h), MemFlags::read_only);
      REQUIRE_OK(c);
      CHECK(f.snapshot(*c) == bytes);
      CHECK_ERRC(f.q.write(*c, 0, bytes.data(), 16), Errc::access_denied);
    }
    // Through an IpcHandle adopted over it: the same answers.
    IpcDescriptor d;
    d.bytes = n;
    {
      auto h = IpcHandle::adopt(fcntl(memfd, F_DUPFD_CLOEXEC, 0), d);
      REQUIRE_OK(h);
      CHECK_ERRC(Buffer::import(f.ctx, std::move(*h)), Errc::access_denied);
      auto h2 = IpcHandle::adopt(fcntl(memfd, F_DUPFD_CLOEXEC, 0), d);
      REQUIRE_OK(h2);
      auto b = Buffer::import(f.ctx, std::move(*h2), MemFlags::read_only);
      REQUIRE_OK(b);
      CHECK(f.snapshot(*b) == bytes);
      CHECK_ERRC(f.q.write(*b, 0, bytes.data(), 16), Errc::access_denied);
    }
    close(memfd);
  }
  CHECK(emt::open_fds() == fds);
}

TEST_CASE("read-only sharing: a PeerAccess::read_only export cannot be written by the peer, by any fd of it") {
  emt::Fixture f;
  if (!f.ctx.info().caps.unified_memory) {
    CHECK_ERRC(Buffer::create_exportable(f.ctx, 4096, MemFlags::read_write, PeerAccess::read_only), Errc::unsupported);
    return;
  }
  const std::size_t n = 4 * emt::page_size();
  const int fds = emt::open_fds();
  {
    CHECK_ERRC(Buffer::create_exportable(f.ctx, n, MemFlags::read_write, static_cast<PeerAccess>(7)),
               Errc::invalid_argument);
    auto a = Buffer::create_exportable(f.ctx, n, MemFlags::read_write, PeerAccess::read_only);
    REQUIRE_OK(a);
    const emt::Bytes first = emt::random_bytes(n);
    CHECK_OK(f.q.write(*a, 0, first.data(), n));  // the producer still writes through its own mapping
    auto h = a->export_handle();
    REQUIRE_OK(h);
    // The peer's side: everything it could do with the fd it received to write the bytes fails.
    const int peer = h->fd();
    errno = 0;
    void* w = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, peer, 0);
    const int err = errno;  // (read before CHECK, whose reporting may set errno)
    CHECK(w == MAP_FAILED);
    CHECK(err == EPERM);
    if (w != MAP_FAILED) munmap(w, n);
    const unsigned char junk[16] = {1, 2, 3};
    CHECK(pwrite(peer, junk, sizeof junk, 0) < 0);
    CHECK(ftruncate(peer, 0) < 0);
    CHECK(fcntl(peer, F_ADD_SEALS, 0) < 0);  // F_SEAL_SEAL: the seals stay
    const int reopened = reopen(peer, O_RDWR);  // a read-only fd would be reopened read-write through /proc
    REQUIRE(reopened >= 0);
    w = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, reopened, 0);
    CHECK(w == MAP_FAILED);
    if (w != MAP_FAILED) munmap(w, n);
    CHECK(pwrite(reopened, junk, sizeof junk, 0) < 0);
    void* r = mmap(nullptr, n, PROT_READ, MAP_SHARED, reopened, 0);  // reading stays possible
    REQUIRE(r != MAP_FAILED);
    CHECK(std::memcmp(r, first.data(), n) == 0);
    munmap(r, n);
    close(reopened);
    // edgemem on the peer's side: a read-write import is refused (the handle is consumed), a
    // read-only one reads what the producer writes.
    CHECK_ERRC(Buffer::import(f.ctx, std::move(*h)), Errc::access_denied);
    CHECK_FALSE(h->valid());
    auto h2 = a->export_handle();
    REQUIRE_OK(h2);
    auto b = Buffer::import(f.ctx, std::move(*h2), MemFlags::read_only);
    if (!emt::read_only_wraps_in_place(f.ctx)) {  // PROT_READ pages the driver cannot take: no in-place import
      CHECK_ERRC(b, Errc::unsupported);
    } else {
      REQUIRE_OK(b);
      CHECK(f.snapshot(*b) == first);
      const emt::Bytes second = emt::random_bytes(n);
      CHECK_OK(f.q.write(*a, 0, second.data(), n));
      CHECK(f.snapshot(*b) == second);
      check_writes_refused(f, *b, second);
      CHECK(f.snapshot(*a) == second);
    }
    // A read-write export stays writable by its peer (the default).
    auto rw = Buffer::create_exportable(f.ctx, n);
    REQUIRE_OK(rw);
    auto hr = rw->export_handle();
    REQUIRE_OK(hr);
    w = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, hr->fd(), 0);
    CHECK(w != MAP_FAILED);
    if (w != MAP_FAILED) munmap(w, n);
  }
  CHECK(emt::open_fds() == fds);
}
