/// @file native.hpp  The native handle types of the CUDA backend, for interop (installed as
/// edgemem/native.hpp when edgemem is built with -Dmemory_backend=cuda): CUDA driver API handles,
/// declared here without cuda.h (a CUcontext is a `CUctx_st*`, a CUstream a `CUstream_st*`, a CUevent
/// a `CUevent_st*`, a CUdeviceptr an unsigned 64-bit integer on the 64-bit targets CUDA supports).
/// Every handle compares with == and !=, on every backend, so code that compares native handles
/// builds everywhere.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

struct CUctx_st;
struct CUstream_st;
struct CUevent_st;

namespace edgemem {

/// Native context handles: a device's primary CUcontext and its CUdevice ordinal.
struct NativeContext {
  CUctx_st* context = nullptr;  ///< CUcontext (the device's primary context)
  int device = -1;              ///< CUdevice
  /// Same context and device.
  friend bool operator==(const NativeContext& a, const NativeContext& b) noexcept {
    return a.context == b.context && a.device == b.device;
  }
  /// Other context or device.
  friend bool operator!=(const NativeContext& a, const NativeContext& b) noexcept { return !(a == b); }
};

/// Native queue handles: a CUstream and the CUcontext it belongs to (commands make it current).
struct NativeQueue {
  CUstream_st* stream = nullptr;  ///< CUstream (never the legacy default stream 0)
  CUctx_st* context = nullptr;    ///< CUcontext of the stream
  bool owned = false;             ///< true when edgemem made the stream (and destroys it); ignored by adopt
  /// Same stream.
  friend bool operator==(const NativeQueue& a, const NativeQueue& b) noexcept {
    return a.stream == b.stream && a.context == b.context;
  }
  /// Another stream.
  friend bool operator!=(const NativeQueue& a, const NativeQueue& b) noexcept { return !(a == b); }
};

/// How a NativeMem's memory was obtained, and so what releasing it does.
enum class CudaMemKind : std::uint8_t {
  none,        ///< no memory
  device,      ///< cuMemAlloc (Storage::device): freed with cuMemFree
  pinned,      ///< cuMemHostAlloc, mapped and portable (Storage::host): freed with cuMemFreeHost
  managed,     ///< cuMemAllocManaged (Storage::shared): freed with cuMemFree
  registered,  ///< caller memory registered with cuMemHostRegister (wrap), registrations shared by wraps of the same pages: the last wrap unregisters, never freed
  /// caller memory the driver would not register (pages another wrap has registered): device memory
  /// (cuMemAlloc, freed) holds the bytes, `host` the caller memory, synchronised at map and unmap
  shadowed,
  borrowed,    ///< memory edgemem does not own (a sub-object, or an adopted pointer borrowed): nothing
};

/// Native memory handle: a device address and, when the host can reach the bytes, their host address.
/// To adopt a pointer made elsewhere, set `device_ptr`, `bytes` (0: to the end of its allocation) and
/// leave the rest; edgemem learns the host address from cuPointerGetAttribute and never frees it.
struct NativeMem {
  std::uint64_t device_ptr = 0;   ///< CUdeviceptr of the first byte
  void* host = nullptr;           ///< host address of the first byte (pinned, managed, registered, shadowed), else null
  std::size_t bytes = 0;          ///< size in bytes
  CUctx_st* context = nullptr;    ///< CUcontext the memory belongs to
  CudaMemKind kind = CudaMemKind::none;  ///< what releasing it does
  /// Caller memory the process may only read (registered CU_MEMHOSTREGISTER_READ_ONLY): commands that
  /// would write it (write, fill, copy into it, map for writing) answer Errc::access_denied.
  bool read_only = false;
  /// The same object.
  friend bool operator==(const NativeMem& a, const NativeMem& b) noexcept {
    return a.device_ptr == b.device_ptr && a.host == b.host && a.bytes == b.bytes && a.context == b.context &&
           a.kind == b.kind;
  }
  /// Another object.
  friend bool operator!=(const NativeMem& a, const NativeMem& b) noexcept { return !(a == b); }
};

/// A CUDA event with the reference count edgemem's events need (CUDA events have none).
struct CudaEvent {
  CUevent_st* event = nullptr;           ///< CUevent, recorded on the command's stream
  CUctx_st* context = nullptr;           ///< CUcontext it was created in
  std::atomic<std::uint32_t> refs{1};    ///< references; the last release gives it back to the backend
  bool pooled = false;                   ///< its context's records are cached: kept for reuse when released
};

/// Native event handle: a CudaEvent (null: none).
using NativeEvent = CudaEvent*;

/// Native sampler handle (the CUDA backend has no images or samplers: always 0).
using NativeSampler = std::uint32_t;

}  // namespace edgemem
