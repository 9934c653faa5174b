// OpenCL backend: event records (a ClEvent: the cl_event of an async command with edgemem's own
// reference count), kept in the record cache (contract/event_records.hpp) so a steady stream of async
// commands allocates nothing, and the contract's event operations over them. A record belongs to no
// cl_context: the cache has one key for all, pooled while any context made or retained by edgemem lives.
#include <new>

#include <edgemem/allocator.hpp>

#include "cl_submit.hpp"
#include "contract/event_records.hpp"

namespace edgemem::backend {

namespace {

struct RecordOps {
  using Record = ClEvent;
  using Key = const void*;

  static Key key_of(const Record&) noexcept { return nullptr; }

  static void destroy(Record* e) noexcept {
    e->~ClEvent();
    DefaultAllocator::deallocate(e, sizeof(ClEvent), alignof(ClEvent));
  }

  /// A new, empty record. Errc: out_of_host_memory.
  static Result<Record*> make(Key) noexcept {
    void* mem = DefaultAllocator::allocate(sizeof(ClEvent), alignof(ClEvent));
    if (mem == nullptr) return fail(Errc::out_of_host_memory, "no memory for an event");
    return new (mem) ClEvent;
  }
};

using Records = contract::EventRecords<RecordOps>;

/// CL_EVENT_COMMAND_EXECUTION_STATUS of `e`: CL_COMPLETE, a pending state, or a negative error.
Result<cl_int> execution_status(cl_event e) noexcept {
  cl_int status = CL_COMPLETE;
  EDGEMEM_TRY(cl::check(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr)));
  return status;
}

Failure command_failed(cl_int status) noexcept {
  return fail(Errc::backend_failure, "the OpenCL command failed; Error::native holds its execution status", status);
}

}  // namespace

Result<OpenCL::NativeEvent> cl::take_event() noexcept { return Records::take(nullptr); }

void cl::give_back_event(OpenCL::NativeEvent e) noexcept { Records::give_back(e); }

Result<void> cl::pool_events() noexcept { return Records::pool(nullptr); }

void cl::drain_events() noexcept { Records::drain(nullptr); }

Result<void> cl::wait_event(cl_event e) noexcept {
  const cl_int waited = clWaitForEvents(1, &e);
  if (waited == CL_SUCCESS) return {};
  auto status = execution_status(e);
  if (status && *status < 0) return command_failed(*status);
  return fail_cl(waited);
}

Result<void> OpenCL::event_wait(NativeEvent e) noexcept {
  if (e == nullptr) return {};
  return cl::wait_event(e->event);
}

Result<bool> OpenCL::event_complete(NativeEvent e) noexcept {
  if (e == nullptr) return true;
  EDGEMEM_TRY_ASSIGN(const cl_int status, execution_status(e->event));
  if (status < 0) return command_failed(status);
  return status == CL_COMPLETE;
}

void OpenCL::event_retain(NativeEvent e) noexcept { Records::retain(e); }

void OpenCL::event_release(NativeEvent e) noexcept {
  if (!Records::unref(e)) return;
  if (e->event != nullptr) (void)clReleaseEvent(e->event);
  e->event = nullptr;
  Records::give_back(e);
}

}  // namespace edgemem::backend
