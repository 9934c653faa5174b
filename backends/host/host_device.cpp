// Host backend: the emulated device, queues and events. Commands run at enqueue, in order, so an
// event is complete once its command returns.
#include <cstdlib>
#include <cstring>
#include <new>

#include <edgemem/allocator.hpp>
#include <edgemem/config.hpp>

#include "backend.hpp"

namespace edgemem::backend {

namespace {
const char kHostDevice = 0;

/// What EDGEMEM_HOST_CAPS configures: the capabilities, and whether R and RG image formats are listed.
struct HostConfig {
  Capabilities caps{};
  bool rg_formats = true;
};

constexpr std::size_t host_max_alloc() noexcept {
#if EDGEMEM_ALLOCATOR_STATIC
  return EDGEMEM_STATIC_ARENA_BYTES < EDGEMEM_HOST_MAX_ALLOC_BYTES ? EDGEMEM_STATIC_ARENA_BYTES
                                                                    : EDGEMEM_HOST_MAX_ALLOC_BYTES;
#else
  return EDGEMEM_HOST_MAX_ALLOC_BYTES;
#endif
}

void copy_text(char (&dst)[128], const char* src) noexcept {
  std::strncpy(dst, src, sizeof dst - 1);
  dst[sizeof dst - 1] = '\0';
}

/// The host device's configuration: everything it implements, less what EDGEMEM_HOST_CAPS turns off in
/// builds with -Dhost_caps_env=true (test builds)
/// (a comma-separated list of fill=<0|1|2|...|128>, migration=<0|1>, host_access_flags=<0|1>,
/// unified_memory=<0|1>, images=<0|1>, image_from_buffer=<0|1>, image_from_sub_buffer=<0|1>, rg=<0|1>
/// (R and RG image formats), svm_coarse=<0|1>, svm_fine_buffer=<0|1>, svm_fine_system=<0|1>,
/// sub_buffer_migration=<0|1>),
/// so tests reach the "lacks" path of each capability without a second device.
/// Errc: invalid_argument (a malformed list).
Result<HostConfig> host_config() noexcept {
  HostConfig cfg;
  Capabilities& caps = cfg.caps;
  caps.max_fill_pattern_bytes = 128;
  caps.unified_memory = caps.migration = caps.sub_buffer_migration = caps.host_access_flags = true;
  caps.caller_memory_in_place = true;  // every buffer is host memory (not configurable)
  caps.read_only_caller_memory_in_place = true;
  caps.images = caps.image_from_buffer = caps.image_from_sub_buffer = true;
  caps.svm_coarse = caps.svm_fine_buffer = caps.svm_fine_system = true;
#if EDGEMEM_HOST_CAPS_ENV
  static const char* const kNames[] = {"fill=", "migration=", "host_access_flags=", "unified_memory=",
                                       "images=", "image_from_buffer=", "image_from_sub_buffer=", "rg=",
                                       "svm_coarse=", "svm_fine_buffer=", "svm_fine_system=", "sub_buffer_migration="};
  constexpr unsigned kCount = sizeof kNames / sizeof kNames[0];
  bool* const flags[] = {nullptr, &caps.migration, &caps.host_access_flags, &caps.unified_memory,
                         &caps.images, &caps.image_from_buffer, &caps.image_from_sub_buffer, &cfg.rg_formats,
                         &caps.svm_coarse, &caps.svm_fine_buffer, &caps.svm_fine_system, &caps.sub_buffer_migration};
  for (const char* p = std::getenv("EDGEMEM_HOST_CAPS"); p != nullptr && *p != '\0';) {
    unsigned i = 0;
    while (i < kCount && std::strncmp(p, kNames[i], std::strlen(kNames[i])) != 0) ++i;
    char* end = nullptr;
    const unsigned long v = i < kCount ? std::strtoul(p + std::strlen(kNames[i]), &end, 10) : 0;
    const bool ok = i < kCount && end != p + std::strlen(kNames[i]) && (*end == '\0' || *end == ',') &&
                    (i == 0 ? v <= 128 && (v & (v - 1)) == 0 : v <= 1);
    if (!ok)
      return fail(Errc::invalid_argument,
                  "EDGEMEM_HOST_CAPS: expected name=value items: fill=0..128 (a power of two), "
                  "migration, host_access_flags, unified_memory, images, image_from_buffer, "
                  "image_from_sub_buffer, rg, svm_coarse, svm_fine_buffer, svm_fine_system, sub_buffer_migration (0 or 1)");
    if (i == 0) caps.max_fill_pattern_bytes = v;
    else *flags[i] = v == 1;
    p = *end == ',' ? end + 1 : end;
  }
#endif
  caps.image_from_buffer = caps.image_from_buffer && caps.images;
  caps.image_from_sub_buffer = caps.image_from_sub_buffer && caps.images;
  // Fine system SVM is fine buffer SVM too (every host byte is shared).
  caps.svm_fine_system = caps.svm_fine_system && caps.svm_fine_buffer;
  caps.svm_migration = caps.migration && (caps.svm_coarse || caps.svm_fine_buffer);
  caps.sub_buffer_migration = caps.sub_buffer_migration && caps.migration;
  return cfg;
}

/// The host device's image limits (OpenCL 1.2's minimums raised to what host memory allows).
ImageLimits host_image_limits(const Capabilities& caps) noexcept {
  ImageLimits l;
  if (!caps.images) return l;
  l.max_width_2d = l.max_height_2d = 16384;
  l.max_width_3d = l.max_height_3d = l.max_depth_3d = 2048;
  l.max_array_size = 2048;
  l.max_buffer_pixels = std::size_t{1} << 27;
  if (caps.image_from_buffer) {
    l.pitch_align_pixels = 4;
    l.base_align_pixels = 16;
  }
  return l;
}
}  // namespace

bool host_rg_formats() noexcept {
  auto cfg = host_config();
  return cfg && cfg->rg_formats;
}

Result<void> Host::device_census(DeviceType type, DeviceCensus& out) noexcept {
  out = DeviceCensus{};
  out.platforms = 1;
  out.devices[0] = type == DeviceType::any || type == DeviceType::cpu ? 1u : 0u;
  return {};
}

Result<Host::NativeContext> Host::context_create(const DeviceSelector& sel, DeviceInfo& info) noexcept {
  if (sel.type != DeviceType::any && sel.type != DeviceType::cpu)
    return fail(Errc::unsupported, "the host backend has only a cpu device");
  if (sel.platform_index > 0) return fail(Errc::invalid_argument, "platform index out of range (host has 1)");
  if (sel.device_index > 0) return fail(Errc::invalid_argument, "device index out of range (host has 1)");
  EDGEMEM_TRY_ASSIGN(const HostConfig cfg, host_config());
  info.caps = cfg.caps;
  info.image_limits = host_image_limits(cfg.caps);
  copy_text(info.name, "edgemem host (emulated device)");
  copy_text(info.version, "edgemem host backend " EDGEMEM_VERSION);
  copy_text(info.driver, EDGEMEM_VERSION);
  info.backend = name;
  info.max_alloc_bytes = host_max_alloc();
  info.global_mem_bytes = host_max_alloc();
  info.base_align_bytes = EDGEMEM_HOST_BASE_ALIGN;
  info.version_major = 1;
  info.version_minor = 2;
  // One identity for the host device of every process: its memory is the machine's.
  static constexpr char kUuid[16] = {'e', 'd', 'g', 'e', 'm', 'e', 'm', '-', 'h', 'o', 's', 't', '-', 'v', '1', '\0'};
  std::memcpy(info.uuid, kUuid, sizeof info.uuid);
  info.has_uuid = true;
  return NativeContext{&kHostDevice};
}

Result<Host::NativeContext> Host::context_adopt(const NativeContext& native, AdoptMode, DeviceInfo&) noexcept {
  if (native.device == nullptr) return fail(Errc::invalid_argument, "adopt needs a native context");
  return fail(Errc::unsupported, "the host backend has no native objects made elsewhere to adopt");
}

Result<Host::NativeQueue> Host::queue_adopt(const NativeContext&, NativeQueue q, AdoptMode) noexcept {
  if (q == nullptr) return fail(Errc::invalid_argument, "adopt needs a native queue");
  return fail(Errc::unsupported, "the host backend has no native objects made elsewhere to adopt");
}

Result<void> Host::mem_adopt(const NativeContext&, NativeMem& mem, AdoptMode, AdoptedMem&) noexcept {
  if (mem.data == nullptr) return fail(Errc::invalid_argument, "adopt needs a native memory object");
  return fail(Errc::unsupported, "the host backend has no native objects made elsewhere to adopt");
}

void Host::context_release(NativeContext& ctx, bool) noexcept { ctx.device = nullptr; }

Result<Host::NativeQueue> Host::queue_create(const NativeContext&) noexcept {
  using Counter = std::atomic<std::uint64_t>;
  void* p = DefaultAllocator::allocate(sizeof(Counter), alignof(Counter));
  if (p == nullptr) return fail(Errc::out_of_host_memory, "no memory for the queue");
  return new (p) Counter(0);
}

void Host::queue_release(NativeQueue q) noexcept {
  using Counter = std::atomic<std::uint64_t>;
  q->~Counter();
  DefaultAllocator::deallocate(q, sizeof(Counter), alignof(Counter));
}

Result<void> Host::queue_finish(NativeQueue) noexcept { return {}; }

Result<void> Host::event_wait(NativeEvent) noexcept { return {}; }
Result<bool> Host::event_complete(NativeEvent) noexcept { return true; }
void Host::event_retain(NativeEvent) noexcept {}
void Host::event_release(NativeEvent) noexcept {}

}  // namespace edgemem::backend
