// edgemem-info: the quick measured profile of one device (well under 2 s natively: each measure stops
// at its run count or its time budget, whichever comes first, after at least 3 runs).
// Times are std::chrono::steady_clock; every number is the median (p50) of its runs.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "report.hpp"

namespace info {

using namespace edgemem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kBufferBytes = kMiB;         // create and map measures
constexpr std::size_t kTransferBytes = 16 * kMiB;  // bandwidth measures (less on small devices)
constexpr std::size_t kPoolBlockBytes = 64 * 1024;
constexpr std::size_t kPoolBlocks = 8;
constexpr unsigned kPoolPairsPerRun = 256;
constexpr unsigned kMinRuns = 3;

enum class Kind { latency_us, latency_ns, bandwidth };

/// One measure: its stable key, label, unit, description, run count and time budget.
struct Spec {
  const char* key;
  const char* label;
  Kind kind;
  const char* what;
  unsigned max_runs;
  double budget_s;
};

enum : unsigned { create_release, pool_pair, write_device, read_device, write_shared, read_shared, map_wd, map_rd };
constexpr Spec kSpecs[] = {
    {"buffer_create_release", "buffer create+release", Kind::latency_us,
     "Buffer::create(buffer size, Storage::device) then release(); a driver may defer the allocation to first use",
     50, 0.25},
    {"pool_acquire_release", "pool acquire+release", Kind::latency_ns,
     "FixedPool<8> of 64 KiB blocks: acquire() then release() of one block, no driver call (per pair, timed in "
     "batches of 256)",
     50, 0.15},
    {"write_device", "write, device storage", Kind::bandwidth,
     "Queue::write (blocking) of the transfer size from pageable host memory into a Storage::device buffer", 20, 0.3},
    {"read_device", "read, device storage", Kind::bandwidth,
     "Queue::read (blocking) of the transfer size from a Storage::device buffer into pageable host memory", 20, 0.3},
    {"write_shared_map", "write, shared storage via map", Kind::bandwidth,
     "map(write_discard) + memcpy of the transfer size from pageable host memory + unmap(), Storage::shared buffer",
     20, 0.3},
    {"read_shared_map", "read, shared storage via map", Kind::bandwidth,
     "map(read) + memcpy of the transfer size into pageable host memory + unmap(), Storage::shared buffer", 20, 0.3},
    {"map_write_discard", "map+unmap, write_discard", Kind::latency_us,
     "map(write_discard) then unmap() of a Storage::shared buffer of the buffer size, no byte touched", 50, 0.1},
    {"map_read", "map+unmap, read", Kind::latency_us,
     "map(read) then unmap() of a Storage::shared buffer of the buffer size, no byte touched", 50, 0.1},
};
constexpr unsigned kMeasures = sizeof kSpecs / sizeof kSpecs[0];

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

Measure blank(const Spec& s) {
  Measure m;
  m.key = s.key;
  m.label = s.label;
  m.what = s.what;
  m.unit = s.kind == Kind::bandwidth ? "MiB/s" : s.kind == Kind::latency_ns ? "ns" : "us";
  return m;
}

Measure failed(const Spec& s, const Error& e) {
  Measure m = blank(s);
  m.error = e;
  return m;
}

/// Times `step` (returns Result<double>: the seconds of one run, or an error) up to the spec's run count
/// or until its budget has passed, and keeps the median; `bytes` turns seconds into MiB/s.
template <class Step>
Measure measure(const Spec& s, std::size_t bytes, Step&& step) {
  Measure m = blank(s);
  std::vector<double> times;
  times.reserve(s.max_runs);
  const Clock::time_point start = Clock::now();
  while (times.size() < s.max_runs && (times.size() < kMinRuns || seconds_since(start) < s.budget_s)) {
    Result<double> t = step();
    if (!t) {
      m.error = t.error();
      m.runs = static_cast<unsigned>(times.size());
      return m;
    }
    times.push_back(*t);
  }
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  const double p50 = n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  const auto convert = [&](double sec) {
    if (sec <= 0) sec = 1e-9;  // below the clock's resolution
    if (s.kind == Kind::latency_us) return sec * 1e6;
    if (s.kind == Kind::latency_ns) return sec * 1e9;
    return static_cast<double>(bytes) / static_cast<double>(kMiB) / sec;
  };
  m.ok = true;
  m.runs = static_cast<unsigned>(n);
  m.value = convert(p50);
  m.best = convert(times.front());
  return m;
}

}  // namespace

