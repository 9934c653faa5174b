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
struct DeviceSelector {
  DeviceType type = DeviceType::any;  ///< kind of device
  int platform_index = -1;            ///< platform index, or -1
  int device_index = -1;              ///< device index within the platform (counting only `type`), or -1
  bool ignore_environment = false;    ///< true: EDGEMEM_DEVICE is not consulted
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
