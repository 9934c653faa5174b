/// @file cuda_overhead.cpp  Overhead of edgemem's CUDA backend over the raw CUDA driver API, measured
/// in one run on one device. It prints ratios against baselines measured in the same run, never a timed
/// assertion: a missed goal is reported (met=NO), not an error, and the exit status says only whether
/// every call succeeded (1 also when there is no NVIDIA driver or device: the message says why).
///
/// Raw calls run on the edgemem context's primary context (cuCtxSetCurrent(ctx.native().context)) and
/// on a stream of their own, made like the edgemem queue's (cuStreamCreate with CU_STREAM_NON_BLOCKING),
/// on buffers of their own, identical to edgemem's (Buffer::create(ctx, n, Storage::device) is
/// cuMemAlloc(n); Storage::host is cuMemHostAlloc with DEVICEMAP | PORTABLE). Raw entry points are
/// loaded from libcuda.so.1 as the backend loads them (cuda_harness.hpp).
///
/// 1. Allocation of a 1 MiB block, each operation timed on its own (steady_clock, after warm-up):
///    - alloc_pool_acquire_release_1MiB: FixedPool<64> acquire + return (ThreadSafe);
///    - alloc_async_pair_1MiB: cuMemAllocAsync + cuMemFreeAsync on the raw stream, from the device's
///      default memory pool with CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = UINT64_MAX, warmed by 16 live
///      allocations first; no synchronisation per pair (the stream is synchronised every 64 pairs,
///      outside the timing);
///    - alloc_cuMemAlloc_cuMemFree_1MiB: cuMemAlloc + cuMemFree.
///    Each prints `case=<name> p50_ns=<x> p99_ns=<y> max_ns=<z>` (the clock overhead included); then
///    three goal lines: `case=alloc_pool_p50 edgemem_p50_ns= edgemem_p99_ns= goal=p50<=100ns met=yes|NO`,
///    and for alloc_pool_vs_async_pair (goal 7x) and alloc_pool_vs_cuMemAlloc_cuMemFree (goal 800x)
///    `case=<name> raw_p50_ns= edgemem_p50_ns= raw_p99_ns= edgemem_p99_ns= edgemem/raw= faster=<x>x
///    goal=faster>=<g>x met=yes|NO`, comparing p50s.
/// 2. Transfers at 4 KiB, 1 MiB, 16 MiB and 64 MiB (fewer repetitions for the large sizes), each an
///    alternating raw / edgemem median after warm-up, goal edgemem/raw <= 1.05, printed as
///    `case=<case>_<size> raw_us=<x> edgemem_us=<y> edgemem/raw=<y/x> goal=edgemem/raw<=1.05 met=yes|NO`:
///    - write_pageable: Queue::write from a std::vector  vs cuMemcpyHtoD (synchronous, pageable);
///    - write_pinned:   Queue::write from cuMemHostAlloc memory vs cuMemcpyHtoDAsync + cuStreamSynchronize;
///    - read_pageable:  Queue::read into a std::vector   vs cuMemcpyDtoH;
///    - copy:           Queue::copy buffer -> buffer     vs cuMemcpyDtoDAsync + cuStreamSynchronize;
///    - fill:           Queue::fill, 4-byte pattern      vs cuMemsetD32Async + cuStreamSynchronize;
///    - write_async_event: Queue::write_async from pinned memory + Event::wait vs cuMemcpyHtoDAsync +
///      cuEventRecord + cuEventSynchronize (one raw event made once; edgemem makes one per command);
///    - map_write_discard: Queue::map of a Storage::host buffer (zero-copy), Access::write_discard, one
///      byte written, unmap() vs cuStreamSynchronize + the same byte written to pinned memory.
/// 3. First lines: the device, its CUDA version, the driver version, the stream used for raw calls,
///    the clock overhead (ns) and the clock floor of one repetition (us). The caller records the
///    edgemem commit. Last line: `goals: <n> met, <m> missed[: <names>]`.
///
/// Usage: cuda_overhead [--quick]   (--quick: fewer repetitions, for smoke runs)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <edgemem/edgemem.hpp>

#include "../../../examples/user_allocator_setup.hpp"
#include "cuda_harness.hpp"

using namespace edgemem;
using namespace cudabench;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr unsigned kPinnedFlags = CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE;  // as Storage::host

/// check() of an edgemem Result, with its Errc and message.
template <class R>
bool ok(const R& r, const char* what) {
  if (r) return true;
  char detail[256];
  std::snprintf(detail, sizeof detail, "%s (%s)", to_string(r.error().code), r.error().message);
  return check(false, what, detail);
}

