/// @file goal_harness.hpp  The backend-neutral pieces of the overhead benchmarks that print goals
/// (backends/cuda/bench/cuda_overhead.cpp, backends/vulkan/bench/vulkan_overhead.cpp): failure
/// bookkeeping, the clock's own cost, medians of alternating raw / edgemem repetitions, per-operation
/// percentiles, the goal check and the summary line. No GPU API is included: each backend's harness adds
/// its own loader and its own check of a status code. (OpenCL's overhead_harness.hpp predates it.)
///   case=<name> raw_us=<x> edgemem_us=<y> edgemem/raw=<y/x> [faster=<x/y>x] goal=<goal> met=<yes|NO>
///   case=<name> p50_ns=<x> p99_ns=<y> max_ns=<z>
///   goals: <n> met, <m> missed[: <names>]
/// A missed goal is reported, not an error: a failed call (check()) sets the exit status.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_timing.hpp"

namespace goal_harness {

using bench_timing::Clock;
using bench_timing::median;
using bench_timing::time_us;

inline const char* g_program = "overhead";  // the prefix of every failure message (main sets it)
inline bool g_failed = false;

/// Records a failed call (the first one is printed); returns `ok`.
inline bool check(bool ok, const char* what, const char* detail = "") {
  if (!ok && !g_failed) std::fprintf(stderr, "%s: %s failed%s%s\n", g_program, what, *detail ? ": " : "", detail);
  g_failed = g_failed || !ok;
  return ok;
}

/// The median time of two back-to-back clock reads in ns: the cost in every single-operation figure.
inline double clock_overhead_ns(int reps) {
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    const auto t1 = Clock::now();
    t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
  }
  return median(std::move(t));
}

/// The median time of an empty repetition in us, as run_case() times one (its floor).
inline double clock_floor_us(int reps) {
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) t.push_back(time_us([] {}));
  return median(std::move(t));
}

/// What a case must show: edgemem/raw at most `value`, or raw/edgemem at least `value`.
struct Goal {
  enum Kind { at_most_ratio, at_least_faster } kind;
  double value;
};
inline constexpr Goal kNearRaw{Goal::at_most_ratio, 1.05};

inline int g_met = 0;
inline int g_missed_count = 0;
inline std::string g_missed;

/// Counts a goal of case `name` as met or missed; returns `met`.
inline bool record_goal(const char* name, bool met) {
  if (met) {
    ++g_met;
  } else {
    ++g_missed_count;
    g_missed += g_missed.empty() ? "" : ",";
    g_missed += name;
  }
  return met;
}

/// Runs reps / 10 (at least 2) untimed warm-up pairs, then `reps` alternating timed repetitions of raw()
/// and mine(), and prints the medians and the goal.
template <class Raw, class Mine>
void run_case(const char* name, int reps, Raw&& raw, Mine&& mine, Goal goal = kNearRaw) {
  for (int i = 0; i < std::max(2, reps / 10); ++i) {
    raw();
    mine();
  }
  std::vector<double> r, m;
  r.reserve(static_cast<std::size_t>(reps));
  m.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    r.push_back(time_us(raw));
    m.push_back(time_us(mine));
  }
  const double rm = median(std::move(r)), mm = median(std::move(m));
  const double ratio = rm > 0 ? mm / rm : 0.0, faster = mm > 0 ? rm / mm : 0.0;
  if (goal.kind == Goal::at_most_ratio) {
    const bool met = record_goal(name, ratio <= goal.value);
    std::printf("case=%s raw_us=%.3f edgemem_us=%.3f edgemem/raw=%.3f goal=edgemem/raw<=%.2f met=%s\n", name, rm, mm,
                ratio, goal.value, met ? "yes" : "NO");
  } else {
    const bool met = record_goal(name, faster >= goal.value);
    std::printf("case=%s raw_us=%.3f edgemem_us=%.3f edgemem/raw=%.3f faster=%.2fx goal=faster>=%gx met=%s\n", name,
                rm, mm, ratio, faster, goal.value, met ? "yes" : "NO");
  }
  std::fflush(stdout);
}

/// Percentiles of single operations, in ns.
struct Percentiles {
  double p50 = 0, p99 = 0, max = 0;
};

/// Times `reps` calls of op() one by one with steady_clock (after reps / 10 untimed warm-up calls) and
/// prints `case=<name> p50_ns= p99_ns= max_ns=`. Every `every` calls (0: never), settle() runs untimed.
template <class Op, class Settle>
Percentiles measure_ns(const char* name, int reps, Op&& op, int every, Settle&& settle) {
  for (int i = 0; i < reps / 10; ++i) {
    op();
    if (every > 0 && (i + 1) % every == 0) settle();
  }
  settle();
  std::vector<double> ns;
  ns.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    op();
    const auto t1 = Clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    if (every > 0 && (i + 1) % every == 0) settle();
  }
  settle();
  std::sort(ns.begin(), ns.end());
  const Percentiles p{ns[ns.size() / 2], ns[ns.size() * 99 / 100], ns.back()};
  std::printf("case=%s p50_ns=%.0f p99_ns=%.0f max_ns=%.0f\n", name, p.p50, p.p99, p.max);
  std::fflush(stdout);
  return p;
}

/// The summary line: goals met, goals missed and their names.
inline void print_summary() {
  std::printf("goals: %d met, %d missed%s%s\n", g_met, g_missed_count, g_missed.empty() ? "" : ": ", g_missed.c_str());
}

}  // namespace goal_harness
