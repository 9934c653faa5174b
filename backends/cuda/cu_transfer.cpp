// CUDA backend: linear transfers, fills and migration (the rect transfers live in cu_rect.cpp). Every
// command is enqueued on the queue's stream after its waits; a blocking one then synchronises the
// stream, an async one records its event (cu::submit).
#include <cstdint>
#include <cstring>

#include "cu.hpp"

namespace edgemem::backend {

namespace {

/// Doubles the `filled` bytes at dst (whole patterns) until [dst, dst + bytes) is filled: device-to-device
/// copies of what is already filled (log2(bytes / filled) copies, none overlapping, any alignment).
CUresult double_fill(CUstream s, CUdeviceptr dst, std::size_t filled, std::size_t bytes) noexcept {
  while (filled < bytes) {
    const std::size_t n = filled < bytes - filled ? filled : bytes - filled;
    const CUresult status = cu::driver().cuMemcpyDtoDAsync(dst + filled, dst, n, s);
    if (status != CUDA_SUCCESS) return status;
    filled += n;
  }
  return CUDA_SUCCESS;
}

/// Fills [dst, dst + bytes) with a pattern of 1..128 bytes (a power of two, bytes a multiple of it).
/// cuMemsetD16/D32 need dst aligned to 2/4 bytes: aligned patterns of 1, 2 and 4 bytes are one memset;
/// otherwise one copy of the pattern is written (cuMemsetD32 per 4-byte word when dst is 4-aligned,
/// cuMemsetD8 per byte when it is not: a wrap at an odd address, an adopted `ptr + 1`) and doubled.
CUresult fill_pattern(CUstream s, CUdeviceptr dst, std::size_t bytes, const void* pattern, std::size_t pattern_bytes) noexcept {
  const cu::Driver& drv = cu::driver();
  const auto* p = static_cast<const unsigned char*>(pattern);
  if (pattern_bytes == 1) return drv.cuMemsetD8Async(dst, p[0], bytes, s);
  if (pattern_bytes == 2 && dst % 2 == 0) {
    unsigned short v = 0;
    std::memcpy(&v, p, 2);
    return drv.cuMemsetD16Async(dst, v, bytes / 2, s);
  }
  if (pattern_bytes == 4 && dst % 4 == 0) {
    unsigned v = 0;
    std::memcpy(&v, p, 4);
    return drv.cuMemsetD32Async(dst, v, bytes / 4, s);
  }
  const bool words = dst % 4 == 0;
  for (std::size_t k = 0; k < pattern_bytes; k += words ? 4 : 1) {
    unsigned word = 0;
    if (words) std::memcpy(&word, p + k, 4);
    const CUresult status = words ? drv.cuMemsetD32Async(dst + k, word, 1, s) : drv.cuMemsetD8Async(dst + k, p[k], 1, s);
    if (status != CUDA_SUCCESS) return status;
  }
  return double_fill(s, dst, pattern_bytes, bytes);
}

}  // namespace

namespace {

/// True when CUDA knows nothing of `p` (pageable memory, neither pinned, registered nor managed).
bool pageable(const void* p) noexcept {
  unsigned type = 0;
  return cu::driver().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                            static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p))) != CUDA_SUCCESS;
}

}  // namespace

