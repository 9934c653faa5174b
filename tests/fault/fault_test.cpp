// Fault injection (-Dfault_injection=true): runs representative scenarios once to count their fault
// points (fallible backend calls and allocator-policy allocations), then once more per point k with
// the k-th point failing, and checks every time that
//   - the scenario gets an Error back, and it is the injected one (backend points: its Errc and
//     Error::native == fault::native_code; allocation points: Errc::out_of_host_memory);
//   - nothing leaks: allocator-policy allocations and bytes, and (with -Dlive_counters=true) live
//     objects, are back at their baseline once the scenario's objects are gone (ASan/LSan in CI
//     checks the native side);
//   - objects not involved are unchanged: a bystander buffer's bytes, and inside the scenarios the
//     objects the failing call was given (their bytes, pool/heap statistics);
//   - the scenario succeeds again afterwards, and with k past the last point nothing fails.
// Prints one line per scenario (points, by kind, distinct calls failed) and exits non-zero on any failure.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <edgemem/edgemem.hpp>
#include <edgemem/fault.hpp>

#include "contract/backend_contract.hpp"  // the operation table the fault points come from

using namespace edgemem;

namespace {

/// Message of the Error a scenario returns when it read back wrong bytes or saw a changed object.
constexpr const char* kBroken = "scenario check failed: wrong bytes or a changed object";

Failure broken() { return fail(Errc::backend_failure, kBroken); }

std::vector<std::uint8_t> pattern(std::size_t n, unsigned seed) {
  std::vector<std::uint8_t> v(n);
  std::uint32_t x = 0x9E3779B9u ^ seed;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::uint8_t>(x >> 24);
  }
  return v;
}

/// Shared objects made before any fault is armed: the scenarios' context and queue, and a bystander.
struct Env {
  Context ctx;
  Queue q;
  Buffer bystander;
  std::vector<std::uint8_t> bystander_bytes = pattern(4096, 7);
};

/// Reads `buf` (fault points paused) and compares it with `want` at `offset`.
bool same_bytes(Queue& q, const Buffer& buf, std::size_t offset, const std::vector<std::uint8_t>& want) {
  std::vector<std::uint8_t> got(want.size());
  fault::pause();
  const bool ok = static_cast<bool>(q.read(buf, offset, got.data(), got.size())) && got == want;
  fault::resume();
  return ok;
}

/// On failure of `expr`, runs `check` (which must return true: the objects involved are unchanged),
/// then returns the failure; on success continues.
#define STEP(expr, check)                                          \
  do {                                                             \
    auto&& step_result_ = (expr);                                  \
    if (!step_result_) {                                           \
      if (!(check)) return broken();                               \
      return fail(step_result_.error());                           \
    }                                                              \
  } while (false)

// ---- scenarios -------------------------------------------------------------------------------

Result<void> context_queue(Env&) {
  EDGEMEM_TRY_ASSIGN(Context c, Context::create());
  EDGEMEM_TRY_ASSIGN(Queue q, Queue::create(c));
  EDGEMEM_TRY_ASSIGN(Queue q2, Queue::create(c));
  EDGEMEM_TRY(q.finish());
  EDGEMEM_TRY(q2.finish());
  return {};
}

Result<void> buffer_create(Env& e) {
  alignas(4096) static std::uint8_t wrapped[4096];
  const auto src = pattern(1000, 1);
  std::memcpy(wrapped, src.data(), src.size());
  EDGEMEM_TRY_ASSIGN(Buffer a, Buffer::create(e.ctx, 4096));
  EDGEMEM_TRY_ASSIGN(Buffer b, Buffer::from_host(e.ctx, src.data(), src.size(), Storage::shared));
  EDGEMEM_TRY_ASSIGN(Buffer w, Buffer::wrap(e.ctx, wrapped, sizeof wrapped));
  EDGEMEM_TRY_ASSIGN(Buffer l, Buffer::like(b));
  if (!same_bytes(e.q, b, 0, src) || !same_bytes(e.q, w, 0, src) || l.size() != b.size()) return broken();
  return {};
}

