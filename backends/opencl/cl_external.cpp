// OpenCL backend: the driver's own imports of foreign memory (the contract's external group).
// cl_khr_external_memory_dma_buf and _opaque_fd go through clCreateBufferWithProperties (OpenCL 3.0:
// declared here, weak, and called only on a device of version 3.0 or newer); cl_arm_import_memory
// through clImportMemoryARM; the acquire / release commands of cl_khr_external_memory bracket every
// command on a khr import (the common layer enqueues them). Extension entry points come from
// clGetExtensionFunctionAddressForPlatform: the ICD loader exports none of them.
//
// The fd: importing through cl_khr_external_memory transfers ownership of the fd to the OpenCL
// implementation (the specification's "File Descriptor Handle Types"), so the driver is given a
// duplicate of the caller's (closed here only when the import fails). cl_arm_import_memory takes a
// pointer to the fd and keeps its own reference to the dma-buf: it is given the caller's fd.
// Neither path takes an offset: the import covers offset + bytes and the memory object is a
// sub-buffer at the offset (which must be a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN).
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <mutex>

#include "cl.hpp"
#include "cl_error.hpp"
#include "cl_submit.hpp"

extern "C" {
/// OpenCL 3.0's clCreateBufferWithProperties (cl_mem_properties is a cl_ulong), absent from the 1.2
/// declarations edgemem compiles against; null when the loader lacks it.
CL_API_ENTRY cl_mem CL_API_CALL clCreateBufferWithProperties(cl_context, const cl_ulong*, cl_mem_flags, size_t, void*,
                                                             cl_int*) __attribute__((weak));
}

