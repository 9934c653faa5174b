// OpenCL backend: linear transfers and migration (the rect transfers live in cl_rect.cpp). Reads and writes block natively
// (CL_TRUE); the other commands are enqueued with an event that a blocking call waits for and
// releases. An async command hands its event to the caller.
#include "cl.hpp"
#include "cl_error.hpp"
#include "cl_submit.hpp"

namespace edgemem::backend {

Result<void> OpenCL::write(NativeQueue q, const NativeMem& mem, std::size_t offset, const void* src, std::size_t bytes,
                           const CommandEvents& sync) noexcept {
  const cl::WaitList w = cl::waits_of(sync);
  if (sync.out != nullptr)
    return cl::check_host_access(clEnqueueWriteBuffer(q, mem, CL_FALSE, offset, bytes, src, w.count, w.events, sync.out));
  // A blocking write may return once `src` is copied out, before the device has the bytes (NVIDIA):
  // the caller is told, with the write's own event, when it has not completed (PoCL's has: it waits
  // for the whole queue); or it is waited for here.
  if (sync.still_running != nullptr) {
    cl_event e = nullptr;
    EDGEMEM_TRY(cl::check_host_access(clEnqueueWriteBuffer(q, mem, CL_TRUE, offset, bytes, src, w.count, w.events, &e)));
    cl_int status = CL_QUEUED;
    const cl_int asked = clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    if (asked == CL_SUCCESS && status == CL_COMPLETE) {
      (void)clReleaseEvent(e);
      return {};
    }
    if (asked == CL_SUCCESS && status < 0) {  // the write failed: its error, as a wait reports it
      auto failed = cl::wait_event(e);
      (void)clReleaseEvent(e);
      return failed;
    }
    *sync.still_running = true;
    if (sync.running_event != nullptr) *sync.running_event = e;
    else (void)clReleaseEvent(e);
    return {};
  }
  cl_event e = nullptr;
  EDGEMEM_TRY(cl::check_host_access(clEnqueueWriteBuffer(q, mem, CL_TRUE, offset, bytes, src, w.count, w.events, &e)));
  auto done = cl::wait_event(e);
  (void)clReleaseEvent(e);
  return done;
}

Result<void> OpenCL::read(NativeQueue q, const NativeMem& mem, std::size_t offset, void* dst, std::size_t bytes,
                          const CommandEvents& sync) noexcept {
  const cl::WaitList w = cl::waits_of(sync);
  return cl::check_host_access(clEnqueueReadBuffer(q, mem, sync.out == nullptr ? CL_TRUE : CL_FALSE, offset, bytes, dst, w.count,
                                       w.events, sync.out));
}

Result<void> OpenCL::fill(NativeQueue q, const NativeMem& mem, std::size_t offset, std::size_t bytes,
                          const void* pattern, std::size_t pattern_bytes, const CommandEvents& sync) noexcept {
  return cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueFillBuffer(q, mem, pattern, pattern_bytes, offset, bytes, n, waits, out);
  });
}

Result<void> OpenCL::copy(NativeQueue q, const NativeMem& src, const NativeMem& dst, std::size_t src_offset,
                          std::size_t dst_offset, std::size_t bytes, const CommandEvents& sync) noexcept {
  return cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueCopyBuffer(q, src, dst, src_offset, dst_offset, bytes, n, waits, out);
  });
}

Result<void> OpenCL::migrate(NativeQueue q, const NativeMem& mem, Migration to, const CommandEvents& sync) noexcept {
  cl_mem_migration_flags flags = 0;
  if (to == Migration::to_host) flags = CL_MIGRATE_MEM_OBJECT_HOST;
  else if (to == Migration::to_device_discard) flags = CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
  return cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueMigrateMemObjects(q, 1, &mem, flags, n, waits, out);
  });
}

Result<void> OpenCL::marker(NativeQueue q, const CommandEvents& sync) noexcept {
  return cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueMarkerWithWaitList(q, n, waits, out);
  });
}

}  // namespace edgemem::backend
