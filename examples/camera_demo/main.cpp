// camera_demo: an edge-vision pipeline on edgemem. A synthetic camera (camera.hpp) writes NV12 frames
// into a FrameRing on a producer queue (map write_discard); the consumer queue runs NV12 -> RGB
// (BT.601 limited range), a Sobel edge overlay and a 2x downscale (stages.hpp: OpenCL kernels on the
// OpenCL backend, C++ on the host backend) into blocks of a FixedPool, read back from there. The last
// input frame (as RGB) and the last output frame are written as PNG files. It prints the device,
// frames/s, per-frame latency p50/p99, bytes moved, the ring and pool statistics and the number of
// allocations its steady-state loop made (0).
//
// Usage: camera_demo [--frames N] [--width W] [--height H] [--device I] [--out DIR] [--no-images]
// (--help says more). The PNGs go to DIR (default: the current directory; scripts/edgemem.sh demo
// passes build/). A bad option prints a message and exits with 2; a failure at run time exits with 1.
// On a GPU the producer's capture overlaps the consumer queue's kernels; on PoCL both run on the same
// CPU cores, so there the producer's map waits for them and they share the cores.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <edgemem/edgemem.hpp>

#include "../user_allocator_setup.hpp"
#include "camera.hpp"
#include "png_out.hpp"
#include "stages.hpp"

#if CAMERA_DEMO_COUNT_MALLOC
#include "malloc_counter.hpp"
#endif

using namespace edgemem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kRingFrames = 3;  // one with the consumer, one being captured, one spare
constexpr std::size_t kOutBlocks = 3;
constexpr std::size_t kWarmup = 3;      // frames before the counted steady state (first maps of each block)
constexpr std::size_t kMaxSide = 16384;

const char* const kUsage =
    "usage: camera_demo [--frames N] [--width W] [--height H] [--device I] [--out DIR] [--no-images]\n"
    "  --frames N   frames to process (default 120)\n"
    "  --width W    frame width in pixels, even, 16..16384 (default 1920)\n"
    "  --height H   frame height in pixels, even, 16..16384 (default 1080)\n"
    "  --device I   device index (the I-th device of the first platform that has one; default: the\n"
    "               default device, or EDGEMEM_DEVICE=<platform>:<device>)\n"
    "  --out DIR    existing directory for camera_demo_input.png and camera_demo_output.png (default .)\n"
    "  --no-images  run the stages on buffers even where the device has images\n";

struct Options {
  std::size_t frames = 120;
  std::size_t width = 1920;
  std::size_t height = 1080;
  int device = -1;
  std::string out = ".";
  bool images = true;
};

bool parse_size(const char* s, std::size_t& v) {
  if (s == nullptr || *s < '0' || *s > '9') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0') return false;
  v = static_cast<std::size_t>(n);
  return true;
}

// Returns 0 when the options are good, else prints why and returns 2.
int parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    std::size_t n = 0;
    auto bad = [&](const char* why) {
      std::fprintf(stderr, "camera_demo: %s %s: %s\n%s", a, v != nullptr ? v : "", why, kUsage);
      return 2;
    };
    if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (std::strcmp(a, "--no-images") == 0) {
      o.images = false;
      continue;
    } else if (std::strcmp(a, "--out") == 0) {
      struct stat st {};
      if (v == nullptr || stat(v, &st) != 0 || !S_ISDIR(st.st_mode)) return bad("not an existing directory");
      o.out = v;
    } else if (std::strcmp(a, "--frames") == 0) {
      if (!parse_size(v, n) || n == 0 || n > 1000000) return bad("expected a number of frames, 1..1000000");
      o.frames = n;
    } else if (std::strcmp(a, "--width") == 0 || std::strcmp(a, "--height") == 0) {
      if (!parse_size(v, n) || n < 16 || n > kMaxSide || n % 2 != 0)
        return bad("expected an even number of pixels, 16..16384");
      (a[2] == 'w' ? o.width : o.height) = n;
    } else if (std::strcmp(a, "--device") == 0) {
      if (!parse_size(v, n) || n > 1000) return bad("expected a device index (0, 1, ...)");
      o.device = static_cast<int>(n);
    } else {
      std::fprintf(stderr, "camera_demo: unknown option %s\n%s", a, kUsage);
      return 2;
    }
    ++i;  // the option's value
  }
  return 0;
}

