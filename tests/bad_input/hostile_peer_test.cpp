// Bad inputs a hostile peer sends (issue #29, docs/security.md): fds a peer could shrink under our
// mapping, files passed off as dma-bufs, truncated messages, another pool's block descriptors. As in
// external_test.cpp, every case counts open fds around each bad call (a refused message's fds are
// closed) and re-reads a recorded memfd import. The attacks that need timing (a peer shrinking and
// sealing while we import) are in tests/conformance/hostile_peer_test.cpp.
// Run them with -tc='bad_input: hostile peer*'.
#include <sys/eventfd.h>

#include "bad_input/external_scene.hpp"

using namespace edgemem;
using emt::bad::ext::ExtScene;

// ---- #29 item 1: a memfd must be sealed against shrinking --------------------------------------------

BAD_INPUT("hostile peer: Buffer::import of a memfd not sealed against shrinking (none, grow only, F_SEAL_SEAL only)") {
  ExtScene e;
  const int none = e.memfd_of(e.page, emt::Seals::none);
  const int grow = e.memfd_of(e.page, emt::Seals::none);
  REQUIRE(fcntl(grow, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SEAL) == 0);
  const int plain = e.own(memfd_create("emt-plain", MFD_CLOEXEC));  // F_SEAL_SEAL alone
  REQUIRE(ftruncate(plain, static_cast<off_t>(e.page)) == 0);
  ImportOptions copy;
  copy.allow_copy = true;  // a copy is read through the mapping too: refused the same
  for (const int fd : {none, grow, plain}) {
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(fd, 0, e.page)); });
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(fd, 0, e.page), copy); });
  }
  CHECK(ftruncate(none, 0) == 0);  // nothing was sealed by the refused imports
}

// ---- #29 item 2: only a real dma-buf is a dma-buf ----------------------------------------------------

BAD_INPUT("hostile peer: Buffer::import of an unsealed memfd or a file on disk given as a dma-buf") {
  ExtScene e;
  const int none = e.memfd_of(2 * e.page, emt::Seals::none);
  char path[] = "/tmp/emt-bad-dmabuf-XXXXXX";
  const int file = e.own(mkstemp(path));
  unlink(path);
  REQUIRE(ftruncate(file, static_cast<off_t>(2 * e.page)) == 0);
  for (const int fd : {none, file}) {
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(fd, 0, e.page)); });
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(fd, e.page, e.page)); });
  }
  // A file on disk cannot be sealed, so it is no importable memfd either.
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(file, 0, e.page)); });
}

BAD_INPUT("hostile peer: Buffer::import of an anonymous inode that is no dma-buf (eventfd)") {
  ExtScene e;
  const int ev = e.own(eventfd(0, EFD_CLOEXEC));
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(ev, 0, 8)); });
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(ev, 0, 8)); });
}