/// What every case shares: the driver, the edgemem context and queue, the raw stream and event, host memory.
struct Bench {
  const Driver& d;
  Context& ctx;
  Queue& q;
  CUstream rs;            // the raw calls' stream
  CUevent ev;             // the raw async case's event (made once)
  unsigned char* pageable;  // kMaxBytes of std::vector memory
  unsigned char* pinned;    // kMaxBytes of cuMemHostAlloc memory
  bool quick;
};

// ---- 1. allocation -----------------------------------------------------------------------------

void allocation_cases(Bench& b) {
  const Driver& d = b.d;
  const std::size_t block = kMiB;
  const int fast = b.quick ? 20000 : 200000, mid = b.quick ? 2000 : 20000, slow = b.quick ? 200 : 2000;
  auto nothing = [] {};

  static FixedPool<64> pool;
  if (!ok(pool.init(b.ctx, b.q, block), "FixedPool<64>::init (64 x 1 MiB)")) return;
  const Percentiles pool_s = measure_ns("alloc_pool_acquire_release_1MiB", fast,
                                        [&] {
                                          auto blk = pool.acquire();
                                          ok(blk, "FixedPool::acquire");
                                        },  // returned as `blk` goes, inside the timing
                                        0, nothing);

  // The device's default memory pool, never trimmed at a synchronisation, warmed by 16 live blocks.
  CUmemoryPool mem_pool = nullptr;
  cuuint64_t threshold = UINT64_MAX;
  if (!cu_ok(d.cuDeviceGetDefaultMemPool(&mem_pool, static_cast<CUdevice>(b.ctx.native().device)),
             "cuDeviceGetDefaultMemPool") ||
      !cu_ok(d.cuMemPoolSetAttribute(mem_pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
             "cuMemPoolSetAttribute(RELEASE_THRESHOLD)"))
    return;
  CUdeviceptr warm[16] = {};
  for (CUdeviceptr& p : warm) cu_ok(d.cuMemAllocAsync(&p, block, b.rs), "warm-up cuMemAllocAsync");
  for (CUdeviceptr p : warm)
    if (p != 0) cu_ok(d.cuMemFreeAsync(p, b.rs), "warm-up cuMemFreeAsync");
  cu_ok(d.cuStreamSynchronize(b.rs), "warm-up cuStreamSynchronize");
  const Percentiles async_s = measure_ns(
      "alloc_async_pair_1MiB", mid,
      [&] {
        CUdeviceptr p = 0;
        if (cu_ok(d.cuMemAllocAsync(&p, block, b.rs), "cuMemAllocAsync")) cu_ok(d.cuMemFreeAsync(p, b.rs), "cuMemFreeAsync");
      },
      64, [&] { cu_ok(d.cuStreamSynchronize(b.rs), "cuStreamSynchronize (async pairs)"); });

  const Percentiles alloc_s = measure_ns("alloc_cuMemAlloc_cuMemFree_1MiB", slow,
                                         [&] {
                                           CUdeviceptr p = 0;
                                           if (cu_ok(d.cuMemAlloc(&p, block), "cuMemAlloc"))
                                             cu_ok(d.cuMemFree(p), "cuMemFree");
                                         },
                                         0, nothing);

  const bool p50_met = record_goal("alloc_pool_p50", pool_s.p50 <= 100.0);
  std::printf("case=alloc_pool_p50 edgemem_p50_ns=%.0f edgemem_p99_ns=%.0f goal=p50<=100ns met=%s\n", pool_s.p50,
              pool_s.p99, p50_met ? "yes" : "NO");
  struct Versus {
    const char* name;
    const Percentiles& raw;
    double goal;
  };
  for (const Versus& v : {Versus{"alloc_pool_vs_async_pair", async_s, 7.0},
                          Versus{"alloc_pool_vs_cuMemAlloc_cuMemFree", alloc_s, 800.0}}) {
    const double faster = pool_s.p50 > 0 ? v.raw.p50 / pool_s.p50 : 0.0;
    const bool met = record_goal(v.name, faster >= v.goal);
    std::printf("case=%s raw_p50_ns=%.0f edgemem_p50_ns=%.0f raw_p99_ns=%.0f edgemem_p99_ns=%.0f edgemem/raw=%.4f "
                "faster=%.1fx goal=faster>=%gx met=%s\n",
                v.name, v.raw.p50, pool_s.p50, v.raw.p99, pool_s.p99, v.raw.p50 > 0 ? pool_s.p50 / v.raw.p50 : 0.0,
                faster, v.goal, met ? "yes" : "NO");
  }
  std::fflush(stdout);
  ok(pool.release(), "FixedPool::release");
}

// ---- 2. transfers ------------------------------------------------------------------------------

/// The buffers of one size: edgemem's and raw's twins, made and freed together.
struct SizeBuffers {
  const Driver& d;
  Result<Buffer> a, b, host;     // edgemem: device, device, Storage::host
  CUdeviceptr ra = 0, rb = 0;    // raw: cuMemAlloc
  void* rhost = nullptr;         // raw: cuMemHostAlloc
  SizeBuffers(const Driver& drv, const Context& ctx, std::size_t n)
      : d(drv),
        a(Buffer::create(ctx, n, Storage::device)),
        b(Buffer::create(ctx, n, Storage::device)),
        host(Buffer::create(ctx, n, Storage::host)) {
    cu_ok(d.cuMemAlloc(&ra, n), "cuMemAlloc (raw buffer a)");
    cu_ok(d.cuMemAlloc(&rb, n), "cuMemAlloc (raw buffer b)");
    cu_ok(d.cuMemHostAlloc(&rhost, n, kPinnedFlags), "cuMemHostAlloc (raw host buffer)");
  }
  SizeBuffers(const SizeBuffers&) = delete;
  SizeBuffers& operator=(const SizeBuffers&) = delete;
  ~SizeBuffers() {
    if (ra != 0) cu_ok(d.cuMemFree(ra), "cuMemFree (raw buffer a)");
    if (rb != 0) cu_ok(d.cuMemFree(rb), "cuMemFree (raw buffer b)");
    if (rhost != nullptr) cu_ok(d.cuMemFreeHost(rhost), "cuMemFreeHost (raw host buffer)");
  }
  bool usable() const {
    return ok(a, "Buffer::create (device a)") && ok(b, "Buffer::create (device b)") &&
           ok(host, "Buffer::create (Storage::host)") && ra != 0 && rb != 0 && rhost != nullptr;
  }
};

void transfer_cases(Bench& b, std::size_t n, const char* label, int reps) {
  const Driver& d = b.d;
  SizeBuffers s(d, b.ctx, n);
  if (!s.usable()) return;
  Buffer& ea = *s.a;
  Buffer& eb = *s.b;
  Buffer& eh = *s.host;
  Queue& q = b.q;
  const CUstream rs = b.rs;
  const std::uint32_t word = 0xA5A5A5A5u;
  char name[64];
  auto named = [&](const char* what) {
    std::snprintf(name, sizeof name, "%s_%s", what, label);
    return name;
  };
  auto sync = [&](const char* what) { cu_ok(d.cuStreamSynchronize(rs), what); };

  // Both sides start from written buffers (first touches may cost on some drivers).
  cu_ok(d.cuMemcpyHtoD(s.ra, b.pageable, n), "warm-up cuMemcpyHtoD");
  cu_ok(d.cuMemcpyHtoD(s.rb, b.pageable, n), "warm-up cuMemcpyHtoD");
  ok(q.write(ea, 0, b.pageable, n), "warm-up Queue::write");
  ok(q.write(eb, 0, b.pageable, n), "warm-up Queue::write");

  run_case(named("write_pageable"), reps, [&] { cu_ok(d.cuMemcpyHtoD(s.ra, b.pageable, n), "cuMemcpyHtoD"); },
           [&] { ok(q.write(ea, 0, b.pageable, n), "Queue::write (pageable)"); });

  run_case(named("write_pinned"), reps,
           [&] {
             if (cu_ok(d.cuMemcpyHtoDAsync(s.ra, b.pinned, n, rs), "cuMemcpyHtoDAsync (pinned)"))
               sync("cuStreamSynchronize (write pinned)");
           },
           [&] { ok(q.write(ea, 0, b.pinned, n), "Queue::write (pinned)"); });

  run_case(named("read_pageable"), reps, [&] { cu_ok(d.cuMemcpyDtoH(b.pageable, s.ra, n), "cuMemcpyDtoH"); },
           [&] { ok(q.read(ea, 0, b.pageable, n), "Queue::read (pageable)"); });

  run_case(named("copy"), reps,
           [&] {
             if (cu_ok(d.cuMemcpyDtoDAsync(s.rb, s.ra, n, rs), "cuMemcpyDtoDAsync")) sync("cuStreamSynchronize (copy)");
           },
           [&] { ok(q.copy(ea, eb, 0, 0, n), "Queue::copy"); });

  run_case(named("fill"), reps,
           [&] {
             if (cu_ok(d.cuMemsetD32Async(s.ra, word, n / 4, rs), "cuMemsetD32Async")) sync("cuStreamSynchronize (fill)");
           },
           [&] { ok(q.fill(ea, 0, n, &word, sizeof word), "Queue::fill (4-byte pattern)"); });

  run_case(named("write_async_event"), reps,
           [&] {
             if (cu_ok(d.cuMemcpyHtoDAsync(s.ra, b.pinned, n, rs), "cuMemcpyHtoDAsync (event)") &&
                 cu_ok(d.cuEventRecord(b.ev, rs), "cuEventRecord"))
               cu_ok(d.cuEventSynchronize(b.ev), "cuEventSynchronize");
           },
           [&] {
             auto e = q.write_async(ea, 0, b.pinned, n);
             if (ok(e, "Queue::write_async")) ok(e->wait(), "Event::wait");
           });  // the Event is released as `e` goes, inside the timing

  auto* raw_host = static_cast<volatile unsigned char*>(s.rhost);
  run_case(named("map_write_discard"), reps,
           [&] {
             sync("cuStreamSynchronize (map stand-in)");
             raw_host[0] = 1;
           },
           [&] {
             auto m = q.map<unsigned char>(eh, Access::write_discard);
             if (!ok(m, "Queue::map (Storage::host, write_discard)")) return;
             static_cast<volatile unsigned char*>(m->data())[0] = 1;
             ok(m->unmap(), "Mapping::unmap");
           });
}

}  // namespace

