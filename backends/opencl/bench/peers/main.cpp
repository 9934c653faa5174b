// peers: the same workloads through edgemem, the raw OpenCL C API, Khronos opencl.hpp and Boost.Compute,
// interleaved in one process on one context, queue and set of memory objects (issue #18).
//
// Prints one table line per workload:
//   | workload [unit] | raw | opencl.hpp | Boost.Compute | edgemem | edgemem/best | goal | met |
// Cells are p50s: microseconds per call ([us]) or frames per second ([frames/s]). edgemem/best is
// edgemem's p50 time per call (or per frame) over the fastest of raw, opencl.hpp and Boost.Compute:
// below 1 edgemem is faster, above 1 slower (a frames/s row: the best peer's frames/s over edgemem's).
// A pipeline's second line compares edgemem with the naive raw loop the same way. The pool row holds a
// FixedPool block against what the peers, which have no pool, do to get usable memory: create, first
// touch, release (a pool block was allocated and touched at init(); on a driver that defers allocation
// to the first use, as PoCL does, an untouched create allocates nothing: the next row, for information,
// shows that case). The spread table gives min / p50 / p90 per peer; the last line counts goals met
// and names the missed ones. A missed goal is reported, not an error: the exit status is 1 only when a
// call failed.
//
// Usage: peers [--quick] [--reps N] [--frames N] [--only SUBSTRING] [--peers LIST] [--json FILE]
//   --quick   a few repetitions of everything (CI smoke run, no timing meaning)
//   --reps N  repetitions of every workload (default: per workload, 41 to 2001)
//   --frames  frames per pipeline repetition (default 8)
//   --only    run only the workloads whose name contains SUBSTRING (profiling)
//   --peers   run only these columns, comma-separated: raw,clhpp,boost,edgemem,naive (profiling)
//   --json    also write the results to FILE (backends/opencl/bench/peers/plot_peers.py reads it)
// EDGEMEM_DEVICE=<platform>:<device> picks the device, as for every edgemem program.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../../../examples/user_allocator_setup.hpp"
#include "harness.hpp"

using namespace peers;

namespace {

struct Options {
  bool quick = false;
  int reps = 0;  // 0: each workload's default
  int frames = 8;
  const char* only = nullptr;
  const char* peers = nullptr;  // comma-separated column names; null: all
  const char* json = nullptr;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--quick") == 0) o.quick = true;
    else if (std::strcmp(argv[i], "--reps") == 0 && has_value) o.reps = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--frames") == 0 && has_value) o.frames = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--only") == 0 && has_value) o.only = argv[++i];
    else if (std::strcmp(argv[i], "--peers") == 0 && has_value) o.peers = argv[++i];
    else if (std::strcmp(argv[i], "--json") == 0 && has_value) o.json = argv[++i];
    else return false;
  }
  return o.reps >= 0 && o.frames > 0;
}

constexpr Goal kNear{1.05, "<= 1.05"};
constexpr Goal kPool{0.01, ">= 100x faster"};
constexpr Goal kAsFast{1.00, "<= 1.00"};
constexpr Goal kInfo{0, "(none)"};  // a row for information

// The frame pipelines' drain: the queue, then the CPU caches (48 MiB written, more than the L3 of the
// machines measured), so no pipeline finds its frame or the camera frames warm from the peer before it:
// every pipeline repetition starts cold, whoever ran last.
std::vector<unsigned char> g_scratch;
bool finish_and_evict(const Shared& shared) {
  static unsigned char v = 0;
  if (g_scratch.empty()) g_scratch.resize(48u << 20);
  std::memset(g_scratch.data(), ++v, g_scratch.size());
  return finish_queue(shared);
}

// The workloads, in print order; reps and batch are the defaults for a full run.
std::vector<Workload> workloads(int frames) {
  return {
      {"create_1MiB_touch_release", "create a 1 MiB buffer, blocking 4-byte write into it, release",
       [](Peer& p, std::size_t) { return p.create_touch_release(); }, 2001, 1, false, kNear},
      {"pool_acquire_release", "edgemem: FixedPool<> 1 MiB block acquire + return; peers: create + touch + release",
       [](Peer& p, std::size_t) { return p.pool_or_create_touch(); }, 301, 32, false, kPool},
      {"pool_vs_untouched_create_release", "edgemem: the same; peers: create 1 MiB + release, unused",
       [](Peer& p, std::size_t) { return p.pool_or_create_untouched(); }, 1001, 32, false, kInfo},
      {"sub_buffer_create_release", "sub-buffer of base_align bytes at base_align: create + release",
       [](Peer& p, std::size_t) { return p.sub_create_release(); }, 1001, 32, false, kNear},
      {"sub_buffer_native_create_release", "as above, its cl_mem asked for (edgemem: sub() + native())",
       [](Peer& p, std::size_t) { return p.sub_native_create_release(); }, 1001, 32, false, kNear},
      {"write_4B_blocking", "4 bytes, blocking write", [](Peer& p, std::size_t) { return p.write_small(); }, 2001, 1,
       false, kNear},
      {"write_4B_async", "4 bytes, enqueued with an event (released); queue drained untimed",
       [](Peer& p, std::size_t) { return p.write_small_async(); }, 2001, 1, false, kNear},
      {"write_64MiB", "64 MiB blocking write", [](Peer& p, std::size_t) { return p.write_big(); }, 41, 1, false,
       kNear},
      {"read_64MiB", "64 MiB blocking read", [](Peer& p, std::size_t) { return p.read_big(); }, 41, 1, false, kNear},
      {"map_unmap_64MiB_write_discard", "map 64 MiB write_discard, write 1 byte, unmap, wait",
       [](Peer& p, std::size_t) { return p.map_big(false); }, 201, 1, false, kNear},
      {"map_unmap_64MiB_read", "map 64 MiB read, read 1 byte, unmap, wait",
       [](Peer& p, std::size_t) { return p.map_big(true); }, 201, 1, false, kNear},
      {"fill_64MiB", "fill 64 MiB with a 4-byte pattern, wait", [](Peer& p, std::size_t) { return p.fill_big(); }, 41,
       1, false, kNear},
      {"copy_64MiB", "copy 64 MiB buffer to buffer, wait", [](Peer& p, std::size_t) { return p.copy_big(); }, 41, 1,
       false, kNear},
      {"frame_pipeline_map", "1080p RGBA frame: map write_discard + memcpy, rect-copy a 1 MiB strip, read it back",
       [](Peer& p, std::size_t n) { return p.frame(true, n); }, 101, frames, true, kAsFast},
      {"frame_pipeline_write", "1080p RGBA frame: blocking write, rect-copy a 1 MiB strip, read it back",
       [](Peer& p, std::size_t n) { return p.frame(false, n); }, 101, frames, true, kAsFast},
  };
}

}  // namespace