int report(const char* what, const Error& e) {
  std::fprintf(stderr, "camera_demo: %s failed: %s (%s, native %d)\n", what, to_string(e.code), e.message,
               static_cast<int>(e.native));
  return 1;
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// The producer: captures frame `t` into the planes (a PlaneRef's buffer, offset and pitch) through a
// write_discard map on `q`. The unmaps are async (on a discrete GPU they copy to the device while the
// next frame is drawn): the consumer's kernels wait for them through Queue::begin_native.
Result<void> capture(Queue& q, camera_demo::Camera& cam, std::size_t t, Buffer& y, std::size_t y_off, Buffer& uv,
                     std::size_t uv_off, const PlanarLayout& layout) {
  const PlaneLayout& yl = layout.planes[0];
  const PlaneLayout& uvl = layout.planes[1];
  EDGEMEM_TRY_ASSIGN(auto ym, q.map<std::uint8_t>(y, Access::write_discard, y_off, yl.bytes()));
  EDGEMEM_TRY_ASSIGN(auto uvm, q.map<std::uint8_t>(uv, Access::write_discard, uv_off, uvl.bytes()));
  cam.capture(t, ym.data(), yl.row_pitch, uvm.data(), uvl.row_pitch);
  EDGEMEM_TRY_ASSIGN(Event y_done, ym.unmap_async());
  EDGEMEM_TRY_ASSIGN(Event uv_done, uvm.unmap_async());
  return {};  // the events go; the unmaps stay recorded on the frame's memory
}

const char* path_name(PlanePath p) { return p == PlanePath::image_view ? "image view" : "buffer only"; }

}  // namespace

