// IpcHandle: an exported memory object's fd and descriptor, and their trip over a UNIX socket
// (SCM_RIGHTS).
#include <edgemem/ipc_handle.hpp>

#include <cerrno>
#include <cstring>

#if defined(__linux__)
#include <sys/socket.h>
#include <sys/stat.h>
#define EDGEMEM_HAS_SCM_RIGHTS 1
#else
#define EDGEMEM_HAS_SCM_RIGHTS 0
#endif

#include "external/fd_memory.hpp"

namespace edgemem {

Result<IpcHandle> IpcHandle::adopt(int fd, const IpcDescriptor& desc) noexcept {
  if (fd < 0) return fail(Errc::invalid_argument, "the fd is negative");
  auto fits = [](std::uint64_t v) { return static_cast<std::size_t>(v) == v; };  // 32-bit size_t builds
  const char* bad = desc.magic != IpcDescriptor::kMagic       ? "not an edgemem IPC descriptor (magic)"
                    : desc.version != IpcDescriptor::kVersion ? "an IPC descriptor of another version"
                    : desc.bytes == 0                         ? "an IPC descriptor of zero bytes"
                    : desc.offset + desc.bytes < desc.offset  ? "an IPC descriptor whose offset + bytes overflows"
                    : !fits(desc.offset + desc.bytes) || !fits(desc.block_bytes)
                        ? "an IPC descriptor larger than this process can address"
                    : desc.kind != ExportKind::buffer && desc.kind != ExportKind::pool ? "an IPC descriptor of unknown kind"
                    : desc.kind == ExportKind::pool &&
                            (desc.block_count == 0 || desc.block_bytes == 0 ||
                             desc.block_bytes > desc.bytes / desc.block_count)
                        ? "a pool descriptor whose blocks do not fit its bytes"
                    : desc.kind == ExportKind::pool && desc.pool_id == 0 ? "a pool descriptor without an identity (pool_id 0)"
                                                                         : nullptr;
  if (bad != nullptr) {
    detail::close_fd(fd);
    return fail(Errc::invalid_argument, bad);
  }
  return IpcHandle(fd, desc);
}

#if EDGEMEM_HAS_SCM_RIGHTS
namespace {

/// The Errc of a failed sendmsg / recvmsg on `socket`.
Error socket_error(int socket, const char* what) noexcept {
  const int err = errno;
  struct stat st {};
  if (err == EBADF || err == ENOTSOCK || (fstat(socket, &st) == 0 && !S_ISSOCK(st.st_mode)))
    return Error{Errc::invalid_argument, err, "not a socket"};
  if (err == EPIPE || err == ECONNRESET) return Error{Errc::released, err, "the peer closed the connection"};
  return Error{Errc::backend_failure, err, what};
}

/// One message of a handle: the descriptor's bytes and room for `fds` fds (1 to send; 2 to receive, so
/// a second fd is seen and refused even where MSG_CTRUNC is not reported, as under qemu-user). Not
/// movable (msg points at it).
struct Message {
  iovec iov;
  msghdr msg{};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  Message(IpcDescriptor* desc, std::size_t fds) noexcept : iov{desc, sizeof *desc} {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(fds * sizeof(int));
  }
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;
};

}  // namespace

Result<void> IpcHandle::send(int socket) const noexcept {
  if (!valid()) return fail(Errc::released, "the IPC handle is empty");
  IpcDescriptor desc = desc_;
  Message m(&desc, 1);
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  const int fd = fd_.get();
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  ssize_t sent;
  do {
    sent = sendmsg(socket, &m.msg, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) return fail(socket_error(socket, "sendmsg failed"));
  if (static_cast<std::size_t>(sent) != sizeof desc) return fail(Errc::backend_failure, "sendmsg sent part of a handle");
  return {};
}

Result<IpcHandle> IpcHandle::receive(int socket) noexcept {
  IpcDescriptor desc;
  Message m(&desc, 2);
  msghdr& msg = m.msg;
  ssize_t got;
  do {
    got = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return fail(socket_error(socket, "recvmsg failed"));
  int fd = -1;
  std::size_t fds = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < n; ++i) {
      int received;
      std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      ++fds;
      if (fd < 0) fd = received;
      else detail::close_fd(received);  // a handle carries one fd
    }
  }
  // A message that did not fit (SEQPACKET / DGRAM: the rest of it was dropped) or whose fds did not
  // all fit (the kernel closed those) is no handle, whatever its first bytes say: refused, with the
  // fds that did arrive closed. (A STREAM socket has no message boundaries: a longer "message" leaves
  // its tail in the stream, and the next receive refuses it as a descriptor of another magic.)
  const bool truncated = (msg.msg_flags & MSG_TRUNC) != 0;
  const bool fds_truncated = (msg.msg_flags & MSG_CTRUNC) != 0 || fds > 1;
  if (got == 0 && fd < 0 && !truncated && !fds_truncated) return fail(Errc::released, "the peer closed the connection");
  const char* bad = truncated                                      ? "the message is longer than an IPC handle (MSG_TRUNC)"
                    : fds_truncated                                ? "the message carries more fds than an IPC handle"
                    : static_cast<std::size_t>(got) != sizeof desc ? "the message is not an IPC handle (its size)"
                    : fd < 0                                       ? "the message carries no fd"
                                                                   : nullptr;
  if (bad != nullptr) {
    if (fd >= 0) detail::close_fd(fd);
    return fail(Errc::invalid_argument, bad);
  }
  return adopt(fd, desc);
}

#else

Result<void> IpcHandle::send(int) const noexcept { return fail(Errc::unsupported, "no UNIX sockets on this system"); }
Result<IpcHandle> IpcHandle::receive(int) noexcept { return fail(Errc::unsupported, "no UNIX sockets on this system"); }

#endif

}  // namespace edgemem
