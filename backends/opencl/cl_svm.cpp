// OpenCL backend: shared virtual memory (OpenCL 2.0; migration 2.1). edgemem builds against the 1.2
// headers' declarations, so the 2.x entry points are declared here, weak: a loader without them leaves
// them null, and the device's caps (svm_*: version 2.0 and CL_DEVICE_SVM_CAPABILITIES) never let the
// common layer get here on such a device. Blocking commands wait for their event (cl_submit.hpp).
#include "cl.hpp"
#include "cl_error.hpp"
#include "cl_submit.hpp"

extern "C" {
CL_API_ENTRY void* CL_API_CALL clSVMAlloc(cl_context, cl_bitfield, size_t, cl_uint) __attribute__((weak));
CL_API_ENTRY void CL_API_CALL clSVMFree(cl_context, void*) __attribute__((weak));
CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMFree(cl_command_queue, cl_uint, void* [],
                                                 void(CL_CALLBACK*)(cl_command_queue, cl_uint, void* [], void*),
                                                 void*, cl_uint, const cl_event*, cl_event*) __attribute__((weak));
CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue, cl_bool, void*, const void*, size_t, cl_uint,
                                                   const cl_event*, cl_event*) __attribute__((weak));
CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue, void*, const void*, size_t, size_t, cl_uint,
                                                    const cl_event*, cl_event*) __attribute__((weak));
CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue, cl_bool, cl_map_flags, void*, size_t, cl_uint,
                                                const cl_event*, cl_event*) __attribute__((weak));
CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue, void*, cl_uint, const cl_event*, cl_event*)
    __attribute__((weak));
CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMigrateMem(cl_command_queue, cl_uint, const void**, const size_t*,
                                                       cl_bitfield, cl_uint, const cl_event*, cl_event*)
    __attribute__((weak));
}

namespace edgemem::backend {

namespace {

constexpr cl_bitfield kSvmFineGrainBuffer = 1u << 10;  // CL_MEM_SVM_FINE_GRAIN_BUFFER
constexpr cl_bitfield kMigrateHost = 1u << 0;          // CL_MIGRATE_MEM_OBJECT_HOST
constexpr cl_bitfield kMigrateUndefined = 1u << 1;     // CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED

Failure missing() noexcept {
  return fail(Errc::unsupported, "the OpenCL loader lacks the OpenCL 2.0 SVM entry points");
}

}  // namespace

Result<void*> OpenCL::svm_alloc(const NativeContext& ctx, std::size_t bytes, SvmGrain grain,
                                std::size_t alignment) noexcept {
  if (clSVMAlloc == nullptr) return missing();
  // Fine system SVM reaches every host byte; edgemem's own allocations of it are fine-grain buffers.
  const cl_bitfield flags = CL_MEM_READ_WRITE | (grain == SvmGrain::coarse ? 0 : kSvmFineGrainBuffer);
  void* p = clSVMAlloc(ctx.context, flags, bytes, static_cast<cl_uint>(alignment));
  // clSVMAlloc reports no reason; a size within the device's limits failing means memory ran out.
  if (p == nullptr) return fail(Errc::out_of_device_memory, "clSVMAlloc returned null");
  return p;
}

void OpenCL::svm_free(const NativeContext& ctx, void* base) noexcept {
  if (clSVMFree != nullptr) clSVMFree(ctx.context, base);
}

Result<void> OpenCL::svm_free_queued(NativeQueue q, void* base, const CommandEvents& sync) noexcept {
  if (clEnqueueSVMFree == nullptr) return missing();
  void* pointers[1] = {base};
  return cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueSVMFree(q, 1, pointers, nullptr, nullptr, n, waits, out);
  });
}

Result<void> OpenCL::svm_memcpy(NativeQueue q, const SvmAddress& dst, const SvmAddress& src, std::size_t bytes,
                                const CommandEvents& sync) noexcept {
  if (clEnqueueSVMMemcpy == nullptr) return missing();
  const cl::WaitList w(sync);
  cl::EventOut out(sync);
  EDGEMEM_TRY(out.take());
  return cl::check(
      out.settle(clEnqueueSVMMemcpy(q, out.blocking(), dst.at(), src.at(), bytes, w.count, w.events(), out.slot())));
}

Result<void> OpenCL::svm_memfill(NativeQueue q, const SvmAddress& dst, std::size_t bytes, const void* pattern,
                                 std::size_t pattern_bytes, const CommandEvents& sync) noexcept {
  if (clEnqueueSVMMemFill == nullptr) return missing();
  return cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueSVMMemFill(q, dst.at(), pattern, pattern_bytes, bytes, n, waits, out);
  });
}

Result<void> OpenCL::svm_buffer_copy(NativeQueue q, const SvmAddress& svm, std::size_t svm_bytes, const NativeMem& mem,
                                     std::size_t offset, std::size_t bytes, bool to_svm,
                                     const CommandEvents& sync) noexcept {
  // A buffer object over the whole allocation (OpenCL 2.0: clCreateBuffer with CL_MEM_USE_HOST_PTR and a
  // pointer from clSVMAlloc uses the SVM as its storage), released once the copy is enqueued (the
  // command holds it).
  cl_context context = nullptr;
  EDGEMEM_TRY(cl::check(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr)));
  cl_int status = CL_SUCCESS;
  cl_mem over = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, svm_bytes, svm.base, &status);
  EDGEMEM_TRY(cl::check(status));
  auto done = cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return to_svm ? clEnqueueCopyBuffer(q, mem, over, offset, svm.offset, bytes, n, waits, out)
                  : clEnqueueCopyBuffer(q, over, mem, svm.offset, offset, bytes, n, waits, out);
  });
  (void)clReleaseMemObject(over);
  return done;
}

Result<void> OpenCL::svm_migrate(NativeQueue q, const SvmAddress& at, std::size_t bytes, Migration to,
                                 const CommandEvents& sync) noexcept {
  if (clEnqueueSVMMigrateMem == nullptr) return missing();
  cl_bitfield flags = 0;
  if (to == Migration::to_host) flags = kMigrateHost;
  else if (to == Migration::to_device_discard) flags = kMigrateUndefined;
  const void* pointers[1] = {at.at()};
  const size_t sizes[1] = {bytes};
  return cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueSVMMigrateMem(q, 1, pointers, sizes, flags, n, waits, out);
  });
}

Result<void> OpenCL::svm_map(NativeQueue q, const SvmAddress& at, std::size_t bytes, Access access,
                             const CommandEvents& sync) noexcept {
  if (clEnqueueSVMMap == nullptr) return missing();
  const cl::WaitList w(sync);
  cl::EventOut out(sync);
  EDGEMEM_TRY(out.take());
  return cl::check_host_access(
      out.settle(clEnqueueSVMMap(q, CL_TRUE, cl::map_flags(access), at.at(), bytes, w.count, w.events(), out.slot())));
}

Result<void> OpenCL::svm_unmap(NativeQueue q, const SvmAddress& at, const CommandEvents& sync) noexcept {
  if (clEnqueueSVMUnmap == nullptr) return missing();
  return cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueSVMUnmap(q, at.at(), n, waits, out);
  });
}

}  // namespace edgemem::backend
