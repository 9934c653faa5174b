// The operating system's side of external memory (POSIX / Linux): checking, duplicating and mapping
// file descriptors, sealed memfds, dma-buf host-access bracketing. No backend code: every backend's
// imports and exports use it.
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/external.hpp>
#include <edgemem/handle.hpp>  // close_fd, UniqueFd
#include <edgemem/result.hpp>

#include "core/nodes.hpp"

namespace edgemem::detail {

/// The seals a memfd must carry to be shared: no peer can shrink or grow it.
inline constexpr int kRequiredSeals = 0x0002 /*F_SEAL_SHRINK*/ | 0x0004 /*F_SEAL_GROW*/;

/// An import's hold on foreign memory: its own fd (a duplicate) and its mapping; freed by release.
struct FdRecord : ExternalRef {
  void* map_base = nullptr;   // the mmap (page-aligned), or null
  std::size_t map_bytes = 0;  // its length
};

/// What check_fd_memory found behind an fd.
enum class FdKind : std::uint8_t {
  opaque,       ///< an opaque fd: only its driver knows it (not checked here)
  dma_buf,      ///< a real dma-buf (the kernel's dma-buf filesystem): fixed size, DMA_BUF_IOCTL_SYNC applies
  sealed_file,  ///< a regular file (a memfd) sealed against shrinking: mapped, never a dma-buf
};

/// Checks `m` against its fd: open, of the right kind, `offset + bytes` within its size (fstat for
/// a memfd, lseek for a dma-buf). A memfd, or a regular file given as a dma-buf, must carry
/// F_SEAL_SHRINK (and F_SEAL_GROW when `require_sealed`), read before its size, so the checked bytes
/// stay for as long as the fd lives; a dma-buf must be a real one (DMA_BUF_MAGIC). Returns what the fd
/// is. Errc: invalid_argument (closed, wrong kind, not sealed), out_of_range (past the end).
Result<FdKind> check_fd_memory(const ExternalMemory& m, bool require_sealed) noexcept;

/// A random 64-bit number, never 0 (getrandom; a clock, address and counter mix where it fails): the
/// identity of exportable memory and so of a pool over it (ExternalRef::identity).
std::uint64_t random_identity() noexcept;

/// True when `fd` carries every seal of kRequiredSeals.
bool fd_sealed(int fd) noexcept;

/// True when no writable shared mapping of `fd` can be made: it was opened O_RDONLY, or its file is
/// sealed F_SEAL_WRITE or F_SEAL_FUTURE_WRITE (a read-only export).
bool fd_read_only(int fd) noexcept;

/// True when `fd`'s file is sealed against writes (F_SEAL_WRITE or F_SEAL_FUTURE_WRITE): no holder of
/// it, whatever its fd's access mode or however it reopens it (/proc/<pid>/fd), can write it.
bool fd_write_sealed(int fd) noexcept;

/// The size in bytes of the file behind `fd` (fstat), or 0 when it cannot be read.
std::uint64_t fd_size(int fd) noexcept;

/// The system page size in bytes.
std::size_t page_bytes() noexcept;

/// A duplicate of `fd`, close-on-exec. Errc: backend_failure (dup failed; native: errno).
Result<int> dup_fd(int fd) noexcept;

/// A record owning a duplicate of `fd` (close-on-exec) with no mapping, in allocator-policy memory.
/// Errc: out_of_host_memory, backend_failure (dup failed; native: errno).
Result<FdRecord*> make_fd_record(int fd) noexcept;

/// A record that takes over `fd` (already owned by the caller; closed by the record, also when this
/// fails). Errc: out_of_host_memory.
Result<FdRecord*> adopt_fd_record(int fd) noexcept;

/// Maps `bytes` bytes at byte `offset` of `r->fd` shared, writable unless `read_only`, into r's
/// mapping; returns the first byte. Errc: backend_failure (mmap failed; native: errno), unsupported
/// (no mmap on this system).
Result<std::byte*> map_fd(FdRecord* r, std::size_t offset, std::size_t bytes, bool read_only) noexcept;

/// A new memfd of `bytes` bytes (rounded up to pages), close-on-exec, sealed against shrinking and
/// growing; not yet F_SEAL_SEAL (finish_sealing). Errc: unsupported (no memfd on this system),
/// out_of_host_memory (no pages), backend_failure (memfd_create, ftruncate or fcntl failed; native: errno).
Result<int> make_sealed_memfd(std::size_t bytes) noexcept;

/// Seals a memfd of make_sealed_memfd for good (F_SEAL_SEAL), with F_SEAL_FUTURE_WRITE first when
/// `peer_read_only`: mappings made before it stay writable, and no fd of the file (a peer's, or one it
/// reopens through /proc) can write it or map it writable again. Errc: unsupported (the kernel has no
/// F_SEAL_FUTURE_WRITE: before 5.1), backend_failure (fcntl failed; native: errno).
Result<void> finish_sealing(int fd, bool peer_read_only) noexcept;

/// The host-access bracket of an mmap'ed import of `m` (what check_fd_memory found: `kind`):
/// DMA_BUF_IOCTL_SYNC for a real dma-buf; for a memfd given as a dma-buf while a DmaBufSyncObserver is
/// installed (test builds), a bracket that reaches only the observer; null otherwise.
using HostAccessFn = void (*)(ExternalRef* self, bool start, Access access) noexcept;
HostAccessFn host_access_for(const ExternalMemory& m, FdKind kind) noexcept;

}  // namespace edgemem::detail
