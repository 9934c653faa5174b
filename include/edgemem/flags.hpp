/// @file flags.hpp  Placement, access and migration flags of memory objects.
#pragma once
#include <cstdint>

namespace edgemem {

/// Where a buffer lives (OIDN vocabulary).
enum class Storage : std::uint8_t {
  device,  ///< device memory; host access through map/read/write (copies on a discrete GPU)
  host,    ///< host memory the device can reach (CL_MEM_ALLOC_HOST_PTR)
  shared,  ///< zero-copy host-visible memory (CL_MEM_ALLOC_HOST_PTR; map/unmap costs no copy on unified memory)
};

/// How kernels and the host may use a buffer (OpenCL cl_mem_flags subset). Combine one
/// device-access value with at most one host-access value using `|`.
enum class MemFlags : std::uint32_t {
  read_write = 0,          ///< kernels read and write (default)
  read_only = 1u << 0,     ///< kernels only read
  write_only = 1u << 1,    ///< kernels only write
  host_read_only = 1u << 2,   ///< the host only reads (read, map read); writes return Errc::access_denied
  host_write_only = 1u << 3,  ///< the host only writes (write, fill, map write); reads return Errc::access_denied
  host_no_access = 1u << 4,   ///< the host neither reads nor writes; host transfers return Errc::access_denied
};

/// Combines two flag sets.
constexpr MemFlags operator|(MemFlags a, MemFlags b) noexcept {
  return static_cast<MemFlags>(static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(b));
}
/// True when every bit of `bit` is set in `set` (and bit is non-zero).
constexpr bool has(MemFlags set, MemFlags bit) noexcept {
  return static_cast<std::uint32_t>(bit) != 0 &&
         (static_cast<std::uint32_t>(set) & static_cast<std::uint32_t>(bit)) == static_cast<std::uint32_t>(bit);
}

/// What a mapping allows the host to do.
enum class Access : std::uint8_t {
  read,           ///< host reads; contents reflect the device
  write,          ///< host reads and writes; contents reflect the device and are written back on unmap
  write_discard,  ///< host writes the whole range; prior contents undefined (CL_MAP_WRITE_INVALIDATE_REGION)
};

/// The sharing granularity of shared virtual memory (Svm), as OpenCL 2.0 defines it.
enum class SvmGrain : std::uint8_t {
  coarse,       ///< coarse-grain buffer SVM: the host reaches the bytes only inside a map (Queue::map)
  fine_buffer,  ///< fine-grain buffer SVM: host and device share the bytes directly (Svm::host_span)
  fine_system,  ///< fine-grain system SVM: as fine_buffer, and the device reaches any host pointer
};

/// Where migrate() moves a buffer's contents.
enum class Migration : std::uint8_t {
  to_device,          ///< make the contents resident on the device
  to_host,            ///< make the contents resident on the host (CL_MIGRATE_MEM_OBJECT_HOST)
  to_device_discard,  ///< move to the device without preserving contents (CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)
};

/// How an `adopt` call holds a native object made elsewhere (cuda.core's `from_handle`).
enum class AdoptMode : std::uint8_t {
  retain,  ///< take a reference of its own (clRetain*), dropped when the edgemem object goes; the caller
           ///< keeps and releases its own
  borrow,  ///< take no reference and release nothing: the caller keeps the native object alive until the
           ///< edgemem object and everything made from it are gone (for handles without a reference count)
};

}  // namespace edgemem
