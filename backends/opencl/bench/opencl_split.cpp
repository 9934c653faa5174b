// Where one small command's time goes, edgemem against raw OpenCL on the same queue and buffer: the
// time inside the driver's calls (clEnqueueWriteBuffer, clRetainEvent, clReleaseEvent, timed by the
// wrappers below, which this program defines and forwards to the ICD loader's) and the time outside
// them (edgemem's own code; for raw, the loop and the clock reads). It explains opencl_overhead's
// small-command ratios (issue #28). edgemem makes the driver calls raw makes: the enqueue and one
// clReleaseEvent per command (the ordering table's entry and the Event share the command's one
// reference through a ClEvent record; the release comes when the last of them goes, often in a later
// command, when the entry is replaced), so
//   edgemem outside - raw outside = edgemem's own code per command.
// Each clock read adds to "outside" (two per driver call); clRetainEvent is timed too, in case a
// change brings a retain back (it shows as in_driver_ns above raw's).
// Usage: opencl_split [reps]   (default 20000; prints three rounds, the last is the one to read)
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <edgemem/edgemem.hpp>

namespace {

double g_in_driver_ns = 0;

double now_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

/// Calls the loader's `name` (found once, cached in `real`) with `args`, the time inside added to
/// g_in_driver_ns.
template <class... Args>
cl_int timed_forward(cl_int(CL_API_CALL*& real)(Args...), const char* name, Args... args) noexcept {
  if (real == nullptr) real = reinterpret_cast<cl_int(CL_API_CALL*)(Args...)>(dlsym(RTLD_NEXT, name));
  const double t = now_ns();
  const cl_int r = real(args...);
  g_in_driver_ns += now_ns() - t;
  return r;
}

}  // namespace

// The wrappers: the executable's own definitions, so edgemem's calls (linked statically) reach them too.
extern "C" {
CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset,
                                                     size_t bytes, const void* p, cl_uint n, const cl_event* waits,
                                                     cl_event* e) CL_API_SUFFIX__VERSION_1_0 {
  static cl_int(CL_API_CALL* real)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void*, cl_uint,
                                   const cl_event*, cl_event*) = nullptr;
  return timed_forward(real, "clEnqueueWriteBuffer", q, m, blocking, offset, bytes, p, n, waits, e);
}
CL_API_ENTRY cl_int CL_API_CALL clRetainEvent(cl_event e) CL_API_SUFFIX__VERSION_1_0 {
  static cl_int(CL_API_CALL* real)(cl_event) = nullptr;
  return timed_forward(real, "clRetainEvent", e);
}
CL_API_ENTRY cl_int CL_API_CALL clReleaseEvent(cl_event e) CL_API_SUFFIX__VERSION_1_0 {
  static cl_int(CL_API_CALL* real)(cl_event) = nullptr;
  return timed_forward(real, "clReleaseEvent", e);
}
}

namespace {

struct Series {
  std::vector<double> total, driver;
};

template <class F>
void rep(Series& s, F&& f) {
  const double d0 = g_in_driver_ns;
  const auto t0 = std::chrono::steady_clock::now();
  f();
  const auto t1 = std::chrono::steady_clock::now();
  s.total.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
  s.driver.push_back(g_in_driver_ns - d0);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void show(const char* name, const Series& s) {
  std::vector<double> outside(s.total.size());
  for (std::size_t i = 0; i < outside.size(); ++i) outside[i] = s.total[i] - s.driver[i];
  std::printf("%-17s total_ns=%7.0f in_driver_ns=%7.0f outside_ns=%5.0f\n", name, median(s.total), median(s.driver),
              median(outside));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace edgemem;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20000;
  auto ctx = Context::create();
  if (!ctx) {
    std::fprintf(stderr, "Context::create: %s (%s)\n", to_string(ctx.error().code), ctx.error().message);
    return 1;
  }
  auto q = Queue::create(*ctx);
  auto buf = Buffer::create(*ctx, 4096);
  if (!q || !buf) return 1;
  std::printf("device=\"%s\" reps=%d (medians per command)\n", ctx->info().name, reps);
  cl_command_queue cq = q->native();
  cl_mem mem = buf->native().value_or(nullptr);
  std::uint32_t word = 1;
  bool ok = true;
  for (int round = 0; round < 3; ++round) {
    Series raw, mine, raw_blocking, mine_blocking;
    for (int i = 0; i < reps; ++i) {
      rep(raw, [&] {
        cl_event e = nullptr;
        ok &= clEnqueueWriteBuffer(cq, mem, CL_FALSE, 0, 4, &word, 0, nullptr, &e) == CL_SUCCESS;
        clReleaseEvent(e);
      });
      rep(mine, [&] { ok &= q->write_async(*buf, 0, &word, 4).has_value(); });
      if (i % 64 == 63) clFinish(cq);
    }
    clFinish(cq);
    for (int i = 0; i < reps / 4; ++i) {
      rep(raw_blocking, [&] { ok &= clEnqueueWriteBuffer(cq, mem, CL_TRUE, 0, 4, &word, 0, nullptr, nullptr) == CL_SUCCESS; });
      rep(mine_blocking, [&] { ok &= q->write(*buf, 0, &word, 4).has_value(); });
    }
    std::printf("round %d\n", round);
    show("async raw", raw);
    show("async edgemem", mine);
    show("blocking raw", raw_blocking);
    show("blocking edgemem", mine_blocking);
  }
  if (!ok) std::fprintf(stderr, "a call failed\n");
  return ok ? 0 : 1;
}
