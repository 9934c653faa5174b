// CUDA backend: streams (edgemem's in-order queues), events with reference counts, and the helpers
// that run a command under edgemem's CommandEvents.
#include <new>

#include <edgemem/allocator.hpp>

#include "cu.hpp"

namespace edgemem::backend {

namespace {

Failure command_failed(CUresult status) noexcept {
  Error e = cu::to_error(status);
  e.code = Errc::backend_failure;  // a failed command, whatever the CUresult says about its cause
  return fail(e);
}

}  // namespace

namespace cu {

Result<Cuda::NativeEvent> record(const Cuda::NativeQueue& q) noexcept {
  void* mem = DefaultAllocator::allocate(sizeof(CudaEvent), alignof(CudaEvent));
  if (mem == nullptr) return fail(Errc::out_of_host_memory, "no memory for an event");
  CUevent e = nullptr;
  CUresult status = driver().cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
  if (status == CUDA_SUCCESS) {
    status = driver().cuEventRecord(e, q.stream);
    if (status != CUDA_SUCCESS) (void)driver().cuEventDestroy(e);
  }
  if (status != CUDA_SUCCESS) {
    DefaultAllocator::deallocate(mem, sizeof(CudaEvent), alignof(CudaEvent));
    return fail_cu(status);
  }
  auto* ev = new (mem) CudaEvent;
  ev->event = e;
  ev->context = q.context;
  return ev;
}

Result<void> wait_for(const Cuda::NativeQueue& q, const Cuda::CommandEvents& sync) noexcept {
  for (std::size_t i = 0; i < sync.wait_count; ++i) {
    const CudaEvent* e = sync.waits[i];
    if (e != nullptr) EDGEMEM_TRY(check(driver().cuStreamWaitEvent(q.stream, e->event, 0)));
  }
  return {};
}

Result<void> complete(const Cuda::NativeQueue& q, const Cuda::CommandEvents& sync) noexcept {
  if (sync.out != nullptr) {
    EDGEMEM_TRY_ASSIGN(*sync.out, record(q));
    return {};
  }
  const CUresult status = driver().cuStreamSynchronize(q.stream);
  if (status != CUDA_SUCCESS) return command_failed(status);
  return {};
}

}  // namespace cu

Result<Cuda::NativeQueue> Cuda::queue_create(const NativeContext& ctx) noexcept {
  EDGEMEM_TRY(cu::bind(ctx.context));
  CUstream s = nullptr;
  EDGEMEM_TRY(cu::check(cu::driver().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)));
  return NativeQueue{s, ctx.context, true};
}

Result<Cuda::NativeQueue> Cuda::queue_adopt(const NativeContext& ctx, NativeQueue q, AdoptMode mode) noexcept {
  if (q.stream == nullptr)
    return fail(Errc::invalid_argument, "adopt needs a CUstream (the legacy default stream 0 is not an edgemem queue)");
  (void)mode;  // a CUstream has no reference count: retain and borrow both leave it to its maker
  EDGEMEM_TRY(cu::bind(ctx.context));
  CUcontext owner = nullptr;
  EDGEMEM_TRY(cu::check(cu::driver().cuStreamGetCtx(q.stream, &owner)));
  if (owner != ctx.context) return fail(Errc::invalid_argument, "the CUstream belongs to another context");
  return NativeQueue{q.stream, ctx.context, false};
}

void Cuda::queue_release(NativeQueue q) noexcept {
  if (q.stream == nullptr || !q.owned) return;
  if (cu::bind(q.context)) (void)cu::driver().cuStreamDestroy(q.stream);
}

Result<void> Cuda::queue_finish(NativeQueue q) noexcept {
  EDGEMEM_TRY(cu::bind(q.context));
  const CUresult status = cu::driver().cuStreamSynchronize(q.stream);
  if (status != CUDA_SUCCESS) return command_failed(status);
  return {};
}

Result<void> Cuda::marker(NativeQueue q, const CommandEvents& sync) noexcept {
  EDGEMEM_TRY(cu::bind(q.context));
  EDGEMEM_TRY(cu::wait_for(q, sync));
  return cu::complete(q, sync);
}

Result<void> Cuda::event_wait(NativeEvent e) noexcept {
  if (e == nullptr) return {};
  const CUresult status = cu::driver().cuEventSynchronize(e->event);
  if (status != CUDA_SUCCESS) return command_failed(status);
  return {};
}

Result<bool> Cuda::event_complete(NativeEvent e) noexcept {
  if (e == nullptr) return true;
  const CUresult status = cu::driver().cuEventQuery(e->event);
  if (status == CUDA_SUCCESS) return true;
  if (status == CUDA_ERROR_NOT_READY) return false;
  return command_failed(status);
}

void Cuda::event_retain(NativeEvent e) noexcept {
  if (e != nullptr) e->refs.fetch_add(1, std::memory_order_relaxed);
}

void Cuda::event_release(NativeEvent e) noexcept {
  if (e == nullptr || e->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  (void)cu::driver().cuEventDestroy(e->event);
  e->~CudaEvent();
  DefaultAllocator::deallocate(e, sizeof(CudaEvent), alignof(CudaEvent));
}

}  // namespace edgemem::backend
