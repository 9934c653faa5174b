/// @file ipc_handle.hpp  IpcHandle: exported memory on its way to another process (cuda.core's IPC
/// descriptor: Buffer::get_ipc_descriptor / Buffer.from_ipc_descriptor). It owns one file descriptor
/// (a sealed memfd: F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL, so no peer can resize it) and a small
/// copyable descriptor: offset, size and the identity of the device that made it. Move-only, RAII
/// (closes its fd).
///
/// The pattern: the producer makes Buffer::create_exportable(ctx, bytes), takes export_handle() and
/// send()s it over a UNIX socket (SCM_RIGHTS); the consumer receive()s it and makes
/// Buffer::import(ctx, std::move(handle)): both buffers are the same memory, with no copy. Ordering
/// across processes is yours (e.g. finish the producer's queue, then send a message).
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/handle.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

/// What an IpcHandle exports.
enum class ExportKind : std::uint16_t {
  buffer = 1,  ///< a buffer or view (Buffer::export_handle): import with Buffer::import
  pool = 2,    ///< a whole FixedPool or FrameRing (export_handle()): attach with ImportedPool::attach
};

/// What a peer may do with exportable memory (Buffer::create_exportable), fixed when it is made.
enum class PeerAccess : std::uint8_t {
  read_write = 0,  ///< a peer may read and write it (its import may be read-write)
  /// a peer may only read it: the memfd is sealed F_SEAL_FUTURE_WRITE once the producer has mapped it,
  /// so no fd of it (also one a peer reopens through /proc/<pid>/fd) can write() it or map it writable;
  /// a peer must import it with MemFlags::read_only (else Errc::access_denied). The producer keeps
  /// writing through its own mapping.
  read_only = 1,
};

/// What crosses the process boundary besides the fd (sent as plain bytes by IpcHandle::send).
struct IpcDescriptor {
  static constexpr std::uint32_t kMagic = 0x4d4d4445u;  ///< "EDMM"
  static constexpr std::uint16_t kVersion = 2;           ///< this layout's version (2: pool_id)
  std::uint32_t magic = kMagic;    ///< kMagic
  std::uint16_t version = kVersion;  ///< kVersion
  std::uint16_t has_uuid = 0;      ///< 1 when `uuid` names the exporting device
  std::uint64_t offset = 0;        ///< bytes into the fd where the memory starts
  std::uint64_t bytes = 0;         ///< size in bytes
  std::uint8_t uuid[16] = {};      ///< DeviceInfo::uuid of the exporting device
  ExportKind kind = ExportKind::buffer;  ///< what was exported
  std::uint16_t reserved = 0;      ///< 0
  std::uint32_t block_count = 0;   ///< pool: its blocks (0 for a buffer)
  std::uint64_t block_bytes = 0;   ///< pool: bytes per block, laid out back to back from `offset`
  /// pool: its identity, a random 64-bit number drawn when its memory was made (never 0), carried by
  /// every BlockDescriptor of it; 0 for a buffer.
  std::uint64_t pool_id = 0;
};

/// One block of an exported pool, for the process that attached it (ImportedPool::block): small,
/// copyable, sent however the two processes like (a socket, a shared queue), no fd.
struct BlockDescriptor {
  /// The pool's identity (IpcDescriptor::pool_id: a random number of its own, not its file's), so a
  /// block of another pool is refused, also of one living in the same memfd.
  std::uint64_t pool = 0;
  std::uint32_t index = 0;  ///< the block's index in its pool (PooledBuffer::slot())
  std::uint32_t reserved = 0;  ///< 0
};

/// An exported memory object's fd and descriptor.
class IpcHandle {
 public:
  /// Takes ownership of `fd` (closed by this handle) described by `desc`, e.g. one a process received
  /// by its own means. Errc: invalid_argument (fd < 0, a descriptor of another magic or version, bytes
  /// == 0, offset + bytes overflowing, an unknown kind, a pool whose blocks do not fit `bytes` or whose
  /// pool_id is 0; `fd` is closed).
  [[nodiscard]] static Result<IpcHandle> adopt(int fd, const IpcDescriptor& desc) noexcept;
  /// Receives one handle send() sent on the connected UNIX socket `socket` (blocking; a STREAM,
  /// SEQPACKET or DGRAM socket). Errc: invalid_argument (not a socket, or a message that is not a
  /// handle: of another size, longer than a handle (MSG_TRUNC), with more than one fd (MSG_CTRUNC) or
  /// none, or a descriptor adopt() refuses; every fd it carried is closed), released (the peer closed
  /// the connection), backend_failure (recvmsg failed; Error::native is errno).
  [[nodiscard]] static Result<IpcHandle> receive(int socket) noexcept;

  IpcHandle() noexcept = default;  ///< an empty (released) handle
  IpcHandle(IpcHandle&& other) noexcept = default;             ///< takes over `other`, leaving it empty
  IpcHandle& operator=(IpcHandle&& other) noexcept = default;  ///< closes this fd, then takes over `other`
  ~IpcHandle() = default;                                      ///< closes the fd

  /// Sends the descriptor and a duplicate of the fd on the connected UNIX socket `socket` (SCM_RIGHTS,
  /// no SIGPIPE); this handle stays valid. Errc: released (empty handle, or the peer closed the
  /// connection), invalid_argument (not a socket), backend_failure (sendmsg failed; Error::native is errno).
  [[nodiscard]] Result<void> send(int socket) const noexcept;

  /// True while it holds an fd (not moved from, not consumed by Buffer::import).
  [[nodiscard]] bool valid() const noexcept { return fd_.get() >= 0; }
  /// The fd it owns (-1 when empty); still owned by the handle.
  [[nodiscard]] int fd() const noexcept { return fd_.get(); }
  /// The descriptor (offset, size, device identity).
  [[nodiscard]] const IpcDescriptor& descriptor() const noexcept { return desc_; }
  /// Gives up the fd to the caller, leaving the handle empty (-1 when it was empty).
  [[nodiscard]] int release_fd() noexcept { return fd_.release(); }

 private:
  IpcHandle(int fd, const IpcDescriptor& desc) noexcept : fd_(fd), desc_(desc) {}
  detail::UniqueFd fd_;
  IpcDescriptor desc_{};
};

}  // namespace edgemem
