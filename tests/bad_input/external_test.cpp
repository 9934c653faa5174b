// Bad inputs to external memory (external.hpp, buffer.hpp): Buffer::import of each HandleType,
// Buffer::create_exportable and Buffer::export_handle. Every case also checks that the process's
// open-fd count is unchanged and that a recorded memfd import keeps its contents (ExtScene). Cases
// that need exportable memory check the device's unified_memory capability and, when it lacks it,
// assert Errc::unsupported instead. IPC handles: external_ipc_test.cpp; SharedFrameRing:
// shared_ring_test.cpp. Run them with -tc='bad_input: Buffer::import*,bad_input: Buffer::*export*'.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <fcntl.h>

#include "bad_input/external_scene.hpp"

using namespace edgemem;
using emt::bad::ext::ExtScene;

namespace {

constexpr HandleType kFdTypes[] = {HandleType::memfd, HandleType::dma_buf, HandleType::opaque_fd};

ExternalMemory of_type(HandleType t, int fd, std::size_t offset, std::size_t bytes) {
  ExternalMemory m;
  m.type = t;
  m.fd = fd;
  m.offset = t == HandleType::opaque_fd ? 0 : offset;
  m.bytes = bytes;
  return m;
}

/// The wrong-kind fd `fd` as a memfd and as a dma-buf: invalid_argument, nothing changed.
void expect_wrong_kind(ExtScene& e, int fd) {
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(fd, 0, 64)); });
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(fd, 0, 64)); });
}

}  // namespace

// ---- Buffer::import(ctx, ExternalMemory, ImportOptions) -------------------------------------------

BAD_INPUT("Buffer::import: released context (every HandleType)") {
  ExtScene e;
  auto gone = Context::create();
  REQUIRE_OK(gone);
  CHECK_OK(gone->release());
  std::vector<unsigned char> host(e.page);
  for (const HandleType t : kFdTypes)
    e.expect(Errc::released, [&] { return Buffer::import(*gone, of_type(t, e.memfd, 0, e.page)); });
  e.expect(Errc::released, [&] { return Buffer::import(Context{}, ExternalMemory::host_pointer(host.data(), 64)); });
  // released comes first: before the size and the fd
  e.expect(Errc::released, [&] { return Buffer::import(*gone, ExternalMemory::memfd(-1, 0, 0)); });
}

BAD_INPUT("Buffer::import: negative fd (memfd, dma_buf, opaque_fd)") {
  ExtScene e;
  for (const HandleType t : kFdTypes) {
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, of_type(t, -1, 0, e.page)); });
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, of_type(t, -12345, 0, 64)); });
  }
}

BAD_INPUT("Buffer::import: closed fd (memfd, dma_buf, opaque_fd)") {
  ExtScene e;
  const int closed = ExtScene::closed_fd();
  for (const HandleType t : kFdTypes)
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, of_type(t, closed, 0, e.page)); });
}

BAD_INPUT("Buffer::import: a pipe as a memfd or a dma-buf") {
  ExtScene e;
  const auto p = e.pipe_pair();
  expect_wrong_kind(e, p.first);
  expect_wrong_kind(e, p.second);
}

BAD_INPUT("Buffer::import: a socket as a memfd or a dma-buf") {
  ExtScene e;
  expect_wrong_kind(e, e.socket_pair().first);
}

BAD_INPUT("Buffer::import: a directory fd as a memfd or a dma-buf") {
  ExtScene e;
  expect_wrong_kind(e, e.own(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
}

BAD_INPUT("Buffer::import: a character device (/dev/null) as a memfd or a dma-buf") {
  ExtScene e;
  expect_wrong_kind(e, e.own(open("/dev/null", O_RDWR | O_CLOEXEC)));
}

BAD_INPUT("Buffer::import: memfd offset + bytes past the fd's size (fstat)") {
  ExtScene e;
  const int fd = e.memfd_of(2 * e.page, emt::Seals::shrink);
  e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(fd, 0, 2 * e.page + 1)); });
  e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(fd, e.page, e.page + 1)); });
  e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(fd, 2 * e.page, 1)); });
  e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(fd, 3 * e.page, 64)); });
  const int empty = e.memfd_of(0, emt::Seals::shrink);  // a memfd never sized
  e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(empty, 0, 1)); });
}

