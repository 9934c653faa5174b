// The deadline of a timed wait (FixedPool::acquire_for, FrameRing::take_for): now + timeout,
// saturated, so that a timeout steady_clock cannot add to now (nanoseconds::max() among them) means
// "wait forever" instead of overflowing, and a timeout <= 0 means "do not wait".
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ratio>

namespace edgemem::detail {

/// When a timed wait ends.
struct Deadline {
  std::chrono::steady_clock::time_point at{};  ///< the end of the wait, unless `forever`
  bool forever = false;                         ///< now + timeout is past what steady_clock represents
};

/// now + `timeout` (rounded up to steady_clock's tick); forever when that sum would pass
/// steady_clock::time_point::max(); now when `timeout` <= 0.
inline Deadline deadline_after(std::chrono::nanoseconds timeout) noexcept {
  using Clock = std::chrono::steady_clock;
  static_assert(std::ratio_less_equal<std::nano, Clock::period>::value,
                "a steady_clock tick shorter than 1 ns could overflow converting the timeout");
  const Clock::time_point now = Clock::now();
  if (timeout <= std::chrono::nanoseconds::zero()) return Deadline{now, false};
  const Clock::duration t = std::chrono::ceil<Clock::duration>(timeout);  // a division: cannot overflow
  if (t >= Clock::time_point::max() - now) return Deadline{Clock::time_point::max(), true};
  return Deadline{now + t, false};
}

/// Blocks on `cv` (releasing `lock`) until notified, woken spuriously, or `d` has passed.
/// False when `d` has passed (std::cv_status::timeout), true otherwise.
inline bool wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, const Deadline& d) {
  if (!d.forever) return cv.wait_until(lock, d.at) == std::cv_status::no_timeout;
  cv.wait(lock);
  return true;
}

/// Blocks on `cv` until `ready()` holds or `d` has passed; returns ready() (as wait_until with a predicate).
template <class Ready>
bool wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, const Deadline& d, Ready ready) {
  if (!d.forever) return cv.wait_until(lock, d.at, ready);
  cv.wait(lock, ready);
  return true;
}

}  // namespace edgemem::detail