/// The scenarios' unit of sub-buffer origins and page sizes: the device's base alignment, at least
/// 128 bytes (the host backend and PoCL: 128; CUDA: 256), so the same scenario runs on every device.
std::size_t unit(const Env& e) { return e.ctx.base_align() > 128 ? e.ctx.base_align() : 128; }

Result<void> sub_buffers(Env& e) {
  const std::size_t a = unit(e);
  const auto src = pattern(32 * a, 2);
  EDGEMEM_TRY_ASSIGN(Buffer root, Buffer::from_host(e.ctx, src.data(), src.size()));
  EDGEMEM_TRY_ASSIGN(Buffer s1, root.sub(a, 8 * a));
  EDGEMEM_TRY_ASSIGN(Buffer s2, s1.sub(2 * a, 2 * a));
  const std::vector<std::uint8_t> s2_bytes(src.begin() + 3 * a, src.begin() + 5 * a);
  if (!same_bytes(e.q, s2, 0, s2_bytes)) return broken();
  const auto data = pattern(2 * a, 3);
  STEP(e.q.write(s2, 0, data.data(), data.size()), same_bytes(e.q, root, 0, src));
  if (!same_bytes(e.q, root, 3 * a, data)) return broken();
  EDGEMEM_TRY_ASSIGN(Buffer s3, root.sub(0, a));  // a sibling of s1
  // A view's native sub-object is made on the first native() (mem_sub) and kept: the second call
  // makes none. A failed first call leaves the view working and asks again next time.
  EDGEMEM_TRY_ASSIGN(const NativeMem first, s3.native());
  EDGEMEM_TRY_ASSIGN(const NativeMem again, s3.native());
  if (first != again) return broken();
  EDGEMEM_TRY(root.release());
  const std::vector<std::uint8_t> head(src.begin(), src.begin() + a);
  if (!same_bytes(e.q, s3, 0, head)) return broken();
  return {};
}

Result<void> mapping(Env& e) {
  auto mirror = pattern(2048, 4);
  EDGEMEM_TRY_ASSIGN(Buffer b, Buffer::from_host(e.ctx, mirror.data(), mirror.size()));
  {
    EDGEMEM_TRY_ASSIGN(Mapping<const std::uint8_t> m, e.q.map<const std::uint8_t>(b, Access::read, 0, 512));
    if (std::memcmp(m.data(), mirror.data(), 512) != 0) return broken();
    EDGEMEM_TRY(m.unmap());
  }
  {
    EDGEMEM_TRY_ASSIGN(Mapping<std::uint32_t> m, e.q.map<std::uint32_t>(b, Access::write, 512, 512));
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<std::uint32_t>(i * 2654435761u);
    std::memcpy(mirror.data() + 512, m.data(), 512);
    EDGEMEM_TRY(m.unmap());
  }
  if (!same_bytes(e.q, b, 0, mirror)) return broken();
  {
    EDGEMEM_TRY_ASSIGN(Mapping<std::uint8_t> m, e.q.map<std::uint8_t>(b, Access::write_discard, 1024, 1024));
    std::memset(m.data(), 0x5A, m.size());
    std::memset(mirror.data() + 1024, 0x5A, 1024);
    EDGEMEM_TRY(m.unmap());
  }
  EDGEMEM_TRY_ASSIGN(Buffer s, b.sub(1024, 1024));
  {
    EDGEMEM_TRY_ASSIGN(Mapping<std::uint8_t> m, e.q.map<std::uint8_t>(s, Access::read));
    if (std::memcmp(m.data(), mirror.data() + 1024, 1024) != 0) return broken();
    EDGEMEM_TRY(m.unmap());  // (a failed unmap in the guard's destructor is dropped: see main())
  }
  if (!same_bytes(e.q, b, 0, mirror)) return broken();
  return {};
}

