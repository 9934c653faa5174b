// Exportable memory and IPC handles (ipc_handle.hpp, issue #17) within one process: a buffer made by
// create_exportable() and the buffer imported from its handle are the same memory; a view of part of
// one is not exported (export_view_test.cpp); a handle is used once; every Errc of export_handle, import(IpcHandle), adopt,
// send and receive, with open fds counted. Two processes: tests/ipc.
#include <cstring>
#include <utility>

#include <sys/socket.h>

#include "external_helpers.hpp"
#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// A descriptor of `bytes` bytes at `offset`, made on `ctx`'s device.
IpcDescriptor descriptor_for(const Context& ctx, std::size_t offset, std::size_t bytes) {
  IpcDescriptor d;
  d.offset = offset;
  d.bytes = bytes;
  d.has_uuid = ctx.info().has_uuid ? 1 : 0;
  std::memcpy(d.uuid, ctx.info().uuid, sizeof d.uuid);
  return d;
}

}  // namespace

TEST_CASE("capabilities: exportable memory needs a unified-memory device") {
  emt::Fixture f;
  auto b = Buffer::create_exportable(f.ctx, 4096);
  if (!f.ctx.info().caps.unified_memory) {
    CHECK_ERRC(b, Errc::unsupported);
    return;
  }
  REQUIRE_OK(b);
  CHECK(b->size() == 4096);
  CHECK(b->import_path() == ImportPath::none);
  CHECK(b->is_host_accessible());
}

TEST_CASE("export: a handle imported in the same process is the same memory, views included") {
  emt::Fixture f;
  if (!f.ctx.info().caps.unified_memory) return;  // capabilities: case above
  const std::size_t n = std::size_t{4} << 20;
  const int fds = emt::open_fds();
  {
    auto a = Buffer::create_exportable(f.ctx, n);
    REQUIRE_OK(a);
    const emt::Bytes first = emt::random_bytes(n);
    CHECK_OK(f.q.write(*a, 0, first.data(), n));
    auto h = a->export_handle();
    REQUIRE_OK(h);
    CHECK(h->valid());
    CHECK(h->descriptor().bytes == n);
    CHECK(h->descriptor().offset == 0);
    CHECK(h->descriptor().has_uuid == (f.ctx.info().has_uuid ? 1 : 0));
    auto b = Buffer::import(f.ctx, std::move(*h));
    REQUIRE_OK(b);
    CHECK_FALSE(h->valid());
    CHECK(b->import_path() == ImportPath::mmap_host_ptr);
    CHECK(f.snapshot(*b) == first);
    // A write through the import is seen through the export (after a map: caller memory's rule).
    const emt::Bytes second = emt::random_bytes(n / 2);
    CHECK_OK(f.q.write(*b, n / 4, second.data(), second.size()));
    {
      auto m = f.q.map<unsigned char>(*b, Access::read);
      REQUIRE_OK(m);
    }
    emt::Bytes expect = first;
    std::memcpy(expect.data() + n / 4, second.data(), second.size());
    CHECK(f.snapshot(*a) == expect);
    // A view of part of it is not exported: the peer would receive the whole memfd (issue #29.6,
    // export_view_test.cpp); an import of the whole handle can be exported again.
    auto view = a->sub(f.align() * 4, 8192);
    REQUIRE_OK(view);
    CHECK_ERRC(view->export_handle(), Errc::access_denied);
    auto again = b->export_handle();
    REQUIRE_OK(again);
    CHECK(again->descriptor().offset == 0);
    CHECK(again->descriptor().bytes == n);
    auto c = Buffer::import(f.ctx, std::move(*again));
    REQUIRE_OK(c);
    CHECK(f.snapshot(*c) == expect);
  }
  CHECK(emt::open_fds() == fds);
}

TEST_CASE("export: a handle is used once; what is not exportable says so") {
  emt::Fixture f;
  if (!f.ctx.info().caps.unified_memory) return;
  const int fds = emt::open_fds();
  {
    auto a = Buffer::create_exportable(f.ctx, 4096);
    REQUIRE_OK(a);
    auto h = a->export_handle();
    REQUIRE_OK(h);
    auto first = Buffer::import(f.ctx, std::move(*h));
    CHECK_OK(first);
    CHECK_ERRC(Buffer::import(f.ctx, std::move(*h)), Errc::released);
    IpcHandle empty;
    CHECK_ERRC(Buffer::import(f.ctx, std::move(empty)), Errc::released);
    CHECK_ERRC(empty.send(0), Errc::released);
    auto plain = Buffer::create(f.ctx, 4096);
    REQUIRE_OK(plain);
    CHECK_ERRC(plain->export_handle(), Errc::unsupported);
    CHECK_ERRC(Buffer{}.export_handle(), Errc::released);
    CHECK(Buffer{}.import_path() == ImportPath::none);
    CHECK_ERRC(Buffer::create_exportable(f.ctx, 0), Errc::invalid_argument);
    CHECK_ERRC(Buffer::create_exportable(f.ctx, f.ctx.info().max_alloc_bytes + 1), Errc::out_of_range);
    CHECK_ERRC(Buffer::create_exportable(f.ctx, 64, MemFlags::read_only | MemFlags::write_only),
               Errc::invalid_argument);
    CHECK_ERRC(Buffer::create_exportable(Context{}, 64), Errc::released);
    // A memfd import that may still grow is not re-exported (its size is not final for the importer).
    const int unsealed = emt::make_memfd(4096, emt::Seals::shrink);
    auto u = Buffer::import(f.ctx, ExternalMemory::memfd(unsealed, 0, 4096));
    close(unsealed);
    REQUIRE_OK(u);
    CHECK_ERRC(u->export_handle(), Errc::unsupported);
  }
  CHECK(emt::open_fds() == fds);
}

