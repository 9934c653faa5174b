// CUDA backend: memory objects (device, pinned, managed, registered caller memory, sub-objects as
// pointer offsets, adopted pointers) and maps (zero-copy where the host reaches the memory, else
// through pinned staging).
#include <cstring>

#include "cu.hpp"

namespace edgemem::backend {

namespace {

constexpr unsigned kHostAllocFlags = CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE;

Result<int> device_attribute(int device, CUdevice_attribute a) noexcept {
  int v = 0;
  EDGEMEM_TRY(cu::check(cu::driver().cuDeviceGetAttribute(&v, a, static_cast<CUdevice>(device))));
  return v;
}

/// Pinned, mapped host memory of `bytes` (Storage::host, and every storage on an integrated GPU,
/// whose memory is the host's).
Result<Cuda::NativeMem> alloc_pinned(CUcontext ctx, std::size_t bytes) noexcept {
  void* p = nullptr;
  EDGEMEM_TRY(cu::check(cu::driver().cuMemHostAlloc(&p, bytes, kHostAllocFlags)));
  CUdeviceptr d = 0;
  const CUresult status = cu::driver().cuMemHostGetDevicePointer(&d, p, 0);
  if (status != CUDA_SUCCESS) {
    (void)cu::driver().cuMemFreeHost(p);
    return cu::fail_cu(status);
  }
  return Cuda::NativeMem{d, p, bytes, ctx, CudaMemKind::pinned};
}

/// Caller memory for the device (Buffer::wrap): registered with cuMemHostRegister (zero-copy), sharing
/// the registration of an earlier wrap whose pages it lies in (cu_register.cpp); read-only when the
/// process may only read it. Memory that cannot be one registration (partly over an earlier wrap's
/// pages), or that the driver will not register, is shadowed: device memory with the caller's bytes,
/// synchronised at map and unmap, as OpenCL's CL_MEM_USE_HOST_PTR is on a device with its own copy.
/// `host_read_only` (a PROT_READ import): never shadowed, whose maps would write into it (unsupported).
Result<Cuda::NativeMem> register_host(CUcontext ctx, void* p, std::size_t bytes, bool host_read_only) noexcept {
  const cu::Registered r = cu::register_host(p, bytes);
  if (r.device != 0) {
    Cuda::NativeMem mem{r.device, p, bytes, ctx, CudaMemKind::registered};
    mem.read_only = r.read_only;
    return mem;
  }
  if (r.status == CUDA_ERROR_OUT_OF_MEMORY) return cu::fail_cu(r.status);
  if (host_read_only)
    return fail(Errc::unsupported, "read-only memory that cannot be registered would be written at maps (shadowed): "
                                   "ImportOptions::allow_copy copies it");
  const cu::Driver& drv = cu::driver();
  CUdeviceptr d = 0;
  EDGEMEM_TRY(cu::check(drv.cuMemAlloc(&d, bytes)));
  const CUresult status = cu::staged_copy(nullptr, d, p, bytes, true);
  if (status != CUDA_SUCCESS) {
    (void)drv.cuMemFree(d);
    return cu::fail_cu(status);
  }
  return Cuda::NativeMem{d, p, bytes, ctx, CudaMemKind::shadowed};
}

/// Frees what `mem` owns (its kind says how); nothing for borrowed memory.
void free_native(const Cuda::NativeMem& mem) noexcept {
  const cu::Driver& drv = cu::driver();
  switch (mem.kind) {
    case CudaMemKind::device:
    case CudaMemKind::shadowed:
    case CudaMemKind::managed: (void)drv.cuMemFree(static_cast<CUdeviceptr>(mem.device_ptr)); break;
    case CudaMemKind::pinned: (void)drv.cuMemFreeHost(mem.host); break;
    case CudaMemKind::registered: cu::unregister_host(mem.host, mem.bytes); break;
    case CudaMemKind::borrowed:
    case CudaMemKind::none: break;
  }
}

Result<Cuda::NativeMem> allocate(const Cuda::NativeContext& ctx, const Cuda::MemDesc& desc) noexcept {
  if (desc.use_host != nullptr) return register_host(ctx.context, desc.use_host, desc.bytes, desc.host_read_only);
  EDGEMEM_TRY_ASSIGN(const int integrated, device_attribute(ctx.device, CU_DEVICE_ATTRIBUTE_INTEGRATED));
  if (desc.storage == Storage::host || (desc.storage == Storage::device && integrated != 0))
    return alloc_pinned(ctx.context, desc.bytes);
  CUdeviceptr d = 0;
  if (desc.storage == Storage::shared) {
    EDGEMEM_TRY(cu::check(cu::driver().cuMemAllocManaged(&d, desc.bytes, CU_MEM_ATTACH_GLOBAL)));
    return Cuda::NativeMem{d, reinterpret_cast<void*>(static_cast<std::uintptr_t>(d)), desc.bytes, ctx.context,
                           CudaMemKind::managed};
  }
  EDGEMEM_TRY(cu::check(cu::driver().cuMemAlloc(&d, desc.bytes)));
  return Cuda::NativeMem{d, nullptr, desc.bytes, ctx.context, CudaMemKind::device};
}

}  // namespace

namespace cu {

CUresult staged_copy(CUstream s, CUdeviceptr d, void* host, std::size_t bytes, bool to_device) noexcept {
  const Driver& drv = driver();
  void* staging = nullptr;
  CUresult status = drv.cuMemHostAlloc(&staging, bytes, 0);
  if (status != CUDA_SUCCESS) return status;
  if (to_device) {
    std::memcpy(staging, host, bytes);
    status = drv.cuMemcpyHtoDAsync(d, staging, bytes, s);
  } else {
    status = drv.cuMemcpyDtoHAsync(staging, d, bytes, s);
  }
  if (status == CUDA_SUCCESS) status = drv.cuStreamSynchronize(s);
  if (status == CUDA_SUCCESS && !to_device) std::memcpy(host, staging, bytes);
  (void)drv.cuMemFreeHost(staging);
  return status;
}

CUresult host_copy(CUstream s, CUdeviceptr d, void* host, std::size_t bytes, bool to_device) noexcept {
  const CUresult status = to_device ? driver().cuMemcpyHtoDAsync(d, host, bytes, s) : driver().cuMemcpyDtoHAsync(host, d, bytes, s);
  if (status != CUDA_ERROR_INVALID_VALUE) return status;
  return staged_copy(s, d, host, bytes, to_device);
}

}  // namespace cu

Result<Cuda::NativeMem> Cuda::mem_create(const NativeContext& ctx, const MemDesc& desc) noexcept {
  EDGEMEM_TRY_ASSIGN(const cu::Bound bound, cu::bind(ctx.context));
  EDGEMEM_TRY_ASSIGN(NativeMem mem, allocate(ctx, desc));
  if (desc.copy_from == nullptr || desc.use_host != nullptr) return mem;
  if (mem.host != nullptr) {
    std::memcpy(mem.host, desc.copy_from, desc.bytes);
    return mem;
  }
  CUresult status = cu::host_copy(nullptr, cu::at(mem, 0), const_cast<void*>(desc.copy_from), desc.bytes, true);
  if (status == CUDA_SUCCESS) status = cu::driver().cuStreamSynchronize(nullptr);
  if (status != CUDA_SUCCESS) {
    free_native(mem);
    return cu::fail_cu(status);
  }
  return mem;
}

Result<Cuda::NativeMem> Cuda::mem_sub(const NativeMem& root, std::size_t origin, std::size_t bytes, MemFlags) noexcept {
  void* host = root.host != nullptr ? static_cast<std::byte*>(root.host) + origin : nullptr;
  NativeMem sub{root.device_ptr + origin, host, bytes, root.context, CudaMemKind::borrowed};
  sub.read_only = root.read_only;
  return sub;
}

Result<void> Cuda::mem_adopt(const NativeContext& ctx, NativeMem& mem, AdoptMode mode, AdoptedMem& out) noexcept {
  if (mem.device_ptr == 0) return fail(Errc::invalid_argument, "adopt needs a device pointer (NativeMem::device_ptr)");
  EDGEMEM_TRY_ASSIGN(const cu::Bound bound, cu::bind(ctx.context));
  const cu::Driver& drv = cu::driver();
  const CUdeviceptr ptr = static_cast<CUdeviceptr>(mem.device_ptr);
  CUcontext owner = nullptr;
  CUdeviceptr base = 0;
  std::size_t range = 0;
  if (drv.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, ptr) != CUDA_SUCCESS ||
      drv.cuMemGetAddressRange(&base, &range, ptr) != CUDA_SUCCESS)
    return fail(Errc::invalid_argument, "the pointer is not memory the CUDA driver allocated");
  if (owner != nullptr && owner != ctx.context) return fail(Errc::invalid_argument, "the memory belongs to another context");
  const std::size_t left = static_cast<std::size_t>(base + range - ptr);
  const std::size_t bytes = mem.bytes != 0 ? mem.bytes : left;
  if (bytes > left) return fail(Errc::out_of_range, "NativeMem::bytes reaches past the end of the allocation");
  unsigned memory_type = 0, managed = 0;
  EDGEMEM_TRY(cu::check(drv.cuPointerGetAttribute(&memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr)));
  EDGEMEM_TRY(cu::check(drv.cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr)));
  void* host = nullptr;
  if (managed != 0) host = reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr));
  else if (memory_type == CU_MEMORYTYPE_HOST) {
    EDGEMEM_TRY(cu::check(drv.cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, ptr)));
  }
  (void)mode;  // device memory has no reference count: retain and borrow both leave it to its maker
  AdoptedMem a;
  a.bytes = bytes;
  a.storage = managed != 0 ? Storage::shared : memory_type == CU_MEMORYTYPE_HOST ? Storage::host : Storage::device;
  a.flags = MemFlags::read_write;
  out = a;
  mem = NativeMem{ptr, host, bytes, ctx.context, CudaMemKind::borrowed};
  return {};
}

