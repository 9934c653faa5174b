/// @file error.hpp  The error model: a small fixed set of error codes plus the
/// backend's native code and a static message. Building an Error never allocates.
#pragma once
#include <cstdint>

namespace edgemem {

/// What went wrong, independent of the backend.
enum class Errc : std::uint8_t {
  invalid_argument = 1,  ///< a parameter is malformed (zero size, null pointer, bad pattern size, wrong context)
  out_of_range,          ///< offset/size/region past the object's end, past SIZE_MAX, or past the device maximum
  misaligned,            ///< sub-buffer origin not a multiple of the base alignment; offset/size not a multiple of the pattern or element
  overlap,               ///< source and destination ranges of a copy overlap (one root buffer, or two that alias one memory)
  exhausted,             ///< a fixed-capacity resource (pool, ring, heap, mapping slots) is full
  out_of_device_memory,  ///< the device could not allocate (CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES)
  out_of_host_memory,    ///< the allocator policy (system heap or static arena) could not allocate
  unsupported,           ///< the device or backend lacks the capability
  busy,                  ///< the object or range is mapped (or otherwise in use) and the call would conflict
  released,              ///< the handle was released or moved from
  backend_failure,       ///< the backend failed in a way not covered above; see Error::native
  /// the buffer's host-access flags forbid this host access: a write, fill, map for writing or
  /// write_rect of a host_read_only or host_no_access buffer, a read, map for reading or read_rect of a
  /// host_write_only or host_no_access one (OpenCL's CL_INVALID_OPERATION for these); any write to
  /// read-only imported memory (MemFlags::read_only imports); an export that would give a peer more
  /// than the buffer (a view). Last, so the values above keep their numbers.
  access_denied,
};

/// An error: its Errc, the backend's native code (e.g. the cl_int; 0 when none) and a static message.
struct Error {
  Errc code;                   ///< portable error code
  std::int32_t native = 0;     ///< backend's own code (cl_int on OpenCL), 0 if edgemem detected it itself
  const char* message = "";    ///< static string, never null, never owned
};

/// Name of an error code, e.g. "out_of_range"; a static string, never null.
[[nodiscard]] const char* to_string(Errc code) noexcept;

}  // namespace edgemem
