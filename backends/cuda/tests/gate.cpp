// Gate and native queues on the CUDA backend (gate.hpp): the stream waits (cuStreamWaitValue32) until a
// flag in mapped pinned memory is set, so every later command of the stream waits too; where stream
// memory operations are refused, a host function on the stream (cuLaunchHostFunc) that waits until
// opened (host functions share the driver's callback thread: one held blocks cuLaunchHostFunc on the
// same context in other threads, which is why the flag comes first). Streams from cuStreamCreate. The driver is loaded at run time, as the backend loads it (libcuda.so.1):
// without it both answer unsupported.
#include <cuda.h>
#include <dlfcn.h>

#include <atomic>
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
  decltype(&::cuStreamWaitValue32) wait_value = nullptr;
  decltype(&::cuMemHostAlloc) host_alloc = nullptr;
  decltype(&::cuMemHostGetDevicePointer) device_pointer = nullptr;
  decltype(&::cuCtxGetId) context_id = nullptr;
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
    d.wait_value = reinterpret_cast<decltype(d.wait_value)>(dlsym(lib, EMT_CUDA_STR_(cuStreamWaitValue32)));
    d.host_alloc = reinterpret_cast<decltype(d.host_alloc)>(dlsym(lib, EMT_CUDA_STR_(cuMemHostAlloc)));
    d.device_pointer = reinterpret_cast<decltype(d.device_pointer)>(dlsym(lib, EMT_CUDA_STR_(cuMemHostGetDevicePointer)));
    d.context_id = reinterpret_cast<decltype(d.context_id)>(dlsym(lib, "cuCtxGetId"));
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
  std::uint32_t* flag = nullptr;  // the stream waits for *flag >= 1 (null: a host function waits instead)
  std::atomic<int> refs{2};  // the Gate and the host function (one extra for a flag: nothing runs it)
  void unref() {
    if (refs.fetch_sub(1) == 1) delete this;
  }
};

namespace {

/// Flags of mapped pinned memory for gates, made once per context and never freed by the gates (freeing
/// pinned memory waits for the device, which may be held behind another gate); each gate takes the next
/// one. The memory dies with its context: edgemem adopts the device's primary context, which is destroyed
/// when the last Context goes and comes back with the same handle, so flags are keyed by the context's
/// unique id (cuCtxGetId), not its handle; without cuCtxGetId every gate gets memory of its own.
struct Flags {
  std::mutex m;
  CUcontext ctx = nullptr;
  unsigned long long id = 0;
  std::uint32_t* host = nullptr;
  CUdeviceptr device = 0;
  std::size_t next = 0;
  static constexpr std::size_t count = 4096;
};

Flags& flags() {
  static Flags f;
  return f;
}

/// A free flag (set to 0) and its device address, for context `ctx` (current); false when the driver
/// refuses mapped pinned memory.
bool take_flag(CUcontext ctx, std::uint32_t*& host, CUdeviceptr& device) {
  Flags& f = flags();
  std::lock_guard<std::mutex> lock(f.m);
  if (!driver().wait_value || !driver().host_alloc || !driver().device_pointer) return false;
  unsigned long long id = 0;
  const bool known = driver().context_id != nullptr && driver().context_id(ctx, &id) == CUDA_SUCCESS;
  if (f.host == nullptr || f.ctx != ctx || f.id != id || !known) {
    void* p = nullptr;
    if (driver().host_alloc(&p, Flags::count * 4, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS)
      return false;
    CUdeviceptr d = 0;
    if (driver().device_pointer(&d, p, 0) != CUDA_SUCCESS) return false;
    f.host = static_cast<std::uint32_t*>(p);
    f.device = d;
    f.ctx = ctx;
    f.id = id;
    f.next = 0;
  }
  const std::size_t i = f.next++ % Flags::count;
  host = f.host + i;
  device = f.device + i * 4;
  __atomic_store_n(host, 0u, __ATOMIC_RELEASE);
  return true;
}

}  // namespace

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

namespace {

/// Gates held at once, at most: with more streams each stopped at a stream wait, the driver spins in
/// the enqueue of the next one on the host (measured on an H200, driver 580: the 23rd gated stream's
/// cuStreamWaitValue32 or cuStreamCreate never returned), which no gate may cause. Past it Gate::hold
/// answers unsupported and the test runs that queue ungated.
constexpr int kMaxHeld = 20;
std::atomic<int> held{0};

}  // namespace

edgemem::Result<Gate> Gate::hold(edgemem::Queue& q) noexcept {
  const edgemem::NativeQueue native = q.native();
  if (native.stream == nullptr) return fail(Errc::released, "gate: the queue is released");
  if (!driver().ok) return fail(Errc::unsupported, "gate: libcuda.so.1 (with cuLaunchHostFunc) is not here");
  if (held.load() >= kMaxHeld) return fail(Errc::unsupported, "gate: 20 CUDA gates are held already (gate_cuda.cpp)");
  State* s = new State;
  CUresult status = CUDA_ERROR_UNKNOWN;
  bool by_flag = false;
  (void)with_context(native.context, [&] {
    std::uint32_t* host = nullptr;
    CUdeviceptr device = 0;
    if (!take_flag(native.context, host, device)) return;
    if (driver().wait_value(native.stream, device, 1, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS) return;
    s->flag = host;
    s->refs.fetch_sub(1);  // no host function holds it
    by_flag = true;
  });
  if (by_flag) {
    held.fetch_add(1);
    return Gate(s);
  }
  if (!with_context(native.context, [&] { status = driver().launch_host_func(native.stream, wait_until_opened, s); }) ||
      status != CUDA_SUCCESS) {
    delete s;
    return fail(Errc::backend_failure, "gate: cuLaunchHostFunc failed", static_cast<std::int32_t>(status));
  }
  return Gate(s);
}

void Gate::open() noexcept {
  if (state_ == nullptr) return;
  if (state_->flag != nullptr) __atomic_store_n(state_->flag, 1u, __ATOMIC_RELEASE);
  {
    std::lock_guard<std::mutex> lock(state_->m);
    state_->opened = true;
  }
  state_->cv.notify_all();
}

void Gate::reset() noexcept {
  if (state_ == nullptr) return;
  open();
  if (state_->flag != nullptr) held.fetch_sub(1);
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