/// cuda.core's kinds: device memory at its device address, pinned memory at its host address, managed
/// memory at its (unified) address; others (registered, shadowed, borrowed) are exported by the common
/// layer from their caller memory, or not at all.
Cuda::MemAddress Cuda::mem_address(const NativeContext& ctx, const NativeMem& mem) noexcept {
  auto* device = reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(mem.device_ptr));
  switch (mem.kind) {
    case CudaMemKind::device: return MemAddress{device, contract::MemPlace::device, ctx.device};
    case CudaMemKind::pinned: return MemAddress{static_cast<std::byte*>(mem.host), contract::MemPlace::pinned, 0};
    case CudaMemKind::managed: return MemAddress{device, contract::MemPlace::managed, 0};
    default: return {};
  }
}

bool Cuda::mem_shadowed(const NativeMem& mem) noexcept { return mem.kind == CudaMemKind::shadowed; }

void Cuda::mem_release(NativeMem& mem) noexcept {
  if (mem.kind != CudaMemKind::borrowed && mem.kind != CudaMemKind::none) {
    if (const auto bound = cu::bind(mem.context)) free_native(mem);
  }
  mem = NativeMem{};
}

namespace {

/// The header before a staging map's bytes: what unmap needs to write them back.
struct Staging {
  std::size_t offset;  // bytes into the memory object
  std::size_t bytes;   // mapped bytes
  bool upload;         // write or write_discard: copied back at unmap
};
constexpr std::size_t kStagingHeader = 256;  // keeps the mapped bytes 256-byte aligned
// Mapped::state of a shadowed map: the mapped length shifted left by 2, its low bits saying whether
// unmap uploads (a staging address, page aligned, has both low bits clear).
constexpr std::uintptr_t kShadowUpload = 1;
constexpr std::uintptr_t kShadowRead = 2;
constexpr std::uintptr_t kShadowBits = 3;
static_assert(sizeof(Staging) <= kStagingHeader, "the staging header fits");

/// Waits for what managed memory needs before the host touches it: on a device without concurrent
/// managed access, every stream of the context (no kernel may run while the host reaches it).
Result<void> settle_managed(const Cuda::NativeMem& mem) noexcept {
  if (mem.kind != CudaMemKind::managed) return {};
  CUdevice d = 0;
  EDGEMEM_TRY(cu::check(cu::driver().cuCtxGetDevice(&d)));
  EDGEMEM_TRY_ASSIGN(const int concurrent, device_attribute(static_cast<int>(d), CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS));
  if (concurrent != 0) return {};
  return cu::check(cu::driver().cuCtxSynchronize());
}

}  // namespace

