// CUDA backend: rectangular transfers (OpenCL's *Rect semantics) through cuMemcpy2DAsync and
// cuMemcpy3DAsync. Origins are folded into the base addresses (OpenCL allows an x origin past the row
// pitch; CUDA's X/Y fields do not), so CUDA sees only pitches and the region.
#include <cstring>

#include "cu.hpp"

namespace edgemem::backend {

namespace {

/// One side of a rect copy, origin folded in.
struct Side {
  CUmemorytype type;       // CU_MEMORYTYPE_HOST or CU_MEMORYTYPE_UNIFIED (a device address)
  const void* host;        // first byte, host side
  CUdeviceptr device;      // first byte, device side
  std::size_t row_pitch;   // bytes
  std::size_t slice_pitch; // bytes
};

std::size_t folded(const RectSide& s) noexcept {
  return s.origin.x + s.origin.y * s.row_pitch + s.origin.z * s.slice_pitch;
}

Side device_side(const Cuda::NativeMem& mem, const RectSide& s) noexcept {
  return Side{CU_MEMORYTYPE_UNIFIED, nullptr, cu::at(mem, folded(s)), s.row_pitch, s.slice_pitch};
}

Side host_side(const void* host, const RectSide& s) noexcept {
  return Side{CU_MEMORYTYPE_HOST, static_cast<const std::byte*>(host) + folded(s), 0, s.row_pitch, s.slice_pitch};
}

void set_2d(CUDA_MEMCPY2D& c, const Side& src, const Side& dst, std::size_t z) noexcept {
  c.srcMemoryType = src.type;
  c.srcPitch = src.row_pitch;
  if (src.type == CU_MEMORYTYPE_HOST) c.srcHost = static_cast<const std::byte*>(src.host) + z * src.slice_pitch;
  else c.srcDevice = src.device + z * src.slice_pitch;
  c.dstMemoryType = dst.type;
  c.dstPitch = dst.row_pitch;
  if (dst.type == CU_MEMORYTYPE_HOST) c.dstHost = const_cast<std::byte*>(static_cast<const std::byte*>(dst.host)) + z * dst.slice_pitch;
  else c.dstDevice = dst.device + z * dst.slice_pitch;
}

/// One 3D copy when both slice pitches are whole numbers of rows, else one 2D copy per slice.
CUresult copy_sides(CUstream s, const Side& src, const Side& dst, const Extent3& region) noexcept {
  const cu::Driver& drv = cu::driver();
  const bool whole_rows = src.slice_pitch % src.row_pitch == 0 && dst.slice_pitch % dst.row_pitch == 0;
  if (region.z > 1 && whole_rows) {
    CUDA_MEMCPY3D c{};
    c.srcMemoryType = src.type;
    c.srcHost = src.host;
    c.srcDevice = src.device;
    c.srcPitch = src.row_pitch;
    c.srcHeight = src.slice_pitch / src.row_pitch;
    c.dstMemoryType = dst.type;
    c.dstHost = const_cast<void*>(dst.host);
    c.dstDevice = dst.device;
    c.dstPitch = dst.row_pitch;
    c.dstHeight = dst.slice_pitch / dst.row_pitch;
    c.WidthInBytes = region.x;
    c.Height = region.y;
    c.Depth = region.z;
    return drv.cuMemcpy3DAsync(&c, s);
  }
  for (std::size_t z = 0; z < region.z; ++z) {
    CUDA_MEMCPY2D c{};
    set_2d(c, src, dst, z);
    c.WidthInBytes = region.x;
    c.Height = region.y;
    const CUresult status = drv.cuMemcpy2DAsync(&c, s);
    if (status != CUDA_SUCCESS) return status;
  }
  return CUDA_SUCCESS;
}

/// The bytes from a host side's first byte (origin folded in) to its last one.
std::size_t span(const RectSide& s, const Extent3& region) noexcept {
  return (region.z - 1) * s.slice_pitch + (region.y - 1) * s.row_pitch + region.x;
}

/// copy_sides between host memory and the device, through pinned staging when CUDA refuses the host
/// range as it is (CUDA_ERROR_INVALID_VALUE: a rect starting inside a page a wrap has registered, the
/// rest not): the host side's rows go through a pinned copy laid out alike, done when it returns (as
/// cu::host_copy does for linear transfers). Only the region's rows of the caller's memory are read or
/// written, never the bytes between them.
CUresult host_rect(CUstream s, const Side& device, void* host, const RectSide& layout, const Extent3& region,
                   bool to_device) noexcept {
  const Side direct = host_side(host, layout);
  CUresult status = to_device ? copy_sides(s, direct, device, region) : copy_sides(s, device, direct, region);
  if (status != CUDA_ERROR_INVALID_VALUE) return status;
  const cu::Driver& drv = cu::driver();
  void* staging = nullptr;
  status = drv.cuMemHostAlloc(&staging, span(layout, region), 0);
  if (status != CUDA_SUCCESS) return status;
  auto* const first = static_cast<std::byte*>(host) + folded(layout);
  auto* const pinned = static_cast<std::byte*>(staging);
  const auto rows = [&](bool in) {
    for (std::size_t z = 0; z < region.z; ++z)
      for (std::size_t y = 0; y < region.y; ++y) {
        const std::size_t at = z * layout.slice_pitch + y * layout.row_pitch;
        if (in) std::memcpy(pinned + at, first + at, region.x);
        else std::memcpy(first + at, pinned + at, region.x);
      }
  };
  const Side staged{CU_MEMORYTYPE_HOST, pinned, 0, layout.row_pitch, layout.slice_pitch};
  if (to_device) rows(true);
  status = to_device ? copy_sides(s, staged, device, region) : copy_sides(s, device, staged, region);
  if (status == CUDA_SUCCESS) status = drv.cuStreamSynchronize(s);
  if (status == CUDA_SUCCESS && !to_device) rows(false);
  (void)drv.cuMemFreeHost(staging);
  return status;
}

}  // namespace

Result<void> Cuda::write_rect(NativeQueue q, const NativeMem& mem, const Rect& rect, const void* src,
                              const CommandEvents& sync) noexcept {
  EDGEMEM_TRY(cu::writable(mem));
  return cu::submit(q, sync, [&](CUstream s) {
    return host_rect(s, device_side(mem, rect.buffer), const_cast<void*>(src), rect.host, rect.region, true);
  });
}

Result<void> Cuda::read_rect(NativeQueue q, const NativeMem& mem, const Rect& rect, void* dst,
                             const CommandEvents& sync) noexcept {
  return cu::submit(q, sync, [&](CUstream s) { return host_rect(s, device_side(mem, rect.buffer), dst, rect.host, rect.region, false); });
}

Result<void> Cuda::copy_rect(NativeQueue q, const NativeMem& src, const NativeMem& dst, const CopyRect& rect,
                             const CommandEvents& sync) noexcept {
  EDGEMEM_TRY(cu::writable(dst));
  return cu::submit(q, sync, [&](CUstream s) {
    return copy_sides(s, device_side(src, rect.src), device_side(dst, rect.dst), rect.region);
  });
}

}  // namespace edgemem::backend
