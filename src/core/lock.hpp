// The lock of the per-command path (QueueNode::submit_lock, MemNode::map_lock): short critical
// sections taken two or three times by every command. Uncontended, lock and unlock are one atomic
// instruction each, inline (no library call: the pthread mutex path was a measurable share of a
// command's cost, bench/hot_path.cpp); a contended lock sleeps on a futex (Linux; elsewhere it yields).
// The algorithm is "mutex 3" of Drepper, "Futexes Are Tricky". BasicLockable: use std::lock_guard.
#pragma once
#include <atomic>

namespace edgemem::detail {

class Lock {
 public:
  Lock() noexcept = default;
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

  /// Takes the lock, sleeping while another thread holds it.
  void lock() noexcept {
    int expected = 0;
    if (!state_.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed))
      lock_contended(expected);
  }
  /// Gives the lock back, waking one sleeper if there is one.
  void unlock() noexcept {
    if (state_.exchange(0, std::memory_order_release) == 2) wake_one();
  }

 private:
  void lock_contended(int seen) noexcept;
  void wake_one() noexcept;
  std::atomic<int> state_{0};  // 0: free; 1: held; 2: held, and a thread may sleep on it
};

}  // namespace edgemem::detail
