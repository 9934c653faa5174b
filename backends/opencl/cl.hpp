// The one place the OpenCL backend includes the OpenCL headers: fixes the target version (1.2 baseline;
// newer entry points only behind a run-time device version check) and offers small helpers shared by
// the backend's sources.
#pragma once
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <cstddef>

#include "backend.hpp"

namespace edgemem::backend::cl {

/// The wait list of `sync` as OpenCL takes it: its records' cl_events, copied to a stack array (the
/// common layer passes at most contract::max_command_waits).
class WaitList {
 public:
  explicit WaitList(const OpenCL::CommandEvents& sync) noexcept {
    const std::size_t n = sync.waits == nullptr ? 0
                          : sync.wait_count < contract::max_command_waits ? sync.wait_count
                                                                          : contract::max_command_waits;
    for (std::size_t i = 0; i < n; ++i) list_[i] = sync.waits[i] != nullptr ? sync.waits[i]->event : nullptr;
    count = static_cast<cl_uint>(n);
  }
  cl_uint count = 0;  ///< number of events
  /// The events, or null when count is 0.
  const cl_event* events() const noexcept { return count != 0 ? list_ : nullptr; }

 private:
  cl_event list_[contract::max_command_waits];
};

/// Three sizes as the *Rect entry points take them (origin or region).
struct Triple {
  std::size_t v[3];  ///< x (bytes), y (rows), z (slices)
};

/// The origin of a rect side as {x, y, z}.
inline Triple origin_of(const RectSide& s) noexcept { return Triple{{s.origin.x, s.origin.y, s.origin.z}}; }

/// A rect region as {x, y, z}.
inline Triple region_of(const Extent3& r) noexcept { return Triple{{r.x, r.y, r.z}}; }

/// The access bits of `flags` as cl_mem_flags (CL_MEM_READ_WRITE when no device access is given).
cl_mem_flags access_flags(MemFlags flags) noexcept;
/// The cl_map_flags of an Access.
cl_map_flags map_flags(Access access) noexcept;
/// The MemFlags of a memory object's cl_mem_flags.
MemFlags flags_from_cl(cl_mem_flags f) noexcept;
/// Fills `limits` for `device` (whose `caps` are known). Errc: as the driver answers.
/// Clears caps.image_from_buffer when the device reports no view alignments.
[[nodiscard]] Result<void> describe_image_limits(cl_device_id device, Capabilities& caps, ImageLimits& limits) noexcept;

/// True when the device behind `context` makes a 1D-buffer image over a sub-buffer (PoCL 3.1 does not:
/// CL_INVALID_MEM_OBJECT). Makes and releases a small buffer, sub-buffer and image; false when the
/// device has no images or any step fails.
bool probe_image_from_sub_buffer(cl_context context, const DeviceInfo& info) noexcept;


/// Copies the string device property `param` into `out` (NUL-terminated, truncated to `cap` bytes).
/// Errc: as the driver answers (see cl_error.cpp); out_of_host_memory for a very long string.
[[nodiscard]] Result<void> query_text(cl_device_id device, cl_device_info param, char* out, std::size_t cap) noexcept;

/// Fills `caps` for `device` of OpenCL version `version` (major * 10 + minor). Errc: as the driver answers.
[[nodiscard]] Result<void> describe_caps(cl_device_id device, unsigned version, Capabilities& caps) noexcept;

/// Parses "OpenCL <major>.<minor> ..." into major/minor; false when `text` does not start that way.
bool parse_version(const char* text, unsigned& major, unsigned& minor) noexcept;

}  // namespace edgemem::backend::cl
