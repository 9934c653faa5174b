#include "core/roots.hpp"

#include "core/checks.hpp"
#include "core/ordering.hpp"

namespace edgemem::detail {

Result<void> check_mem_flags(MemFlags flags) noexcept {
  const auto bits = static_cast<std::uint32_t>(flags);
  const auto device = bits & kDeviceAccessBits;
  const auto host = bits & kHostAccessBits;
  if (bits & ~31u) return fail(Errc::invalid_argument, "unknown MemFlags bits");
  if (device == 3u) return fail(Errc::invalid_argument, "read_only and write_only together");
  if (host != 0 && (host & (host - 1)) != 0) return fail(Errc::invalid_argument, "more than one host access flag");
  return {};
}

Result<void> check_host_flags_supported(const ContextNode* ctx, MemFlags flags) noexcept {
  if ((static_cast<std::uint32_t>(flags) & kHostAccessBits) != 0 && !ctx->info.caps.host_access_flags)
    return fail(Errc::unsupported, "the device has no host-access flags (DeviceInfo::caps)");
  return {};
}

bool flags_narrow(MemFlags parent, MemFlags child) noexcept {
  const auto p = static_cast<std::uint32_t>(parent), c = static_cast<std::uint32_t>(child);
  const bool device_ok = (p & kDeviceAccessBits) == 0 || (p & kDeviceAccessBits) == (c & kDeviceAccessBits);
  const bool host_ok = (p & kHostAccessBits) == 0 || (p & kHostAccessBits) == (c & kHostAccessBits) ||
                       (c & kHostAccessBits) == static_cast<std::uint32_t>(MemFlags::host_no_access);
  return device_ok && host_ok;
}

Result<void> check_storage(Storage s) noexcept {
  if (s != Storage::device && s != Storage::host && s != Storage::shared)
    return fail(Errc::invalid_argument, "unknown Storage value");
  return {};
}

bool attach_root_state(RootNode* node) noexcept {
  node->maps = make_node<MapSlots>();
  if (node->maps == nullptr) return false;
  if constexpr (tracks_pending) {
    node->pending = make_pending_table();
    if (node->pending == nullptr) return false;
  }
  return true;
}

Result<void> check_releasable(MemNode* n) noexcept {
  std::lock_guard<detail::Lock> lock(n->root->map_lock);
  if (open_mappings(n) != 0) return fail(Errc::busy, "memory is mapped; unmap before release");
  return {};
}

Result<void> order_release(QueueNode* q, MemNode* n) noexcept {
  if (q == nullptr) return fail(Errc::released, "queue is released");
  if (q->ctx != n->ctx) return fail(Errc::invalid_argument, "queue belongs to another context");
  EDGEMEM_TRY(check_releasable(n));
  if constexpr (tracks_pending) EDGEMEM_TRY(record_marker(q, MemUse{n, ByteRange{0, n->bytes}, true}));
  return {};
}

}  // namespace edgemem::detail
