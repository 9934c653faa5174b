// CUDA backend: linear transfers, fills and migration (the rect transfers live in cu_rect.cpp). Every
// command is enqueued on the queue's stream after its waits; a blocking one then synchronises the
// stream, an async one records its event (cu::submit).
#include <cstdint>
#include <cstring>

#include "cu.hpp"

namespace edgemem::backend {

namespace {

/// Fills [dst, dst + bytes) with a pattern of 8..128 bytes (a power of two, dst and bytes multiples
/// of it): one copy of the pattern with cuMemsetD32 per 4-byte word, then doubled by device-to-device
/// copies of what is already filled (log2(bytes / pattern) copies, none overlapping).
CUresult fill_wide(CUstream s, CUdeviceptr dst, std::size_t bytes, const void* pattern, std::size_t pattern_bytes) noexcept {
  const cu::Driver& drv = cu::driver();
  for (std::size_t k = 0; k < pattern_bytes; k += 4) {
    unsigned word = 0;
    std::memcpy(&word, static_cast<const std::byte*>(pattern) + k, 4);
    const CUresult status = drv.cuMemsetD32Async(dst + k, word, 1, s);
    if (status != CUDA_SUCCESS) return status;
  }
  for (std::size_t filled = pattern_bytes; filled < bytes;) {
    const std::size_t n = filled < bytes - filled ? filled : bytes - filled;
    const CUresult status = drv.cuMemcpyDtoDAsync(dst + filled, dst, n, s);
    if (status != CUDA_SUCCESS) return status;
    filled += n;
  }
  return CUDA_SUCCESS;
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
  void* host = const_cast<void*>(src);
  if (sync.out == nullptr && sync.still_running != nullptr && mem.host == nullptr && pageable(src)) {
    // From pageable memory cuMemcpyHtoDAsync returns once `src` is copied into the driver's staging;
    // the DMA may still run, later commands of the stream after it: the caller is told instead of
    // waiting (as cuMemcpyHtoD returns, and as OpenCL's blocking write does). Only into device memory:
    // memory the host reaches directly (pinned, managed, registered: DLPack, maps) has the bytes on return.
    EDGEMEM_TRY_ASSIGN(const cu::Command c, cu::begin(q, sync));
    CUresult status = cu::host_copy(q.stream, cu::at(mem, offset), host, bytes, true);
    if (status != CUDA_SUCCESS) return cu::end(q, sync, c, status);
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
  return cu::submit(q, sync, [&](CUstream s) {
    const CUdeviceptr dst = cu::at(mem, offset);
    const cu::Driver& drv = cu::driver();
    if (pattern_bytes == 1) return drv.cuMemsetD8Async(dst, *static_cast<const unsigned char*>(pattern), bytes, s);
    if (pattern_bytes == 2) {
      unsigned short v = 0;
      std::memcpy(&v, pattern, 2);
      return drv.cuMemsetD16Async(dst, v, bytes / 2, s);
    }
    if (pattern_bytes == 4) {
      unsigned v = 0;
      std::memcpy(&v, pattern, 4);
      return drv.cuMemsetD32Async(dst, v, bytes / 4, s);
    }
    return fill_wide(s, dst, bytes, pattern, pattern_bytes);
  });
}

Result<void> Cuda::copy(NativeQueue q, const NativeMem& src, const NativeMem& dst, std::size_t src_offset,
                        std::size_t dst_offset, std::size_t bytes, const CommandEvents& sync) noexcept {
  return cu::submit(q, sync, [&](CUstream s) {
    return cu::driver().cuMemcpyDtoDAsync(cu::at(dst, dst_offset), cu::at(src, src_offset), bytes, s);
  });
}

Result<void> Cuda::migrate(NativeQueue q, const NativeMem& mem, Migration to, const CommandEvents& sync) noexcept {
  return cu::submit(q, sync, [&](CUstream s) {
    if (mem.kind != CudaMemKind::managed) return CUDA_SUCCESS;  // only managed memory moves: an ordering point
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
