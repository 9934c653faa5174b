/// @file vulkan_overhead.cpp  Overhead of edgemem's Vulkan backend over the raw Vulkan sequence that does
/// the same work (command buffer, submit, wait), measured in one run on one device. It prints ratios
/// against baselines measured in the same run, never a timed assertion: a missed goal is reported
/// (met=NO), not an error, and the exit status says only whether every call succeeded (1 also when there
/// is no Vulkan loader or device: the message says why).
///
/// Raw work runs on edgemem's own VkDevice and on the edgemem Queue's own VkQueue (NativeQueue::queue),
/// each vkQueueSubmit holding *NativeQueue::submit_lock, with a command pool of its own (the queue's
/// family), one command buffer of its own re-recorded for every command (vkResetCommandPool,
/// vkBeginCommandBuffer ONE_TIME_SUBMIT, the command, a VkMemoryBarrier TRANSFER -> TRANSFER | HOST,
/// vkEndCommandBuffer) and a timeline semaphore of its own (vkQueueSubmit signalling value n + 1 through
/// VkTimelineSemaphoreSubmitInfo, then vkWaitSemaphores). Raw commands run on edgemem's own VkBuffers,
/// through Buffer::native() (NativeMem::buffer at NativeMem::offset): the memory is the same by
/// construction. Raw host traffic to device-local memory goes through one host-visible, host-coherent
/// VkBuffer of 64 MiB made once and mapped for its life (of the memory type the backend's staging takes),
/// as a careful raw user would; where edgemem's Storage::device buffer is host-visible (NativeMem::host:
/// lavapipe, unified-memory GPUs) the raw write / read is a memcpy into / out of that mapping, with
/// vkFlushMappedMemoryRanges / vkInvalidateMappedMemoryRanges where the memory is not coherent, and
/// nothing else (a `raw_path` line says which path each size took). Raw entry points are loaded from
/// libvulkan.so.1 as the backend loads them (vk_bench_harness.hpp).
///
/// 1. Allocation of a 1 MiB block, each operation timed on its own (steady_clock, after warm-up):
///    - alloc_pool_acquire_release_1MiB: FixedPool<64> acquire + return (ThreadSafe);
///    - alloc_vkAllocateMemory_bind_free_1MiB: vkCreateBuffer + vkGetBufferMemoryRequirements +
///      vkAllocateMemory (the device-local type the backend picks for Storage::device, found once) +
///      vkBindBufferMemory + vkDestroyBuffer + vkFreeMemory;
///    - alloc_buffer_create_release_1MiB: edgemem's Buffer::create(Storage::device) + release, for
///      information (no goal).
///    Each prints `case=<name> p50_ns=<x> p99_ns=<y> max_ns=<z>` (the clock overhead included); then two
///    goal lines: `case=alloc_pool_p50 edgemem_p50_ns= edgemem_p99_ns= goal=p50<=100ns met=yes|NO` and
///    `case=alloc_pool_vs_vkAllocateMemory raw_p50_ns= edgemem_p50_ns= raw_p99_ns= edgemem_p99_ns=
///    edgemem/raw= faster=<x>x goal=faster>=100x met=yes|NO`, comparing p50s.
/// 2. Transfers at 4 KiB, 1 MiB, 16 MiB and 64 MiB (fewer repetitions for the large sizes), each an
///    alternating raw / edgemem median after warm-up, goal edgemem/raw <= 1.05, printed as
///    `case=<case>_<size> raw_us=<x> edgemem_us=<y> edgemem/raw=<y/x> goal=edgemem/raw<=1.05 met=yes|NO`,
///    on Storage::device buffers unless said otherwise:
///    - write: Queue::write from a std::vector vs, device-local: memcpy into the staging + vkCmdCopyBuffer
///      staging -> buffer, submitted and waited; host-visible: memcpy into the buffer's mapping;
///    - read:  Queue::read into a std::vector vs, device-local: vkCmdCopyBuffer buffer -> staging,
///      submitted and waited, + memcpy out of the staging; host-visible: memcpy out of the mapping;
///    - copy:  Queue::copy buffer -> buffer vs vkCmdCopyBuffer, submitted and waited;
///    - fill:  Queue::fill with a 4-byte pattern vs vkCmdFillBuffer, submitted and waited;
///    - write_async_event: Queue::write_async + Event::wait vs the raw write above;
///    - map_write_discard: Queue::map of a Storage::host buffer (zero-copy), Access::write_discard, one
///      byte written, unmap() vs vkWaitSemaphores for the raw timeline's last value + the same byte
///      written to the buffer's mapping (+ vkFlushMappedMemoryRanges where it is not coherent).
/// 3. First lines: the device (vkGetPhysicalDeviceProperties: name, vendor and device ids, API and
///    driver versions; the driver's name from edgemem's DeviceInfo), the queue family and queue index
///    raw and edgemem share, the clock overhead (ns) and the clock floor of one repetition (us). The
///    caller records the edgemem commit. Last line: `goals: <n> met, <m> missed[: <names>]`.
///
/// Usage: vulkan_overhead [--quick] [--raw-staged]   (--quick: fewer repetitions, for smoke runs;
/// --raw-staged: raw write / read go through the staging even where edgemem's buffer is host-visible,
/// to exercise that path on lavapipe under the validation layer: not a fair baseline there)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <edgemem/edgemem.hpp>

