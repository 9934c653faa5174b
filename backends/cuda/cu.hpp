// The one place the CUDA backend includes cuda.h: the driver API entry points edgemem uses, loaded
// from libcuda.so.1 at run time (cu_driver.cpp), and small helpers shared by the backend's sources.
// Nothing links against libcuda or libcudart: a binary built with -Dmemory_backend=cuda starts on a
// machine without the NVIDIA driver, and Context::create answers unsupported there.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "backend.hpp"

static_assert(sizeof(CUdeviceptr) == sizeof(std::uint64_t), "the CUDA backend needs a 64-bit CUdeviceptr (64-bit targets)");

/// The driver entry points, by their cuda.h names (the macros there pick the current ABI version,
/// e.g. cuMemAlloc is cuMemAlloc_v2; the loader looks up the expanded name).
#define EDGEMEM_CUDA_ENTRY_POINTS(X)                                                                           \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)     \
  X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDeviceGetUuid) X(cuDevicePrimaryCtxRetain)                  \
  X(cuDevicePrimaryCtxRelease) X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxGetDevice) X(cuCtxPushCurrent)   \
  X(cuCtxPopCurrent) X(cuCtxSynchronize) X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamWaitEvent)        \
  X(cuStreamGetCtx) X(cuStreamGetFlags) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)                   \
  X(cuEventSynchronize) X(cuEventQuery) X(cuMemAlloc) X(cuMemFree) X(cuMemHostAlloc) X(cuMemFreeHost)        \
  X(cuMemAllocManaged) X(cuMemHostRegister) X(cuMemHostUnregister) X(cuMemHostGetDevicePointer)              \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemcpy2DAsync) X(cuMemcpy3DAsync)       \
  X(cuMemsetD8Async) X(cuMemsetD16Async) X(cuMemsetD32Async) X(cuMemPrefetchAsync) X(cuPointerGetAttribute)  \
  X(cuMemGetAddressRange)

namespace edgemem::backend::cu {

/// The loaded entry points (members named as cuda.h's macros expand, called as driver().cuMemAlloc(...)).
struct Driver {
#define EDGEMEM_CUDA_MEMBER_(fn) decltype(&::fn) fn = nullptr;
  EDGEMEM_CUDA_ENTRY_POINTS(EDGEMEM_CUDA_MEMBER_)
#undef EDGEMEM_CUDA_MEMBER_
};

/// The driver, loaded and initialised (cuInit) once per process. Errc: unsupported when libcuda.so.1
/// cannot be loaded or lacks an entry point (the message says which), or cuInit's answer; a machine with
/// the driver and no device gives the Driver (the census counts 0 devices).
[[nodiscard]] Result<const Driver*> load() noexcept;

/// The loaded driver; only after load() succeeded (every operation but the census runs after it).
const Driver& driver() noexcept;

/// The Error of a failed driver call: the mapped Errc, `status` as native, the driver's name for it.
[[nodiscard]] Error to_error(CUresult status) noexcept;

/// to_error(status) as a failed Result.
[[nodiscard]] inline Failure fail_cu(CUresult status) noexcept { return fail(to_error(status)); }

/// Success when `status` is CUDA_SUCCESS, else fail_cu(status).
[[nodiscard]] inline Result<void> check(CUresult status) noexcept {
  if (status == CUDA_SUCCESS) return {};
  return fail_cu(status);
}

/// The calling thread's current context while edgemem works in one (bind): a different context the
/// caller had current is made current again when this goes (issue #30, item 11b); a thread that had
/// none keeps edgemem's, as the CUDA runtime leaves the primary context current.
class Bound {
 public:
  Bound() noexcept = default;
  Bound(Bound&& other) noexcept : restore_(other.restore_) { other.restore_ = nullptr; }
  /// Restores what this one holds first, then takes `other`'s.
  Bound& operator=(Bound&& other) noexcept {
    if (this != &other) {
      restore();
      restore_ = other.restore_;
      other.restore_ = nullptr;
    }
    return *this;
  }
  Bound(const Bound&) = delete;
  Bound& operator=(const Bound&) = delete;
  ~Bound() { restore(); }

