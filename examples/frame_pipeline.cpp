// frame_pipeline: a camera-like loop over synthetic frames.
//
// Frames live in a FrameRing over a FixedPool, created once before the loop. Per frame, the producer
// acquires a frame, maps it with write_discard and writes a synthetic RGBA frame into it (as
// horizontal strips at base-aligned offsets), and publishes it; the consumer takes it, copies each
// strip into the mirrored strip of an output frame (a vertical strip flip), crops a region of
// interest out of strip 1 with copy_rect, reads both back (a read mapping and a read), folds them
// into a FNV-1a checksum and returns the frame. tests/demo/check_frame_pipeline.py recomputes the
// checksum independently. The last line prints the pool statistics, the number of malloc/new calls
// the loop made (counted on the host backend without sanitizers; "n/a" elsewhere) and the number of
// allocations edgemem made in it through its allocator policy (every backend).
//
// Usage: frame_pipeline [--frames N] [--width W] [--height H]   (H a multiple of 4)
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <edgemem/edgemem.hpp>

#include "user_allocator_setup.hpp"

#if FRAME_PIPELINE_COUNT_MALLOC
#include "malloc_counter.hpp"
#endif

using namespace edgemem;

namespace {

constexpr std::size_t kStrips = 4;
constexpr std::size_t kRingFrames = 3;
constexpr std::size_t kBytesPerPixel = 4;

struct Options {
  std::size_t frames = 120;
  std::size_t width = 320;
  std::size_t height = 240;
};

struct Checksum {
  std::uint64_t value = 0xcbf29ce484222325ull;  // FNV-1a 64
  void add(const std::uint8_t* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) value = (value ^ p[i]) * 0x100000001b3ull;
  }
};

// The synthetic camera: xorshift32 bytes, seeded per frame.
struct Camera {
  std::uint32_t state;
  explicit Camera(std::size_t frame) : state(static_cast<std::uint32_t>(frame * 2654435761u + 12345u) | 1u) {}
  std::uint8_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return static_cast<std::uint8_t>(state >> 24);
  }
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::size_t v = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--frames") == 0) o.frames = v;
    else if (std::strcmp(argv[i], "--width") == 0) o.width = v;
    else if (std::strcmp(argv[i], "--height") == 0) o.height = v;
    else return false;
  }
  return (argc % 2) == 1 && o.frames > 0 && o.width >= 4 && o.height >= kStrips && o.height % kStrips == 0;
}

int report(const char* what, const Error& e) {
  std::fprintf(stderr, "frame_pipeline: %s failed: %s (%s, native %d)\n", what, to_string(e.code), e.message,
               static_cast<int>(e.native));
  return 1;
}

std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

}  // namespace