#include "../../../examples/user_allocator_setup.hpp"
#include "vk_bench_harness.hpp"

using namespace edgemem;
using namespace goal_harness;
using namespace vkbench;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kMaxBytes = 64 * kMiB;

/// What every case shares: the entry points and device, the edgemem context and queue, the raw queue
/// sequence and staging, host memory.
struct Bench {
  const Vk& vk;
  VkDevice device;
  VkPhysicalDeviceMemoryProperties memory;
  VkDeviceSize atom;  // nonCoherentAtomSize
  Context& ctx;
  Queue& q;
  RawQueue& raw;
  HostBuffer& staging;  // kMaxBytes, host-visible and coherent, mapped
  unsigned char* host;  // kMaxBytes of std::vector memory
  bool quick, raw_staged;
};

/// The VkBuffer of a native range.
VkBuffer buffer_of(const NativeMem& m) { return reinterpret_cast<VkBuffer>(m.buffer); }

/// vkFlushMappedMemoryRanges (`to_device`) or vkInvalidateMappedMemoryRanges of the first `bytes` of `m`
/// (rounded out to nonCoherentAtomSize, as the backend's host_sync does) when its memory is not coherent.
bool host_sync(const Bench& b, const NativeMem& m, std::size_t bytes, bool to_device) {
  if (m.root == nullptr || m.root->coherent) return true;
  const VkDeviceSize at = m.root->memory_offset + m.offset;  // in the VkDeviceMemory
  VkMappedMemoryRange range{};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = reinterpret_cast<VkDeviceMemory>(m.root->memory);
  range.offset = at / b.atom * b.atom;
  range.size = (at + bytes + b.atom - 1) / b.atom * b.atom - range.offset;
  return to_device ? vk_ok(b.vk.vkFlushMappedMemoryRanges(b.device, 1, &range), "vkFlushMappedMemoryRanges")
                   : vk_ok(b.vk.vkInvalidateMappedMemoryRanges(b.device, 1, &range), "vkInvalidateMappedMemoryRanges");
}

/// Whether raw host traffic to `m` is a memcpy into its mapping (else: through the staging).
bool mapped_path(const Bench& b, const NativeMem& m) { return m.host != nullptr && !b.raw_staged; }

/// The raw write of `n` bytes of b.host into `m`.
bool raw_write(Bench& b, const NativeMem& m, std::size_t n) {
  if (mapped_path(b, m)) {
    std::memcpy(m.host, b.host, n);
    return host_sync(b, m, n, true);
  }
  std::memcpy(b.staging.host, b.host, n);  // coherent: no flush
  return b.raw.run(
      [&](VkCommandBuffer cb) {
        const VkBufferCopy region{0, m.offset, n};
        b.vk.vkCmdCopyBuffer(cb, b.staging.buffer, buffer_of(m), 1, &region);
      },
      "vkQueueSubmit (raw write)");
}

/// The raw read of `n` bytes of `m` into b.host.
bool raw_read(Bench& b, const NativeMem& m, std::size_t n) {
  if (mapped_path(b, m)) {
    if (!host_sync(b, m, n, false)) return false;
    std::memcpy(b.host, m.host, n);
    return true;
  }
  const bool done = b.raw.run(
      [&](VkCommandBuffer cb) {
        const VkBufferCopy region{m.offset, 0, n};
        b.vk.vkCmdCopyBuffer(cb, buffer_of(m), b.staging.buffer, 1, &region);
      },
      "vkQueueSubmit (raw read)");
  if (done) std::memcpy(b.host, b.staging.host, n);  // coherent: no invalidate
  return done;
}

