// The fault-point counter behind edgemem/fault.hpp (compiled to nothing without -Dfault_injection=true).
#include <edgemem/fault.hpp>

#if EDGEMEM_FAULT_INJECTION
#include <atomic>
#include <mutex>

namespace edgemem::fault {

namespace {
std::atomic<bool> g_armed{false};
std::atomic<int> g_paused{0};
std::atomic<std::uint64_t> g_count{0};
std::atomic<std::uint64_t> g_by_kind[2] = {};
std::atomic<std::uint64_t> g_target{0};
std::atomic<bool> g_fired{false};
std::mutex g_last_lock;
Injected g_last{};
}  // namespace

void arm(std::uint64_t k) noexcept {
  g_armed.store(false);
  g_count.store(0);
  g_by_kind[0].store(0);
  g_by_kind[1].store(0);
  g_target.store(k);
  g_fired.store(false);
  g_paused.store(0);
  g_armed.store(true);
}

void disarm() noexcept { g_armed.store(false); }
std::uint64_t count() noexcept { return g_count.load(); }
std::uint64_t count(Point p) noexcept { return g_by_kind[p == Point::backend ? 0 : 1].load(); }
bool fired() noexcept { return g_fired.load(); }
void pause() noexcept { g_paused.fetch_add(1); }
void resume() noexcept { g_paused.fetch_sub(1); }

Injected last() noexcept {
  std::lock_guard<std::mutex> lock(g_last_lock);
  return g_last;
}

bool hit(Point p, const char* call, Errc code) noexcept {
  if (!g_armed.load(std::memory_order_acquire) || g_paused.load(std::memory_order_acquire) != 0) return false;
  const std::uint64_t n = g_count.fetch_add(1) + 1;
  g_by_kind[p == Point::backend ? 0 : 1].fetch_add(1);
  if (n != g_target.load()) return false;
  {
    std::lock_guard<std::mutex> lock(g_last_lock);
    g_last = Injected{p, code, call, n};
  }
  g_fired.store(true);
  return true;
}

}  // namespace edgemem::fault
#endif
