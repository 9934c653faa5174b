/// @file external.hpp  Foreign memory for Buffer::import: a dma-buf (V4L2 VIDIOC_EXPBUF, libcamera
/// FrameBuffer planes), an opaque fd (Vulkan / CUDA exports), a memfd, or a host pointer; and how
/// the import reached it (Buffer::import_path()).
///
/// Buffer::import tries the device's zero-copy paths in this fixed order and takes the first that
/// works: cl_khr_external_memory_dma_buf (dma-buf), cl_arm_import_memory with DMA_BUF (dma-buf),
/// cl_khr_external_memory_opaque_fd (opaque fd), then mmap of the fd + CL_MEM_USE_HOST_PTR (dma-buf
/// and memfd; the host backend uses the mapping directly) when the mapped address is a multiple of
/// DeviceInfo::base_align_bytes, and for a host pointer CL_MEM_USE_HOST_PTR under the same rule. Only
/// when none works, and ImportOptions::allow_copy says so, is the memory copied into a new buffer
/// (ImportPath::copy: later writes to the foreign memory are not seen).
///
/// Caller memory's rule (OpenCL's for CL_MEM_USE_HOST_PTR, and so for the mmap and host pointer paths):
/// a device may keep its own copy, as discrete GPUs do. Bytes the device wrote reach the memory (and
/// the fd's other users) after a map of them (Queue::map, any access, then unmap); bytes written into
/// the memory from outside (the fd, another process, a camera) reach the device after a
/// write_discard map and unmap of them. On unified-memory devices both are free, as they are on the
/// host backend.
///
/// A memfd (or another regular file) is imported only when sealed against shrinking (F_SEAL_SHRINK,
/// read before its size): a peer holding the same file could otherwise truncate it under edgemem's
/// mapping and the next access would be SIGBUS (docs/security.md). Seal your own memfds with
/// fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) (memfd_create(..., MFD_ALLOW_SEALING)); a file that takes no
/// seals (a file on disk, shm_open) is refused, and so is a hugetlbfs memfd (MFD_HUGETLB: a peer may
/// punch holes in it that an empty huge page pool cannot refill, SIGBUS again): mmap such memory
/// yourself and import the pointer (HandleType::host_pointer), which keeps the risk of that mapping
/// yours. A dma-buf must be a real one (a file of the kernel's dma-buf filesystem, DMA_BUF_MAGIC;
/// "anon_inode:dmabuf" on kernels before 5.3), whose size its exporter fixes; a regular file given as
/// a dma-buf is taken only when it is a memfd sealed against shrinking (a stand-in, e.g. in tests),
/// mapped like a memfd and never handed to the driver's dma-buf paths or DMA_BUF_IOCTL_SYNC; anything
/// else is Errc::invalid_argument.
///
/// The fd is duplicated: the caller keeps (and closes) its own. A dma-buf mapped by the host (Queue::map,
/// Mapping<T>) is bracketed with DMA_BUF_IOCTL_SYNC (start at map, end at unmap) by edgemem. Memory
/// imported through cl_khr_external_memory is acquired before each command or map on it and released
/// after it (after the unmap), on the same queue: once its Event or Queue::finish() completes, the
/// memory is handed back to its other user. Holds are counted per queue, 8 queues at once: a command,
/// map or begin_native of a ninth queue while eight others hold the memory answers Errc::exhausted.
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/flags.hpp>

namespace edgemem {

/// What a foreign memory handle is.
enum class HandleType : std::uint8_t {
  dma_buf = 1,   ///< a Linux dma-buf fd (camera and display buffers), or a memfd sealed against shrinking
  opaque_fd,     ///< an opaque fd exported by Vulkan or CUDA (imported only through the device's driver)
  memfd,         ///< a memfd (memfd_create) sealed against shrinking (F_SEAL_SHRINK)
  host_pointer,  ///< plain host memory (OIDN's shared buffer, cuda.core's from_handle of host memory)
};

/// How Buffer::import reached the memory, in the order it tries (see the file comment).
enum class ImportPath : std::uint8_t {
  none = 0,       ///< not an import (or released)
  khr_dma_buf,    ///< cl_khr_external_memory_dma_buf: the driver imported the dma-buf
  arm_dma_buf,    ///< cl_arm_import_memory with CL_IMPORT_TYPE_DMA_BUF_ARM
  khr_opaque_fd,  ///< cl_khr_external_memory_opaque_fd
  mmap_host_ptr,  ///< mmap of the fd, used zero-copy (CL_MEM_USE_HOST_PTR; the host backend's own memory)
  host_ptr,       ///< the caller's host pointer used zero-copy (CL_MEM_USE_HOST_PTR)
  copy,           ///< copied into a new buffer (only with ImportOptions::allow_copy)
};

/// A short name of `path` ("khr_dma_buf", ...), for logs and edgemem-info.
const char* to_string(ImportPath path) noexcept;

/// One piece of foreign memory: `bytes` bytes at byte `offset` of `fd` (or at `host`).
struct ExternalMemory {
  HandleType type = HandleType::memfd;  ///< what `fd` (or `host`) is
  int fd = -1;                          ///< the file descriptor (not for host_pointer); duplicated by import
  void* host = nullptr;                 ///< host_pointer only: the first byte
  std::size_t offset = 0;               ///< bytes into the fd (a V4L2 plane's data offset); 0 for host_pointer
  std::size_t bytes = 0;                ///< size in bytes (> 0)

  /// A dma-buf plane: `bytes` bytes at `offset` of `fd`.
  static constexpr ExternalMemory dma_buf(int fd, std::size_t offset, std::size_t bytes) noexcept {
    return ExternalMemory{HandleType::dma_buf, fd, nullptr, offset, bytes};
  }
  /// An opaque fd of `bytes` bytes (a Vulkan or CUDA export; always from its start).
  static constexpr ExternalMemory opaque_fd(int fd, std::size_t bytes) noexcept {
    return ExternalMemory{HandleType::opaque_fd, fd, nullptr, 0, bytes};
  }
  /// `bytes` bytes at `offset` of a memfd sealed against shrinking (F_SEAL_SHRINK).
  static constexpr ExternalMemory memfd(int fd, std::size_t offset, std::size_t bytes) noexcept {
    return ExternalMemory{HandleType::memfd, fd, nullptr, offset, bytes};
  }
  /// `bytes` bytes of host memory at `data` (kept alive and untouched by the caller while the buffer lives).
  static constexpr ExternalMemory host_pointer(void* data, std::size_t bytes) noexcept {
    return ExternalMemory{HandleType::host_pointer, -1, data, 0, bytes};
  }
};

/// How Buffer::import may reach the memory.
struct ImportOptions {
  MemFlags flags = MemFlags::read_write;  ///< the buffer's access flags
  /// Copy into a new buffer when no zero-copy path works (ImportPath::copy); otherwise that case
  /// answers Errc::unsupported (no path) or Errc::misaligned (the mapping misses the alignment rule).
  bool allow_copy = false;
  /// memfd (also one given as a dma-buf): refuse one that may still grow (needs F_SEAL_GROW as well as
  /// the F_SEAL_SHRINK every memfd import needs), so its size is final; Errc::invalid_argument otherwise.
  bool require_sealed = false;
};

}  // namespace edgemem