 private:
  void restore() noexcept;
  friend Result<Bound> bind(CUcontext ctx) noexcept;
  CUcontext restore_ = nullptr;  // the caller's context, made current again at the end (null: none)
};

/// Makes `ctx` the calling thread's current context (nothing when it already is) until the returned
/// Bound goes. Errc: as the driver answers.
[[nodiscard]] Result<Bound> bind(CUcontext ctx) noexcept;

/// The CUdeviceptr of a NativeMem's byte `offset`.
inline CUdeviceptr at(const Cuda::NativeMem& mem, std::size_t offset) noexcept {
  return static_cast<CUdeviceptr>(mem.device_ptr + offset);
}

/// Success unless `mem` is memory the process may only read (NativeMem::read_only): access_denied.
[[nodiscard]] inline Result<void> writable(const Cuda::NativeMem& mem) noexcept {
  if (!mem.read_only) return {};
  return fail(Errc::access_denied, "the wrapped memory is read-only for this process (a PROT_READ mapping): nothing may write it");
}

/// An event record for a command about to be enqueued in `ctx` (reference count 1): a cached one, else
/// a new CUevent. Taken before the command, so running out of memory changes nothing. Errc:
/// out_of_host_memory, or the driver's answer.
[[nodiscard]] Result<Cuda::NativeEvent> take_event(CUcontext ctx) noexcept;

/// Gives an event record back (its last reference went, or it was never handed out): a pooled one is
/// kept for reuse, others are destroyed.
void return_event(Cuda::NativeEvent e) noexcept;

/// Makes the pooled event records of a new context (context_create, context_adopt), so a steady state
/// of async commands allocates nothing. Errc: out_of_host_memory, or the driver's answer.
[[nodiscard]] Result<void> pool_events(CUcontext ctx) noexcept;

/// Destroys the cached event records of `ctx` (before its primary context is released).
void drain_events(CUcontext ctx) noexcept;

/// One more reference to an event record (null: nothing).
void retain_event(Cuda::NativeEvent e) noexcept;

/// One less reference to an event record; the last gives it back (return_event).
void release_event(Cuda::NativeEvent e) noexcept;

/// What register_host made of caller memory.
struct Registered {
  CUdeviceptr device = 0;         ///< the device address of its first byte (0: not reachable zero-copy)
  bool read_only = false;         ///< some page is registered CU_MEMHOSTREGISTER_READ_ONLY (the process may only read it)
  CUresult status = CUDA_SUCCESS; ///< the driver's answer when device is 0
};

/// Makes [host, host + bytes) reachable by the device zero-copy (cu_register.cpp): inside an earlier
/// wrap's registration (counted), the caller's own pinned memory, or a new registration. device == 0:
/// nothing was kept.
[[nodiscard]] Registered register_host(void* host, std::size_t bytes) noexcept;

/// Gives back what register_host(host, bytes) kept (the pages' last wrap unregisters them).
void unregister_host(const void* host, std::size_t bytes) noexcept;

/// Copies `bytes` between host memory and device memory on stream `s` through pinned staging, done
/// when it returns: for host memory CUDA refuses to copy directly (a range only partly registered, as
/// when it overlaps a wrapped buffer's pages), and for shadowed wraps.
[[nodiscard]] CUresult staged_copy(CUstream s, CUdeviceptr d, void* host, std::size_t bytes, bool to_device) noexcept;

/// A host <-> device copy on stream `s`: cuMemcpy{HtoD,DtoH}Async, or staged_copy when CUDA refuses the
/// host range as it is (CUDA_ERROR_INVALID_VALUE).
[[nodiscard]] CUresult host_copy(CUstream s, CUdeviceptr d, void* host, std::size_t bytes, bool to_device) noexcept;

/// A command being enqueued under CommandEvents: q's context bound, its waits made, and for an async
/// command its event record taken.
struct Command {
  Cuda::NativeEvent event = nullptr;  ///< the async command's event record (null: blocking)
  Bound bound;                        ///< q's context, current until the command is done with
};

/// Starts a command on q under `sync`. Errc: out_of_host_memory, or the driver's answer.
[[nodiscard]] Result<Command> begin(const Cuda::NativeQueue& q, const Cuda::CommandEvents& sync) noexcept;

/// Ends a command begun on q whose enqueue answered `enqueued`: async records its event into
/// *sync.out; blocking waits for the stream (a failed command: backend_failure). On failure the
/// event record is given back.
[[nodiscard]] Result<void> end(const Cuda::NativeQueue& q, const Cuda::CommandEvents& sync, Command c,
                               CUresult enqueued) noexcept;

/// Runs `enqueue(stream)` on q under `sync` (begin, enqueue, end).
template <class Enqueue>
[[nodiscard]] Result<void> submit(const Cuda::NativeQueue& q, const Cuda::CommandEvents& sync, Enqueue&& enqueue) noexcept {
  EDGEMEM_TRY_ASSIGN(Command c, begin(q, sync));
  const CUresult enqueued = enqueue(q.stream);
  return end(q, sync, std::move(c), enqueued);
}

/// Waits for everything enqueued on q. Errc: backend_failure (a command failed).
[[nodiscard]] Result<void> finish(const Cuda::NativeQueue& q) noexcept;

}  // namespace edgemem::backend::cu
