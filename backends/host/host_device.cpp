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

/// Reads one `name=value` item of EDGEMEM_HOST_CAPS at `p` into `caps`; returns the text after it
/// (past a comma), or null when the item is malformed.
const char* parse_cap(const char* p, Capabilities& caps) noexcept {
  const char* eq = std::strchr(p, '=');
  if (eq == nullptr) return nullptr;
  char* end = nullptr;
  const unsigned long v = std::strtoul(eq + 1, &end, 10);
  if (end == eq + 1 || (*end != '\0' && *end != ',')) return nullptr;
  const std::size_t len = static_cast<std::size_t>(eq - p);
  auto is = [&](const char* name) { return std::strlen(name) == len && std::strncmp(p, name, len) == 0; };
  if (is("fill")) {
    if (v > 128 || (v & (v - 1)) != 0) return nullptr;
    caps.max_fill_pattern_bytes = v;
  } else if (v > 1) {
    return nullptr;
  } else if (is("migration")) {
    caps.migration = v == 1;
  } else if (is("host_access_flags")) {
    caps.host_access_flags = v == 1;
  } else if (is("unified_memory")) {
    caps.unified_memory = v == 1;
  } else {
    return nullptr;
  }
  return *end == ',' ? end + 1 : end;
}

/// The host device's capabilities: everything it implements, less what EDGEMEM_HOST_CAPS turns off
/// (a comma-separated list of fill=<0|1|2|...|128>, migration=<0|1>, host_access_flags=<0|1>,
/// unified_memory=<0|1>), so tests reach the "lacks" path of each capability without a second device.
/// Errc: invalid_argument (a malformed list).
Result<Capabilities> host_caps() noexcept {
  Capabilities caps;
  caps.max_fill_pattern_bytes = 128;
  caps.unified_memory = true;
  caps.migration = true;
  caps.host_access_flags = true;
  const char* env = std::getenv("EDGEMEM_HOST_CAPS");
  for (const char* p = env; p != nullptr && *p != '\0';) {
    p = parse_cap(p, caps);
    if (p == nullptr)
      return fail(Errc::invalid_argument,
                  "EDGEMEM_HOST_CAPS: expected name=value items: fill=0..128 (a power of two), "
                  "migration, host_access_flags, unified_memory (0 or 1)");
  }
  return caps;
}
}  // namespace

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
  EDGEMEM_TRY_ASSIGN(info.caps, host_caps());
  copy_text(info.name, "edgemem host (emulated device)");
  copy_text(info.version, "edgemem host backend " EDGEMEM_VERSION);
  info.backend = name;
  info.max_alloc_bytes = host_max_alloc();
  info.global_mem_bytes = host_max_alloc();
  info.base_align_bytes = EDGEMEM_HOST_BASE_ALIGN;
  info.version_major = 1;
  info.version_minor = 2;
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

Result<void> Host::mem_adopt(const NativeContext&, NativeMem mem, AdoptMode, AdoptedMem&) noexcept {
  if (mem.data == nullptr) return fail(Errc::invalid_argument, "adopt needs a native memory object");
  return fail(Errc::unsupported, "the host backend has no native objects made elsewhere to adopt");
}

void Host::context_release(NativeContext& ctx) noexcept { ctx.device = nullptr; }

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
