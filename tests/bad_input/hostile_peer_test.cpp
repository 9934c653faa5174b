// Bad inputs a hostile peer sends (issue #29, docs/security.md): fds a peer could shrink under our
// mapping, files passed off as dma-bufs, truncated messages, another pool's block descriptors. As in
// external_test.cpp, every case counts open fds around each bad call (a refused message's fds are
// closed) and re-reads a recorded memfd import. The attacks that need timing (a peer shrinking and
// sealing while we import) are in tests/conformance/hostile_peer_test.cpp.
// Run them with -tc='bad_input: hostile peer*'.
#include <cstring>
#include <utility>
#include <vector>

#include <sys/eventfd.h>
#include <sys/socket.h>

#include "bad_input/external_scene.hpp"

using namespace edgemem;
using emt::bad::ext::ExtScene;

namespace {

/// Sends `bytes` bytes of `data` on `socket` with every fd of `fds` attached (one SCM_RIGHTS message).
bool send_with_fds(int socket, const void* data, std::size_t bytes, const std::vector<int>& fds) {
  iovec iov{const_cast<void*>(data), bytes};
  alignas(cmsghdr) char control[CMSG_SPACE(8 * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(fds.size() * sizeof(int));
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds.data(), fds.size() * sizeof(int));
  }
  return sendmsg(socket, &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(bytes);
}

/// A connected UNIX socket pair of `type` (SOCK_SEQPACKET, SOCK_DGRAM), owned by the case.
std::pair<int, int> socket_pair(ExtScene& e, int type) {
  int sv[2] = {-1, -1};
  CHECK(socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) == 0);
  return {e.own(sv[0]), e.own(sv[1])};
}

}  // namespace

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

BAD_INPUT("hostile peer: Buffer::import of a hugetlbfs memfd, sealed (a hole the peer punches may not be refilled: SIGBUS)") {
  ExtScene e;
  const int huge = memfd_create("emt-huge", MFD_CLOEXEC | MFD_HUGETLB | MFD_ALLOW_SEALING);
  const std::size_t bytes = std::size_t{2} << 20;  // one x86 / arm64 (4 KiB granule) huge page
  if (huge < 0 || ftruncate(huge, static_cast<off_t>(bytes)) != 0 ||
      fcntl(huge, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) {
    MESSAGE("no sealable 2 MiB hugetlbfs memfd here (" << std::strerror(errno) << "): nothing to refuse");
    if (huge >= 0) close(huge);
    return;
  }
  e.own(huge);
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(huge, 0, bytes)); });
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, ExternalMemory::dma_buf(huge, 0, bytes)); });
  IpcHandle h = [&] {
    auto made = IpcHandle::adopt(fcntl(huge, F_DUPFD_CLOEXEC, 0), e.descriptor(0, bytes));
    CHECK_OK(made);
    return made ? std::move(*made) : IpcHandle{};
  }();
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, std::move(h)); }, -1);
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

// ---- #29 item 9: truncated messages ------------------------------------------------------------------

BAD_INPUT("hostile peer: IpcHandle::receive of a message longer than a handle (SEQPACKET, DGRAM: MSG_TRUNC; its fd is closed)") {
  ExtScene e;
  const int sealed = e.memfd_of(e.page, emt::Seals::fixed);
  std::vector<unsigned char> big(4096, 0xab);  // a valid descriptor first, then 4,096 - sizeof of junk
  const IpcDescriptor d = e.descriptor(0, e.page);
  std::memcpy(big.data(), &d, sizeof d);
  for (const int type : {SOCK_SEQPACKET, SOCK_DGRAM}) {
    CAPTURE(type);
    const auto sv = socket_pair(e, type);
    REQUIRE(send_with_fds(sv.first, big.data(), big.size(), {sealed}));
    e.expect(Errc::invalid_argument, [&] { return IpcHandle::receive(sv.second); });
    REQUIRE(send_with_fds(sv.first, big.data(), sizeof d + 1, {}));  // one byte more, no fd
    e.expect(Errc::invalid_argument, [&] { return IpcHandle::receive(sv.second); });
    // The socket is still usable: a whole handle after the refused ones is received.
    REQUIRE(send_with_fds(sv.first, &d, sizeof d, {sealed}));
    auto h = IpcHandle::receive(sv.second);
    CHECK_OK(h);
  }
}

BAD_INPUT("hostile peer: IpcHandle::receive of a handle with more fds than it carries (MSG_CTRUNC; every fd is closed)") {
  ExtScene e;
  const int a = e.memfd_of(e.page, emt::Seals::fixed);
  const int b = e.memfd_of(e.page, emt::Seals::fixed);
  const IpcDescriptor d = e.descriptor(0, e.page);
  for (const int type : {SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM}) {
    CAPTURE(type);
    const auto sv = socket_pair(e, type);
    // Two fds, one more than a handle: receive has room for both and refuses the message, closing
    // both (with more, the kernel closes those past the room and sets MSG_CTRUNC, which qemu-user does
    // not emulate: its own receive buffer keeps them open, so the cross suite could not count fds).
    REQUIRE(send_with_fds(sv.first, &d, sizeof d, {a, b}));
    e.expect(Errc::invalid_argument, [&] { return IpcHandle::receive(sv.second); });
  }
}

// ---- #29 item 8: a block of another pool -------------------------------------------------------------

BAD_INPUT("hostile peer: ImportedPool::block of a descriptor of another pool in the same memfd") {
  ExtScene e;
  const std::size_t block = 4096, count = 2;
  if (block % e.f.align() != 0) {
    MESSAGE("base alignment " << e.f.align() << " is over 4096 bytes: no such pool here");
    return;
  }
  const int fd = e.memfd_of(2 * count * block, emt::Seals::fixed);
  FixedPool<2> pools[2];
  ImportedPool attached[2];
  BlockDescriptor desc[2];
  std::vector<PooledBuffer> held;
  for (int p = 0; p < 2; ++p) {
    auto imp = Buffer::import(e.f.ctx, ExternalMemory::memfd(fd, p * count * block, count * block));
    REQUIRE_OK(imp);
    Buffer views[count];
    for (std::size_t i = 0; i < count; ++i) {
      auto v = imp->sub(i * block, block);
      REQUIRE_OK(v);
      views[i] = std::move(*v);
    }
    auto made = pools[p].init_over(e.f.ctx, e.f.q, views, count, block);
    REQUIRE_OK(made);
    auto h = pools[p].export_handle();
    REQUIRE_OK(h);
    auto a = ImportedPool::attach(e.f.ctx, std::move(*h));
    REQUIRE_OK(a);
    attached[p] = std::move(*a);
    auto blk = pools[p].acquire();
    REQUIRE_OK(blk);
    auto d = pools[p].descriptor(*blk);
    REQUIRE_OK(d);
    desc[p] = *d;
    held.push_back(std::move(*blk));
    e.s.watch(pools[p]);
  }
  e.expect(Errc::invalid_argument, [&] { return attached[1].block(desc[0]); });
  e.expect(Errc::invalid_argument, [&] { return attached[0].block(desc[1]); });
}