namespace edgemem::backend {

namespace {

/// clImportMemoryARM's type.
using ImportArmFn = cl_mem(CL_API_CALL*)(cl_context, cl_mem_flags, const cl_import_properties_arm*, void*, size_t,
                                         cl_int*);
/// clEnqueueAcquireExternalMemObjectsKHR's and clEnqueueReleaseExternalMemObjectsKHR's type.
using HandOverFn = clEnqueueAcquireExternalMemObjectsKHR_fn;

/// The extension entry points of one platform (null where the platform has none).
struct Entries {
  cl_platform_id platform = nullptr;  ///< whose entry points these are
  HandOverFn acquire = nullptr;       ///< clEnqueueAcquireExternalMemObjectsKHR
  HandOverFn release = nullptr;       ///< clEnqueueReleaseExternalMemObjectsKHR
  ImportArmFn import_arm = nullptr;   ///< clImportMemoryARM
};

/// The entry points of `platform`, looked up once per platform (the first eight are remembered).
Entries entries_of(cl_platform_id platform) noexcept {
  static std::mutex lock;
  static Entries known[8];
  static unsigned count = 0;
  std::lock_guard<std::mutex> guard(lock);
  for (unsigned i = 0; i < count; ++i)
    if (known[i].platform == platform) return known[i];
  Entries e;
  e.platform = platform;
  e.acquire = reinterpret_cast<HandOverFn>(
      clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueAcquireExternalMemObjectsKHR"));
  e.release = reinterpret_cast<HandOverFn>(
      clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueReleaseExternalMemObjectsKHR"));
  e.import_arm = reinterpret_cast<ImportArmFn>(clGetExtensionFunctionAddressForPlatform(platform, "clImportMemoryARM"));
  if (count < 8) known[count++] = e;
  return e;
}

/// The platform of `device`. Errc: as the driver answers.
Result<cl_platform_id> platform_of(cl_device_id device) noexcept {
  cl_platform_id p = nullptr;
  EDGEMEM_TRY(cl::check(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof p, &p, nullptr)));
  return p;
}

/// True when the space-separated extension list `list` names `ext` exactly.
bool lists(const char* list, const char* ext) noexcept {
  const std::size_t len = std::strlen(ext);
  for (const char* p = std::strstr(list, ext); p != nullptr; p = std::strstr(p + 1, ext)) {
    if ((p == list || p[-1] == ' ') && (p[len] == '\0' || p[len] == ' ')) return true;
  }
  return false;
}

/// What mem_import learned about the device once per import.
struct Device {
  char extensions[8192];       ///< CL_DEVICE_EXTENSIONS (truncated past 8 KiB)
  bool v30 = false;            ///< OpenCL 3.0 or newer (clCreateBufferWithProperties)
  cl_platform_id platform{};   ///< its platform
  std::size_t base_align = 1;  ///< CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes
};

/// Describes `device` into `d`. Errc: as the driver answers.
Result<void> describe(cl_device_id device, Device& d) noexcept {
  EDGEMEM_TRY(cl::query_text(device, CL_DEVICE_EXTENSIONS, d.extensions, sizeof d.extensions));
  char version[128];
  EDGEMEM_TRY(cl::query_text(device, CL_DEVICE_VERSION, version, sizeof version));
  unsigned major = 0, minor = 0;
  d.v30 = cl::parse_version(version, major, minor) && major >= 3;
  EDGEMEM_TRY_ASSIGN(d.platform, platform_of(device));
  cl_uint bits = 8;
  EDGEMEM_TRY(cl::check(clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, nullptr)));
  d.base_align = bits >= 8 ? bits / 8 : 1;
  return {};
}

/// A failed import's Error: CL_INVALID_DEVICE (the device cannot import this handle type, by the
/// extension's error list) is Errc::unsupported; everything else maps as usual (cl_error.cpp).
Failure import_failure(cl_int status) noexcept {
  if (status == CL_INVALID_DEVICE) return fail(Errc::unsupported, "the device refused this handle type", status);
  return cl::fail_cl(status);
}

/// cl_khr_external_memory: a buffer of `bytes` bytes over a duplicate of `fd` of handle type `type`.
Result<cl_mem> import_khr(const OpenCL::NativeContext& ctx, cl_ulong type, int fd, std::size_t bytes,
                          MemFlags flags) noexcept {
  if (clCreateBufferWithProperties == nullptr)
    return fail(Errc::unsupported, "the OpenCL loader lacks clCreateBufferWithProperties (OpenCL 3.0)");
  const int owned = fcntl(fd, F_DUPFD_CLOEXEC, 0);  // the implementation takes ownership of what it gets
  if (owned < 0) return fail(Errc::out_of_host_memory, "dup of the fd failed");
  const cl_ulong props[] = {type,
                            static_cast<cl_ulong>(owned),
                            CL_DEVICE_HANDLE_LIST_KHR,
                            static_cast<cl_ulong>(reinterpret_cast<std::uintptr_t>(ctx.device)),
                            CL_DEVICE_HANDLE_LIST_END_KHR,
                            0};
  cl_int status = CL_SUCCESS;
  cl_mem mem = clCreateBufferWithProperties(ctx.context, props, cl::access_flags(flags), bytes, nullptr, &status);
  if (status == CL_SUCCESS && mem == nullptr) status = CL_OUT_OF_HOST_MEMORY;
  if (status != CL_SUCCESS) {
    (void)close(owned);
    return import_failure(status);
  }
  return mem;
}

/// cl_arm_import_memory: a buffer of `bytes` bytes over dma-buf `fd` (the driver keeps its own reference).
Result<cl_mem> import_arm(const OpenCL::NativeContext& ctx, ImportArmFn fn, int fd, std::size_t bytes,
                          MemFlags flags) noexcept {
  const cl_import_properties_arm props[] = {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_DMA_BUF_ARM, 0};
  int handle = fd;
  cl_int status = CL_SUCCESS;
  cl_mem mem = fn(ctx.context, cl::access_flags(flags), props, &handle, bytes, &status);
  if (status == CL_SUCCESS && mem == nullptr) status = CL_OUT_OF_HOST_MEMORY;
  if (status != CL_SUCCESS) return import_failure(status);
  return mem;
}

/// `whole` (an import of offset + bytes) itself when `offset` is 0, else a sub-buffer of it at `offset`
/// (which then holds the only reference edgemem keeps to `whole`). `whole` is released on failure.
Result<cl_mem> at_offset(cl_mem whole, std::size_t offset, std::size_t bytes) noexcept {
  if (offset == 0) return whole;
  const cl_buffer_region region{offset, bytes};
  cl_int status = CL_SUCCESS;
  cl_mem sub = clCreateSubBuffer(whole, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
  (void)clReleaseMemObject(whole);  // the sub-buffer keeps its parent alive
  if (status == CL_SUCCESS && sub == nullptr) status = CL_OUT_OF_HOST_MEMORY;
  if (status != CL_SUCCESS) return cl::fail_cl(status);
  return sub;
}

/// Enqueues `fn` (acquire or release) of `mem` on `q` under `ev`. A khr import at an offset is a
/// sub-buffer, which the driver may refuse (CL_INVALID_MEM_OBJECT: not made from a handle): then its
/// parent, the imported object, is handed over instead.
Result<void> hand_over(cl_command_queue q, cl_mem mem, const OpenCL::CommandEvents& ev, bool acquire) noexcept {
  cl_device_id device = nullptr;
  EDGEMEM_TRY(cl::check(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof device, &device, nullptr)));
  EDGEMEM_TRY_ASSIGN(const cl_platform_id platform, platform_of(device));
  const Entries e = entries_of(platform);
  const HandOverFn fn = acquire ? e.acquire : e.release;
  if (fn == nullptr) return fail(Errc::unsupported, "the platform lacks cl_khr_external_memory's acquire/release");
  return cl::submit(ev, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    cl_mem target = mem;
    cl_int status = fn(q, 1, &target, n, waits, out);
    if (status == CL_INVALID_MEM_OBJECT &&
        clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof target, &target, nullptr) == CL_SUCCESS &&
        target != nullptr)
      status = fn(q, 1, &target, n, waits, out);
    return status;
  });
}

}  // namespace