Profile run_profile(const Context& ctx) {
  Profile p;
  const Clock::time_point start = Clock::now();
  const std::size_t max_alloc = ctx.info().max_alloc_bytes;
  p.buffer_bytes = kBufferBytes;
  p.transfer_bytes = kTransferBytes;
  while (p.transfer_bytes > 64 * 1024 && p.transfer_bytes > max_alloc / 4) p.transfer_bytes /= 2;
  while (p.buffer_bytes > 4096 && p.buffer_bytes > max_alloc / 4) p.buffer_bytes /= 2;
  p.pool_block_bytes = kPoolBlockBytes;
  p.pool_blocks = kPoolBlocks;
  const std::size_t bb = p.buffer_bytes, tb = p.transfer_bytes;

  auto queue = Queue::create(ctx);
  if (!queue) {
    for (const Spec& s : kSpecs) p.measures.push_back(failed(s, queue.error()));
    return p;
  }
  Queue& q = *queue;

  p.measures.push_back(measure(kSpecs[create_release], bb, [&]() -> Result<double> {
    const Clock::time_point t0 = Clock::now();
    EDGEMEM_TRY_ASSIGN(Buffer b, Buffer::create(ctx, bb, Storage::device));
    EDGEMEM_TRY(b.release());
    return seconds_since(t0);
  }));

  {
    FixedPool<kPoolBlocks> pool;
    auto init = pool.init(ctx, q, kPoolBlockBytes, kPoolBlocks);
    if (!init) {
      p.measures.push_back(failed(kSpecs[pool_pair], init.error()));
    } else {
      p.measures.push_back(measure(kSpecs[pool_pair], 0, [&]() -> Result<double> {
        const Clock::time_point t0 = Clock::now();
        for (unsigned i = 0; i < kPoolPairsPerRun; ++i) {
          EDGEMEM_TRY_ASSIGN(PooledBuffer b, pool.acquire());
          EDGEMEM_TRY(b.release());
        }
        return seconds_since(t0) / kPoolPairsPerRun;
      }));
      auto done = pool.release();
      if (!done) p.measures.back() = failed(kSpecs[pool_pair], done.error());
    }
  }

  std::vector<unsigned char> host(tb, 0x5a);  // pageable host memory, touched once here

  // Device storage: Queue::write / Queue::read. The first write (untimed) makes a deferred allocation real.
  {
    auto dev = Buffer::create(ctx, tb, Storage::device);
    Result<void> ready = fail(Errc::released, "");
    if (dev) ready = q.write(*dev, 0, host.data(), tb);
    else ready = fail(dev.error());
    if (!ready) {
      p.measures.push_back(failed(kSpecs[write_device], ready.error()));
      p.measures.push_back(failed(kSpecs[read_device], ready.error()));
    } else {
      p.measures.push_back(measure(kSpecs[write_device], tb, [&]() -> Result<double> {
        const Clock::time_point t0 = Clock::now();
        EDGEMEM_TRY(q.write(*dev, 0, host.data(), tb));
        return seconds_since(t0);
      }));
      p.measures.push_back(measure(kSpecs[read_device], tb, [&]() -> Result<double> {
        const Clock::time_point t0 = Clock::now();
        EDGEMEM_TRY(q.read(*dev, 0, host.data(), tb));
        return seconds_since(t0);
      }));
    }
  }

  // Shared storage through map + memcpy + unmap.
  {
    auto sh = Buffer::create(ctx, tb, Storage::shared);
    Result<void> ready = fail(Errc::released, "");
    if (sh) ready = q.write(*sh, 0, host.data(), tb);
    else ready = fail(sh.error());
    const auto copy = [&](Access access) -> Result<double> {
      const Clock::time_point t0 = Clock::now();
      EDGEMEM_TRY_ASSIGN(Mapping<unsigned char> m, q.map<unsigned char>(*sh, access));
      if (access == Access::read) std::memcpy(host.data(), m.data(), tb);
      else std::memcpy(m.data(), host.data(), tb);
      EDGEMEM_TRY(m.unmap());
      return seconds_since(t0);
    };
    if (!ready) {
      p.measures.push_back(failed(kSpecs[write_shared], ready.error()));
      p.measures.push_back(failed(kSpecs[read_shared], ready.error()));
    } else {
      p.measures.push_back(measure(kSpecs[write_shared], tb, [&] { return copy(Access::write_discard); }));
      p.measures.push_back(measure(kSpecs[read_shared], tb, [&] { return copy(Access::read); }));
    }
  }

  // map + unmap alone: what a zero-copy map costs, or the copy a map makes (discrete GPUs).
  {
    auto sh = Buffer::create(ctx, bb, Storage::shared);
    const auto map_unmap = [&](Access access) -> Result<double> {
      const Clock::time_point t0 = Clock::now();
      EDGEMEM_TRY_ASSIGN(Mapping<unsigned char> m, q.map<unsigned char>(*sh, access));
      EDGEMEM_TRY(m.unmap());
      return seconds_since(t0);
    };
    if (!sh) {
      p.measures.push_back(failed(kSpecs[map_wd], sh.error()));
      p.measures.push_back(failed(kSpecs[map_rd], sh.error()));
    } else {
      p.measures.push_back(measure(kSpecs[map_wd], bb, [&] { return map_unmap(Access::write_discard); }));
      p.measures.push_back(measure(kSpecs[map_rd], bb, [&] { return map_unmap(Access::read); }));
    }
  }
  static_assert(kMeasures == 8, "every measure is pushed once above");
  p.seconds = seconds_since(start);
  return p;
}

}  // namespace info