Result<void> Cuda::write(NativeQueue q, const NativeMem& mem, std::size_t offset, const void* src, std::size_t bytes,
                         const CommandEvents& sync) noexcept {
  EDGEMEM_TRY(cu::writable(mem));
  void* host = const_cast<void*>(src);
  if (sync.out == nullptr && sync.still_running != nullptr && mem.host == nullptr && pageable(src)) {
    // From pageable memory cuMemcpyHtoDAsync returns once `src` is copied into the driver's staging;
    // the DMA may still run, later commands of the stream after it: the caller is told instead of
    // waiting (as cuMemcpyHtoD returns, and as OpenCL's blocking write does). Only into device memory:
    // memory the host reaches directly (pinned, managed, registered: DLPack, maps) has the bytes on return.
    EDGEMEM_TRY_ASSIGN(cu::Command c, cu::begin(q, sync));
    CUresult status = cu::host_copy(q.stream, cu::at(mem, offset), host, bytes, true);
    if (status != CUDA_SUCCESS) return cu::end(q, sync, std::move(c), status);
    *sync.still_running = true;
    if (sync.running_event == nullptr) return {};
    // An event recorded right after the copy (a record, so a steady state allocates nothing): the
    // caller's ordering waits for it instead of a marker of its own. No record: the caller makes one.
    auto running = cu::take_event(q.context);
    if (!running) return {};
    status = cu::driver().cuEventRecord((*running)->event, q.stream);
    if (status != CUDA_SUCCESS) {
      cu::return_event(*running);
      return {};
    }
    *sync.running_event = *running;
    return {};
  }
  return cu::submit(q, sync, [&](CUstream s) { return cu::host_copy(s, cu::at(mem, offset), host, bytes, true); });
}

Result<void> Cuda::read(NativeQueue q, const NativeMem& mem, std::size_t offset, void* dst, std::size_t bytes,
                        const CommandEvents& sync) noexcept {
  return cu::submit(q, sync, [&](CUstream s) { return cu::host_copy(s, cu::at(mem, offset), dst, bytes, false); });
}

Result<void> Cuda::fill(NativeQueue q, const NativeMem& mem, std::size_t offset, std::size_t bytes, const void* pattern,
                        std::size_t pattern_bytes, const CommandEvents& sync) noexcept {
  EDGEMEM_TRY(cu::writable(mem));
  return cu::submit(q, sync, [&](CUstream s) { return fill_pattern(s, cu::at(mem, offset), bytes, pattern, pattern_bytes); });
}

Result<void> Cuda::copy(NativeQueue q, const NativeMem& src, const NativeMem& dst, std::size_t src_offset,
                        std::size_t dst_offset, std::size_t bytes, const CommandEvents& sync) noexcept {
  EDGEMEM_TRY(cu::writable(dst));
  return cu::submit(q, sync, [&](CUstream s) {
    return cu::driver().cuMemcpyDtoDAsync(cu::at(dst, dst_offset), cu::at(src, src_offset), bytes, s);
  });
}

Result<void> Cuda::migrate(NativeQueue q, const NativeMem& mem, Migration to, const CommandEvents& sync) noexcept {
  return cu::submit(q, sync, [&](CUstream s) {
    // Only managed memory moves (a view of it is borrowed: the driver says); others: an ordering point.
    unsigned managed = mem.kind == CudaMemKind::managed ? 1u : 0u;
    if (mem.kind == CudaMemKind::borrowed &&
        cu::driver().cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, cu::at(mem, 0)) != CUDA_SUCCESS)
      managed = 0;
    if (managed == 0) return CUDA_SUCCESS;
    CUmemLocation where{};
    if (to == Migration::to_host) {
      where.type = CU_MEM_LOCATION_TYPE_HOST;
    } else {
      CUdevice d = 0;
      const CUresult asked = cu::driver().cuCtxGetDevice(&d);
      if (asked != CUDA_SUCCESS) return asked;
      where.type = CU_MEM_LOCATION_TYPE_DEVICE;
      where.id = static_cast<int>(d);
    }
    const CUresult status = cu::driver().cuMemPrefetchAsync(cu::at(mem, 0), mem.bytes, where, 0, s);
    // A device without concurrent managed access cannot prefetch: migration is a placement hint, so the
    // command stays an ordering point.
    if (status == CUDA_ERROR_INVALID_DEVICE || status == CUDA_ERROR_NOT_SUPPORTED) return CUDA_SUCCESS;
    return status;
  });
}

}  // namespace edgemem::backend
