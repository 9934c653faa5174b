// pool_bench: the cost of getting a device buffer, in one run on one device:
//   pool_acquire_release          FixedPool<64> acquire + return (ThreadSafe policy)
//   heap_create_destroy           Heap create_buffer + destroy (one page)
//   buffer_create_touch_release   Buffer::create + 4-byte blocking write + release
//   raw_create_touch_release      the backend's own create + 4-byte blocking write + release (raw_alloc.hpp),
//                                 where it has one (OpenCL: clCreateBuffer, clEnqueueWriteBuffer, clReleaseMemObject)
// Each repetition is timed on its own with steady_clock (its own overhead, clock_overhead_ns, is
// included in every figure). Prints `case=<name> p50_ns=<x> p99_ns=<y> max_ns=<z>` per case and
// `pool_speedup_vs_raw=<raw p50 / pool p50>`; the raw baseline is the backend's own API where it gives
// one, else Buffer::create+touch+release (the host backend has no driver API).
// Usage: pool_bench [--quick]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <edgemem/edgemem.hpp>

#include "../examples/user_allocator_setup.hpp"

#include "raw_alloc.hpp"

using namespace edgemem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kBlock = 4096;

struct Summary {
  double p50 = 0, p99 = 0, max = 0;
};

bool g_failed = false;

// Times `reps` calls of op() one by one (after reps/10 warm-up calls) and prints the percentiles.
template <class Op>
Summary measure(const char* name, int reps, Op&& op) {
  std::vector<double> ns;
  ns.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps / 10; ++i) g_failed |= !op();
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    const bool ok = op();
    const auto t1 = Clock::now();
    g_failed |= !ok;
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
  }
  std::sort(ns.begin(), ns.end());
  Summary s{ns[ns.size() / 2], ns[ns.size() * 99 / 100], ns.back()};
  std::printf("case=%s p50_ns=%.0f p99_ns=%.0f max_ns=%.0f\n", name, s.p50, s.p99, s.max);
  std::fflush(stdout);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  example::setup_user_allocator();  // allocator=user builds: callbacks before any edgemem call
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int fast_reps = quick ? 20000 : 200000;
  const int slow_reps = quick ? 2000 : 20000;

  auto ctx = Context::create();
  if (!ctx) {
    std::fprintf(stderr, "pool_bench: Context::create: %s (%s)\n", to_string(ctx.error().code), ctx.error().message);
    return 1;
  }
  auto q = Queue::create(*ctx);
  if (!q) return 1;
  std::printf("backend=%s allocator=%s device=\"%s\" block_bytes=%zu\n", EDGEMEM_BACKEND_NAME, EDGEMEM_ALLOCATOR_NAME,
              ctx->info().name, kBlock);

  std::vector<double> clock_ns;
  for (int i = 0; i < 10000; ++i) {
    const auto t0 = Clock::now();
    const auto t1 = Clock::now();
    clock_ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
  }
  std::sort(clock_ns.begin(), clock_ns.end());
  std::printf("clock_overhead_ns=%.0f\n", clock_ns[clock_ns.size() / 2]);

  static FixedPool<64> pool;
  Heap heap;
  if (!pool.init(*ctx, *q, kBlock) || !heap.init(*ctx, *q, kBlock, 64)) {
    std::fprintf(stderr, "pool_bench: pool or heap creation failed\n");
    return 1;
  }
  const std::uint32_t word = 0x5a5a5a5au;

  const Summary pool_s = measure("pool_acquire_release", fast_reps, [&] {
    auto b = pool.acquire();
    return b.has_value();  // returned as `b` goes
  });
  measure("heap_create_destroy", slow_reps, [&] { return heap.create_buffer(kBlock).has_value(); });
  const Summary create_s = measure("buffer_create_touch_release", slow_reps, [&] {
    auto b = Buffer::create(*ctx, kBlock);
    return b && q->write(*b, 0, &word, sizeof word);
  });

  const pool_bench::RawAlloc* raw = pool_bench::raw_alloc();
  Summary raw_s = create_s;
  if (raw != nullptr) {
    raw_s = measure("raw_create_touch_release", slow_reps, [&] { return raw->run(*ctx, *q, kBlock); });
    std::printf("baseline=raw_create_touch_release (%s)\n", raw->description);
    std::printf("buffer_create_vs_raw_p50=%.2f\n", raw_s.p50 > 0 ? create_s.p50 / raw_s.p50 : 0.0);
  } else {
    std::printf("baseline=buffer_create_touch_release (the %s backend gives no raw baseline: Buffer::create + "
                "touch + release stands in for raw)\n", EDGEMEM_BACKEND_NAME);
  }
  std::printf("pool_speedup_vs_raw=%.1f\n", pool_s.p50 > 0 ? raw_s.p50 / pool_s.p50 : 0.0);
  std::printf("goal_pool_p50_le_100ns=%s goal_pool_p99_le_1us=%s\n", pool_s.p50 <= 100 ? "met" : "not met",
              pool_s.p99 <= 1000 ? "met" : "not met");
  if (raw != nullptr) {
    std::printf("goal_speedup_ge_100x=%s\n", raw_s.p50 >= 100 * pool_s.p50 ? "met" : "not met");
  } else {
    std::printf("goal_speedup_ge_100x=n/a (the 100x goal is against a driver's own allocation)\n");
  }
  if (g_failed) std::fprintf(stderr, "pool_bench: an operation failed\n");
  return g_failed ? 1 : 0;
}
