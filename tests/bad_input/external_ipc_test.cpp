// Bad inputs to IPC handles (ipc_handle.hpp): Buffer::import(ctx, IpcHandle&&), IpcHandle::adopt,
// send and receive. As in external_test.cpp, every case also counts open fds (a call that consumes an
// fd the case made says so: fd_delta -1) and re-reads a recorded memfd import. The handles are made
// with IpcHandle::adopt over the case's own memfds, so these cases need no exportable memory and run
// on every device. Run them with -tc='bad_input: Buffer::import(IpcHandle)*,bad_input: IpcHandle*'.
#include <cstdint>
#include <cstring>
#include <utility>

#include <sys/socket.h>

#include "bad_input/external_scene.hpp"

using namespace edgemem;
using emt::bad::ext::ExtScene;

namespace {

/// Sends `bytes` bytes of `data` on `socket`, with `fd` attached (SCM_RIGHTS) unless it is negative.
bool send_raw(int socket, const void* data, std::size_t bytes, int fd) {
  iovec iov{const_cast<void*>(data), bytes};
  union {
    char bytes[CMSG_SPACE(sizeof(int))];
    cmsghdr align;
  } control{};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (fd >= 0) {
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  return sendmsg(socket, &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(bytes);
}

}  // namespace

// ---- Buffer::import(ctx, IpcHandle&&, flags) -------------------------------------------------------

BAD_INPUT("Buffer::import(IpcHandle): an empty handle") {
  ExtScene e;
  e.expect(Errc::released, [&] { return Buffer::import(e.f.ctx, IpcHandle{}); });
  IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(0, e.page));
  IpcHandle moved = std::move(h);
  e.expect(Errc::released, [&] { return Buffer::import(e.f.ctx, std::move(h)); });  // moved-from
  const int fd = moved.release_fd();
  e.expect(Errc::released, [&] { return Buffer::import(e.f.ctx, std::move(moved)); });  // given up
  e.own(fd);
}

BAD_INPUT("Buffer::import(IpcHandle): a handle used twice") {
  ExtScene e;
  IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(0, e.page));
  auto first = Buffer::import(e.f.ctx, std::move(h));
  REQUIRE_OK(first);
  e.s.watch(*first);
  CHECK_FALSE(h.valid());
  e.expect(Errc::released, [&] { return Buffer::import(e.f.ctx, std::move(h)); });
}

BAD_INPUT("Buffer::import(IpcHandle): released context (the handle is consumed)") {
  ExtScene e;
  IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(0, e.page));
  e.expect(Errc::released, [&] { return Buffer::import(Context{}, std::move(h)); }, -1);
  CHECK_FALSE(h.valid());
}

BAD_INPUT("Buffer::import(IpcHandle): another device's uuid") {
  ExtScene e;
  IpcDescriptor other = e.descriptor(0, e.page);
  other.has_uuid = 1;
  other.uuid[0] ^= 0xff;
  other.uuid[15] ^= 0x01;
  IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, other);
  if (!e.f.ctx.info().has_uuid) {  // nothing to compare with: the import goes ahead
    MESSAGE("the device has no uuid: a handle's uuid is not checked");
    auto b = Buffer::import(e.f.ctx, std::move(h));
    CHECK_OK(b);
    return;
  }
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, std::move(h)); }, -1);
}

BAD_INPUT("Buffer::import(IpcHandle): an unsealed memfd in the handle") {
  ExtScene e;
  IpcHandle h = e.handle_of(e.page, emt::Seals::none, e.descriptor(0, e.page));
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, std::move(h)); }, -1);
  // Sealed against growing only: still resizable by a peer.
  const int fd = emt::make_memfd(e.page, emt::Seals::none);
  REQUIRE(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW) == 0);
  auto half = IpcHandle::adopt(fd, e.descriptor(0, e.page));
  REQUIRE_OK(half);
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, std::move(*half)); }, -1);
}

BAD_INPUT("Buffer::import(IpcHandle): a pipe or a socket in the handle") {
  ExtScene e;
  int p[2];
  REQUIRE(pipe2(p, O_CLOEXEC) == 0);
  close(p[1]);
  auto hp = IpcHandle::adopt(p[0], e.descriptor(0, e.page));
  REQUIRE_OK(hp);
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, std::move(*hp)); }, -1);
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
  close(sv[1]);
  auto hs = IpcHandle::adopt(sv[0], e.descriptor(0, e.page));
  REQUIRE_OK(hs);
  e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, std::move(*hs)); }, -1);
}

