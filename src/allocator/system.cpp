#include <atomic>
#include <new>

#include <edgemem/allocator.hpp>

namespace edgemem {

namespace {
// Live allocations are total - freed: one atomic update per call instead of two.
std::atomic<std::size_t> g_freed{0};
std::atomic<std::size_t> g_bytes{0};
std::atomic<std::size_t> g_peak{0};
std::atomic<std::size_t> g_failures{0};
std::atomic<std::size_t> g_total{0};
}  // namespace

void* SystemAllocator::allocate(std::size_t bytes, std::size_t align) noexcept {
  // The plain operator new already aligns to __STDCPP_DEFAULT_NEW_ALIGNMENT__ and skips the aligned
  // path's memalign overhead (most bookkeeping nodes); deallocate() picks the same form from `align`.
  void* p = align <= __STDCPP_DEFAULT_NEW_ALIGNMENT__ ? ::operator new(bytes, std::nothrow)
                                                      : ::operator new(bytes, std::align_val_t(align), std::nothrow);
  if (p == nullptr) {
    g_failures.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  g_total.fetch_add(1, std::memory_order_relaxed);
  const std::size_t now = g_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::size_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

void SystemAllocator::deallocate(void* p, std::size_t bytes, std::size_t align) noexcept {
  if (p == nullptr) return;
  g_freed.fetch_add(1, std::memory_order_release);  // pairs with the acquire in stats()
  g_bytes.fetch_sub(bytes, std::memory_order_relaxed);
  if (align <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) ::operator delete(p);
  else ::operator delete(p, std::align_val_t(align));
}

AllocatorStats SystemAllocator::stats() noexcept {
  AllocatorStats s;
  s.in_use_bytes = g_bytes.load(std::memory_order_relaxed);
  s.peak_bytes = g_peak.load(std::memory_order_relaxed);
  const std::size_t freed = g_freed.load(std::memory_order_acquire);  // first: never above total
  s.total_allocations = g_total.load(std::memory_order_acquire);
  s.allocations = s.total_allocations - freed;
  s.failures = g_failures.load(std::memory_order_relaxed);
  return s;
}

}  // namespace edgemem
