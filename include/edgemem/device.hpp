/// @file device.hpp  Device selection and the device properties a Context reports.
#pragma once
#include <cstddef>
#include <cstdint>

namespace edgemem {

/// Kind of device to select.
enum class DeviceType : std::uint8_t {
  any,          ///< the default device of the first platform that has one
  gpu,          ///< a GPU
  cpu,          ///< a CPU device (the host backend is one)
  accelerator,  ///< an accelerator (DSP, FPGA, ...)
};

/// Which device Context::create opens. Indices of -1 mean "not specified".
/// Unless `ignore_environment` is set, EDGEMEM_DEVICE=<platform>:<device> overrides the indices.
///
/// Selection rule, the same on every backend (applied by Context::create before the backend opens
/// anything; the host backend has one platform with one cpu device):
/// 1. an unknown `type` or an index below -1: Errc::invalid_argument;
/// 2. no device of `type` on any platform: Errc::unsupported (whatever the indices say);
/// 3. otherwise, a selector that names nothing: Errc::invalid_argument. That is a `platform_index`
///    >= the number of platforms, a selected platform without a device of `type`, or a `device_index`
///    >= the number of devices of `type` on the selected platform. Platform -1 is the first platform
///    with a device of `type`; device -1 its default device of `type` (for `any`, the platform's
///    default device), else its first.
/// So for an absent type (gpu on the host backend, or on a CPU-only OpenCL system) every selector
/// answers unsupported, and for a present one an index out of range answers invalid_argument.
struct DeviceSelector {
  DeviceType type = DeviceType::any;  ///< kind of device
  int platform_index = -1;            ///< platform index, or -1
  int device_index = -1;              ///< device index within the platform (counting only `type`), or -1
  bool ignore_environment = false;    ///< true: EDGEMEM_DEVICE is not consulted
};

/// What a backend offers for one DeviceType: its platforms and how many devices of that type each
/// has. Context::create decides the selection rule (see DeviceSelector) from it.
struct DeviceCensus {
  static constexpr unsigned max_platforms = 32;  ///< platforms counted at most
  unsigned platforms = 0;                        ///< platforms, at most max_platforms (0: none installed)
  unsigned devices[max_platforms] = {};          ///< devices of the type on platform i (i < platforms)
};

/// Properties of the device behind a Context.
struct DeviceInfo {
  char name[128] = {};                   ///< device name, NUL-terminated (truncated if longer)
  char version[128] = {};                ///< device/driver version string, NUL-terminated
  const char* backend = "";              ///< "host" or "opencl"
  std::size_t max_alloc_bytes = 0;       ///< largest single allocation, bytes
  std::size_t global_mem_bytes = 0;      ///< total device memory, bytes
  std::size_t base_align_bytes = 0;      ///< sub-buffer origin alignment, bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8)
  bool unified_memory = false;           ///< true when device and host share memory (map is zero-copy)
  unsigned version_major = 0;            ///< OpenCL version of the device (host backend reports 1.2)
  unsigned version_minor = 0;            ///< minor part of version_major
};

}  // namespace edgemem