BAD_INPUT("Buffer::import: dma-buf offset + bytes past the fd's size (a sealed memfd standing in)") {
  ExtScene e;
  const int fd = e.memfd_of(2 * e.page, emt::Seals::shrink);
  e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(fd, 0, 2 * e.page + 1)); });
  e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(fd, e.page, 2 * e.page)); });
  e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(fd, 4 * e.page, 64)); });
}

BAD_INPUT("Buffer::import: an offset that overflows offset + bytes") {
  ExtScene e;
  for (const std::size_t off : {SIZE_MAX, SIZE_MAX - 10, SIZE_MAX - e.page + 1}) {
    e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(e.memfd, off, e.page)); });
    e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(e.memfd, off, e.page)); });
  }
}

BAD_INPUT("Buffer::import: zero bytes (every HandleType)") {
  ExtScene e;
  std::vector<unsigned char> host(e.page);
  for (const HandleType t : kFdTypes)
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, of_type(t, e.memfd, 0, 0)); });
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::host_pointer(host.data(), 0)); });
  // zero bytes comes before the fd's checks
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(-1, 0, 0)); });
}

BAD_INPUT("Buffer::import: more bytes than the device's max allocation (every HandleType)") {
  ExtScene e;
  const std::size_t max = e.f.ctx.info().max_alloc_bytes;
  std::vector<unsigned char> host(e.page);
  for (const std::size_t n : {max + 1, SIZE_MAX}) {
    for (const HandleType t : kFdTypes)
      e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, of_type(t, e.memfd, 0, n)); });
    e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, ExternalMemory::host_pointer(host.data(), n)); });
  }
}

BAD_INPUT("Buffer::import: null host pointer") {
  ExtScene e;
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::host_pointer(nullptr, 64)); });
  ImportOptions copy;
  copy.allow_copy = true;  // allow_copy does not make a null pointer copyable
  e.expect(Errc::invalid_argument,
           [&] { return Buffer::import(e.f.ctx, ExternalMemory::host_pointer(nullptr, e.page), copy); });
}

BAD_INPUT("Buffer::import: unknown HandleType value") {
  ExtScene e;
  for (const unsigned v : {0u, 5u, 99u, 255u}) {
    ExternalMemory m = ExternalMemory::memfd(e.memfd, 0, e.page);
    m.type = static_cast<HandleType>(v);
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, m); });
  }
}

BAD_INPUT("Buffer::import: bad flags (every HandleType)") {
  ExtScene e;
  std::vector<unsigned char> host(e.page);
  for (const MemFlags bad : {MemFlags::read_only | MemFlags::write_only, MemFlags::host_read_only | MemFlags::host_no_access,
                            static_cast<MemFlags>(1u << 5)}) {
    ImportOptions o;
    o.flags = bad;
    for (const HandleType t : kFdTypes)
      e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, of_type(t, e.memfd, 0, e.page), o); });
    e.expect(Errc::invalid_argument,
             [&] { return Buffer::import(e.f.ctx, ExternalMemory::host_pointer(host.data(), 64), o); });
  }
}

BAD_INPUT("Buffer::import: unsealed memfd with require_sealed (no seal, grow only, shrink only)") {
  ExtScene e;
  ImportOptions must;
  must.require_sealed = true;
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(e.memfd, 0, e.page), must); });
  for (const int seal : {F_SEAL_GROW, F_SEAL_SHRINK}) {
    const int fd = e.memfd_of(e.page, emt::Seals::none);
    REQUIRE(fcntl(fd, F_ADD_SEALS, seal) == 0);
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(fd, 0, e.page), must); });
  }
  // A memfd made without MFD_ALLOW_SEALING carries F_SEAL_SEAL only.
  const int plain = e.own(memfd_create("emt-plain", MFD_CLOEXEC));
  REQUIRE(ftruncate(plain, static_cast<off_t>(e.page)) == 0);
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(plain, 0, e.page), must); });
}

