// The measuring code shared by the overhead benchmarks (opencl_overhead, image_overhead): medians of
// alternating raw and edgemem repetitions, the goal check, the case line and the summary line.
//   case=<name> raw_us=<x> edgemem_us=<y> edgemem/raw=<y/x> [faster=<x/y>x] goal=<goal> met=<yes|NO>
//   goals: <n> met, <m> missed[: <names>]
// A missed goal is reported, not an error: check() records failed calls, which set the exit status.
#pragma once
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_timing.hpp"

namespace overhead {

using bench_timing::Clock;

using bench_timing::median;
using bench_timing::time_us;

inline const char* g_program = "overhead";  // the prefix of check()'s message (set by main)
inline bool g_failed = false;
inline volatile unsigned char g_sink = 0;  // where read mappings' bytes go
inline void check(bool ok, const char* what) {
  if (!ok && !g_failed) std::fprintf(stderr, "%s: %s failed\n", g_program, what);
  g_failed = g_failed || !ok;
}

/// What a case must show: edgemem/raw at most `value` (edgemem no slower than raw by more than that),
/// or raw/edgemem at least `value` (edgemem that many times as fast). `where`: the device it is for.
struct Goal {
  enum Kind { at_most_ratio, at_least_faster } kind;
  double value;
  const char* where;
};
inline constexpr Goal kNearRaw{Goal::at_most_ratio, 1.05, ""};

inline int g_met = 0;
inline std::string g_missed;

// Runs `reps` alternating repetitions of raw() and mine(); `settle` runs untimed after each. When
// each repetition makes `calls` calls, the medians are divided by it (per-call figures).
template <class Raw, class Mine, class Settle>
void run_case(const char* name, int reps, Raw&& raw, Mine&& mine, Settle&& settle, Goal goal = kNearRaw,
              int calls = 1) {
  std::vector<double> r, m;
  for (int i = 0; i < reps; ++i) {
    r.push_back(time_us(raw));
    settle();
    m.push_back(time_us(mine));
    settle();
  }
  const double rm = median(r) / calls, mm = median(m) / calls;
  const double ratio = rm > 0 ? mm / rm : 0.0, faster = mm > 0 ? rm / mm : 0.0;
  bool met = false;
  if (goal.kind == Goal::at_most_ratio) {
    met = ratio <= goal.value;
    std::printf("case=%s raw_us=%.3f edgemem_us=%.3f edgemem/raw=%.3f goal=edgemem/raw<=%.2f%s%s met=%s\n", name, rm,
                mm, ratio, goal.value, *goal.where ? "@" : "", goal.where, met ? "yes" : "NO");
  } else {
    met = faster >= goal.value;
    std::printf("case=%s raw_us=%.3f edgemem_us=%.3f edgemem/raw=%.3f faster=%.2fx goal=faster>=%gx%s%s met=%s\n",
                name, rm, mm, ratio, faster, goal.value, *goal.where ? "@" : "", goal.where, met ? "yes" : "NO");
  }
  std::fflush(stdout);
  if (met) {
    ++g_met;
  } else {
    g_missed += g_missed.empty() ? "" : ",";
    g_missed += name;
  }
}

/// The name of the OpenCL platform of `device` ("" when the driver does not say).
inline std::string platform_name(cl_device_id device) {
  cl_platform_id platform = nullptr;
  char name[256] = {};
  if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) != CL_SUCCESS ||
      clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr) != CL_SUCCESS)
    return "";
  return name;
}

/// The median time of an empty repetition: the cost of reading the clock around one.
inline double clock_floor_us(int reps) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(time_us([] {}));
  return median(t);
}

/// The summary line: goals met, goals missed and their names.
inline void print_summary() {
  std::printf("goals: %d met, %d missed%s%s\n", g_met,
              g_missed.empty() ? 0 : static_cast<int>(std::count(g_missed.begin(), g_missed.end(), ',')) + 1,
              g_missed.empty() ? "" : ": ", g_missed.c_str());
}

}  // namespace overhead
