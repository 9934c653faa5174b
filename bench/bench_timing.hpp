// The timing pieces every overhead benchmark shares (overhead_harness.hpp for OpenCL, cuda_harness.hpp
// for CUDA): the clock, one timed call, the median of a sample.
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

namespace bench_timing {

using Clock = std::chrono::steady_clock;

/// The median of `v` (0 when empty).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// The time f() takes, in microseconds.
template <class F>
double time_us(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

}  // namespace bench_timing
