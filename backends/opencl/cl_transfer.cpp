// OpenCL backend: linear transfers and migration (the rect transfers live in cl_rect.cpp). Reads and writes block natively
// (CL_TRUE); the other commands are enqueued with an event that a blocking call waits for and
// releases. An async command hands its event to the caller.
#include "cl.hpp"
#include "cl_error.hpp"
#include "cl_submit.hpp"

namespace edgemem::backend {

Result<void> OpenCL::write(NativeQueue q, const NativeMem& mem, std::size_t offset, const void* src, std::size_t bytes,
                           const CommandEvents& sync) noexcept {
  const cl::WaitList w(sync);
  if (sync.out != nullptr) {
    cl::EventOut out(sync);
    EDGEMEM_TRY(out.take());
    return cl::check_host_access(
        out.settle(clEnqueueWriteBuffer(q, mem, CL_FALSE, offset, bytes, src, w.count, w.events(), out.slot())));
  }
  // A blocking write may return once `src` is copied out, before the device has the bytes (NVIDIA):
  // the caller is told, with the write's own event, when it has not completed (PoCL's has: it waits
  // for the whole queue); or it is waited for here.
  if (sync.still_running != nullptr) {
    NativeEvent running = nullptr;  // the record the caller gets, taken first: running out of memory changes nothing
    if (sync.running_event != nullptr) {
      EDGEMEM_TRY_ASSIGN(running, cl::take_event());
    }
    cl_event e = nullptr;
    const cl_int status = clEnqueueWriteBuffer(q, mem, CL_TRUE, offset, bytes, src, w.count, w.events(), &e);
    if (status != CL_SUCCESS) cl::give_back_event(running);
    EDGEMEM_TRY(cl::check_host_access(status));
    cl_int state = CL_QUEUED;
    const cl_int asked = clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr);
    const bool failed = asked == CL_SUCCESS && state < 0;
    if (!failed && !(asked == CL_SUCCESS && state == CL_COMPLETE)) {
      *sync.still_running = true;
      if (running != nullptr) {
        running->event = e;
        *sync.running_event = running;
        return {};
      }
      (void)clReleaseEvent(e);
      return {};
    }
    cl::give_back_event(running);
    Result<void> done{};
    if (failed) done = cl::wait_event(e);  // the write failed: its error, as a wait reports it
    (void)clReleaseEvent(e);
    return done;
  }
  cl_event e = nullptr;
  EDGEMEM_TRY(cl::check_host_access(clEnqueueWriteBuffer(q, mem, CL_TRUE, offset, bytes, src, w.count, w.events(), &e)));
  auto done = cl::wait_event(e);
  (void)clReleaseEvent(e);
  return done;
}

Result<void> OpenCL::read(NativeQueue q, const NativeMem& mem, std::size_t offset, void* dst, std::size_t bytes,
                          const CommandEvents& sync) noexcept {
  const cl::WaitList w(sync);
  cl::EventOut out(sync);
  EDGEMEM_TRY(out.take());
  return cl::check_host_access(
      out.settle(clEnqueueReadBuffer(q, mem, out.blocking(), offset, bytes, dst, w.count, w.events(), out.slot())));
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