BAD_INPUT("Buffer::import(IpcHandle): offset + bytes past the memfd") {
  ExtScene e;
  for (const auto& ob : {std::pair<std::size_t, std::size_t>{e.page, e.page}, {0, 2 * e.page}, {e.page - 1, 2},
                         {SIZE_MAX - e.page, e.page}}) {
    IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(ob.first, ob.second));
    e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, std::move(h)); }, -1);
  }
}

BAD_INPUT("Buffer::import(IpcHandle): more bytes than the device's max allocation") {
  ExtScene e;
  IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(0, e.f.ctx.info().max_alloc_bytes + 1));
  e.expect(Errc::out_of_range, [&] { return Buffer::import(e.f.ctx, std::move(h)); }, -1);
}

BAD_INPUT("Buffer::import(IpcHandle): bad flags") {
  ExtScene e;
  for (const MemFlags bad : {MemFlags::read_only | MemFlags::write_only, static_cast<MemFlags>(1u << 6)}) {
    IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(0, e.page));
    e.expect(Errc::invalid_argument, [&] { return Buffer::import(e.f.ctx, std::move(h), bad); }, -1);
  }
}

BAD_INPUT("Buffer::import(IpcHandle): an offset that misses the alignment rule") {
  ExtScene e;
  const std::size_t align = e.f.align();
  if (align < 2 || align > e.page) {
    MESSAGE("base alignment " << align << ": every offset is aligned on this device");
    return;
  }
  // A handle has no allow_copy: misaligned memory is refused.
  IpcHandle h = e.handle_of(2 * e.page, emt::Seals::fixed, e.descriptor(align / 2, e.page));
  e.expect(Errc::misaligned, [&] { return Buffer::import(e.f.ctx, std::move(h)); }, -1);
}

// ---- IpcHandle::adopt ------------------------------------------------------------------------------

BAD_INPUT("IpcHandle::adopt: negative fd") {
  ExtScene e;
  e.expect(Errc::invalid_argument, [&] { return IpcHandle::adopt(-1, e.descriptor(0, e.page)); });
  e.expect(Errc::invalid_argument, [&] { return IpcHandle::adopt(-7, e.descriptor(0, e.page)); });
}

BAD_INPUT("IpcHandle::adopt: a descriptor of another magic (the fd is closed)") {
  ExtScene e;
  for (const std::uint32_t magic : {IpcDescriptor::kMagic ^ 1u, 0u, 0x4544444du}) {
    IpcDescriptor d = e.descriptor(0, e.page);
    d.magic = magic;
    e.expect(Errc::invalid_argument, [&] { return IpcHandle::adopt(emt::make_memfd(e.page, emt::Seals::fixed), d); });
  }
}

BAD_INPUT("IpcHandle::adopt: a descriptor of another version (the fd is closed)") {
  ExtScene e;
  for (const int version : {0, IpcDescriptor::kVersion - 1, IpcDescriptor::kVersion + 1, 0xffff}) {
    IpcDescriptor d = e.descriptor(0, e.page);
    d.version = static_cast<std::uint16_t>(version);
    e.expect(Errc::invalid_argument, [&] { return IpcHandle::adopt(emt::make_memfd(e.page, emt::Seals::fixed), d); });
  }
}

BAD_INPUT("IpcHandle::adopt: a pool descriptor without an identity (pool_id 0; the fd is closed)") {
  ExtScene e;
  IpcDescriptor d = e.descriptor(0, 4 * e.page);
  d.kind = ExportKind::pool;
  d.block_count = 4;
  d.block_bytes = e.page;
  d.pool_id = 0;
  e.expect(Errc::invalid_argument, [&] { return IpcHandle::adopt(emt::make_memfd(4 * e.page, emt::Seals::fixed), d); });
  d.pool_id = 29;  // the same descriptor with an identity is taken
  auto h = IpcHandle::adopt(emt::make_memfd(4 * e.page, emt::Seals::fixed), d);
  CHECK_OK(h);
}

BAD_INPUT("IpcHandle::adopt: zero bytes (the fd is closed)") {
  ExtScene e;
  e.expect(Errc::invalid_argument, [&] { return IpcHandle::adopt(emt::make_memfd(e.page, emt::Seals::fixed), e.descriptor(0, 0)); });
  e.expect(Errc::invalid_argument,
           [&] { return IpcHandle::adopt(emt::make_memfd(e.page, emt::Seals::fixed), e.descriptor(e.page, 0)); });
}