TEST_CASE("export: bad handles get their Errc and close their fd") {
  emt::Fixture f;
  const std::size_t page = emt::page_size();
  const int fds = emt::open_fds();
  CHECK_ERRC(IpcHandle::adopt(-1, descriptor_for(f.ctx, 0, page)), Errc::invalid_argument);
  IpcDescriptor bad_magic = descriptor_for(f.ctx, 0, page);
  bad_magic.magic ^= 1;
  CHECK_ERRC(IpcHandle::adopt(emt::make_memfd(page, emt::Seals::fixed), bad_magic), Errc::invalid_argument);
  IpcDescriptor bad_version = descriptor_for(f.ctx, 0, page);
  bad_version.version = 99;
  CHECK_ERRC(IpcHandle::adopt(emt::make_memfd(page, emt::Seals::fixed), bad_version), Errc::invalid_argument);
  CHECK_ERRC(IpcHandle::adopt(emt::make_memfd(page, emt::Seals::fixed), descriptor_for(f.ctx, 0, 0)), Errc::invalid_argument);
  CHECK_ERRC(IpcHandle::adopt(emt::make_memfd(page, emt::Seals::fixed), descriptor_for(f.ctx, SIZE_MAX, 2)),
             Errc::invalid_argument);
  CHECK(emt::open_fds() == fds);
  auto import_of = [&](int fd, const IpcDescriptor& d) -> Result<Buffer> {
    auto h = IpcHandle::adopt(fd, d);
    if (!h) return fail(h.error());
    return Buffer::import(f.ctx, std::move(*h));
  };
  IpcDescriptor other_device = descriptor_for(f.ctx, 0, page);
  other_device.has_uuid = 1;
  other_device.uuid[0] ^= 0xff;
  if (f.ctx.info().has_uuid)
    CHECK_ERRC(import_of(emt::make_memfd(page, emt::Seals::fixed), other_device), Errc::invalid_argument);
  CHECK_ERRC(import_of(emt::make_memfd(page, emt::Seals::none), descriptor_for(f.ctx, 0, page)), Errc::invalid_argument);
  CHECK_ERRC(import_of(emt::make_memfd(page, emt::Seals::fixed), descriptor_for(f.ctx, page, page)), Errc::out_of_range);
  CHECK_ERRC(import_of(emt::make_memfd(page, emt::Seals::fixed), descriptor_for(f.ctx, 0, 2 * page)), Errc::out_of_range);
  int p[2];
  REQUIRE(pipe(p) == 0);
  CHECK_ERRC(import_of(p[0], descriptor_for(f.ctx, 0, page)), Errc::invalid_argument);  // closes p[0]
  close(p[1]);
  CHECK(emt::open_fds() == fds);
}

TEST_CASE("export: handles travel over a UNIX socket; a closed peer or a foreign message is refused") {
  emt::Fixture f;
  if (!f.ctx.info().caps.unified_memory) return;
  const int fds = emt::open_fds();
  {
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    auto a = Buffer::create_exportable(f.ctx, 65536);
    REQUIRE_OK(a);
    const emt::Bytes bytes = emt::random_bytes(65536);
    CHECK_OK(f.q.write(*a, 0, bytes.data(), bytes.size()));
    auto h = a->export_handle();
    REQUIRE_OK(h);
    auto sent = h->send(sv[0]);
    REQUIRE_OK(sent);
    CHECK(h->valid());  // send keeps the handle
    auto got = IpcHandle::receive(sv[1]);
    REQUIRE_OK(got);
    CHECK(got->descriptor().bytes == 65536);
    auto b = Buffer::import(f.ctx, std::move(*got));
    REQUIRE_OK(b);
    CHECK(f.snapshot(*b) == bytes);
    // A message that is not a handle: its fd (if any) is closed.
    const char junk[5] = "junk";
    REQUIRE(::send(sv[0], junk, sizeof junk, 0) == static_cast<ssize_t>(sizeof junk));
    CHECK_ERRC(IpcHandle::receive(sv[1]), Errc::invalid_argument);
    // Not a socket.
    int p[2];
    REQUIRE(pipe(p) == 0);
    CHECK_ERRC(h->send(p[1]), Errc::invalid_argument);
    CHECK_ERRC(IpcHandle::receive(p[0]), Errc::invalid_argument);
    CHECK_ERRC(IpcHandle::receive(-1), Errc::invalid_argument);
    close(p[0]);
    close(p[1]);
    // The peer is gone.
    close(sv[0]);
    CHECK_ERRC(IpcHandle::receive(sv[1]), Errc::released);
    CHECK_ERRC(h->send(sv[1]), Errc::released);
    close(sv[1]);
  }
  CHECK(emt::open_fds() == fds);
}
