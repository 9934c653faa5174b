// CUDA backend: event records (a CUevent with the reference count edgemem's events need), kept per
// CUcontext in the record cache (contract/event_records.hpp) so a steady stream of async commands
// creates no CUevent and allocates nothing.
#include <new>

#include <edgemem/allocator.hpp>

#include "contract/event_records.hpp"
#include "cu.hpp"

namespace edgemem::backend::cu {

namespace {

struct RecordOps {
  using Record = CudaEvent;
  using Key = CUcontext;

  static Key key_of(const Record& e) noexcept { return e.context; }

  static void destroy(Record* e) noexcept {
    (void)driver().cuEventDestroy(e->event);
    e->~CudaEvent();
    DefaultAllocator::deallocate(e, sizeof(CudaEvent), alignof(CudaEvent));
  }

  /// A new record of `ctx` with its CUevent. Errc: out_of_host_memory, or the driver's answer.
  static Result<Record*> make(Key ctx) noexcept {
    void* mem = DefaultAllocator::allocate(sizeof(CudaEvent), alignof(CudaEvent));
    if (mem == nullptr) return fail(Errc::out_of_host_memory, "no memory for an event");
    CUevent native = nullptr;
    const CUresult status = driver().cuEventCreate(&native, CU_EVENT_DISABLE_TIMING);
    if (status != CUDA_SUCCESS) {
      DefaultAllocator::deallocate(mem, sizeof(CudaEvent), alignof(CudaEvent));
      return fail_cu(status);
    }
    auto* e = new (mem) CudaEvent;
    e->event = native;
    e->context = ctx;
    return e;
  }
};

using Records = contract::EventRecords<RecordOps>;

}  // namespace

Result<Cuda::NativeEvent> take_event(CUcontext ctx) noexcept { return Records::take(ctx); }

void return_event(Cuda::NativeEvent e) noexcept { Records::give_back(e); }

Result<void> pool_events(CUcontext ctx) noexcept { return Records::pool(ctx); }

void drain_events(CUcontext ctx) noexcept { Records::drain(ctx); }

void retain_event(Cuda::NativeEvent e) noexcept { Records::retain(e); }

void release_event(Cuda::NativeEvent e) noexcept {
  if (Records::unref(e)) Records::give_back(e);
}

}  // namespace edgemem::backend::cu
