/// @file cuda_harness.hpp  What cuda_overhead measures with: the raw CUDA driver API, loaded from
/// libcuda.so.1 at run time as the CUDA backend loads it (cu_driver.cpp), so the binary starts on a
/// machine without the NVIDIA driver and says so, and raw and edgemem calls take the same route (a
/// function pointer from dlsym); cu_ok(), the check of a CUresult; and, brought into namespace cudabench,
/// the backend-neutral pieces of bench/goal_harness.hpp (medians of alternating raw / edgemem
/// repetitions, per-operation percentiles, the goal check and the summary line):
///   case=<name> raw_us=<x> edgemem_us=<y> edgemem/raw=<y/x> [faster=<x/y>x] goal=<goal> met=<yes|NO>
///   case=<name> p50_ns=<x> p99_ns=<y> max_ns=<z>
///   goals: <n> met, <m> missed[: <names>]
/// A missed goal is reported, not an error: a failed call (check(), cu_ok()) sets the exit status.
#pragma once
#include <cuda.h>
#include <dlfcn.h>

#include "../../../bench/goal_harness.hpp"

namespace cudabench {

/// The driver entry points the raw baselines call, by their cuda.h names (the macros there pick the
/// ABI version, e.g. cuMemAlloc is cuMemAlloc_v2; the loader looks up the expanded name).
#define CUDABENCH_ENTRY_POINTS(X)                                                                          \
  X(cuGetErrorName) X(cuDriverGetVersion) X(cuCtxSetCurrent) X(cuStreamCreate) X(cuStreamDestroy)         \
  X(cuStreamSynchronize) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)        \
  X(cuMemAlloc) X(cuMemFree) X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuDeviceGetDefaultMemPool)            \
  X(cuMemPoolSetAttribute) X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemcpyHtoD) X(cuMemcpyDtoH)             \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoDAsync) X(cuMemsetD32Async)

/// The loaded entry points, called as drv.cuMemAlloc(...).
struct Driver {
#define CUDABENCH_MEMBER_(fn) decltype(&::fn) fn = nullptr;
  CUDABENCH_ENTRY_POINTS(CUDABENCH_MEMBER_)
#undef CUDABENCH_MEMBER_
};

#define CUDABENCH_STR2_(x) #x
#define CUDABENCH_STR_(x) CUDABENCH_STR2_(x)

/// Fills `d` from libcuda.so.1 (never closed). Null on success, else what is missing. cuInit is left
/// to edgemem's Context::create, which runs first.
inline const char* load_driver(Driver& d) noexcept {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return "libcuda.so.1 could not be loaded (no NVIDIA driver)";
#define CUDABENCH_LOOKUP_(fn)                                                        \
  d.fn = reinterpret_cast<decltype(d.fn)>(dlsym(lib, CUDABENCH_STR_(fn)));          \
  if (d.fn == nullptr) return "libcuda.so.1 lacks " CUDABENCH_STR_(fn);
  CUDABENCH_ENTRY_POINTS(CUDABENCH_LOOKUP_)
#undef CUDABENCH_LOOKUP_
  return nullptr;
}

// The backend-neutral pieces, as cuda_overhead.cpp names them.
using goal_harness::check;
using goal_harness::clock_floor_us;
using goal_harness::clock_overhead_ns;
using goal_harness::Clock;
using goal_harness::g_failed;
using goal_harness::g_program;
using goal_harness::Goal;
using goal_harness::kNearRaw;
using goal_harness::measure_ns;
using goal_harness::median;
using goal_harness::Percentiles;
using goal_harness::print_summary;
using goal_harness::record_goal;
using goal_harness::run_case;
using goal_harness::time_us;

inline const Driver* g_driver = nullptr;  // for cu_ok()'s error names, once loaded

/// check() of a driver call: true on CUDA_SUCCESS, else records it with the driver's name for `status`.
inline bool cu_ok(CUresult status, const char* what) {
  const char* name = nullptr;
  if (status != CUDA_SUCCESS && (g_driver == nullptr || g_driver->cuGetErrorName(status, &name) != CUDA_SUCCESS))
    name = nullptr;
  return check(status == CUDA_SUCCESS, what, name != nullptr ? name : "CUresult");
}

}  // namespace cudabench
