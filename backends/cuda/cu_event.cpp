// CUDA backend: event records (a CUevent with the reference count edgemem's events need), kept in a
// small cache so a steady stream of async commands creates no CUevent and allocates nothing.
#include <mutex>
#include <new>

#include <edgemem/allocator.hpp>

#include "cu.hpp"

namespace edgemem::backend::cu {

namespace {

constexpr std::size_t kCached = 256;  // event records kept for reuse, process-wide
constexpr int kPooledPerContext = 16; // made at context creation

struct Cache {
  std::mutex lock;
  CudaEvent* records[kCached] = {};
  std::size_t count = 0;
};

Cache& cache() noexcept {
  static Cache c;
  return c;
}

void destroy(CudaEvent* e) noexcept {
  (void)driver().cuEventDestroy(e->event);
  e->~CudaEvent();
  DefaultAllocator::deallocate(e, sizeof(CudaEvent), alignof(CudaEvent));
}

/// A new event record of `ctx`. Errc: out_of_host_memory, or the driver's answer.
Result<Cuda::NativeEvent> make(CUcontext ctx) noexcept {
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

}  // namespace

Result<Cuda::NativeEvent> take_event(CUcontext ctx) noexcept {
  {
    Cache& c = cache();
    std::lock_guard<std::mutex> guard(c.lock);
    for (std::size_t i = c.count; i-- > 0;) {
      if (c.records[i]->context != ctx) continue;
      CudaEvent* e = c.records[i];
      c.records[i] = c.records[--c.count];
      e->refs.store(1, std::memory_order_relaxed);
      return e;
    }
  }
  return make(ctx);
}

void return_event(Cuda::NativeEvent e) noexcept {
  if (e == nullptr) return;
  if (e->pooled) {
    Cache& c = cache();
    std::lock_guard<std::mutex> guard(c.lock);
    if (c.count < kCached) {
      c.records[c.count++] = e;
      return;
    }
  }
  destroy(e);
}

Result<void> pool_events(CUcontext ctx) noexcept {
  for (int i = 0; i < kPooledPerContext; ++i) {
    auto e = make(ctx);
    if (!e) {
      drain_events(ctx);
      return fail(e.error());
    }
    (*e)->pooled = true;
    return_event(*e);
  }
  return {};
}

void drain_events(CUcontext ctx) noexcept {
  Cache& c = cache();
  std::lock_guard<std::mutex> guard(c.lock);
  for (std::size_t i = c.count; i-- > 0;) {
    if (c.records[i]->context != ctx) continue;
    destroy(c.records[i]);
    c.records[i] = c.records[--c.count];
  }
}

}  // namespace edgemem::backend::cu