BAD_INPUT("IpcHandle::adopt: offset + bytes overflowing (the fd is closed)") {
  ExtScene e;
  e.expect(Errc::invalid_argument,
           [&] { return IpcHandle::adopt(emt::make_memfd(e.page, emt::Seals::fixed), e.descriptor(SIZE_MAX, 2)); });
  e.expect(Errc::invalid_argument,
           [&] { return IpcHandle::adopt(emt::make_memfd(e.page, emt::Seals::fixed), e.descriptor(2, SIZE_MAX)); });
}

// ---- IpcHandle::send -------------------------------------------------------------------------------

BAD_INPUT("IpcHandle::send: an empty handle") {
  ExtScene e;
  const auto sv = e.socket_pair();
  e.expect(Errc::released, [&] { return IpcHandle{}.send(sv.first); });
  IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(0, e.page));
  IpcHandle moved = std::move(h);
  e.expect(Errc::released, [&] { return h.send(sv.first); });
}

BAD_INPUT("IpcHandle::send: not a socket (pipe, memfd, closed fd, -1)") {
  ExtScene e;
  IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(0, e.page));
  const auto p = e.pipe_pair();
  for (const int fd : {p.second, p.first, e.memfd, ExtScene::closed_fd(), -1}) {
    e.expect(Errc::invalid_argument, [&] { return h.send(fd); });
    CHECK(h.valid());  // the handle is kept
  }
}

BAD_INPUT("IpcHandle::send: the peer closed the connection") {
  ExtScene e;
  IpcHandle h = e.handle_of(e.page, emt::Seals::fixed, e.descriptor(0, e.page));
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
  close(sv[1]);
  e.own(sv[0]);
  e.expect(Errc::released, [&] { return h.send(sv[0]); });
  CHECK(h.valid());
}

// ---- IpcHandle::receive ----------------------------------------------------------------------------

BAD_INPUT("IpcHandle::receive: not a socket (pipe, memfd, closed fd, -1)") {
  ExtScene e;
  const auto p = e.pipe_pair();
  REQUIRE(write(p.second, "x", 1) == 1);  // so a read of the pipe would not block
  for (const int fd : {p.first, e.memfd, ExtScene::closed_fd(), -1})
    e.expect(Errc::invalid_argument, [&] { return IpcHandle::receive(fd); });
}

BAD_INPUT("IpcHandle::receive: the peer closed the connection") {
  ExtScene e;
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
  close(sv[0]);
  e.own(sv[1]);
  e.expect(Errc::released, [&] { return IpcHandle::receive(sv[1]); });
}

BAD_INPUT("IpcHandle::receive: a junk message, with and without an fd (any fd is closed)") {
  ExtScene e;
  const auto sv = e.socket_pair();
  const char junk[5] = "junk";
  REQUIRE(send_raw(sv.first, junk, sizeof junk, -1));
  e.expect(Errc::invalid_argument, [&] { return IpcHandle::receive(sv.second); });
  REQUIRE(send_raw(sv.first, junk, sizeof junk, e.memfd));
  e.expect(Errc::invalid_argument, [&] { return IpcHandle::receive(sv.second); });
}

BAD_INPUT("IpcHandle::receive: a handle-sized message without an fd") {
  ExtScene e;
  const auto sv = e.socket_pair();
  const IpcDescriptor d = e.descriptor(0, e.page);
  REQUIRE(send_raw(sv.first, &d, sizeof d, -1));
  e.expect(Errc::invalid_argument, [&] { return IpcHandle::receive(sv.second); });
}

BAD_INPUT("IpcHandle::receive: a handle-sized message of another magic or version (its fd is closed)") {
  ExtScene e;
  const auto sv = e.socket_pair();
  IpcDescriptor d = e.descriptor(0, e.page);
  d.magic = 0x12345678u;
  REQUIRE(send_raw(sv.first, &d, sizeof d, e.memfd));
  e.expect(Errc::invalid_argument, [&] { return IpcHandle::receive(sv.second); });
  d = e.descriptor(0, e.page);
  d.version = IpcDescriptor::kVersion + 1;
  REQUIRE(send_raw(sv.first, &d, sizeof d, e.memfd));
  e.expect(Errc::invalid_argument, [&] { return IpcHandle::receive(sv.second); });
  d = e.descriptor(0, 0);  // zero bytes
  REQUIRE(send_raw(sv.first, &d, sizeof d, e.memfd));
  e.expect(Errc::invalid_argument, [&] { return IpcHandle::receive(sv.second); });
}