Result<void> transfers(Env& e) {
  auto ma = pattern(4096, 5);
  std::vector<std::uint8_t> mb(4096, 0);
  EDGEMEM_TRY_ASSIGN(Buffer a, Buffer::from_host(e.ctx, ma.data(), ma.size()));
  EDGEMEM_TRY_ASSIGN(Buffer b, Buffer::from_host(e.ctx, mb.data(), mb.size()));
  auto unchanged = [&] { return same_bytes(e.q, a, 0, ma) && same_bytes(e.q, b, 0, mb); };

  const auto data = pattern(200, 6);
  STEP(e.q.write(a, 100, data.data(), data.size()), unchanged());
  std::memcpy(ma.data() + 100, data.data(), data.size());
  std::vector<std::uint8_t> got(4096);
  STEP(e.q.read(a, 0, got.data(), got.size()), unchanged());
  if (got != ma) return broken();

  const std::uint32_t word = 0xA1B2C3D4u;
  STEP(e.q.fill(a, 256, 512, &word, sizeof word), unchanged());
  for (std::size_t i = 256; i < 768; i += 4) std::memcpy(ma.data() + i, &word, 4);
  STEP(e.q.copy(a, b, 0, 1024, 1024), unchanged());
  std::memcpy(mb.data() + 1024, ma.data(), 1024);

  Rect r;  // 32 bytes x 8 rows between pitch-64 buffer rows and packed host rows
  r.buffer.origin = Offset3{16, 2, 0};
  r.buffer.row_pitch = 64;
  r.region = Extent3{32, 8, 1};
  const auto rect_src = pattern(256, 8);
  STEP(e.q.write_rect(b, r, rect_src.data(), rect_src.size()), unchanged());
  for (std::size_t y = 0; y < 8; ++y) std::memcpy(mb.data() + (2 + y) * 64 + 16, rect_src.data() + y * 32, 32);
  std::vector<std::uint8_t> rect_dst(256);
  STEP(e.q.read_rect(b, r, rect_dst.data(), rect_dst.size()), unchanged());
  if (rect_dst != rect_src) return broken();
  CopyRect c;
  c.src.row_pitch = 64;
  c.dst.origin = Offset3{0, 40, 0};
  c.dst.row_pitch = 32;
  c.region = Extent3{32, 8, 1};
  STEP(e.q.copy_rect(b, a, c), unchanged());
  for (std::size_t y = 0; y < 8; ++y) std::memcpy(ma.data() + (40 + y) * 32, mb.data() + y * 64, 32);

  const auto async_data = pattern(512, 9);
  {
    auto ev = e.q.write_async(b, 3072, async_data.data(), async_data.size());
    STEP(ev, unchanged());  // on success the write runs; its wait() can still fail below
    EDGEMEM_TRY(ev->wait());
    std::memcpy(mb.data() + 3072, async_data.data(), async_data.size());
  }
  std::vector<std::uint8_t> async_got(512);
  {
    EDGEMEM_TRY_ASSIGN(Event ev, e.q.read_async(b, 3072, async_got.data(), async_got.size()));
    EDGEMEM_TRY(ev.wait());
    EDGEMEM_TRY_ASSIGN(const bool done, ev.is_complete());
    if (!done || async_got != async_data) return broken();
  }
  STEP(e.q.migrate(b, Migration::to_host), unchanged());
  EDGEMEM_TRY(e.q.finish());
  if (!unchanged()) return broken();
  return {};
}