int main(int argc, char** argv) {
  example::setup_user_allocator();  // allocator=user builds: callbacks before any edgemem call
  Options opt;
  if (const int rc = parse(argc, argv, opt); rc != 0) return rc;
  const std::size_t W = opt.width, H = opt.height, OW = W / 2, OH = H / 2;

  DeviceSelector sel;
  if (opt.device >= 0) {
    sel.device_index = opt.device;
    sel.ignore_environment = true;  // --device wins over EDGEMEM_DEVICE
  }
  auto ctx = Context::create(sel);
  if (!ctx && opt.device >= 0 && ctx.error().code == Errc::invalid_argument) {
    std::fprintf(stderr, "camera_demo: --device %d: no such device (%s)\n%s", opt.device, ctx.error().message, kUsage);
    return 2;
  }
  if (!ctx) return report("Context::create", ctx.error());
  auto producer = Queue::create(*ctx);  // the camera's queue
  if (!producer) return report("Queue::create(producer)", producer.error());
  auto consumer = Queue::create(*ctx);  // the processing queue
  if (!consumer) return report("Queue::create(consumer)", consumer.error());
  Queue& qp = *producer;
  Queue& qc = *consumer;

  // Everything the loop uses is made here, once.
  auto layout_r = PlanarLayout::make(*ctx, PlanarFormat::nv12, W, H);
  if (!layout_r) return report("PlanarLayout::make", layout_r.error());
  const PlanarLayout layout = *layout_r;
  FrameRing<kRingFrames> ring;
  if (auto r = ring.init(*ctx, qp, layout.bytes, Overflow::refuse, Storage::shared); !r)
    return report("FrameRing::init", r.error());
  FixedPool<kOutBlocks> out_pool;
  if (auto r = out_pool.init(*ctx, qc, OW * OH * 4, kOutBlocks, Storage::shared); !r)
    return report("FixedPool::init", r.error());
  camera_demo::Stages stages;
  if (auto r = stages.init(*ctx, qc, W, H, opt.images); !r) return report("stages init", r.error());
  camera_demo::Camera cam(W, H);
  std::vector<std::uint8_t> last_out(OW * OH * 4), last_rgb(W * H * 4);
  std::vector<Clock::time_point> captured(opt.frames);
  std::vector<double> latency_ms(opt.frames);

  const DeviceInfo& info = ctx->info();
  std::printf("device: \"%s\" (%s) backend=%s allocator=%s images=%s image_from_buffer=%s image_from_sub_buffer=%s\n",
              info.name, info.version, info.backend, EDGEMEM_ALLOCATOR_NAME, info.caps.images ? "yes" : "no",
              info.caps.image_from_buffer ? "yes" : "no", info.caps.image_from_sub_buffer ? "yes" : "no");
  std::printf("frames: %zu of %zux%zu NV12 (%zu bytes a ring frame), output %zux%zu RGBA; stages: %s\n", opt.frames, W,
              H, ring.frame_bytes(), OW, OH, stages.describe());
  std::fflush(stdout);
  const bool progress = isatty(STDOUT_FILENO) != 0 && std::getenv("CI") == nullptr;

  // Frame 0, the way a user wraps a ring frame: PlanarFrame::over the PooledBuffer, the planes as
  // Buffer views (and Image views where the device can), then take_pooled() to publish it.
  // PlanarFrame::over allocates (through the allocator policy: a node per plane view, and on the host
  // backend two more per image view: 2 to 4 per frame), so the steady-state loop below addresses the
  // same planes by the layout's offsets in the ring frame instead, and allocates nothing.
  captured[0] = Clock::now();
  PlanePath plane_paths[2]{};
  {
    auto block = ring.acquire();
    if (!block) return report("FrameRing::acquire", block.error());
    auto pf = PlanarFrame::over(std::move(*block), layout);
    if (!pf) return report("PlanarFrame::over", pf.error());
    plane_paths[0] = pf->path(0);
    plane_paths[1] = pf->path(1);
    if (auto r = capture(qp, cam, 0, pf->plane(0), 0, pf->plane(1), 0, layout); !r) return report("capture", r.error());
    auto pooled = pf->take_pooled();
    if (!pooled) return report("PlanarFrame::take_pooled", pooled.error());
    if (auto r = ring.publish(std::move(*pooled)); !r) return report("FrameRing::publish", r.error());
  }
  std::printf("planes (PlanarFrame of a ring frame): Y %s, UV %s\n", path_name(plane_paths[0]),
              path_name(plane_paths[1]));

  std::size_t bytes_in = layout.planes[0].bytes() + layout.planes[1].bytes(), bytes_out = 0;
  std::size_t edgemem_allocs_before = 0;
  // Statistics: the steady state (frames after the warm-up) when there is one, else every frame.
  const std::size_t first_counted = opt.frames > kWarmup ? kWarmup : 0;
  // Producer time; the stages' enqueue (on the host backend, their whole work); the consumer's wait for them.
  double capture_ms = 0, run_ms = 0, wait_ms = 0;
  Clock::time_point steady_start = Clock::now();
  for (std::size_t f = 0; f < opt.frames; ++f) {
    if (f == kWarmup) {
      steady_start = Clock::now();
      edgemem_allocs_before = DefaultAllocator::stats().total_allocations;
#if CAMERA_DEMO_COUNT_MALLOC
      edgemem_test::start_counting();
#endif
    }
    auto frame = ring.take();  // consumer: the oldest published frame
    if (!frame) return report("FrameRing::take", frame.error());
    auto out = out_pool.acquire();
    if (!out) return report("FixedPool::acquire", out.error());
    const camera_demo::PlaneRef y{&frame->buffer(), layout.planes[0].offset, layout.planes[0].row_pitch};
    const camera_demo::PlaneRef uv{&frame->buffer(), layout.planes[1].offset, layout.planes[1].row_pitch};
    const Clock::time_point run_start = Clock::now();
    if (auto r = stages.run(y, uv, *out); !r) return report("stages", r.error());
    if (f >= first_counted) run_ms += ms(Clock::now() - run_start);

    if (f + 1 < opt.frames) {  // producer: the next frame, while the consumer queue works
      captured[f + 1] = Clock::now();
      auto next = ring.acquire();
      if (!next) return report("FrameRing::acquire", next.error());
      Buffer& nb = next->buffer();
      if (auto r = capture(qp, cam, f + 1, nb, layout.planes[0].offset, nb, layout.planes[1].offset, layout); !r)
        return report("capture", r.error());
      if (f >= first_counted) capture_ms += ms(Clock::now() - captured[f + 1]);
      bytes_in += layout.planes[0].bytes() + layout.planes[1].bytes();
      if (auto r = ring.publish(std::move(*next)); !r) return report("FrameRing::publish", r.error());
    }

    {  // results out: a read map of the pool block on the consumer queue (after its kernels, in order)
      const Clock::time_point wait_start = Clock::now();
      auto m = qc.map<const std::uint8_t>(out->buffer(), Access::read, 0, OW * OH * 4);
      if (!m) return report("map(read)", m.error());
      if (f >= first_counted) wait_ms += ms(Clock::now() - wait_start);
      std::memcpy(last_out.data(), m->data(), OW * OH * 4);
      bytes_out += OW * OH * 4;
    }
    latency_ms[f] = ms(Clock::now() - captured[f]);
    if (auto r = out->release(); !r) return report("PooledBuffer::release(out)", r.error());
    // The ring frame goes back now: its kernels, recorded by end_native, may still run; the producer's
    // next write_discard map of it waits for them.
    if (auto r = frame->release(); !r) return report("PooledBuffer::release", r.error());
    if (progress && (f % 10 == 9 || f + 1 == opt.frames)) {
      std::printf("\rframe %zu/%zu", f + 1, opt.frames);
      std::fflush(stdout);
    }
  }
  if (auto r = qc.finish(); !r) return report("finish", r.error());
  const Clock::time_point end = Clock::now();
#if CAMERA_DEMO_COUNT_MALLOC
  char heap_calls[32];
  if (opt.frames > kWarmup) std::snprintf(heap_calls, sizeof heap_calls, "%zu", edgemem_test::stop_counting());
  else std::snprintf(heap_calls, sizeof heap_calls, "n/a");  // no steady state to count
#else
  const char* heap_calls = "n/a";  // not counted: OpenCL driver threads or a sanitizer build
#endif
  const std::size_t edgemem_allocs =
      opt.frames > kWarmup ? DefaultAllocator::stats().total_allocations - edgemem_allocs_before : 0;
  if (progress) std::printf("\n");

  // Outputs: the last RGB frame (read from the RGB frame of the stages) and the last output block.
  if (auto r = stages.read_rgb(last_rgb.data()); !r) return report("read RGB frame", r.error());
  const std::string in_png = opt.out + "/camera_demo_input.png", out_png = opt.out + "/camera_demo_output.png";
  if (!camera_demo::write_png(in_png.c_str(), last_rgb.data(), W, H)) return 1;
  if (!camera_demo::write_png(out_png.c_str(), last_out.data(), OW, OH)) return 1;

  const std::size_t first = first_counted;
  const std::size_t counted = opt.frames - first;
  const double seconds = std::chrono::duration<double>(end - (first > 0 ? steady_start : captured[0])).count();
  std::vector<double> sorted(latency_ms.begin() + static_cast<std::ptrdiff_t>(first), latency_ms.end());
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) {  // nearest rank: the smallest value with at least p of the samples at or below it
    const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
  };
  std::printf("throughput: %.1f frames/s over %zu frames (%s); latency capture->output p50 %.2f ms, p99 %.2f ms\n",
              static_cast<double>(counted) / seconds, counted, first > 0 ? "after 3 warm-up frames" : "all frames",
              pct(0.50), pct(0.99));
  std::printf("per frame: camera capture %.2f ms (producer), stages %.2f ms to enqueue (on the host backend: to run) "
              "and %.2f ms waited for (consumer)\n",
              capture_ms / static_cast<double>(counted > 1 ? counted - 1 : 1), run_ms / static_cast<double>(counted),
              wait_ms / static_cast<double>(counted));
  std::printf("bytes moved: %zu into ring frames (NV12 through write_discard maps), %zu out of pool blocks (read "
              "maps), %zu in all\n",
              bytes_in, bytes_out, bytes_in + bytes_out);
  const RingStats rs = ring.stats();
  std::printf("ring: capacity=%zu frame_bytes=%zu in_use=%zu high_water=%zu published=%zu taken=%zu dropped=%zu "
              "refused=%zu pending=%zu\n",
              rs.pool.capacity, rs.pool.block_bytes, rs.pool.in_use, rs.pool.high_water, rs.published, rs.taken,
              rs.dropped, rs.refused, rs.pending);
  const PoolStats ps = out_pool.stats();
  std::printf("output pool: capacity=%zu block_bytes=%zu in_use=%zu high_water=%zu failed_acquires=%zu\n", ps.capacity,
              ps.block_bytes, ps.in_use, ps.high_water, ps.failed_acquires);
  if (opt.frames > kWarmup)
    std::printf("steady state (%zu frames): heap_allocations=%s edgemem_allocations=%zu\n", counted, heap_calls,
                edgemem_allocs);
  else
    std::printf("steady state: not measured (more than %zu frames needed)\n", kWarmup);
  std::printf("wrote %s (last input frame as RGB, %zux%zu) and %s (last output frame, %zux%zu)\n", in_png.c_str(), W, H,
              out_png.c_str(), OW, OH);
  return 0;
}
