/// @file dma_buf_observer.hpp  A test seam for the DMA_BUF_IOCTL_SYNC brackets edgemem puts around
/// every CPU access to an imported dma-buf (issue #29 item 5): maps, and read / write / fill / copy
/// (also the rect and image forms) on the host backend and over CL_MEM_USE_HOST_PTR, and the copy of
/// an ImportOptions::allow_copy import. Compiled in only with -Dlive_counters=true (test builds): a
/// machine without a dma-buf exporter (no /dev/udmabuf) can still check that each path brackets.
#pragma once
#include <cstdint>

#include <edgemem/result.hpp>

namespace edgemem {

/// Called once per DMA_BUF_IOCTL_SYNC edgemem issues, on the calling thread: `fd` is the import's own
/// fd (edgemem's duplicate), `flags` the ioctl's DMA_BUF_SYNC_* bits (START or END, with READ, WRITE or
/// RW, as <linux/dma-buf.h> numbers them). A real dma-buf's ioctl has been issued when it is called.
using DmaBufSyncObserver = void (*)(void* user, int fd, std::uint64_t flags) noexcept;

/// Installs `observer` with `user` for the whole process (null: none). While one is installed, a memfd
/// sealed against shrinking that Buffer::import takes as HandleType::dma_buf (a stand-in) is bracketed
/// as a dma-buf would be, for as long as that import lives; its syncs reach the observer only, never
/// the ioctl. Not thread-safe against imports and commands running at the same time. Errc: unsupported
/// (a build without -Dlive_counters=true: the seam is compiled out).
[[nodiscard]] Result<void> observe_dma_buf_syncs(DmaBufSyncObserver observer, void* user) noexcept;

}  // namespace edgemem
