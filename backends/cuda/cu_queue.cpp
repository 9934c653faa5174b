// CUDA backend: streams (edgemem's in-order queues), events, and the helpers that run a command under
// edgemem's CommandEvents (the event records themselves live in cu_event.cpp).
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

Result<Command> begin(const Cuda::NativeQueue& q, const Cuda::CommandEvents& sync) noexcept {
  Command c;
  EDGEMEM_TRY_ASSIGN(c.bound, bind(q.context));
  if (sync.out != nullptr) {
    EDGEMEM_TRY_ASSIGN(c.event, take_event(q.context));
  }
  for (std::size_t i = 0; i < sync.wait_count; ++i) {
    const CudaEvent* e = sync.waits[i];
    const CUresult status = e != nullptr ? driver().cuStreamWaitEvent(q.stream, e->event, 0) : CUDA_SUCCESS;
    if (status != CUDA_SUCCESS) {
      return_event(c.event);
      return fail_cu(status);
    }
  }
  return c;
}

Result<void> end(const Cuda::NativeQueue& q, const Cuda::CommandEvents& sync, Command c, CUresult enqueued) noexcept {
  CUresult status = enqueued;
  if (c.event != nullptr) {
    if (status == CUDA_SUCCESS) status = driver().cuEventRecord(c.event->event, q.stream);
    if (status != CUDA_SUCCESS) {
      return_event(c.event);
      return fail_cu(status);
    }
    *sync.out = c.event;
    return {};
  }
  if (status != CUDA_SUCCESS) return fail_cu(status);
  return finish(q);
}

Result<void> finish(const Cuda::NativeQueue& q) noexcept {
  const CUresult status = driver().cuStreamSynchronize(q.stream);
  if (status != CUDA_SUCCESS) return command_failed(status);
  return {};
}

}  // namespace cu

Result<Cuda::NativeQueue> Cuda::queue_create(const NativeContext& ctx) noexcept {
  EDGEMEM_TRY_ASSIGN(const cu::Bound bound, cu::bind(ctx.context));
  CUstream s = nullptr;
  EDGEMEM_TRY(cu::check(cu::driver().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)));
  return NativeQueue{s, ctx.context, true};
}

Result<Cuda::NativeQueue> Cuda::queue_adopt(const NativeContext& ctx, NativeQueue q, AdoptMode mode) noexcept {
  if (q.stream == nullptr)
    return fail(Errc::invalid_argument, "adopt needs a CUstream (the legacy default stream 0 is not an edgemem queue)");
  // The pseudo-streams name a different stream per use: CU_STREAM_LEGACY synchronises with every blocking
  // stream, CU_STREAM_PER_THREAD is another stream on each thread, so two threads' commands on one Queue
  // would not be ordered (issue #30, item 10).
  if (q.stream == CU_STREAM_LEGACY || q.stream == CU_STREAM_PER_THREAD)
    return fail(Errc::invalid_argument,
                "adopt needs a CUstream of its own (CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are not one stream)");
  (void)mode;  // a CUstream has no reference count: retain and borrow both leave it to its maker
  EDGEMEM_TRY_ASSIGN(const cu::Bound bound, cu::bind(ctx.context));
  CUcontext owner = nullptr;
  EDGEMEM_TRY(cu::check(cu::driver().cuStreamGetCtx(q.stream, &owner)));
  if (owner != ctx.context) return fail(Errc::invalid_argument, "the CUstream belongs to another context");
  return NativeQueue{q.stream, ctx.context, false};
}

void Cuda::queue_release(NativeQueue q) noexcept {
  if (q.stream == nullptr || !q.owned) return;
  if (const auto bound = cu::bind(q.context)) (void)cu::driver().cuStreamDestroy(q.stream);
}

Result<void> Cuda::queue_finish(NativeQueue q) noexcept {
  EDGEMEM_TRY_ASSIGN(const cu::Bound bound, cu::bind(q.context));
  return cu::finish(q);
}

Result<void> Cuda::marker(NativeQueue q, const CommandEvents& sync) noexcept {
  return cu::submit(q, sync, [](CUstream) { return CUDA_SUCCESS; });
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

void Cuda::event_retain(NativeEvent e) noexcept { cu::retain_event(e); }

void Cuda::event_release(NativeEvent e) noexcept { cu::release_event(e); }

}  // namespace edgemem::backend