BAD_INPUT("Buffer::import: memory that misses the alignment rule without allow_copy") {
  ExtScene e;
  const std::size_t align = e.f.align();
  if (align < 2 || align > e.page) {
    MESSAGE("base alignment " << align << ": every offset and page is aligned on this device");
    return;
  }
  for (const std::size_t off : {align / 2, std::size_t{1}, e.page + align - 1}) {
    e.expect(Errc::misaligned, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(e.memfd, off, e.page)); });
    if ((e.f.ctx.info().caps.external_memory & (external_dma_buf | external_arm_import)) == 0)
      e.expect(Errc::misaligned, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(e.memfd, off, e.page)); });
  }
  std::vector<unsigned char> host(3 * e.page);
  unsigned char* aligned = host.data() + (align - reinterpret_cast<std::uintptr_t>(host.data()) % align);
  e.expect(Errc::misaligned, [&] { return Buffer::import(e.f.ctx, ExternalMemory::host_pointer(aligned + 1, e.page)); });
  e.expect(Errc::misaligned,
           [&] { return Buffer::import(e.f.ctx, ExternalMemory::host_pointer(aligned + align / 2, 64)); });
}

BAD_INPUT("Buffer::import: an opaque fd without the driver's import path") {
  ExtScene e;
  if ((e.f.ctx.info().caps.external_memory & external_opaque_fd) != 0) {
    MESSAGE("the device imports opaque fds (cl_khr_external_memory_opaque_fd): no unsupported answer to check");
    return;
  }
  ImportOptions copy;
  copy.allow_copy = true;  // an opaque fd is never mapped, so never copied either
  e.expect(Errc::unsupported, [&] { return Buffer::import(e.f.ctx, ExternalMemory::opaque_fd(e.memfd, e.page)); });
  e.expect(Errc::unsupported, [&] { return Buffer::import(e.f.ctx, ExternalMemory::opaque_fd(e.memfd, e.page), copy); });
  // Its size is the driver's to know: a size past the fd is not checked here.
  e.expect(Errc::unsupported, [&] { return Buffer::import(e.f.ctx, ExternalMemory::opaque_fd(e.memfd, 64 * e.page)); });
}

BAD_INPUT("Buffer::import: a read-only fd imported without MemFlags::read_only (#29.4)") {
  ExtScene e;
  const std::string path = "/proc/self/fd/" + std::to_string(e.memfd);
  const int ro = e.own(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  e.expect(Errc::access_denied, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(ro, 0, e.page)); });
  e.expect(Errc::access_denied, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(ro, 0, e.page)); });
  ImportOptions host_read_only;  // the host flag does not make the memory read-only: the device could write
  host_read_only.flags = MemFlags::host_read_only;
  if (e.f.ctx.info().caps.host_access_flags)
    e.expect(Errc::access_denied,
             [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(ro, 0, e.page), host_read_only); });
  // With MemFlags::read_only it imports (mapped PROT_READ: tests/conformance/read_only_share_test.cpp;
  // copied where the device would write its copy back into the mapping at maps).
  ImportOptions read_only;
  read_only.flags = MemFlags::read_only;
  read_only.allow_copy = true;
  auto b = Buffer::import(e.f.ctx, ExternalMemory::memfd(ro, 0, e.page), read_only);
  CHECK_OK(b);
}

// ---- Buffer::create_exportable ------------------------------------------------------------------

BAD_INPUT("Buffer::create_exportable: released context") {
  ExtScene e;
  auto gone = Context::create();
  REQUIRE_OK(gone);
  CHECK_OK(gone->release());
  e.expect(Errc::released, [&] { return Buffer::create_exportable(*gone, 4096); });
  e.expect(Errc::released, [&] { return Buffer::create_exportable(Context{}, 0); });  // before the size
}

BAD_INPUT("Buffer::create_exportable: zero bytes") {
  ExtScene e;  // the arguments are checked before the capability: the same answer on every device
  e.expect(Errc::invalid_argument, [&] { return Buffer::create_exportable(e.f.ctx, 0); });
}

