// OpenCL backend: the device census, opening the selected device, DeviceInfo, context lifetime.
#include <cstdint>
#include <cstring>

#include "cl.hpp"
#include "cl_error.hpp"
#include "cl_submit.hpp"

namespace edgemem::backend {

namespace {

constexpr cl_uint kMaxPlatforms = 32;
constexpr cl_uint kMaxDevices = 64;

/// Devices of `type` on `platform` into `out`; 0 when the platform has none.
Result<cl_uint> list_devices(cl_platform_id platform, cl_device_type type, cl_device_id (&out)[kMaxDevices]) noexcept {
  cl_uint n = 0;
  const cl_int status = clGetDeviceIDs(platform, type, kMaxDevices, out, &n);
  if (status == CL_DEVICE_NOT_FOUND) return 0u;
  if (status != CL_SUCCESS) return cl::fail_cl(status);
  return n < kMaxDevices ? n : kMaxDevices;
}

cl_device_type cl_type_of(DeviceType type) noexcept {
  switch (type) {
    case DeviceType::gpu: return CL_DEVICE_TYPE_GPU;
    case DeviceType::cpu: return CL_DEVICE_TYPE_CPU;
    case DeviceType::accelerator: return CL_DEVICE_TYPE_ACCELERATOR;
    case DeviceType::any: break;
  }
  return CL_DEVICE_TYPE_ALL;
}

/// The platforms into `out`; 0 when none is installed. Errc: as the driver answers.
Result<cl_uint> list_platforms(cl_platform_id (&out)[kMaxPlatforms]) noexcept {
  cl_uint count = 0;
  const cl_int status = clGetPlatformIDs(kMaxPlatforms, out, &count);
  if (status == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */) return 0u;
  EDGEMEM_TRY(cl::check(status));
  return count < kMaxPlatforms ? count : kMaxPlatforms;
}

/// Device `sel.device_index` of `sel.type` on `platform` (-1: the default device for any, else the
/// first of the type). Errc: invalid_argument (no such device), or the driver's answer.
Result<cl_device_id> pick_device(cl_platform_id platform, const DeviceSelector& sel) noexcept {
  cl_device_id devices[kMaxDevices];
  if (sel.type == DeviceType::any && sel.device_index < 0) {
    auto def = list_devices(platform, CL_DEVICE_TYPE_DEFAULT, devices);
    if (def && *def > 0) return devices[0];
  }
  EDGEMEM_TRY_ASSIGN(const cl_uint count, list_devices(platform, cl_type_of(sel.type), devices));
  const cl_uint index = sel.device_index < 0 ? 0u : static_cast<cl_uint>(sel.device_index);
  if (index >= count) return fail(Errc::invalid_argument, "no such device of the requested type on the platform");
  return devices[index];
}

struct Choice {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
};

/// The platform and device a resolved selector names (see OpenCL::context_create).
Result<Choice> choose(const DeviceSelector& sel) noexcept {
  cl_platform_id platforms[kMaxPlatforms];
  EDGEMEM_TRY_ASSIGN(const cl_uint count, list_platforms(platforms));
  if (sel.platform_index < 0 || static_cast<cl_uint>(sel.platform_index) >= count)
    return fail(Errc::invalid_argument, "platform index out of range");
  const cl_platform_id p = platforms[sel.platform_index];
  EDGEMEM_TRY_ASSIGN(const cl_device_id d, pick_device(p, sel));
  return Choice{p, d};
}

template <class T>
Result<T> query(cl_device_id device, cl_device_info param) noexcept {
  T value{};
  EDGEMEM_TRY(cl::check(clGetDeviceInfo(device, param, sizeof value, &value, nullptr)));
  return value;
}

std::size_t to_size(cl_ulong v) noexcept {
  if constexpr (sizeof(std::size_t) < sizeof(cl_ulong)) {
    if (v > static_cast<cl_ulong>(SIZE_MAX)) return SIZE_MAX;
  }
  return static_cast<std::size_t>(v);
}

void append(char (&dst)[128], const char* src) noexcept {
  const std::size_t used = std::strlen(dst);
  const std::size_t room = sizeof dst - 1 - used;
  const std::size_t len = std::strlen(src);
  const std::size_t n = len < room ? len : room;
  std::memcpy(dst + used, src, n);
  dst[used + n] = '\0';
}

Result<void> describe(cl_device_id d, DeviceInfo& info) noexcept {
  EDGEMEM_TRY(cl::query_text(d, CL_DEVICE_NAME, info.name, sizeof info.name));
  EDGEMEM_TRY(cl::query_text(d, CL_DEVICE_VERSION, info.version, sizeof info.version));
  unsigned major = 0, minor = 0;
  if (cl::parse_version(info.version, major, minor)) {
    info.version_major = major;
    info.version_minor = minor;
  }
  EDGEMEM_TRY(cl::query_text(d, CL_DRIVER_VERSION, info.driver, sizeof info.driver));
  append(info.version, " / driver ");
  append(info.version, info.driver);
  info.backend = OpenCL::name;
  EDGEMEM_TRY_ASSIGN(const cl_ulong max_alloc, query<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  EDGEMEM_TRY_ASSIGN(const cl_ulong global, query<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE));
  EDGEMEM_TRY_ASSIGN(const cl_uint align_bits, query<cl_uint>(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN));
  info.max_alloc_bytes = to_size(max_alloc);
  info.global_mem_bytes = to_size(global);
  info.base_align_bytes = align_bits >= 8 ? align_bits / 8 : 1;  // the query is in bits
  // cl_khr_device_uuid (the identity in IPC handles): a device without it refuses the query.
  info.has_uuid = clGetDeviceInfo(d, CL_DEVICE_UUID_KHR, sizeof info.uuid, info.uuid, nullptr) == CL_SUCCESS;
  EDGEMEM_TRY(cl::describe_caps(d, info.version_major * 10 + (info.version_minor < 10 ? info.version_minor : 9), info.caps));
  return cl::describe_image_limits(d, info.caps, info.image_limits);
}

}  // namespace

Result<void> OpenCL::device_census(DeviceType type, DeviceCensus& out) noexcept {
  static_assert(DeviceCensus::max_platforms == kMaxPlatforms, "the census counts every platform listed");
  cl_platform_id platforms[kMaxPlatforms];
  EDGEMEM_TRY_ASSIGN(const cl_uint count, list_platforms(platforms));
  DeviceCensus census;
  census.platforms = count;
  cl_device_id devices[kMaxDevices];
  for (cl_uint p = 0; p < count; ++p) {
    EDGEMEM_TRY_ASSIGN(census.devices[p], list_devices(platforms[p], cl_type_of(type), devices));
  }
  out = census;
  return {};
}

Result<OpenCL::NativeContext> OpenCL::context_create(const DeviceSelector& sel, DeviceInfo& info) noexcept {
  if (sel.type != DeviceType::any && sel.type != DeviceType::gpu && sel.type != DeviceType::cpu &&
      sel.type != DeviceType::accelerator)
    return fail(Errc::invalid_argument, "unknown device type");
  EDGEMEM_TRY_ASSIGN(const Choice choice, choose(sel));
  DeviceInfo filled{};
  EDGEMEM_TRY(describe(choice.device, filled));
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(choice.platform),
                                         0};
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(props, 1, &choice.device, nullptr, nullptr, &status);
  if (status != CL_SUCCESS || context == nullptr) return cl::fail_cl(status != CL_SUCCESS ? status : CL_OUT_OF_HOST_MEMORY);
  auto pooled = cl::pool_events();
  if (!pooled) {
    (void)clReleaseContext(context);
    return fail(pooled.error());
  }
  filled.caps.image_from_sub_buffer = cl::probe_image_from_sub_buffer(context, filled);
  info = filled;
  return NativeContext{context, choice.device};
}

