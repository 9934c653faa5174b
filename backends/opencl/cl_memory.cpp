// OpenCL backend: memory objects (buffers, sub-buffers) and mappings.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "cl.hpp"
#include "cl_error.hpp"
#include "cl_submit.hpp"

namespace edgemem::backend {

namespace cl {

cl_mem_flags access_flags(MemFlags flags) noexcept {
  cl_mem_flags f = 0;
  if (has(flags, MemFlags::read_only)) f |= CL_MEM_READ_ONLY;
  else if (has(flags, MemFlags::write_only)) f |= CL_MEM_WRITE_ONLY;
  else f |= CL_MEM_READ_WRITE;
  if (has(flags, MemFlags::host_read_only)) f |= CL_MEM_HOST_READ_ONLY;
  if (has(flags, MemFlags::host_write_only)) f |= CL_MEM_HOST_WRITE_ONLY;
  if (has(flags, MemFlags::host_no_access)) f |= CL_MEM_HOST_NO_ACCESS;
  return f;
}

cl_map_flags map_flags(Access access) noexcept {
  switch (access) {
    case Access::read: return CL_MAP_READ;
    case Access::write: return CL_MAP_READ | CL_MAP_WRITE;
    case Access::write_discard: return CL_MAP_WRITE_INVALIDATE_REGION;
  }
  return CL_MAP_READ | CL_MAP_WRITE;
}

MemFlags flags_from_cl(cl_mem_flags f) noexcept {
  MemFlags flags = MemFlags::read_write;
  if (f & CL_MEM_READ_ONLY) flags = MemFlags::read_only;
  else if (f & CL_MEM_WRITE_ONLY) flags = MemFlags::write_only;
  if (f & CL_MEM_HOST_READ_ONLY) flags = flags | MemFlags::host_read_only;
  else if (f & CL_MEM_HOST_WRITE_ONLY) flags = flags | MemFlags::host_write_only;
  else if (f & CL_MEM_HOST_NO_ACCESS) flags = flags | MemFlags::host_no_access;
  return flags;
}

}  // namespace cl

namespace {

/// True when every byte of [p, p + bytes) lies in a mapping this process may write (/proc/self/maps,
/// read through a stack buffer: no heap; a line longer than the buffer is judged by its start, which
/// holds the range and permissions). True where the file cannot be opened (nothing to go by).
bool host_writable(const void* p, std::size_t bytes) noexcept {
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t end = at + bytes;
  char buf[4096];
  std::size_t have = 0;
  bool writable = false, done = false, skipping = false;  // skipping: the rest of a long line
  // One line (NUL-terminated, maybe cut short): settles the answer or moves `at` past its mapping.
  auto judge = [&](const char* line) {
    unsigned long lo = 0, hi = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3 || hi <= at) return;
    if (lo > at || perms[1] != 'w') done = true;  // a gap or a read-only mapping under [at, end)
    else if ((at = hi) >= end) done = writable = true;
  };
  while (!done) {
    const ssize_t got = read(fd, buf + have, sizeof buf - 1 - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    have += static_cast<std::size_t>(got);
    buf[have] = '\0';
    char* line = buf;
    for (char* nl; !done && (nl = std::strchr(line, '\n')) != nullptr; line = nl + 1) {
      *nl = '\0';
      if (skipping) skipping = false;  // the tail of a long line, judged already
      else judge(line);
    }
    have = static_cast<std::size_t>(buf + have - line);
    std::memmove(buf, line, have);
    if (!done && have == sizeof buf - 1) {  // a line longer than the buffer: judge its start, drop the rest
      buf[have] = '\0';
      if (!skipping) judge(buf);
      skipping = true;
      have = 0;
    }
  }
  close(fd);
  return writable;
}

cl_mem_flags cl_flags_of(const OpenCL::MemDesc& desc) noexcept {
  cl_mem_flags f = cl::access_flags(desc.flags);
  if (desc.use_host != nullptr) {
    f |= CL_MEM_USE_HOST_PTR;  // exclusive with ALLOC_HOST_PTR and COPY_HOST_PTR
  } else {
    if (desc.storage == Storage::host || desc.storage == Storage::shared) f |= CL_MEM_ALLOC_HOST_PTR;
    if (desc.copy_from != nullptr) f |= CL_MEM_COPY_HOST_PTR;
  }
  return f;
}


}  // namespace

Result<OpenCL::NativeMem> OpenCL::mem_create(const NativeContext& ctx, const MemDesc& desc) noexcept {
  if (desc.use_host != nullptr) {
    // A device without unified memory keeps its own copy of CL_MEM_USE_HOST_PTR memory and writes it
    // back into that memory at maps, even read maps (NVIDIA: SIGSEGV on a PROT_READ mapping).
    cl_bool unified = CL_FALSE;
    EDGEMEM_TRY(cl::check(clGetDeviceInfo(ctx.device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, nullptr)));
    if (unified != CL_TRUE && (desc.host_read_only || !host_writable(desc.use_host, desc.bytes)))
      return fail(Errc::unsupported, "this device writes its copy back into caller memory at maps: read-only "
                                     "memory cannot be used in place (ImportOptions::allow_copy copies it)");
  }
  void* host = desc.use_host != nullptr ? desc.use_host : const_cast<void*>(desc.copy_from);
  cl_int status = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(ctx.context, cl_flags_of(desc), desc.bytes, host, &status);
  if (status != CL_SUCCESS) return cl::fail_cl(status);
  if (mem == nullptr) return cl::fail_cl(CL_MEM_OBJECT_ALLOCATION_FAILURE);
  return mem;
}

Result<OpenCL::NativeMem> OpenCL::mem_sub(const NativeMem& root, std::size_t origin, std::size_t bytes,
                                          MemFlags flags) noexcept {
  const cl_buffer_region region{origin, bytes};
  cl_int status = CL_SUCCESS;
  // The view's flags narrow the root's (checked by the common layer): read_write and "no host flag"
  // are passed as 0, so the sub-buffer inherits those from the root; narrower ones are passed on.
  cl_mem_flags f = 0;
  if (has(flags, MemFlags::read_only)) f |= CL_MEM_READ_ONLY;
  else if (has(flags, MemFlags::write_only)) f |= CL_MEM_WRITE_ONLY;
  if (has(flags, MemFlags::host_read_only)) f |= CL_MEM_HOST_READ_ONLY;
  if (has(flags, MemFlags::host_write_only)) f |= CL_MEM_HOST_WRITE_ONLY;
  if (has(flags, MemFlags::host_no_access)) f |= CL_MEM_HOST_NO_ACCESS;
  cl_mem mem = clCreateSubBuffer(root, f, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
  cl_mem parent = nullptr;
  std::size_t at = 0;
  if (status == CL_INVALID_MEM_OBJECT &&  // a root that is a sub-buffer (an import at an offset, cl_external.cpp)
      clGetMemObjectInfo(root, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr) == CL_SUCCESS &&
      parent != nullptr && clGetMemObjectInfo(root, CL_MEM_OFFSET, sizeof at, &at, nullptr) == CL_SUCCESS) {
    const cl_buffer_region in_parent{at + origin, bytes};
    mem = clCreateSubBuffer(parent, f, CL_BUFFER_CREATE_TYPE_REGION, &in_parent, &status);
  }
  if (status != CL_SUCCESS) return cl::fail_cl(status);
  if (mem == nullptr) return cl::fail_cl(CL_OUT_OF_HOST_MEMORY);
  return mem;
}

namespace {

template <class T>
Result<T> mem_info(cl_mem mem, cl_mem_info param) noexcept {
  T value{};
  EDGEMEM_TRY(cl::check(clGetMemObjectInfo(mem, param, sizeof value, &value, nullptr)));
  return value;
}


}  // namespace

Result<void> OpenCL::mem_adopt(const NativeContext& ctx, NativeMem& mem, AdoptMode mode, AdoptedMem& out) noexcept {
  if (mem == nullptr) return fail(Errc::invalid_argument, "adopt needs a cl_mem");
  EDGEMEM_TRY_ASSIGN(const cl_mem_object_type type, mem_info<cl_mem_object_type>(mem, CL_MEM_TYPE));
  if (type != CL_MEM_OBJECT_BUFFER) return fail(Errc::unsupported, "only buffers can be adopted as an edgemem Buffer");
  EDGEMEM_TRY_ASSIGN(const cl_context context, mem_info<cl_context>(mem, CL_MEM_CONTEXT));
  if (context != ctx.context) return fail(Errc::invalid_argument, "the cl_mem belongs to another context");
  EDGEMEM_TRY_ASSIGN(const std::size_t bytes, mem_info<std::size_t>(mem, CL_MEM_SIZE));
  EDGEMEM_TRY_ASSIGN(const cl_mem_flags f, mem_info<cl_mem_flags>(mem, CL_MEM_FLAGS));
  EDGEMEM_TRY_ASSIGN(const cl_mem parent, mem_info<cl_mem>(mem, CL_MEM_ASSOCIATED_MEMOBJECT));
  EDGEMEM_TRY_ASSIGN(const std::size_t origin, mem_info<std::size_t>(mem, CL_MEM_OFFSET));
  void* host = nullptr;  // the caller memory, from the buffer that owns it (a sub-buffer's parent)
  if ((f & CL_MEM_USE_HOST_PTR) != 0) {
    EDGEMEM_TRY_ASSIGN(host, mem_info<void*>(parent != nullptr ? parent : mem, CL_MEM_HOST_PTR));
  }
  if (mode == AdoptMode::retain) EDGEMEM_TRY(cl::check(clRetainMemObject(mem)));
  AdoptedMem a;
  a.bytes = bytes;
  a.flags = cl::flags_from_cl(f);
  a.wrapped = (f & CL_MEM_USE_HOST_PTR) != 0;
  a.host = host;
  a.storage = a.wrapped ? Storage::host : (f & CL_MEM_ALLOC_HOST_PTR) != 0 ? Storage::shared : Storage::device;
  a.is_sub = parent != nullptr;
  a.parent = parent;
  a.origin = parent != nullptr ? origin : 0;
  out = a;
  return {};
}

/// A cl_mem's bytes are the host's only inside a map (wrapped memory is the common layer's to export).
OpenCL::MemAddress OpenCL::mem_address(const NativeContext&, const NativeMem&) noexcept { return {}; }

/// CL_MEM_USE_HOST_PTR keeps a copy on every object of a discrete device or none (caps.caller_memory_in_place).
bool OpenCL::mem_shadowed(const NativeMem&) noexcept { return false; }

void OpenCL::mem_release(NativeMem& mem) noexcept {
  if (mem != nullptr) (void)clReleaseMemObject(mem);
  mem = nullptr;
}

Result<OpenCL::Mapped> OpenCL::map(NativeQueue q, const NativeMem& mem, Access access, std::size_t offset,
                                   std::size_t bytes, const CommandEvents& sync) noexcept {
  const cl::WaitList w(sync);
  cl_int status = CL_SUCCESS;
  void* p = clEnqueueMapBuffer(q, mem, CL_TRUE, cl::map_flags(access), offset, bytes, w.count, w.events(), nullptr, &status);
  if (status == CL_INVALID_OPERATION && access == Access::write) {
    // A host_write_only buffer refuses CL_MAP_READ; edgemem allows Access::write on it, so map it
    // CL_MAP_WRITE only (the mapped bytes still reflect the device on 1.2 drivers).
    p = clEnqueueMapBuffer(q, mem, CL_TRUE, CL_MAP_WRITE, offset, bytes, w.count, w.events(), nullptr, &status);
  }
  EDGEMEM_TRY(cl::check_host_access(status));
  if (p == nullptr) return cl::fail_cl(CL_MAP_FAILURE);
  return Mapped{p, 0};
}

Result<void> OpenCL::unmap(NativeQueue q, const NativeMem& mem, const Mapped& mapped, const CommandEvents& sync) noexcept {
  return cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueUnmapMemObject(q, mem, mapped.host, n, waits, out);
  });
}

}  // namespace edgemem::backend
