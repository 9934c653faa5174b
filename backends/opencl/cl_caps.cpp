// OpenCL backend: the device's capabilities (DeviceInfo::caps), gathered once at context creation so
// no command asks the driver for a device fact.
#include <cstring>

#include "cl.hpp"
#include "cl_error.hpp"

namespace edgemem::backend::cl {

namespace {

// OpenCL 2.0 names, not in the 1.2 headers edgemem compiles against (values from the specification).
constexpr cl_device_info kSvmCapabilities = 0x1053;  // CL_DEVICE_SVM_CAPABILITIES
constexpr cl_bitfield kSvmCoarseBuffer = 1u << 0;    // CL_DEVICE_SVM_COARSE_GRAIN_BUFFER
constexpr cl_bitfield kSvmFineBuffer = 1u << 1;      // CL_DEVICE_SVM_FINE_GRAIN_BUFFER
constexpr cl_bitfield kSvmFineSystem = 1u << 2;      // CL_DEVICE_SVM_FINE_GRAIN_SYSTEM

/// True when the space-separated extension list `list` names `ext` exactly.
bool has_extension(const char* list, const char* ext) noexcept {
  const std::size_t len = std::strlen(ext);
  for (const char* p = std::strstr(list, ext); p != nullptr; p = std::strstr(p + 1, ext)) {
    const bool starts = p == list || p[-1] == ' ';
    const bool ends = p[len] == '\0' || p[len] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

Result<void> describe_caps(cl_device_id d, unsigned version, Capabilities& caps) noexcept {
  cl_platform_id platform = nullptr;
  char platform_name[128] = {};
  EDGEMEM_TRY(check(clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr)));
  if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name, platform_name, nullptr) != CL_SUCCESS)
    platform_name[0] = '\0';
  platform_name[sizeof platform_name - 1] = '\0';
  char list[8192];  // longer lists are truncated (query_text), losing only their last names
  EDGEMEM_TRY(query_text(d, CL_DEVICE_EXTENSIONS, list, sizeof list));
  cl_bool images = CL_FALSE, unified = CL_FALSE;
  EDGEMEM_TRY(check(clGetDeviceInfo(d, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr)));
  EDGEMEM_TRY(check(clGetDeviceInfo(d, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, nullptr)));
  cl_bitfield svm = 0;
  if (version >= 20 && clGetDeviceInfo(d, kSvmCapabilities, sizeof svm, &svm, nullptr) != CL_SUCCESS) svm = 0;
  Capabilities c;
  c.images = images == CL_TRUE;
  c.image_from_buffer = c.images && ((version >= 20 && version < 30) || has_extension(list, "cl_khr_image2d_from_buffer"));
  c.svm_coarse = (svm & kSvmCoarseBuffer) != 0;
  c.svm_fine_buffer = (svm & kSvmFineBuffer) != 0;
  // Fine system SVM counts only with fine buffer SVM: edgemem allocates it as fine-grain buffers.
  c.svm_fine_system = (svm & kSvmFineSystem) != 0 && c.svm_fine_buffer;
  c.svm_migration = version >= 21 && c.svm_coarse;
  c.max_fill_pattern_bytes = version >= 12 ? 128 : 0;  // clEnqueueFillBuffer: 1..128 bytes, OpenCL 1.2
  if (has_extension(list, "cl_khr_external_memory_dma_buf")) c.external_memory |= external_dma_buf;
  if (has_extension(list, "cl_arm_import_memory")) c.external_memory |= external_arm_import;
  if (has_extension(list, "cl_khr_external_memory_opaque_fd")) c.external_memory |= external_opaque_fd;
  if (has_extension(list, "cl_khr_external_memory_win32")) c.external_memory |= external_opaque_win32;
  c.unified_memory = unified == CL_TRUE;
  c.caller_memory_in_place = c.unified_memory;  // CL_MEM_USE_HOST_PTR: a discrete device caches a copy
  c.read_only_caller_memory_in_place = c.caller_memory_in_place;
  c.migration = version >= 12;
  // NVIDIA's driver (580.x) crashes in clEnqueueMigrateMemObjects on a sub-buffer (and, read after its
  // parent migrated to the host, on the sub-buffer itself: tests/driver_bugs/nvidia).
  c.sub_buffer_migration = c.migration && std::strstr(platform_name, "NVIDIA") == nullptr;
  c.host_access_flags = version >= 12;
  caps = c;
  return {};
}

}  // namespace edgemem::backend::cl
