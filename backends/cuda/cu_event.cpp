// CUDA backend: event records (a CUevent with the reference count edgemem's events need), kept in a
// small cache so a steady stream of async commands creates no CUevent and allocates nothing.
#include <mutex>
#include <new>

#include <edgemem/allocator.hpp>

#include "cu.hpp"

namespace edgemem::backend::cu {

namespace {

constexpr std::size_t kCached = 1024;  // event records kept for reuse, process-wide
constexpr int kPooledPerContext = 32;  // made at context creation

constexpr std::size_t kContexts = 16;  // contexts whose records are pooled at once

/// How many edgemem contexts use a CUcontext (several Contexts share a device's primary context):
/// its pooled records are made for the first and destroyed with the last.
struct Users {
  CUcontext context = nullptr;
  std::size_t count = 0;
};

struct Cache {
  std::mutex lock;
  CudaEvent* records[kCached] = {};
  std::size_t count = 0;
  Users users[kContexts] = {};
};

/// The Users entry of `ctx`, or a free one (context null), or null when the table is full. Under the lock.
Users* users_of(Cache& c, CUcontext ctx) noexcept {
  Users* free = nullptr;
  for (Users& u : c.users) {
    if (u.context == ctx) return &u;
    if (u.context == nullptr && free == nullptr) free = &u;
  }
  return free;
}

/// Destroys the cached records of `ctx`. Under the lock.
void destroy_cached(Cache& c, CUcontext ctx) noexcept;

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
  bool pooled = false;
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
    const Users* u = users_of(c, ctx);
    pooled = u != nullptr && u->context == ctx;
  }
  // None cached: a new record, which joins the cache when it comes back (while its context is pooled),
  // so the records in use at once (tables of several queues, events users hold) are made once and a
  // steady state allocates nothing however many queues it uses (issue #28).
  EDGEMEM_TRY_ASSIGN(Cuda::NativeEvent e, make(ctx));
  e->pooled = pooled;
  return e;
}

void return_event(Cuda::NativeEvent e) noexcept {
  if (e == nullptr) return;
  if (e->pooled) {
    Cache& c = cache();
    std::lock_guard<std::mutex> guard(c.lock);
    const Users* u = users_of(c, e->context);
    if (u != nullptr && u->context == e->context && c.count < kCached) {  // its context still pooled
      c.records[c.count++] = e;
      return;
    }
  }
  destroy(e);
}

Result<void> pool_events(CUcontext ctx) noexcept {
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> guard(c.lock);
    Users* u = users_of(c, ctx);
    if (u == nullptr) return {};  // the table is full: this context's records are made per command
    if (u->count > 0) {
      ++u->count;
      return {};
    }
  }
  // The first user of ctx: make its records (outside the lock; a failure destroys those made).
  CudaEvent* made[kPooledPerContext] = {};
  for (int i = 0; i < kPooledPerContext; ++i) {
    auto e = make(ctx);
    if (!e) {
      for (int j = 0; j < i; ++j) destroy(made[j]);
      return fail(e.error());
    }
    (*e)->pooled = true;
    made[i] = *e;
  }
  std::lock_guard<std::mutex> guard(c.lock);
  Users* u = users_of(c, ctx);
  const bool first = u != nullptr && u->count == 0;
  if (u != nullptr) {
    u->context = ctx;
    ++u->count;
  }
  for (CudaEvent* e : made) {
    if (first && c.count < kCached) c.records[c.count++] = e;
    else destroy(e);  // another thread pooled ctx meanwhile, or no room
  }
  return {};
}

void drain_events(CUcontext ctx) noexcept {
  Cache& c = cache();
  std::lock_guard<std::mutex> guard(c.lock);
  Users* u = users_of(c, ctx);
  if (u == nullptr || u->context != ctx || --u->count > 0) return;
  u->context = nullptr;
  destroy_cached(c, ctx);
}

namespace {

void destroy_cached(Cache& c, CUcontext ctx) noexcept {
  for (std::size_t i = c.count; i-- > 0;) {
    if (c.records[i]->context != ctx) continue;
    destroy(c.records[i]);
    c.records[i] = c.records[--c.count];
  }
}

}  // namespace

}  // namespace edgemem::backend::cu