Result<Cuda::Mapped> Cuda::map(NativeQueue q, const NativeMem& mem, Access access, std::size_t offset, std::size_t bytes,
                               const CommandEvents& sync) noexcept {
  if (access != Access::read) EDGEMEM_TRY(cu::writable(mem));
  // The whole map in q's context (staging, copies, the managed-memory wait), not only its ordering.
  EDGEMEM_TRY_ASSIGN(const cu::Bound bound, cu::bind(q.context));
  // After the waits and every earlier command of the stream (a map is blocking: sync has no out).
  EDGEMEM_TRY(cu::submit(q, sync, [](CUstream) { return CUDA_SUCCESS; }));
  const cu::Driver& drv = cu::driver();
  std::byte* const host = mem.host != nullptr ? static_cast<std::byte*>(mem.host) + offset : nullptr;
  if (mem.kind == CudaMemKind::shadowed) {  // the caller's memory is the mapping: refreshed unless discarded
    if (access != Access::write_discard) EDGEMEM_TRY(cu::check(cu::staged_copy(q.stream, cu::at(mem, offset), host, bytes, false)));
    return Mapped{host, (static_cast<std::uintptr_t>(bytes) << 2) | (access != Access::read ? kShadowUpload : kShadowRead)};
  }
  if (host != nullptr) {  // zero-copy
    EDGEMEM_TRY(settle_managed(mem));
    return Mapped{host, 0};
  }
  void* raw = nullptr;
  EDGEMEM_TRY(cu::check(drv.cuMemHostAlloc(&raw, kStagingHeader + bytes, 0)));
  *static_cast<Staging*>(raw) = Staging{offset, bytes, access != Access::read};
  std::byte* const staged = static_cast<std::byte*>(raw) + kStagingHeader;
  CUresult status = CUDA_SUCCESS;
  if (access != Access::write_discard) status = drv.cuMemcpyDtoHAsync(staged, cu::at(mem, offset), bytes, q.stream);
  if (status == CUDA_SUCCESS) status = drv.cuStreamSynchronize(q.stream);
  if (status != CUDA_SUCCESS) {
    (void)drv.cuMemFreeHost(raw);
    return cu::fail_cu(status);
  }
  return Mapped{staged, reinterpret_cast<std::uintptr_t>(raw)};
}

