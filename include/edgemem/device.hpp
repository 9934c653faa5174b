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

/// Kinds of foreign memory a device can import without a copy (bits of Capabilities::external_memory).
enum ExternalMemoryKind : unsigned {
  external_dma_buf = 1u << 0,       ///< Linux dma-buf fds (cl_khr_external_memory_dma_buf)
  external_arm_import = 1u << 1,    ///< Arm's import path for dma-buf and host memory (cl_arm_import_memory)
  external_opaque_fd = 1u << 2,     ///< opaque fds from Vulkan/CUDA exports (cl_khr_external_memory_opaque_fd)
  external_opaque_win32 = 1u << 3,  ///< opaque Windows handles (cl_khr_external_memory_win32)
};

/// What the device behind a Context can do beyond the required buffer operations, gathered once at
/// context creation. edgemem answers Errc::unsupported, before any driver call and alike on every
/// backend, for an operation that needs a capability the device lacks. The host backend's set is
/// configurable with EDGEMEM_HOST_CAPS in -Dhost_caps_env=true builds (see README, Meson options), so tests cover
/// both paths of each capability.
struct Capabilities {
  bool images = false;                     ///< image objects (CL_DEVICE_IMAGE_SUPPORT)
  bool image_from_buffer = false;          ///< 2D images over a buffer's memory (cl_khr_image2d_from_buffer)
  /// Image views (1D-buffer; 2D with image_from_buffer) of a sub-buffer, pool block or heap run, not
  /// only of a root buffer (PoCL 3.1 refuses them; probed at context creation on OpenCL).
  bool image_from_sub_buffer = false;
  bool svm_coarse = false;                 ///< coarse-grain buffer SVM
  bool svm_fine_buffer = false;            ///< fine-grain buffer SVM
  bool svm_fine_system = false;            ///< fine-grain system SVM (any host pointer)
  bool svm_migration = false;              ///< Queue::migrate of SVM (clEnqueueSVMMigrateMem, OpenCL 2.1)
  std::size_t max_fill_pattern_bytes = 0;  ///< widest fill pattern in bytes (a power of two; 0: no fill)
  unsigned external_memory = 0;            ///< ExternalMemoryKind bits
  bool unified_memory = false;             ///< device and host share memory (map is zero-copy)
  /// Caller memory (Buffer::wrap; mmap and host-pointer imports) is used in place: the device's
  /// commands read and write those very bytes. False: the device keeps its own copy, synchronised with
  /// the memory only at maps (caller memory's rule, external.hpp: discrete OpenCL devices, NVIDIA's).
  /// CUDA: true, for every wrap it registers (a wrap partly over another wrap's pages, or memory CUDA
  /// will not register, gets its own copy all the same): Buffer::is_caller_memory_in_place() answers
  /// for one buffer.
  bool caller_memory_in_place = false;
  /// Caller memory the process may only read (pages mapped PROT_READ: read-only imports of fds, wraps of
  /// such memory) is used in place too. False where the driver cannot take such pages (NVIDIA's Vulkan
  /// driver, whose failed import leaves the device unusable: edgemem never asks it): a read-only import
  /// then answers Errc::unsupported, or copies with ImportOptions::allow_copy.
  bool read_only_caller_memory_in_place = false;
  bool migration = false;                  ///< Queue::migrate moves contents (OpenCL 1.2 and newer)
  /// Queue::migrate of a view (sub-buffer, pool block, heap run) moves it, through a native sub-object
  /// made then. False: a view's migration is an ordering point only (a placement hint not taken; the
  /// root still migrates): NVIDIA's OpenCL driver crashes migrating sub-buffers.
  bool sub_buffer_migration = false;
  bool host_access_flags = false;          ///< MemFlags::host_* are honoured (OpenCL 1.2 and newer)
};

/// The device's image limits (all 0 when it has no images). Extents in pixels.
struct ImageLimits {
  std::size_t max_width_2d = 0;          ///< widest 1D, 1D-array, 2D or 2D-array image (CL_DEVICE_IMAGE2D_MAX_WIDTH)
  std::size_t max_height_2d = 0;         ///< tallest 2D or 2D-array image
  std::size_t max_width_3d = 0;          ///< widest 3D image
  std::size_t max_height_3d = 0;         ///< tallest 3D image
  std::size_t max_depth_3d = 0;          ///< deepest 3D image
  std::size_t max_array_size = 0;        ///< most layers of an array image
  std::size_t max_buffer_pixels = 0;     ///< widest 1D-buffer image (CL_DEVICE_IMAGE_MAX_BUFFER_SIZE)
  /// 2D image views of buffers (caps.image_from_buffer): row pitch alignment in pixels
  /// (CL_DEVICE_IMAGE_PITCH_ALIGNMENT; 0: the device cannot make them).
  unsigned pitch_align_pixels = 0;
  /// 2D image views of buffers: the buffer's device address alignment in pixels
  /// (CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT; 0: the device cannot make them).
  unsigned base_align_pixels = 0;
};

/// Properties of the device behind a Context.
struct DeviceInfo {
  char name[128] = {};                   ///< device name, NUL-terminated (truncated if longer)
  char version[128] = {};                ///< device/driver version string, NUL-terminated
  /// The driver's own version string, NUL-terminated (OpenCL: CL_DRIVER_VERSION; the host backend:
  /// edgemem's version)
  char driver[128] = {};
  const char* backend = "";              ///< the backend edgemem was built with (its folder's name under backends/)
  std::size_t max_alloc_bytes = 0;       ///< largest single allocation, bytes
  std::size_t global_mem_bytes = 0;      ///< total device memory, bytes
  std::size_t base_align_bytes = 0;      ///< sub-buffer origin alignment, bytes (OpenCL: CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8)
  unsigned version_major = 0;            ///< the device's API version (OpenCL's on OpenCL; the host backend reports 1.2)
  unsigned version_minor = 0;            ///< minor part of version_major
  Capabilities caps{};                   ///< what the device can do beyond the required operations
  /// The device's identity for IPC handles (OpenCL: CL_DEVICE_UUID_KHR of cl_khr_device_uuid; the host
  /// backend: one fixed value, shared by every process on the machine). Meaningful when has_uuid.
  std::uint8_t uuid[16] = {};
  bool has_uuid = false;                 ///< true when `uuid` identifies the device
  ImageLimits image_limits{};            ///< image extents and view alignments (caps.images)
};

}  // namespace edgemem
