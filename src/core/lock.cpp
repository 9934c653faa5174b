// The slow paths of detail::Lock (see lock.hpp).
#include "core/lock.hpp"

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#else
#include <thread>
#endif

namespace edgemem::detail {

namespace {

#if defined(__linux__)
int* futex_word(std::atomic<int>& a) noexcept { return reinterpret_cast<int*>(&a); }
#endif

}  // namespace

void Lock::lock_contended(int seen) noexcept {
  // Mark the lock contended (2) before sleeping, so the holder's unlock wakes a sleeper.
  if (seen != 2) seen = state_.exchange(2, std::memory_order_acquire);
  while (seen != 0) {
#if defined(__linux__)
    // Sleeps only while the word is still 2; any other value returns at once (EAGAIN), as do signals.
    (void)syscall(SYS_futex, futex_word(state_), FUTEX_WAIT_PRIVATE, 2, nullptr, nullptr, 0);
#else
    std::this_thread::yield();
#endif
    seen = state_.exchange(2, std::memory_order_acquire);
  }
}

void Lock::wake_one() noexcept {
#if defined(__linux__)
  (void)syscall(SYS_futex, futex_word(state_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
#endif
}

}  // namespace edgemem::detail