// ---- 1. allocation -----------------------------------------------------------------------------

/// Section 1: the pool, the raw allocation sequence and Buffer::create, per operation; the two goal lines.
void allocation_cases(Bench& b) {
  const Vk& vk = b.vk;
  const std::size_t block = kMiB;
  const int fast = b.quick ? 20000 : 200000, slow = b.quick ? 200 : 2000;
  auto nothing = [] {};

  static FixedPool<64> pool;
  if (!ok(pool.init(b.ctx, b.q, block), "FixedPool<64>::init (64 x 1 MiB)")) return;
  const Percentiles pool_s = measure_ns("alloc_pool_acquire_release_1MiB", fast,
                                        [&] {
                                          auto blk = pool.acquire();
                                          ok(blk, "FixedPool::acquire");
                                        },  // returned as `blk` goes, inside the timing
                                        0, nothing);

  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = block;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer probe = VK_NULL_HANDLE;  // the memory type, found once as a raw user would
  if (!vk_ok(vk.vkCreateBuffer(b.device, &info, nullptr, &probe), "vkCreateBuffer (probe)")) return;
  VkMemoryRequirements req{};
  vk.vkGetBufferMemoryRequirements(b.device, probe, &req);
  vk.vkDestroyBuffer(b.device, probe, nullptr);
  const int type = pick_type(b.memory, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                 VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                             0);
  if (!check(type >= 0, "a device-local memory type")) return;
  const Percentiles raw_s = measure_ns(
      "alloc_vkAllocateMemory_bind_free_1MiB", slow,
      [&] {
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
        if (!vk_ok(vk.vkCreateBuffer(b.device, &info, nullptr, &buffer), "vkCreateBuffer")) return;
        VkMemoryRequirements r{};
        vk.vkGetBufferMemoryRequirements(b.device, buffer, &r);
        VkMemoryAllocateInfo alloc{};
        alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
        alloc.allocationSize = r.size;
        alloc.memoryTypeIndex = static_cast<std::uint32_t>(type);
        if (vk_ok(vk.vkAllocateMemory(b.device, &alloc, nullptr, &memory), "vkAllocateMemory"))
          vk_ok(vk.vkBindBufferMemory(b.device, buffer, memory, 0), "vkBindBufferMemory");
        vk.vkDestroyBuffer(b.device, buffer, nullptr);
        if (memory != VK_NULL_HANDLE) vk.vkFreeMemory(b.device, memory, nullptr);
      },
      0, nothing);

  measure_ns("alloc_buffer_create_release_1MiB", slow,
             [&] {
               auto buf = Buffer::create(b.ctx, block, Storage::device);
               ok(buf, "Buffer::create (1 MiB, Storage::device)");
             },  // released as `buf` goes, inside the timing
             0, nothing);

  const bool p50_met = record_goal("alloc_pool_p50", pool_s.p50 <= 100.0);
  std::printf("case=alloc_pool_p50 edgemem_p50_ns=%.0f edgemem_p99_ns=%.0f goal=p50<=100ns met=%s\n", pool_s.p50,
              pool_s.p99, p50_met ? "yes" : "NO");
  const double goal = 100.0, faster = pool_s.p50 > 0 ? raw_s.p50 / pool_s.p50 : 0.0;
  const bool met = record_goal("alloc_pool_vs_vkAllocateMemory", faster >= goal);
  std::printf("case=alloc_pool_vs_vkAllocateMemory raw_p50_ns=%.0f edgemem_p50_ns=%.0f raw_p99_ns=%.0f "
              "edgemem_p99_ns=%.0f edgemem/raw=%.4f faster=%.1fx goal=faster>=%gx met=%s\n",
              raw_s.p50, pool_s.p50, raw_s.p99, pool_s.p99, raw_s.p50 > 0 ? pool_s.p50 / raw_s.p50 : 0.0, faster, goal,
              met ? "yes" : "NO");
  std::fflush(stdout);
  ok(pool.release(), "FixedPool::release");
}

// ---- 2. transfers ------------------------------------------------------------------------------