Result<void> fixed_pool(Env& e) {
  const std::size_t a = unit(e);
  FixedPool<> pool;
  STEP(pool.init(e.ctx, e.q, a + 72, 8), pool.capacity() == 0 && !pool.acquire());  // blocks of 2 units
  EDGEMEM_TRY_ASSIGN(PooledBuffer x, pool.acquire());
  const auto data = pattern(2 * a, 10);
  EDGEMEM_TRY(e.q.write(x, 0, data.data(), data.size()));
  if (!same_bytes(e.q, x, 0, data)) return broken();
  EDGEMEM_TRY_ASSIGN(Buffer part, x.sub(a, a));  // keeps the block out after x goes
  EDGEMEM_TRY(x.release());
  const PoolStats before = pool.stats();
  FixedPool<4, SingleThread> inline_pool;
  STEP(inline_pool.init(e.ctx, e.q, a - 28, 4), inline_pool.capacity() == 0 && pool.stats().in_use == before.in_use);
  EDGEMEM_TRY_ASSIGN(PooledBuffer y, inline_pool.acquire());
  const std::vector<std::uint8_t> tail(data.begin() + a, data.end());
  if (!same_bytes(e.q, part, 0, tail) || y.size() != a) return broken();
  return {};
}

Result<void> heap_checked(Env& e) {
  const std::size_t u = unit(e);
  Heap h;
  STEP(h.init(e.ctx, e.q, u, 16), h.page_count() == 0);
  EDGEMEM_TRY_ASSIGN(Buffer a, h.create_buffer(2 * u + 44));  // 3 pages
  const auto data = pattern(4 * u - 12, 11);                   // 4 pages
  std::size_t free_before = h.free_pages();
  auto b = h.create_buffer_from_host(e.q, data.data(), data.size());
  STEP(b, h.free_pages() == free_before);
  if (!same_bytes(e.q, *b, 0, data)) return broken();
  free_before = h.free_pages();
  auto c = h.create_buffer_like(a);
  STEP(c, h.free_pages() == free_before);
  EDGEMEM_TRY_ASSIGN(Buffer s, c->sub(u, u));
  EDGEMEM_TRY(a.release());
  if (h.free_pages() != 16 - 4 - 3) return broken();
  return {};
}

