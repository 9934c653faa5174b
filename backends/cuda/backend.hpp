/// @file backends/cuda/backend.hpp  The CUDA backend: the backend contract
/// (src/contract/backend_contract.hpp documents every operation) over the CUDA driver API, loaded from
/// libcuda.so.1 at run time (cu_driver.cpp), so one binary runs with or without the NVIDIA driver.
/// Private: not installed. cuda.h is included only by this folder's .cpp files (through cu.hpp); every
/// CUresult is mapped to an Errc in cu_driver.cpp and kept in Error::native.
///
/// The mapping (cuda.core's vocabulary):
/// - one platform whose devices are the CUDA devices (gpu or any; cpu and accelerator: none);
///   Context = the device's primary context (cuDevicePrimaryCtxRetain), made current by every call;
/// - Queue = a CUstream (non-blocking), Event = a CUevent with a reference count (CudaEvent);
///   commands run asynchronously (completes_at_enqueue false), blocking ones synchronise their stream;
/// - Storage::device = cuMemAlloc, Storage::host = cuMemHostAlloc (pinned, mapped, portable),
///   Storage::shared = cuMemAllocManaged; wrap (caller memory) = cuMemHostRegister, shared by wraps
///   inside one registration (cu_register.cpp), read-only for PROT_READ memory (writes: access_denied);
///   a wrap partly over another wrap's pages gets a device copy synchronised at map and unmap (the
///   bytes the two share are then the same only through maps: a known limit, docs/backends/cuda.md);
///   sub-objects are pointer offsets (no native object);
/// - fills: cuMemsetD8/D16/D32 for 1, 2 and 4-byte patterns at addresses those accept; wider ones (up
///   to 128 bytes), and any at an address cuMemsetD16/D32 refuse (a wrap or adopted pointer at an odd
///   address), write one pattern (cuMemsetD32 per word, or cuMemsetD8 per byte) and double it with
///   device-to-device copies;
/// - rect transfers: cuMemcpy2DAsync (one slice) or cuMemcpy3DAsync, per-slice 2D copies when a slice
///   pitch is not a whole number of rows;
/// - map: zero-copy for pinned, managed and registered memory (after the stream has finished); device
///   memory through pinned staging (cuMemHostAlloc): read and write maps download, write_discard does
///   not; write and write_discard maps upload at unmap, which then waits for the upload;
/// - migrate: cuMemPrefetchAsync for managed memory and views of it (the driver says which a view is),
///   an ordering point for the others;
/// - adopt: a CUcontext must be a device's primary context (retain takes a primary-context reference);
///   a CUstream of that context and a device pointer (any kind: device, pinned, managed, registered)
///   are never destroyed or freed by edgemem: CUDA gives them no reference count, so AdoptMode::retain
///   and borrow both leave them to their maker, who keeps them alive while edgemem uses them.
/// Images and SVM are not in this backend: the capabilities say no, and every call answers unsupported.
#pragma once
#include "contract/backend_contract.hpp"

namespace edgemem::backend {

/// The CUDA backend.
struct Cuda : contract::BackendTypes {
  static constexpr const char* name = "cuda";  ///< DeviceInfo::backend
  static constexpr unsigned groups = contract::group_device | contract::group_buffer;  ///< contract groups
  /// Commands run asynchronously on the device.
  static constexpr bool completes_at_enqueue = false;
  /// A blocking unmap waits for nothing an async one would not (zero-copy: nothing; staged: the
  /// write-back completes either way).
  static constexpr bool unmap_waits = false;

  EDGEMEM_DEVICE_OPERATIONS(EDGEMEM_DECLARE_OPERATION)
  EDGEMEM_BUFFER_OPERATIONS(EDGEMEM_DECLARE_OPERATION)
};

/// The backend this folder builds (src/contract/active.hpp).
using Selected = Cuda;

}  // namespace edgemem::backend