int main(int argc, char** argv) {
  example::setup_user_allocator();  // allocator=user builds: callbacks before any edgemem call
  Options opt;
  if (!parse(argc, argv, opt)) {
    std::fprintf(stderr, "usage: frame_pipeline [--frames N] [--width W] [--height H]  (H a multiple of 4)\n");
    return 2;
  }
  auto ctx = Context::create();
  if (!ctx) return report("Context::create", ctx.error());
  auto queue = Queue::create(*ctx);
  if (!queue) return report("Queue::create", queue.error());
  Queue& q = *queue;

  const std::size_t pitch = opt.width * kBytesPerPixel;
  const std::size_t strip_rows = opt.height / kStrips;
  const std::size_t strip_bytes = strip_rows * pitch;
  const std::size_t strip_stride = round_up(strip_bytes, ctx->base_align());  // sub-buffer origins must be aligned
  const std::size_t frame_bytes = kStrips * strip_stride;

  FrameRing<kRingFrames> ring;  // frames reserved once, here; the loop below allocates nothing
  if (auto r = ring.init(*ctx, q, frame_bytes, Overflow::refuse, Storage::shared); !r)
    return report("FrameRing::init", r.error());
  auto out = Buffer::create(*ctx, frame_bytes, Storage::shared);
  if (!out) return report("Buffer::create(out)", out.error());
  // Region of interest: the middle half of strip 1's columns, its top half of rows.
  CopyRect roi_rect;
  roi_rect.region = Extent3{pitch / 2, strip_rows / 2 > 0 ? strip_rows / 2 : 1, 1};
  roi_rect.src.origin = Offset3{strip_stride + pitch / 4, 0, 0};  // strip 1 starts strip_stride bytes in
  roi_rect.src.row_pitch = pitch;
  const std::size_t roi_bytes = roi_rect.region.x * roi_rect.region.y;
  auto roi = Buffer::create(*ctx, roi_bytes);
  if (!roi) return report("Buffer::create(roi)", roi.error());

  std::vector<std::uint8_t> roi_host(roi_bytes);
  Checksum sum;
  std::size_t moved = 0;
  const std::size_t edgemem_allocations_before = DefaultAllocator::stats().total_allocations;
#if FRAME_PIPELINE_COUNT_MALLOC
  edgemem_test::start_counting();
#endif
  for (std::size_t f = 0; f < opt.frames; ++f) {
    {  // producer: camera in, written straight into (zero-copy on unified memory) mapped storage
      auto frame = ring.acquire();
      if (!frame) return report("FrameRing::acquire", frame.error());
      auto m = q.map<std::uint8_t>(*frame, Access::write_discard);
      if (!m) return report("map(write_discard)", m.error());
      Camera cam(f);
      for (std::size_t r = 0; r < opt.height; ++r) {
        std::uint8_t* row = m->data() + (r / strip_rows) * strip_stride + (r % strip_rows) * pitch;
        for (std::size_t x = 0; x < pitch; ++x) row[x] = cam.next();
      }
      moved += opt.height * pitch;
      if (auto r = m->unmap(); !r) return report("unmap", r.error());
      if (auto r = ring.publish(std::move(*frame)); !r) return report("FrameRing::publish", r.error());
    }
    auto frame = ring.take();  // consumer: the oldest published frame; returned to the pool at the end of this scope
    if (!frame) return report("FrameRing::take", frame.error());
    for (std::size_t i = 0; i < kStrips; ++i) {  // process: mirror the strips
      if (auto r = q.copy(*frame, *out, i * strip_stride, (kStrips - 1 - i) * strip_stride, strip_bytes); !r)
        return report("copy", r.error());
      moved += strip_bytes;
    }
    if (auto r = q.copy_rect(*frame, *roi, roi_rect); !r) return report("copy_rect", r.error());
    moved += roi_bytes;

    {  // results out
      auto m = q.map<const std::uint8_t>(*out, Access::read);
      if (!m) return report("map(read)", m.error());
      for (std::size_t i = 0; i < kStrips; ++i) sum.add(m->data() + i * strip_stride, strip_bytes);
      moved += kStrips * strip_bytes;
    }
    if (auto r = q.read(*roi, 0, roi_host.data(), roi_bytes); !r) return report("read", r.error());
    sum.add(roi_host.data(), roi_bytes);
    moved += roi_bytes;
  }
  if (auto r = q.finish(); !r) return report("finish", r.error());
#if FRAME_PIPELINE_COUNT_MALLOC
  char heap_calls[32];
  std::snprintf(heap_calls, sizeof heap_calls, "%zu", edgemem_test::stop_counting());
#else
  const char* heap_calls = "n/a";  // not counted: OpenCL driver or sanitizer build
#endif
  // What edgemem itself allocated in the loop (its allocator policy; every backend): 0.
  const std::size_t edgemem_allocations = DefaultAllocator::stats().total_allocations - edgemem_allocations_before;

  std::printf("frames=%zu width=%zu height=%zu strips=%zu bytes_moved=%zu checksum=0x%016" PRIx64 "\n", opt.frames,
              opt.width, opt.height, kStrips, moved, sum.value);
  std::printf("backend=%s allocator=%s device=\"%s\" base_align=%zu unified_memory=%s\n", ctx->info().backend,
              EDGEMEM_ALLOCATOR_NAME, ctx->info().name, ctx->base_align(), ctx->info().caps.unified_memory ? "yes" : "no");
  const RingStats rs = ring.stats();
  std::printf("pool capacity=%zu block_bytes=%zu in_use=%zu high_water=%zu failed_acquires=%zu published=%zu "
              "taken=%zu dropped=%zu steady_state_heap_allocations=%s steady_state_edgemem_allocations=%zu\n",
              rs.pool.capacity, rs.pool.block_bytes, rs.pool.in_use, rs.pool.high_water, rs.pool.failed_acquires,
              rs.published, rs.taken, rs.dropped, heap_calls, edgemem_allocations);
  return 0;
}