Result<OpenCL::NativeMem> OpenCL::mem_import(const NativeContext& ctx, const ImportDesc& desc,
                                             ImportPath& path) noexcept {
  if (desc.type != HandleType::dma_buf && desc.type != HandleType::opaque_fd)
    return fail(Errc::unsupported, "the driver imports only dma-bufs and opaque fds");
  if (desc.bytes > SIZE_MAX - desc.offset) return fail(Errc::out_of_range, "offset + size overflows");
  Device d;
  EDGEMEM_TRY(describe(ctx.device, d));
  if (desc.offset % d.base_align != 0)
    return fail(Errc::unsupported, "the offset is not a multiple of the device's base address alignment");
  const std::size_t whole = desc.offset + desc.bytes;
  Result<cl_mem> mem = fail(Errc::unsupported, "the device lists no import path for this handle type");
  if (desc.type == HandleType::opaque_fd) {
    if (d.v30 && lists(d.extensions, "cl_khr_external_memory_opaque_fd")) {
      mem = import_khr(ctx, CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, desc.fd, whole, desc.flags);
      path = ImportPath::khr_opaque_fd;
    }
  } else {
    if (d.v30 && lists(d.extensions, "cl_khr_external_memory_dma_buf")) {
      mem = import_khr(ctx, CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR, desc.fd, whole, desc.flags);
      path = ImportPath::khr_dma_buf;
    }
    if (!mem && lists(d.extensions, "cl_arm_import_memory")) {
      const ImportArmFn fn = entries_of(d.platform).import_arm;
      if (fn != nullptr) {
        // A khr refusal other than "unsupported" stands when Arm's path fails too.
        auto arm = import_arm(ctx, fn, desc.fd, whole, desc.flags);
        if (arm || mem.error().code == Errc::unsupported) {
          mem = arm;
          path = ImportPath::arm_dma_buf;
        }
      }
    }
  }
  if (!mem) {
    path = ImportPath::none;
    return fail(mem.error());
  }
  auto placed = at_offset(*mem, desc.offset, desc.bytes);
  if (!placed) path = ImportPath::none;
  return placed;
}

Result<void> OpenCL::external_acquire(NativeQueue q, const NativeMem& mem, const CommandEvents& ev) noexcept {
  return hand_over(q, mem, ev, true);
}

Result<void> OpenCL::external_release(NativeQueue q, const NativeMem& mem, const CommandEvents& ev) noexcept {
  return hand_over(q, mem, ev, false);
}

}  // namespace edgemem::backend