Result<void> frame_ring(Env& e) {
  FrameRing<3> ring;
  STEP(ring.init(e.ctx, e.q, 1000), ring.frame_bytes() == 0);
  EDGEMEM_TRY_ASSIGN(PooledBuffer f, ring.acquire());
  {
    EDGEMEM_TRY_ASSIGN(Mapping<std::uint8_t> m, e.q.map<std::uint8_t>(f, Access::write_discard));
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<std::uint8_t>(i * 7);
    EDGEMEM_TRY(m.unmap());
  }
  EDGEMEM_TRY(ring.publish(std::move(f)));
  EDGEMEM_TRY_ASSIGN(PooledBuffer t, ring.take());
  std::vector<std::uint8_t> want(t.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = static_cast<std::uint8_t>(i * 7);
  if (!same_bytes(e.q, t, 0, want)) return broken();
  return {};
}

// Two queues: a block dropped with a write pending on the second queue and handed to the first, a
// blocking write on one queue read on the other (its marker is made then), release(queue).
Result<void> two_queues(Env& e) {
  EDGEMEM_TRY_ASSIGN(Queue q2, Queue::create(e.ctx));
  FixedPool<1> pool;
  EDGEMEM_TRY(pool.init(e.ctx, e.q, 1024, 1));
  // Static: a step that fails returns while the async write may still read its source.
  static const auto old_bytes = pattern(1024, 7), new_bytes = pattern(1024, 8);
  {
    EDGEMEM_TRY_ASSIGN(PooledBuffer block, pool.acquire());
    EDGEMEM_TRY_ASSIGN(Event pending, q2.write_async(block, 0, old_bytes.data(), old_bytes.size()));
    EDGEMEM_TRY(block.release(q2));
  }
  EDGEMEM_TRY_ASSIGN(PooledBuffer block, pool.acquire());
  EDGEMEM_TRY(e.q.write(block, 0, new_bytes.data(), new_bytes.size()));
  if (!same_bytes(e.q, block, 0, new_bytes)) return broken();
  EDGEMEM_TRY(q2.write(block, 0, old_bytes.data(), old_bytes.size()));
  if (!same_bytes(e.q, block, 0, old_bytes)) return broken();
  return {};
}

// Images (when the device has them): creation of each kind, every image command, a map, a view of a
// buffer where the device can make one, and a sampler.
Result<void> images(Env& e) {
  if (!e.ctx.info().caps.images) return {};
  ImageDesc d;
  d.format = ImageFormat{ChannelOrder::rgba, ChannelType::unorm_int8};
  d.width = 16;
  d.height = 8;
  const auto src = pattern(16 * 8 * 4, 9);
  EDGEMEM_TRY_ASSIGN(Image a, Image::from_host(e.ctx, d, src.data()));
  EDGEMEM_TRY_ASSIGN(Image b, Image::like(a));
  const ImageRegion all = a.region();
  EDGEMEM_TRY(e.q.copy_image(a, b, ImageOrigin{}, all));
  EDGEMEM_TRY(e.q.fill_image(a, Color::floats(0, 0, 0, 0), ImageRegion{{0, 0, 0}, {4, 4, 1}}));
  EDGEMEM_TRY_ASSIGN(Buffer buf, Buffer::like(b));
  EDGEMEM_TRY(e.q.copy_image_to_buffer(b, all, buf, 0));
  if (!same_bytes(e.q, buf, 0, src)) return broken();
  EDGEMEM_TRY(e.q.copy_buffer_to_image(buf, 0, a, all));
  std::vector<std::uint8_t> back(src.size());
  EDGEMEM_TRY(e.q.read_image(a, all, back.data(), back.size()));
  if (back != src) return broken();
  EDGEMEM_TRY(e.q.write_image(b, all, src.data(), src.size()));
  {
    EDGEMEM_TRY_ASSIGN(ImageMapping m, e.q.map_image(b, Access::read));
    if (std::memcmp(m.row<std::uint8_t>(1), src.data() + 64, 64) != 0) return broken();
    EDGEMEM_TRY(m.unmap());
  }
  d.type = ImageType::image1d_buffer;
  d.height = 1;
  EDGEMEM_TRY_ASSIGN(Image line, Image::view(buf, d));
  EDGEMEM_TRY(e.q.read_image(line, line.region(), back.data(), back.size()));
  if (std::memcmp(back.data(), src.data(), 64) != 0) return broken();
  EDGEMEM_TRY_ASSIGN(Sampler s, Sampler::create(e.ctx, SamplerDesc{true, AddressMode::repeat, FilterMode::linear}));
  return {};
}

#include "fault_svm.inc"  // shared virtual memory: svm()
#include "fault_external.inc"  // external memory, IPC handles, shared ring: external()

struct Scenario {
  const char* name;
  Result<void> (*run)(Env&);
};

const Scenario kScenarios[] = {
    {"context+queue", context_queue}, {"buffer create", buffer_create}, {"sub-buffers", sub_buffers},
    {"map/unmap", mapping},           {"write/read/fill/copy/rect", transfers}, {"fixed pool", fixed_pool},
    {"heap", heap_checked},           {"frame ring", frame_ring},      {"two queues", two_queues},
    {"images", images},               {"svm", svm},                    {"external", external},
};

// ---- the harness -----------------------------------------------------------------------------

int g_failures = 0;

#define EXPECT(cond, ...)                                  \
  do {                                                     \
    if (!(cond)) {                                         \
      ++g_failures;                                        \
      std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      std::fprintf(stderr, __VA_ARGS__);                   \
      std::fprintf(stderr, "\n");                          \
    }                                                      \
  } while (false)

struct Baseline {
  AllocatorStats alloc;
  LiveObjects live;
};

Baseline baseline() { return Baseline{DefaultAllocator::stats(), live_objects()}; }

void expect_baseline(const Baseline& b, const char* scenario, std::uint64_t k) {
  const Baseline now = baseline();
  EXPECT(now.alloc.allocations == b.alloc.allocations && now.alloc.in_use_bytes == b.alloc.in_use_bytes,
         "%s k=%llu: allocator-policy allocations %zu (%zu bytes), baseline %zu (%zu bytes)", scenario,
         static_cast<unsigned long long>(k), now.alloc.allocations, now.alloc.in_use_bytes, b.alloc.allocations,
         b.alloc.in_use_bytes);
  EXPECT(now.live.total() == b.live.total(), "%s k=%llu: %lld live objects, baseline %lld", scenario,
         static_cast<unsigned long long>(k), static_cast<long long>(now.live.total()),
         static_cast<long long>(b.live.total()));
}

const char* describe(const Result<void>& r) { return r ? "ok" : r.error().message; }

}  // namespace