Result<void> Cuda::unmap(NativeQueue q, const NativeMem& mem, const Mapped& mapped, const CommandEvents& sync) noexcept {
  const std::uintptr_t shadow = mapped.state & kShadowBits;
  if (mapped.state == 0 || shadow == kShadowRead) {  // nothing to write back
    // Blocking with nothing to wait for: done (the host's writes are in the memory already); else an
    // ordering point on the stream.
    if (sync.out == nullptr && sync.wait_count == 0) return {};
    return cu::submit(q, sync, [](CUstream) { return CUDA_SUCCESS; });
  }
  EDGEMEM_TRY_ASSIGN(cu::Command c, cu::begin(q, sync));
  // The write-back has completed when unmap returns, async or not: the staging is freed, and the caller
  // may write a shadowed wrap's memory again at once.
  const cu::Driver& drv = cu::driver();
  CUresult status = CUDA_SUCCESS;
  if (shadow == kShadowUpload) {
    const auto offset = static_cast<std::size_t>(static_cast<std::byte*>(mapped.host) - static_cast<std::byte*>(mem.host));
    status = cu::staged_copy(q.stream, cu::at(mem, offset), mapped.host, static_cast<std::size_t>(mapped.state >> 2), true);
  } else {
    void* raw = reinterpret_cast<void*>(mapped.state);
    const Staging header = *static_cast<const Staging*>(raw);
    if (header.upload) status = drv.cuMemcpyHtoDAsync(cu::at(mem, header.offset), mapped.host, header.bytes, q.stream);
    if (status == CUDA_SUCCESS) status = drv.cuStreamSynchronize(q.stream);
    (void)drv.cuMemFreeHost(raw);
  }
  return cu::end(q, sync, std::move(c), status);
}

}  // namespace edgemem::backend