/// The edgemem buffers of one size (two Storage::device, one Storage::host) and their native ranges,
/// which the raw commands use too.
struct SizeBuffers {
  Result<Buffer> a, b, host;
  NativeMem ma{}, mb{}, mh{};
  SizeBuffers(const Context& ctx, std::size_t n)
      : a(Buffer::create(ctx, n, Storage::device)),
        b(Buffer::create(ctx, n, Storage::device)),
        host(Buffer::create(ctx, n, Storage::host)) {}
  /// Whether all three were made and their native() ranges read.
  bool usable() {
    if (!ok(a, "Buffer::create (device a)") || !ok(b, "Buffer::create (device b)") ||
        !ok(host, "Buffer::create (Storage::host)"))
      return false;
    auto na = a->native(), nb = b->native(), nh = host->native();
    if (!ok(na, "Buffer::native (a)") || !ok(nb, "Buffer::native (b)") || !ok(nh, "Buffer::native (host)"))
      return false;
    ma = *na;
    mb = *nb;
    mh = *nh;
    return true;
  }
};

/// Section 2 at `n` bytes (`label`): the six transfer cases, `reps` alternating repetitions each.
void transfer_cases(Bench& b, std::size_t n, const char* label, int reps) {
  SizeBuffers s(b.ctx, n);
  if (!s.usable()) return;
  Buffer& ea = *s.a;
  Buffer& eb = *s.b;
  Buffer& eh = *s.host;
  Queue& q = b.q;
  const Vk& vk = b.vk;
  const std::uint32_t word = 0xA5A5A5A5u;
  char name[64];
  auto named = [&](const char* what) {
    std::snprintf(name, sizeof name, "%s_%s", what, label);
    return name;
  };
  if (mapped_path(b, s.ma))
    std::printf("raw_path size=%s write/read=mapped (edgemem's Storage::device buffer is host-visible, %s: memcpy "
                "into / out of its mapping)\n",
                label, s.ma.root->coherent ? "coherent" : "not coherent: flush / invalidate");
  else
    std::printf("raw_path size=%s write/read=staged (vkCmdCopyBuffer through the raw host-visible, coherent "
                "staging%s)\n", label, s.ma.host != nullptr ? "; --raw-staged: edgemem's buffer is host-visible" : "");

  // Both sides start from written buffers (first touches may cost on some drivers).
  raw_write(b, s.mb, n);
  ok(q.write(ea, 0, b.host, n), "warm-up Queue::write");

  run_case(named("write"), reps, [&] { raw_write(b, s.ma, n); },
           [&] { ok(q.write(ea, 0, b.host, n), "Queue::write"); });

  run_case(named("read"), reps, [&] { raw_read(b, s.ma, n); },
           [&] { ok(q.read(ea, 0, b.host, n), "Queue::read"); });

  run_case(named("copy"), reps,
           [&] {
             b.raw.run(
                 [&](VkCommandBuffer cb) {
                   const VkBufferCopy region{s.ma.offset, s.mb.offset, n};
                   vk.vkCmdCopyBuffer(cb, buffer_of(s.ma), buffer_of(s.mb), 1, &region);
                 },
                 "vkQueueSubmit (raw copy)");
           },
           [&] { ok(q.copy(ea, eb, 0, 0, n), "Queue::copy"); });

  run_case(named("fill"), reps,
           [&] {
             b.raw.run([&](VkCommandBuffer cb) { vk.vkCmdFillBuffer(cb, buffer_of(s.ma), s.ma.offset, n, word); },
                       "vkQueueSubmit (raw fill)");
           },
           [&] { ok(q.fill(ea, 0, n, &word, sizeof word), "Queue::fill (4-byte pattern)"); });

  run_case(named("write_async_event"), reps, [&] { raw_write(b, s.ma, n); },
           [&] {
             auto e = q.write_async(ea, 0, b.host, n);
             if (ok(e, "Queue::write_async")) ok(e->wait(), "Event::wait");
           });  // the Event is released as `e` goes, inside the timing

  if (s.mh.host == nullptr) {  // no Vulkan device lacks host-visible memory; said, not measured
    std::printf("case=%s skipped: the Storage::host buffer is not host-visible\n", named("map_write_discard"));
    return;
  }
  auto* raw_host = static_cast<volatile unsigned char*>(s.mh.host);
  run_case(named("map_write_discard"), reps,
           [&] {
             if (!b.raw.wait_last("vkWaitSemaphores (map stand-in)")) return;
             raw_host[0] = 1;
             host_sync(b, s.mh, 1, true);
           },
           [&] {
             auto m = q.map<unsigned char>(eh, Access::write_discard);
             if (!ok(m, "Queue::map (Storage::host, write_discard)")) return;
             static_cast<volatile unsigned char*>(m->data())[0] = 1;
             ok(m->unmap(), "Mapping::unmap");
           });
}

}  // namespace

