// Gate and native queues on the CUDA backend (gate.hpp): a host function on the stream
// (cuLaunchHostFunc) that waits until opened, so every later command of the stream waits too; streams
// from cuStreamCreate. The driver is loaded at run time, as the backend loads it (libcuda.so.1):
// without it both answer unsupported.
#include <cuda.h>
#include <dlfcn.h>

#include <condition_variable>
#include <mutex>

#include "support/gate.hpp"

#define EMT_CUDA_STR2_(x) #x
#define EMT_CUDA_STR_(x) EMT_CUDA_STR2_(x)  // the ABI name cuda.h's macros give (cuStreamDestroy_v2)

namespace emt {

using edgemem::Errc;
using edgemem::fail;

namespace {

struct Entry {
  decltype(&::cuLaunchHostFunc) launch_host_func = nullptr;
  decltype(&::cuCtxPushCurrent) push = nullptr;
  decltype(&::cuCtxPopCurrent) pop = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamDestroy) stream_destroy = nullptr;
  bool ok = false;
};

const Entry& driver() {
  static const Entry e = [] {
    Entry d;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return d;
    d.launch_host_func = reinterpret_cast<decltype(d.launch_host_func)>(dlsym(lib, EMT_CUDA_STR_(cuLaunchHostFunc)));
    d.push = reinterpret_cast<decltype(d.push)>(dlsym(lib, EMT_CUDA_STR_(cuCtxPushCurrent)));
    d.pop = reinterpret_cast<decltype(d.pop)>(dlsym(lib, EMT_CUDA_STR_(cuCtxPopCurrent)));
    d.stream_create = reinterpret_cast<decltype(d.stream_create)>(dlsym(lib, EMT_CUDA_STR_(cuStreamCreate)));
    d.stream_destroy = reinterpret_cast<decltype(d.stream_destroy)>(dlsym(lib, EMT_CUDA_STR_(cuStreamDestroy)));
    d.ok = d.launch_host_func && d.push && d.pop && d.stream_create && d.stream_destroy;
    return d;
  }();
  return e;
}

/// Runs `f` with `ctx` current on this thread (pushed and popped). False when the push failed.
template <class F>
bool with_context(CUcontext ctx, F&& f) {
  if (driver().push(ctx) != CUDA_SUCCESS) return false;
  f();
  CUcontext popped = nullptr;
  (void)driver().pop(&popped);
  return true;
}

}  // namespace

struct Gate::State {
  std::mutex m;
  std::condition_variable cv;
  bool opened = false;
  std::atomic<int> refs{2};  // the Gate and the host function
  void unref() {
    if (refs.fetch_sub(1) == 1) delete this;
  }
};

namespace {

void CUDA_CB wait_until_opened(void* p) {
  auto* s = static_cast<Gate::State*>(p);
  {
    std::unique_lock<std::mutex> lock(s->m);
    s->cv.wait(lock, [s] { return s->opened; });
  }
  s->unref();
}

}  // namespace

edgemem::Result<Gate> Gate::hold(edgemem::Queue& q) noexcept {
  const edgemem::NativeQueue native = q.native();
  if (native.stream == nullptr) return fail(Errc::released, "gate: the queue is released");
  if (!driver().ok) return fail(Errc::unsupported, "gate: libcuda.so.1 (with cuLaunchHostFunc) is not here");
  State* s = new State;
  CUresult status = CUDA_ERROR_UNKNOWN;
  if (!with_context(native.context, [&] { status = driver().launch_host_func(native.stream, wait_until_opened, s); }) ||
      status != CUDA_SUCCESS) {
    delete s;
    return fail(Errc::backend_failure, "gate: cuLaunchHostFunc failed", static_cast<std::int32_t>(status));
  }
  return Gate(s);
}

void Gate::open() noexcept {
  if (state_ == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(state_->m);
    state_->opened = true;
  }
  state_->cv.notify_all();
}

void Gate::reset() noexcept {
  if (state_ == nullptr) return;
  open();
  state_->unref();
  state_ = nullptr;
}

edgemem::Result<edgemem::NativeQueue> make_native_queue(const edgemem::Context& ctx) noexcept {
  const edgemem::NativeContext n = ctx.native();
  if (n.context == nullptr) return fail(Errc::released, "make_native_queue: the context is released");
  if (!driver().ok) return fail(Errc::unsupported, "make_native_queue: libcuda.so.1 is not here");
  CUstream s = nullptr;
  CUresult status = CUDA_ERROR_UNKNOWN;
  if (!with_context(n.context, [&] { status = driver().stream_create(&s, CU_STREAM_NON_BLOCKING); }) ||
      status != CUDA_SUCCESS)
    return fail(Errc::backend_failure, "cuStreamCreate failed", static_cast<std::int32_t>(status));
  edgemem::NativeQueue q;
  q.stream = s;
  q.context = n.context;
  return q;
}

void destroy_native_queue(edgemem::NativeQueue q) noexcept {
  if (q.stream == nullptr || !driver().ok) return;
  (void)with_context(q.context, [&] { (void)driver().stream_destroy(q.stream); });
}

}  // namespace emt
