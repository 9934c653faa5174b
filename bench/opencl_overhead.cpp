// Overhead of edgemem over the raw OpenCL C API, measured in one run on the same device, queue
// and buffers. Each case alternates a raw and an edgemem repetition and reports the medians:
//   case=<name> raw_us=<x> edgemem_us=<y> ratio=<y/x>
// Usage: opencl_overhead [--quick]   (--quick: fewer repetitions, for CI smoke runs)
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include <edgemem/edgemem.hpp>

using namespace edgemem;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

template <class F>
double time_us(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

bool g_failed = false;
volatile unsigned char g_sink = 0;  // where read mappings' bytes go
void check(bool ok, const char* what) {
  if (!ok && !g_failed) std::fprintf(stderr, "opencl_overhead: %s failed\n", what);
  g_failed = g_failed || !ok;
}

// Runs `reps` alternating repetitions of raw() and mine(); `settle` runs untimed after each. When
// each repetition makes `calls` calls, the medians are divided by it (per-call figures).
template <class Raw, class Mine, class Settle>
void run_case(const char* name, int reps, Raw&& raw, Mine&& mine, Settle&& settle, int calls = 1) {
  std::vector<double> r, m;
  for (int i = 0; i < reps; ++i) {
    r.push_back(time_us(raw));
    settle();
    m.push_back(time_us(mine));
    settle();
  }
  const double rm = median(r) / calls, mm = median(m) / calls;
  std::printf("case=%s raw_us=%.3f edgemem_us=%.3f ratio=%.3f\n", name, rm, mm, rm > 0 ? mm / rm : 0.0);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int small_reps = quick ? 200 : 5000;
  const int big_reps = quick ? 5 : 41;
  // Maps of 64 MiB are cheap on unified memory (tens of us on PoCL) and so noisy: more repetitions.
  const int map_reps = quick ? 5 : 401;
  const std::size_t big = 64u << 20;

  auto ctx = Context::create();
  if (!ctx) {
    std::fprintf(stderr, "Context::create: %s (%s)\n", to_string(ctx.error().code), ctx.error().message);
    return 1;
  }
  auto q = Queue::create(*ctx);
  auto small_buf = Buffer::create(*ctx, 4096);
  auto big_buf = Buffer::create(*ctx, big);
  if (!q || !small_buf || !big_buf) return 1;
  std::printf("device=\"%s\" version=\"%s\"\n", ctx->info().name, ctx->info().version);

  cl_command_queue cq = q->native();
  cl_mem small_mem = small_buf->native().value_or(nullptr);  // roots: their own cl_mem, never fails
  cl_mem big_mem = big_buf->native().value_or(nullptr);
  std::vector<unsigned char> host(big);
  for (std::size_t i = 0; i < big; ++i) host[i] = static_cast<unsigned char>(i * 13 + 1);
  std::uint32_t word = 0xDEADBEEF;
  auto finish = [&] { clFinish(cq); };
  auto nothing = [] {};

  // Warm up: first touches allocate on many drivers.
  check(q->write(*big_buf, 0, host.data(), big).has_value(), "warm-up write");
  check(q->write(*small_buf, 0, &word, 4).has_value(), "warm-up small write");

  run_case("write_4B_blocking", small_reps,
           [&] { check(clEnqueueWriteBuffer(cq, small_mem, CL_TRUE, 0, 4, &word, 0, nullptr, nullptr) == CL_SUCCESS, "raw write"); },
           [&] { check(q->write(*small_buf, 0, &word, 4).has_value(), "write"); }, nothing);

  run_case("write_4B_async_enqueue", small_reps,
           [&] {
             cl_event e = nullptr;
             check(clEnqueueWriteBuffer(cq, small_mem, CL_FALSE, 0, 4, &word, 0, nullptr, &e) == CL_SUCCESS, "raw write async");
             clReleaseEvent(e);
           },
           [&] {
             auto e = q->write_async(*small_buf, 0, &word, 4);
             check(e.has_value(), "write_async");
           },
           finish);

  // Ordering across queues: a write on queue A, then a write of the same bytes on queue B. Raw OpenCL
  // needs the caller to pass A's event in B's wait list; edgemem adds it itself (its cost: the record
  // of A's command on the buffer and the look-up for B's).
  auto q2 = Queue::create(*ctx);
  if (!q2) return 1;
  cl_command_queue cq2 = q2->native();
  // (The raw loop keeps B's last event for A's next write, as correct code must: both write one range.)
  cl_event raw_b = nullptr;
  run_case("write_4B_async_then_other_queue", small_reps,
           [&] {
             cl_event a = nullptr;
             check(clEnqueueWriteBuffer(cq, small_mem, CL_FALSE, 0, 4, &word, raw_b != nullptr ? 1 : 0,
                                        raw_b != nullptr ? &raw_b : nullptr, &a) == CL_SUCCESS, "raw write A");
             if (raw_b != nullptr) clReleaseEvent(raw_b);
             check(clEnqueueWriteBuffer(cq2, small_mem, CL_FALSE, 0, 4, &word, 1, &a, &raw_b) == CL_SUCCESS, "raw write B");
             clReleaseEvent(a);
           },
           [&] {
             auto a = q->write_async(*small_buf, 0, &word, 4);
             auto b = q2->write_async(*small_buf, 0, &word, 4);
             check(a.has_value() && b.has_value(), "write_async A then B");
           },
           [&] {
             clFinish(cq);
             clFinish(cq2);
           });
  if (raw_b != nullptr) clReleaseEvent(raw_b);

  run_case("write_64MiB", big_reps,
           [&] { check(clEnqueueWriteBuffer(cq, big_mem, CL_TRUE, 0, big, host.data(), 0, nullptr, nullptr) == CL_SUCCESS, "raw write 64M"); },
           [&] { check(q->write(*big_buf, 0, host.data(), big).has_value(), "write 64M"); }, nothing);

  run_case("read_64MiB", big_reps,
           [&] { check(clEnqueueReadBuffer(cq, big_mem, CL_TRUE, 0, big, host.data(), 0, nullptr, nullptr) == CL_SUCCESS, "raw read 64M"); },
           [&] { check(q->read(*big_buf, 0, host.data(), big).has_value(), "read 64M"); }, nothing);

  // A read mapping is read, a write mapping written: one byte, so the mapping is used.
  auto touch = [](unsigned char* p, bool read) {
    if (read) g_sink = static_cast<volatile unsigned char*>(p)[0];
    else static_cast<volatile unsigned char*>(p)[0] = 1;
  };
  auto raw_map = [&](cl_map_flags flags) {
    cl_int err = CL_SUCCESS;
    void* p = clEnqueueMapBuffer(cq, big_mem, CL_TRUE, flags, 0, big, 0, nullptr, nullptr, &err);
    check(err == CL_SUCCESS, "raw map");
    touch(static_cast<unsigned char*>(p), flags == CL_MAP_READ);
    check(clEnqueueUnmapMemObject(cq, big_mem, p, 0, nullptr, nullptr) == CL_SUCCESS, "raw unmap");
    clFinish(cq);
  };
  auto my_map = [&](Access access) {
    {
      auto m = q->map<unsigned char>(*big_buf, access);
      check(m.has_value(), "map");
      if (m) touch(m->data(), access == Access::read);
    }
    check(q->finish().has_value(), "finish");
  };
  run_case("map_unmap_64MiB_write_discard", map_reps, [&] { raw_map(CL_MAP_WRITE_INVALIDATE_REGION); },
           [&] { my_map(Access::write_discard); }, nothing);
  run_case("map_unmap_64MiB_read", map_reps, [&] { raw_map(CL_MAP_READ); }, [&] { my_map(Access::read); }, nothing);

  const std::size_t align = ctx->base_align();
  auto raw_sub = [&] {
    cl_buffer_region region{align, align};
    cl_int err = CL_SUCCESS;
    cl_mem s = clCreateSubBuffer(small_mem, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    check(err == CL_SUCCESS, "raw sub");
    clReleaseMemObject(s);
  };
  auto my_sub = [&] {
    auto s = small_buf->sub(align, align);
    check(s.has_value(), "sub");
  };
  run_case("sub_buffer_create_release", small_reps, raw_sub, my_sub, nothing);
  // The same in batches of 100 per timed repetition: no clock read or rounding in the per-call cost.
  constexpr int batch = 100;
  run_case("sub_buffer_create_release_batch100", small_reps / 10,
           [&] { for (int i = 0; i < batch; ++i) raw_sub(); },
           [&] { for (int i = 0; i < batch; ++i) my_sub(); }, nothing, batch);
  return g_failed ? 1 : 0;
}
