#include <atomic>
#include <new>

#include <edgemem/allocator.hpp>

namespace edgemem {

namespace {
std::atomic<std::size_t> g_live{0};
std::atomic<std::size_t> g_bytes{0};
std::atomic<std::size_t> g_peak{0};
std::atomic<std::size_t> g_failures{0};
std::atomic<std::size_t> g_total{0};
}  // namespace

void* SystemAllocator::allocate(std::size_t bytes, std::size_t align) noexcept {
  void* p = ::operator new(bytes, std::align_val_t(align), std::nothrow);
  if (p == nullptr) {
    g_failures.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  g_live.fetch_add(1, std::memory_order_relaxed);
  g_total.fetch_add(1, std::memory_order_relaxed);
  const std::size_t now = g_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::size_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

void SystemAllocator::deallocate(void* p, std::size_t bytes, std::size_t align) noexcept {
  if (p == nullptr) return;
  g_live.fetch_sub(1, std::memory_order_relaxed);
  g_bytes.fetch_sub(bytes, std::memory_order_relaxed);
  ::operator delete(p, std::align_val_t(align));
}

AllocatorStats SystemAllocator::stats() noexcept {
  AllocatorStats s;
  s.in_use_bytes = g_bytes.load(std::memory_order_relaxed);
  s.peak_bytes = g_peak.load(std::memory_order_relaxed);
  s.allocations = g_live.load(std::memory_order_relaxed);
  s.total_allocations = g_total.load(std::memory_order_relaxed);
  s.failures = g_failures.load(std::memory_order_relaxed);
  return s;
}

}  // namespace edgemem
