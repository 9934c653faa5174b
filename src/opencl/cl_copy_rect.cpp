// OpenCL backend: copy_rect. clEnqueueCopyBufferRect in the normal case. Two cases go through one
// clEnqueueCopyBuffer per row instead (the same bytes, in order, on the same in-order queue):
//  - source and destination are the same cl_mem with different pitches: OpenCL refuses that
//    (CL_INVALID_VALUE) although the regions are disjoint (edgemem checked), and the host backend
//    allows it; likewise when the driver's own overlap test is more conservative than edgemem's exact one;
//  - a sub-buffer is involved on PoCL: PoCL 3.1 crashes in clEnqueueCopyBufferRect on sub-buffers.
#include <cstring>

#include "opencl/cl.hpp"
#include "opencl/cl_error.hpp"
#include "opencl/cl_submit.hpp"

namespace edgemem::backend {

namespace {

bool is_sub_buffer(cl_mem mem) noexcept {
  cl_mem parent = nullptr;
  return clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr) == CL_SUCCESS &&
         parent != nullptr;
}

bool is_pocl(cl_command_queue q) noexcept {
  cl_device_id device = nullptr;
  cl_platform_id platform = nullptr;
  char name[64] = {};
  if (clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) != CL_SUCCESS ||
      clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) != CL_SUCCESS)
    return false;
  std::size_t size = 0;
  if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, 0, nullptr, &size) != CL_SUCCESS || size > sizeof name)
    return false;
  if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, nullptr) != CL_SUCCESS) return false;
  name[sizeof name - 1] = '\0';
  return std::strstr(name, "Portable Computing Language") != nullptr || std::strstr(name, "PoCL") != nullptr;
}

std::size_t row_offset(const RectSide& s, std::size_t y, std::size_t z) noexcept {
  return (s.origin.z + z) * s.slice_pitch + (s.origin.y + y) * s.row_pitch + s.origin.x;
}

/// One clEnqueueCopyBuffer per row: the wait list goes to the first, the caller's event (or the
/// blocking wait) to the last; the queue is in order, so the last completes after all of them.
Result<void> copy_rows(cl_command_queue q, cl_mem src, cl_mem dst, const CopyRect& rect,
                       const OpenCL::Sync& sync) noexcept {
  const std::size_t rows = rect.region.y * rect.region.z;
  std::size_t row = 0;
  for (std::size_t z = 0; z < rect.region.z; ++z) {
    for (std::size_t y = 0; y < rect.region.y; ++y, ++row) {
      const std::size_t so = row_offset(rect.src, y, z), d = row_offset(rect.dst, y, z);
      const bool first = row == 0, last = row + 1 == rows;
      OpenCL::Sync s;
      if (first) {
        s.waits = sync.waits;
        s.wait_count = sync.wait_count;
      }
      if (!last) {
        const cl::WaitList w = cl::waits_of(s);
        EDGEMEM_TRY(cl::check(clEnqueueCopyBuffer(q, src, dst, so, d, rect.region.x, w.count, w.events, nullptr)));
        continue;
      }
      s.out = sync.out;
      return cl::submit(s, [&](cl_uint n, const cl_event* waits, cl_event* out) {
        return clEnqueueCopyBuffer(q, src, dst, so, d, rect.region.x, n, waits, out);
      });
    }
  }
  return {};
}

}  // namespace

Result<void> OpenCL::copy_rect(NativeQueue q, const NativeMem& src, const NativeMem& dst, const CopyRect& rect,
                               const Sync& sync) noexcept {
  const bool same = src == dst;
  if (same && (rect.src.row_pitch != rect.dst.row_pitch || rect.src.slice_pitch != rect.dst.slice_pitch))
    return copy_rows(q, src, dst, rect, sync);
  if (!same && (is_sub_buffer(src) || is_sub_buffer(dst)) && is_pocl(q)) return copy_rows(q, src, dst, rect, sync);
  const cl::Triple s = cl::origin_of(rect.src), d = cl::origin_of(rect.dst), r = cl::region_of(rect.region);
  auto done = cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueCopyBufferRect(q, src, dst, s.v, d.v, r.v, rect.src.row_pitch, rect.src.slice_pitch,
                                   rect.dst.row_pitch, rect.dst.slice_pitch, n, waits, out);
  });
  if (!done && same && done.error().native == CL_MEM_COPY_OVERLAP) return copy_rows(q, src, dst, rect, sync);
  return done;
}

}  // namespace edgemem::backend