int main() {
  Env env;
  {
    auto c = Context::create();
    if (!c) {
      std::fprintf(stderr, "Context::create: %s: %s\n", to_string(c.error().code), c.error().message);
      return 1;
    }
    env.ctx = std::move(*c);
    auto q = Queue::create(env.ctx);
    auto b = Buffer::from_host(env.ctx, env.bystander_bytes.data(), env.bystander_bytes.size());
    if (!q || !b) return 1;
    env.q = std::move(*q);
    env.bystander = std::move(*b);
  }
  std::printf("fault injection on the %s backend (%s allocator)\n", EDGEMEM_BACKEND_NAME, EDGEMEM_ALLOCATOR_NAME);
  std::printf("%-28s %7s %8s %11s %7s  %s\n", "scenario", "points", "backend", "allocation", "clean", "calls failed");
  std::uint64_t total_points = 0, total_clean = 0;
  for (const Scenario& s : kScenarios) {
    const Baseline base = baseline();
    fault::arm(0);
    const Result<void> counted = s.run(env);
    fault::disarm();
    const std::uint64_t n = fault::count();
    const std::uint64_t nb = fault::count(fault::Point::backend), na = fault::count(fault::Point::allocation);
    EXPECT(counted, "%s: fails without a fault: %s", s.name, describe(counted));
    expect_baseline(base, s.name, 0);

    std::uint64_t clean = 0;
    std::vector<std::string> calls;
    for (std::uint64_t k = 1; k <= n; ++k) {
      const int failures_before = g_failures;
      fault::arm(k);
      const UnreportedErrors unreported_before = env.ctx.unreported_errors();
      Result<void> r = s.run(env);
      fault::disarm();
      // A fault the library recovers from is counted, not returned (a marker for ordering the driver
      // refuses becomes a host wait: docs/ordering.md); the run's bytes were checked all the same.
      const UnreportedErrors unreported_after = env.ctx.unreported_errors();
      if (r && unreported_after.count != unreported_before.count) r = fail(unreported_after.last);
      const fault::Injected inj = fault::last();
      EXPECT(fault::fired() && inj.index == k, "%s k=%llu: point not reached (%llu points this run)", s.name,
             static_cast<unsigned long long>(k), static_cast<unsigned long long>(fault::count()));
      EXPECT(!r, "%s k=%llu: %s failed but the scenario succeeded", s.name, static_cast<unsigned long long>(k),
             inj.call);
      if (!r) {
        EXPECT(r.error().message != kBroken, "%s k=%llu (%s failed): %s", s.name, static_cast<unsigned long long>(k),
               inj.call, kBroken);
        if (inj.point == fault::Point::backend) {
          const contract::OperationInfo* op = nullptr;
          for (const auto& o : contract::operations) op = std::strcmp(o.name, inj.call) == 0 ? &o : op;
          EXPECT(op != nullptr && op->fault != contract::FaultKind::never && op->injected == inj.code,
                 "%s k=%llu: %s is not a fault point of the contract's table with that Errc", s.name,
                 static_cast<unsigned long long>(k), inj.call);
          EXPECT(r.error().code == inj.code && r.error().native == fault::native_code,
                 "%s k=%llu: %s injected %s, the scenario got %s (native %d): %s", s.name,
                 static_cast<unsigned long long>(k), inj.call, to_string(inj.code), to_string(r.error().code),
                 static_cast<int>(r.error().native), r.error().message);
        } else {
          EXPECT(r.error().code == Errc::out_of_host_memory, "%s k=%llu: a failed allocation came back as %s: %s",
                 s.name, static_cast<unsigned long long>(k), to_string(r.error().code), r.error().message);
        }
      }
      expect_baseline(base, s.name, k);
      EXPECT(same_bytes(env.q, env.bystander, 0, env.bystander_bytes), "%s k=%llu: the bystander buffer changed",
             s.name, static_cast<unsigned long long>(k));
      const Result<void> again = s.run(env);  // nothing armed: must work again
      EXPECT(again, "%s k=%llu: fails after the fault: %s", s.name, static_cast<unsigned long long>(k),
             describe(again));
      expect_baseline(base, s.name, k);
      if (g_failures == failures_before) ++clean;
      const std::string call = std::string(inj.point == fault::Point::backend ? "" : "alloc:") + inj.call;
      bool seen = false;
      for (const auto& c : calls) seen = seen || c == call;
      if (!seen) calls.push_back(call);
    }
    fault::arm(n + 1);  // one past the last point: nothing fails, the count is stable
    const Result<void> past = s.run(env);
    fault::disarm();
    EXPECT(past && !fault::fired() && fault::count() == n, "%s: %llu points on a second count (was %llu): %s",
           s.name, static_cast<unsigned long long>(fault::count()), static_cast<unsigned long long>(n),
           describe(past));

    std::string list;
    for (const auto& c : calls) list += (list.empty() ? "" : " ") + c;
    std::printf("%-28s %7llu %8llu %11llu %3llu/%-3llu  %s\n", s.name, static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(nb), static_cast<unsigned long long>(na),
                static_cast<unsigned long long>(clean), static_cast<unsigned long long>(n), list.c_str());
    total_points += n;
    total_clean += clean;
  }
  {  // The guard's destructor cannot return an unmap error: the mapping still ends, nothing leaks, and
     // the error is counted in Context::unreported_errors().
    const int failures_before = g_failures;
    const Baseline base = baseline();
    const UnreportedErrors unreported_before = env.ctx.unreported_errors();
    {
      auto b = Buffer::create(env.ctx, 256);
      EXPECT(b, "guard destructor: Buffer::create failed");
      if (b) {
        auto m = env.q.map<std::uint8_t>(*b, Access::write);
        EXPECT(m, "guard destructor: map failed");
        fault::arm(1);
      }  // the guard's unmap is point 1
      fault::disarm();
      EXPECT(fault::fired() && std::strcmp(fault::last().call, "unmap") == 0,
             "guard destructor: the unmap point was not reached");
      if (b) EXPECT(b->release(), "guard destructor: the buffer is still mapped");
      const UnreportedErrors unreported = env.ctx.unreported_errors();
      EXPECT(unreported.count == unreported_before.count + 1 && unreported.last.code == Errc::backend_failure,
             "guard destructor: the dropped unmap error was not counted in Context::unreported_errors()");
    }
    expect_baseline(base, "guard destructor", 1);
    const int clean = g_failures == failures_before ? 1 : 0;
    std::printf("%-28s %7d %8d %11d %3d/%-3d  %s\n", "guard destructor unmap", 1, 1, 0, clean, 1,
                "unmap (error counted in unreported_errors)");
    total_points += 1;
    total_clean += static_cast<std::uint64_t>(clean);
  }
  std::printf("total: %llu fault points, %llu failed cleanly; %d check(s) failed\n",
              static_cast<unsigned long long>(total_points), static_cast<unsigned long long>(total_clean), g_failures);
  return g_failures == 0 ? 0 : 1;
}