int main(int argc, char** argv) {
  example::setup_user_allocator();  // allocator=user builds: callbacks before any edgemem call
  Options opt;
  if (!parse(argc, argv, opt)) {
    std::fprintf(stderr, "usage: peers [--quick] [--reps N] [--frames N] [--only SUBSTRING] [--peers LIST] [--json FILE]\n");
    return 2;
  }
  if (opt.quick) opt.frames = 2;

  Shared shared;
  shared.host.resize(Shared::big_bytes);
  for (std::size_t i = 0; i < shared.host.size(); ++i) shared.host[i] = static_cast<unsigned char>(i * 13 + 1);
  for (int k = 0; k < 2; ++k) {
    shared.pixels[k].resize(FrameGeometry::bytes);
    for (std::size_t i = 0; i < FrameGeometry::bytes; ++i)
      shared.pixels[k][i] = static_cast<unsigned char>(i * (7 + 2 * k) + 3);
  }
  shared.strip_host.resize(FrameGeometry::strip_bytes);

  // edgemem first: it makes the context, queue and buffers the others wrap.
  auto mine = make_edgemem(shared);
  if (!mine) return 1;
  auto raw_peer = make_raw(shared);
  auto naive_peer = make_raw_naive(shared);
  auto clhpp_peer = make_clhpp(shared);
  auto boost_peer = make_boost(shared);
  if (!boost_peer) return 1;
  Peer* peers[column_count] = {raw_peer.get(), clhpp_peer.get(), boost_peer.get(), mine.get(), naive_peer.get()};
  if (opt.peers != nullptr) {
    const char* keys[column_count] = {"raw", "clhpp", "boost", "edgemem", "naive"};
    const std::string list = std::string(",") + opt.peers + ",";
    for (int c = 0; c < column_count; ++c)
      if (list.find(std::string(",") + keys[c] + ",") == std::string::npos) peers[c] = nullptr;
  }

  const DeviceNames names = device_names(shared);
  const double floor = clock_floor_us();
  std::printf("peers: platform=\"%s\" device=\"%s\" version=\"%s\"\n", names.platform, names.device, names.version);
  std::printf("clock_floor_us=%.3f (median of an empty timed repetition; in every sample, divided by the batch)\n",
              floor);
  std::printf("cells: p50 over interleaved repetitions (peer order shuffled per repetition); [us] per call, [frames/s] per frame\n");
  std::printf("edgemem/best: edgemem's p50 time / the fastest of raw, opencl.hpp, Boost.Compute (< 1: edgemem faster)\n");
  std::printf("frame: %zux%zu RGBA8 (%zu bytes), strip %zu rows x %zu bytes = %zu bytes; %d frames per repetition\n",
              FrameGeometry::width, FrameGeometry::height, FrameGeometry::bytes, FrameGeometry::strip_rows,
              FrameGeometry::strip_pitch, FrameGeometry::strip_bytes, opt.frames);

  bool ok = true;
  std::vector<Workload> list = workloads(opt.frames);
  std::vector<Row> rows;
  rows.reserve(list.size());
  for (Workload& w : list) {
    if (opt.only != nullptr && std::strstr(w.name, opt.only) == nullptr) continue;
    if (opt.quick) w.reps = 3;
    if (opt.reps > 0) w.reps = opt.reps;
    std::printf("%s: %s (%d reps x %d calls)\n", w.name, w.what, w.reps, w.batch);
    std::fflush(stdout);
    rows.emplace_back();
    if (!measure(w, peers, w.pipeline ? finish_and_evict : finish_queue, shared, rows.back())) {
      std::fprintf(stderr, "peers: %s: a call failed\n", w.name);
      ok = false;
    }
  }
  print_table(rows);
  if (opt.json != nullptr && !write_json(opt.json, rows, names, floor)) {
    std::fprintf(stderr, "peers: cannot write %s\n", opt.json);
    ok = false;
  }
  return ok ? 0 : 1;
}