BAD_INPUT("Buffer::create_exportable: more bytes than the device's max allocation") {
  ExtScene e;
  const std::size_t max = e.f.ctx.info().max_alloc_bytes;
  e.expect(Errc::out_of_range, [&] { return Buffer::create_exportable(e.f.ctx, max + 1); });
  e.expect(Errc::out_of_range, [&] { return Buffer::create_exportable(e.f.ctx, SIZE_MAX); });
}

BAD_INPUT("Buffer::create_exportable: bad flags") {
  ExtScene e;
  e.expect(Errc::invalid_argument,
           [&] { return Buffer::create_exportable(e.f.ctx, 4096, MemFlags::read_only | MemFlags::write_only); });
  e.expect(Errc::invalid_argument,
           [&] { return Buffer::create_exportable(e.f.ctx, 4096, static_cast<MemFlags>(0x80u)); });
}

BAD_INPUT("Buffer::create_exportable: a device without unified memory") {
  ExtScene e;
  if (!e.exportable()) return;  // checked unsupported
  MESSAGE("the device has unified memory: create_exportable succeeds");
  auto b = Buffer::create_exportable(e.f.ctx, 4096);
  REQUIRE_OK(b);
  CHECK(b->size() == 4096);
}

// ---- Buffer::export_handle ------------------------------------------------------------------------

BAD_INPUT("Buffer::export_handle: released buffer") {
  ExtScene e;
  e.expect(Errc::released, [&] { return Buffer{}.export_handle(); });
  auto b = Buffer::import(e.f.ctx, ExternalMemory::memfd(e.memfd_of(e.page, emt::Seals::fixed), 0, e.page));
  REQUIRE_OK(b);
  Buffer moved = std::move(*b);
  e.expect(Errc::released, [&] { return b->export_handle(); });  // moved-from
  CHECK_OK(moved.release());
  e.expect(Errc::released, [&] { return moved.export_handle(); });
}

BAD_INPUT("Buffer::export_handle: memory that is not a memfd (create, from_host, wrap, a view)") {
  ExtScene e;
  Buffer& made = e.s.make(256);
  e.expect(Errc::unsupported, [&] { return made.export_handle(); });
  auto plain = Buffer::create(e.f.ctx, 4096);
  REQUIRE_OK(plain);
  e.expect(Errc::unsupported, [&] { return plain->export_handle(); });
  std::vector<unsigned char> host(4096, 7);
  Buffer& wrapped = e.s.make_wrapped(host);
  e.expect(Errc::unsupported, [&] { return wrapped.export_handle(); });
  auto view = plain->sub(0, 128);
  REQUIRE_OK(view);
  e.expect(Errc::unsupported, [&] { return view->export_handle(); });
}

BAD_INPUT("Buffer::export_handle: an unsealed memfd import, and a view of it") {
  ExtScene e;
  e.expect(Errc::unsupported, [&] { return e.imported.export_handle(); });
  auto view = e.imported.sub(e.page, e.page);
  REQUIRE_OK(view);
  e.expect(Errc::unsupported, [&] { return view->export_handle(); });
}

BAD_INPUT("Buffer::export_handle: a host-pointer import, a copied import, a sealed memfd given as a dma-buf") {
  ExtScene e;
  void* mem = std::aligned_alloc(4096, 4 * 4096);
  REQUIRE(mem != nullptr);
  {
    auto h = Buffer::import(e.f.ctx, ExternalMemory::host_pointer(mem, 4096));
    REQUIRE_OK(h);
    e.expect(Errc::unsupported, [&] { return h->export_handle(); });
    ImportOptions copy;
    copy.allow_copy = true;
    auto c = Buffer::import(e.f.ctx, ExternalMemory::host_pointer(static_cast<char*>(mem) + 1, 4096), copy);
    REQUIRE_OK(c);
    e.expect(Errc::unsupported, [&] { return c->export_handle(); });
    const int sealed = e.memfd_of(e.page, emt::Seals::fixed);
    auto d = Buffer::import(e.f.ctx, ExternalMemory::dma_buf(sealed, 0, e.page));
    REQUIRE_OK(d);
    if (d->import_path() == ImportPath::mmap_host_ptr)  // a driver's own import path is no memfd either
      e.expect(Errc::unsupported, [&] { return d->export_handle(); });
  }
  std::free(mem);
}