/// Opens the device, loads the raw entry points, prints the first lines, runs both sections, prints the summary.
int main(int argc, char** argv) {
  example::setup_user_allocator();  // allocator=user builds: callbacks before any edgemem call
  g_program = "vulkan_overhead";
  bool quick = false, raw_staged = false, bad = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--raw-staged") == 0) raw_staged = true;
    else bad = true;
  }
  if (bad) {
    std::fprintf(stderr, "usage: vulkan_overhead [--quick] [--raw-staged]\n");
    return 2;
  }

  // Without the loader or a Vulkan 1.2 device, Context::create says which (Errc::unsupported).
  auto ctx = Context::create();
  if (!ctx) {
    std::fprintf(stderr, "vulkan_overhead: Context::create: %s (%s); this benchmark needs a Vulkan 1.2 device and "
                 "the Vulkan loader libvulkan.so.1\n", to_string(ctx.error().code), ctx.error().message);
    return 1;
  }
  auto q = Queue::create(*ctx);
  if (!ok(q, "Queue::create")) return 1;
  const NativeContext nc = ctx->native();
  const NativeQueue nq = q->native();
  Vk vk;
  if (const char* missing = load_vulkan(vk, nc.instance, nc.device)) {
    std::fprintf(stderr, "vulkan_overhead: %s\n", missing);
    return 1;
  }
  VkPhysicalDeviceProperties props{};
  vk.vkGetPhysicalDeviceProperties(nc.physical, &props);
  VkPhysicalDeviceMemoryProperties memory{};
  vk.vkGetPhysicalDeviceMemoryProperties(nc.physical, &memory);
  std::uint32_t families = 0;
  vk.vkGetPhysicalDeviceQueueFamilyProperties(nc.physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> family(families);
  vk.vkGetPhysicalDeviceQueueFamilyProperties(nc.physical, &families, family.data());
  const VkQueueFlags flags = nq.family < families ? family[nq.family].queueFlags : 0;

  std::vector<unsigned char> host(kMaxBytes);
  for (std::size_t i = 0; i < kMaxBytes; ++i) host[i] = static_cast<unsigned char>(i * 13 + 1);
  RawQueue raw;
  HostBuffer staging;
  if (raw.init(vk, nq) && staging.make(vk, nc.device, memory, kMaxBytes)) {
    char version[64];
    driver_version(props, version, sizeof version);
    std::printf("backend=%s allocator=%s device=\"%s\" vendor_id=0x%04x device_id=0x%04x api=%u.%u.%u "
                "driver_version=%s (0x%08x) driver=\"%s\"\n", EDGEMEM_BACKEND_NAME, EDGEMEM_ALLOCATOR_NAME,
                props.deviceName, props.vendorID, props.deviceID, VK_API_VERSION_MAJOR(props.apiVersion),
                VK_API_VERSION_MINOR(props.apiVersion), VK_API_VERSION_PATCH(props.apiVersion), version,
                props.driverVersion, ctx->info().driver);
    std::printf("queue_family=%u queue_index=%u family_flags=0x%x (raw submits on edgemem's VkQueue under its "
                "submit_lock, with their own command pool, command buffer and timeline semaphore) "
                "raw_staging_memory_type=%u\n", nq.family, nq.index, static_cast<unsigned>(flags), staging.type);
    std::printf("clock_overhead_ns=%.0f (two back-to-back clock reads: in every single-operation figure) "
                "clock_floor_us=%.3f (median time of an empty repetition)\n",
                clock_overhead_ns(10000), clock_floor_us(10000));
    std::printf("mode=%s%s\n", quick ? "quick" : "full", raw_staged ? " raw_staged" : "");
    std::fflush(stdout);

    Bench b{vk, nc.device, memory, props.limits.nonCoherentAtomSize != 0 ? props.limits.nonCoherentAtomSize : 1,
            *ctx, *q, raw, staging, host.data(), quick, raw_staged};
    allocation_cases(b);
    /// One transfer size and its repetitions (full, --quick).
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

  staging.destroy(vk, nc.device);
  raw.destroy();
  if (g_failed) std::fprintf(stderr, "vulkan_overhead: a call failed (above); the figures are not to be used\n");
  return g_failed ? 1 : 0;
}