int main(int argc, char** argv) {
  example::setup_user_allocator();  // allocator=user builds: callbacks before any edgemem call
  g_program = "cuda_overhead";
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  if (argc > 2 || (argc == 2 && !quick)) {
    std::fprintf(stderr, "usage: cuda_overhead [--quick]\n");
    return 2;
  }

  // Without the NVIDIA driver or a device, Context::create says which (Errc::unsupported naming libcuda.so.1).
  auto ctx = Context::create();
  if (!ctx) {
    std::fprintf(stderr, "cuda_overhead: Context::create: %s (%s); this benchmark needs an NVIDIA GPU and its driver\n",
                 to_string(ctx.error().code), ctx.error().message);
    return 1;
  }
  auto q = Queue::create(*ctx);
  if (!ok(q, "Queue::create")) return 1;
  Driver drv;
  if (const char* missing = load_driver(drv)) {
    std::fprintf(stderr, "cuda_overhead: %s\n", missing);
    return 1;
  }
  g_driver = &drv;
  if (!cu_ok(drv.cuCtxSetCurrent(ctx->native().context), "cuCtxSetCurrent (edgemem's primary context)")) return 1;
  int driver_version = 0;
  if (!cu_ok(drv.cuDriverGetVersion(&driver_version), "cuDriverGetVersion")) return 1;

  constexpr std::size_t kMaxBytes = 64 * kMiB;
  std::vector<unsigned char> pageable(kMaxBytes);
  for (std::size_t i = 0; i < kMaxBytes; ++i) pageable[i] = static_cast<unsigned char>(i * 13 + 1);
  void* pinned = nullptr;
  CUstream rs = nullptr;
  CUevent ev = nullptr;
  if (!cu_ok(drv.cuMemHostAlloc(&pinned, kMaxBytes, 0), "cuMemHostAlloc (pinned source)")) return 1;
  std::memcpy(pinned, pageable.data(), kMaxBytes);
  if (cu_ok(drv.cuStreamCreate(&rs, CU_STREAM_NON_BLOCKING), "cuStreamCreate (raw stream)") &&
      cu_ok(drv.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING), "cuEventCreate (raw event)")) {
    std::printf("backend=%s allocator=%s device=\"%s\" version=\"%s\" driver_version=%d\n", EDGEMEM_BACKEND_NAME,
                EDGEMEM_ALLOCATOR_NAME, ctx->info().name, ctx->info().version, driver_version);
    std::printf("raw_stream=own (cuStreamCreate CU_STREAM_NON_BLOCKING on edgemem's primary context; edgemem's "
                "queue has its own stream, made the same way)\n");
    std::printf("clock_overhead_ns=%.0f (two back-to-back clock reads: in every single-operation figure) "
                "clock_floor_us=%.3f (median time of an empty repetition)\n",
                clock_overhead_ns(10000), clock_floor_us(10000));
    std::printf("mode=%s\n", quick ? "quick" : "full");
    std::fflush(stdout);

    Bench b{drv, *ctx, *q, rs, ev, pageable.data(), static_cast<unsigned char*>(pinned), quick};
    allocation_cases(b);
    struct Size {
      std::size_t bytes;
      const char* label;
      int reps, quick_reps;
    };
    for (const Size& s : {Size{4096, "4KiB", 5000, 200}, Size{kMiB, "1MiB", 1000, 50}, Size{16 * kMiB, "16MiB", 101, 9},
                          Size{64 * kMiB, "64MiB", 41, 5}})
      if (!g_failed) transfer_cases(b, s.bytes, s.label, quick ? s.quick_reps : s.reps);
    print_summary();
  }

  if (ev != nullptr) cu_ok(drv.cuEventDestroy(ev), "cuEventDestroy");
  if (rs != nullptr) cu_ok(drv.cuStreamDestroy(rs), "cuStreamDestroy");
  cu_ok(drv.cuMemFreeHost(pinned), "cuMemFreeHost (pinned source)");
  if (g_failed) std::fprintf(stderr, "cuda_overhead: a call failed (above); the figures are not to be used\n");
  return g_failed ? 1 : 0;
}
