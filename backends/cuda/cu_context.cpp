// CUDA backend: the device census, opening a device's primary context, DeviceInfo, context lifetime.
#include <cstdio>
#include <cstring>

#include "cu.hpp"

namespace edgemem::backend {

namespace {

/// CUDA devices count as GPUs: `any` and `gpu` see them, `cpu` and `accelerator` none.
bool counts(DeviceType type) noexcept { return type == DeviceType::any || type == DeviceType::gpu; }

Result<int> attribute(CUdevice d, CUdevice_attribute a) noexcept {
  int v = 0;
  EDGEMEM_TRY(cu::check(cu::driver().cuDeviceGetAttribute(&v, a, d)));
  return v;
}

Result<void> describe(CUdevice d, DeviceInfo& info) noexcept {
  const cu::Driver& drv = cu::driver();
  EDGEMEM_TRY(cu::check(drv.cuDeviceGetName(info.name, static_cast<int>(sizeof info.name), d)));
  info.name[sizeof info.name - 1] = '\0';
  int driver_version = 0;
  EDGEMEM_TRY(cu::check(drv.cuDriverGetVersion(&driver_version)));
  EDGEMEM_TRY_ASSIGN(const int cc_major, attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
  EDGEMEM_TRY_ASSIGN(const int cc_minor, attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  info.version_major = static_cast<unsigned>(driver_version / 1000);
  info.version_minor = static_cast<unsigned>((driver_version % 1000) / 10);
  std::snprintf(info.version, sizeof info.version, "CUDA %u.%u / compute capability %d.%d", info.version_major,
                info.version_minor, cc_major, cc_minor);
  std::snprintf(info.driver, sizeof info.driver, "CUDA driver API %d", driver_version);
  info.backend = Cuda::name;
  std::size_t total = 0;
  EDGEMEM_TRY(cu::check(drv.cuDeviceTotalMem(&total, d)));
  info.global_mem_bytes = total;
  info.max_alloc_bytes = total;  // CUDA has no per-allocation limit below the device's memory
  info.base_align_bytes = 256;   // cuMemAlloc's alignment; sub-buffer origins keep it
  CUuuid uuid{};
  info.has_uuid = drv.cuDeviceGetUuid(&uuid, d) == CUDA_SUCCESS;
  static_assert(sizeof uuid.bytes == sizeof info.uuid, "CUuuid is 16 bytes");
  if (info.has_uuid) std::memcpy(info.uuid, uuid.bytes, sizeof info.uuid);
  EDGEMEM_TRY_ASSIGN(const int integrated, attribute(d, CU_DEVICE_ATTRIBUTE_INTEGRATED));
  EDGEMEM_TRY_ASSIGN(const int managed, attribute(d, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY));
  EDGEMEM_TRY_ASSIGN(const int mapped, attribute(d, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY));
  if (managed == 0 || mapped == 0)
    return fail(Errc::unsupported, "CUDA backend: the device cannot map host memory or allocate managed memory");
  Capabilities c;
  c.max_fill_pattern_bytes = 128;  // memset for 1, 2, 4 bytes; wider ones doubled by copies (cu_transfer.cpp)
  c.unified_memory = integrated != 0;  // Jetson: device memory is the host's
  c.caller_memory_in_place = true;     // registered host memory (cu_register.cpp)
  c.read_only_caller_memory_in_place = true;  // registered read-only (CU_MEMHOSTREGISTER_READ_ONLY)
  c.migration = true;                  // cuMemPrefetchAsync for managed memory; an ordering point otherwise
  c.sub_buffer_migration = true;       // a view's range is prefetched like a root's
  c.host_access_flags = true;          // checked by the common layer; CUDA has no flags of its own
  info.caps = c;
  return {};
}

/// Device `sel.device_index` (-1: the first).
Result<CUdevice> pick(const DeviceSelector& sel) noexcept {
  int count = 0;
  EDGEMEM_TRY(cu::check(cu::driver().cuDeviceGetCount(&count)));
  const int index = sel.device_index < 0 ? 0 : sel.device_index;
  if (sel.platform_index != 0 || !counts(sel.type) || index >= count)
    return fail(Errc::invalid_argument, "no such CUDA device");
  CUdevice d = 0;
  EDGEMEM_TRY(cu::check(cu::driver().cuDeviceGet(&d, index)));
  return d;
}

}  // namespace

Result<void> Cuda::device_census(DeviceType type, DeviceCensus& out) noexcept {
  EDGEMEM_TRY(cu::load());
  int count = 0;
  const CUresult status = cu::driver().cuDeviceGetCount(&count);
  if (status == CUDA_ERROR_NO_DEVICE) count = 0;
  else EDGEMEM_TRY(cu::check(status));
  DeviceCensus census;
  census.platforms = 1;
  census.devices[0] = counts(type) ? static_cast<unsigned>(count) : 0u;
  out = census;
  return {};
}

Result<Cuda::NativeContext> Cuda::context_create(const DeviceSelector& sel, DeviceInfo& info) noexcept {
  EDGEMEM_TRY(cu::load());
  EDGEMEM_TRY_ASSIGN(const CUdevice d, pick(sel));
  DeviceInfo filled{};
  EDGEMEM_TRY(describe(d, filled));
  CUcontext ctx = nullptr;
  EDGEMEM_TRY(cu::check(cu::driver().cuDevicePrimaryCtxRetain(&ctx, d)));
  auto bound = cu::bind(ctx);
  Result<void> pooled = bound ? cu::pool_events(ctx) : Result<void>(fail(bound.error()));
  if (!pooled) {
    (void)cu::driver().cuDevicePrimaryCtxRelease(d);
    return fail(pooled.error());
  }
  info = filled;
  return NativeContext{ctx, static_cast<int>(d)};
}

Result<Cuda::NativeContext> Cuda::context_adopt(const NativeContext& native, AdoptMode mode, DeviceInfo& info) noexcept {
  if (native.context == nullptr) return fail(Errc::invalid_argument, "adopt needs a CUcontext");
  EDGEMEM_TRY(cu::load());
  const cu::Driver& drv = cu::driver();
  // The context's device, asked of the context itself (pushed for the query, popped after).
  EDGEMEM_TRY(cu::check(drv.cuCtxPushCurrent(native.context)));
  CUdevice d = 0;
  const CUresult asked = drv.cuCtxGetDevice(&d);
  CUcontext popped = nullptr;
  (void)drv.cuCtxPopCurrent(&popped);
  EDGEMEM_TRY(cu::check(asked));
  if (native.device >= 0 && native.device != static_cast<int>(d))
    return fail(Errc::invalid_argument, "the CUdevice is not the adopted CUcontext's device");
  CUcontext primary = nullptr;
  EDGEMEM_TRY(cu::check(drv.cuDevicePrimaryCtxRetain(&primary, d)));
  if (primary != native.context) {
    (void)drv.cuDevicePrimaryCtxRelease(d);
    return fail(Errc::unsupported, "edgemem adopts a device's primary context only (cuDevicePrimaryCtxRetain)");
  }
  DeviceInfo filled{};
  auto described = describe(d, filled);
  if (described) {  // borrowed too: context_release(ctx, true) drains them
    auto bound = cu::bind(primary);
    described = bound ? cu::pool_events(primary) : Result<void>(fail(bound.error()));
  }
  if (!described) {
    (void)drv.cuDevicePrimaryCtxRelease(d);
    return fail(described.error());
  }
  if (mode != AdoptMode::retain) (void)drv.cuDevicePrimaryCtxRelease(d);  // borrow keeps no reference
  info = filled;
  return NativeContext{native.context, static_cast<int>(d)};
}

void Cuda::context_release(NativeContext& ctx, bool borrowed) noexcept {
  if (ctx.context != nullptr) {
    cu::drain_events(ctx.context);
    if (!borrowed) (void)cu::driver().cuDevicePrimaryCtxRelease(static_cast<CUdevice>(ctx.device));
  }
  ctx = NativeContext{};
}

}  // namespace edgemem::backend
