// Overhead of edgemem's shared virtual memory (Svm, issue 16) over the raw OpenCL 2.0 SVM calls,
// measured in one run on the same device and queue (see overhead_harness.hpp for the line format):
//   svm_alloc_free_4KiB    Svm::create + release       vs clSVMAlloc + clSVMFree     goal edgemem/raw <= 1.05
//   svm_pool_vs_raw_alloc  SVM FixedPool acquire+return vs clSVMAlloc + clSVMFree    goal >= 100x faster
//   svm_memcpy_64MiB       Queue::copy Svm -> Svm       vs clEnqueueSVMMemcpy (blocking)  goal <= 1.05
//   svm_write_64MiB        Queue::write host -> Svm     vs clEnqueueSVMMemcpy          goal <= 1.05
//   svm_read_64MiB         Queue::read Svm -> host      vs clEnqueueSVMMemcpy          goal <= 1.05
//   svm_memfill_64MiB      Queue::fill (4-byte pattern) vs clEnqueueSVMMemFill + wait  goal <= 1.05
//   svm_map_unmap_64MiB    Queue::map + unmap (write)   vs clEnqueueSVMMap + Unmap     goal <= 1.05
// Coarse-grain SVM (every SVM device has it). A device without SVM prints one line and exits 0.
// Usage: svm_overhead [--quick]   (--quick: fewer repetitions, for CI smoke runs)
#define CL_TARGET_OPENCL_VERSION 200
#include <CL/cl.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <edgemem/edgemem.hpp>

#include "../../../bench/overhead_harness.hpp"

using namespace edgemem;
using namespace overhead;

int main(int argc, char** argv) {
  g_program = "svm_overhead";
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int small_reps = quick ? 200 : 5000;
  const int big_reps = quick ? 5 : 41;
  const std::size_t big = 64u << 20;

  auto ctx = Context::create();
  if (!ctx) {
    std::fprintf(stderr, "Context::create: %s (%s)\n", to_string(ctx.error().code), ctx.error().message);
    return 1;
  }
  std::printf("platform=\"%s\" device=\"%s\" version=\"%s\"\n", platform_name(ctx->native().device).c_str(),
              ctx->info().name, ctx->info().version);
  if (!ctx->info().caps.svm_coarse) {
    std::printf("svm: the device has no shared virtual memory; nothing to measure\n");
    return 0;
  }
  std::printf("clock_floor_us=%.3f (median time of an empty repetition)\n", clock_floor_us(small_reps));
  auto q = Queue::create(*ctx);
  auto a = Svm::create(*ctx, big);
  auto b = Svm::create(*ctx, big);
  if (!q || !a || !b) return 1;
  cl_context cc = ctx->native().context;
  cl_command_queue cq = q->native();
  std::vector<unsigned char> host(big);
  for (std::size_t i = 0; i < big; ++i) host[i] = static_cast<unsigned char>(i * 13 + 1);
  auto nothing = [] {};
  const std::uint32_t word = 0xA5A5A5A5u;

  // Warm up: first touches allocate on many drivers.
  check(q->write(*a, 0, host.data(), big).has_value(), "warm-up write");
  check(q->copy(*a, *b, 0, 0, big).has_value(), "warm-up copy");

  run_case("svm_alloc_free_4KiB", small_reps,
           [&] {
             void* p = clSVMAlloc(cc, CL_MEM_READ_WRITE, 4096, 128);
             check(p != nullptr, "raw clSVMAlloc");
             clSVMFree(cc, p);
           },
           [&] {
             auto s = Svm::create(*ctx, 4096);
             check(s.has_value(), "Svm::create");
           },
           nothing);

  FixedPool<64> pool;
  check(pool.init(*ctx, *q, 4096, 64, SvmGrain::coarse).has_value(), "SVM pool init");
  run_case("svm_pool_vs_raw_alloc", small_reps,
           [&] {
             void* p = clSVMAlloc(cc, CL_MEM_READ_WRITE, 4096, 128);
             check(p != nullptr, "raw clSVMAlloc");
             clSVMFree(cc, p);
           },
           [&] {
             auto blk = pool.acquire();
             check(blk.has_value() && blk->buffer().svm_pointer() != nullptr, "SVM pool acquire");
           },
           nothing, Goal{Goal::at_least_faster, 100.0, ""});

  run_case("svm_memcpy_64MiB", big_reps,
           [&] { check(clEnqueueSVMMemcpy(cq, CL_TRUE, b->pointer(), a->pointer(), big, 0, nullptr, nullptr) == CL_SUCCESS, "raw memcpy"); },
           [&] { check(q->copy(*a, *b, 0, 0, big).has_value(), "copy"); }, nothing);
  run_case("svm_write_64MiB", big_reps,
           [&] { check(clEnqueueSVMMemcpy(cq, CL_TRUE, a->pointer(), host.data(), big, 0, nullptr, nullptr) == CL_SUCCESS, "raw write"); },
           [&] { check(q->write(*a, 0, host.data(), big).has_value(), "write"); }, nothing);
  run_case("svm_read_64MiB", big_reps,
           [&] { check(clEnqueueSVMMemcpy(cq, CL_TRUE, host.data(), a->pointer(), big, 0, nullptr, nullptr) == CL_SUCCESS, "raw read"); },
           [&] { check(q->read(*a, 0, host.data(), big).has_value(), "read"); }, nothing);
  run_case("svm_memfill_64MiB", big_reps,
           [&] {
             cl_event e = nullptr;
             check(clEnqueueSVMMemFill(cq, a->pointer(), &word, 4, big, 0, nullptr, &e) == CL_SUCCESS, "raw fill");
             check(clWaitForEvents(1, &e) == CL_SUCCESS, "raw fill wait");
             clReleaseEvent(e);
           },
           [&] { check(q->fill(*a, 0, big, &word, 4).has_value(), "fill"); }, nothing);
  run_case("svm_map_unmap_64MiB", big_reps,
           [&] {
             check(clEnqueueSVMMap(cq, CL_TRUE, CL_MAP_WRITE, a->pointer(), big, 0, nullptr, nullptr) == CL_SUCCESS, "raw map");
             static_cast<unsigned char*>(a->pointer())[0] = 1;
             cl_event e = nullptr;
             check(clEnqueueSVMUnmap(cq, a->pointer(), 0, nullptr, &e) == CL_SUCCESS, "raw unmap");
             check(clWaitForEvents(1, &e) == CL_SUCCESS, "raw unmap wait");
             clReleaseEvent(e);
           },
           [&] {
             auto m = q->map(*a, Access::write);
             check(m.has_value(), "map");
             if (m) {
               m->data()[0] = std::byte{1};
               check(m->unmap().has_value(), "unmap");
             }
           },
           nothing);

  check(pool.release().has_value(), "pool release");
  print_summary();
  return g_failed ? 1 : 0;
}