Result<OpenCL::NativeContext> OpenCL::context_adopt(const NativeContext& native, AdoptMode mode, DeviceInfo& info) noexcept {
  if (native.context == nullptr || native.device == nullptr)
    return fail(Errc::invalid_argument, "adopt needs a cl_context and one of its cl_device_ids");
  cl_device_id devices[kMaxDevices];
  std::size_t bytes = 0;
  EDGEMEM_TRY(cl::check(clGetContextInfo(native.context, CL_CONTEXT_DEVICES, sizeof devices, devices, &bytes)));
  bool member = false;
  for (std::size_t i = 0; i < bytes / sizeof(cl_device_id); ++i) member = member || devices[i] == native.device;
  if (!member) return fail(Errc::invalid_argument, "the cl_device_id is not a device of the adopted cl_context");
  DeviceInfo filled{};
  EDGEMEM_TRY(describe(native.device, filled));
  filled.caps.image_from_sub_buffer = cl::probe_image_from_sub_buffer(native.context, filled);
  EDGEMEM_TRY(cl::pool_events());  // borrowed too: context_release(ctx, true) gives it back
  if (mode == AdoptMode::retain) {
    auto retained = cl::check(clRetainContext(native.context));
    if (!retained) {
      cl::drain_events();
      return fail(retained.error());
    }
  }
  info = filled;
  return native;
}

void OpenCL::context_release(NativeContext& ctx, bool borrowed) noexcept {
  if (ctx.context != nullptr) {
    cl::drain_events();
    if (!borrowed) (void)clReleaseContext(ctx.context);
  }
  ctx = NativeContext{};
}

}  // namespace edgemem::backend
