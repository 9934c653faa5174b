// Vulkan backend: rect transfers, one VkBufferCopy region per row (256 per vkCmdCopyBuffer call, no
// heap). write_rect packs the host rows tightly into staging at enqueue (an async one never waits);
// read_rect copies the rows into staging, waits, and unpacks (as read, an async one runs at once);
// copy_rect copies row by row between the buffers (the common layer has checked overlap).
#include <cstring>

#include "vk_memory.hpp"
#include "vk_submit.hpp"

namespace edgemem::backend {

namespace {

constexpr std::uint32_t kRegions = 256;

std::size_t row_offset(const RectSide& s, std::size_t y, std::size_t z) noexcept {
  return (s.origin.z + z) * s.slice_pitch + (s.origin.y + y) * s.row_pitch + s.origin.x;
}

/// Records one copy per row of `region`: from `src` at `src_base` + row_of_src(y, z) to `dst`.
template <class Src, class Dst>
void copy_rows(const vk::DeviceFns& f, VkCommandBuffer cb, VkBuffer src, VkBuffer dst, const Extent3& region,
               Src&& src_at, Dst&& dst_at) noexcept {
  VkBufferCopy regions[kRegions];
  std::uint32_t n = 0;
  for (std::size_t z = 0; z < region.z; ++z) {
    for (std::size_t y = 0; y < region.y; ++y) {
      regions[n++] = VkBufferCopy{src_at(y, z), dst_at(y, z), region.x};
      if (n == kRegions) {
        f.vkCmdCopyBuffer(cb, src, dst, n, regions);
        n = 0;
      }
    }
  }
  if (n != 0) f.vkCmdCopyBuffer(cb, src, dst, n, regions);
}

VkBuffer buffer_of(const Vulkan::NativeMem& m) noexcept { return reinterpret_cast<VkBuffer>(m.buffer); }

}  // namespace

Result<void> Vulkan::write_rect(NativeQueue q, const NativeMem& mem, const Rect& rect, const void* src,
                                const CommandEvents& ev) noexcept {
  VulkanDeviceRecord& d = *q.record->device;
  const Extent3& r = rect.region;
  const std::size_t packed = r.x * r.y * r.z;
  EDGEMEM_TRY(vk::await_reads_into(d, src, row_offset(rect.host, r.y - 1, r.z - 1) + r.x));  // copied now
  vk::note_written(mem);
  auto record = [&](VkCommandBuffer cb, vk::Allocation& staging) -> Result<void> {
    EDGEMEM_TRY_ASSIGN(staging, vk::allocate(d, packed, vk::Placement::staging));
    auto* out = static_cast<std::byte*>(staging.host);
    for (std::size_t z = 0; z < r.z; ++z)
      for (std::size_t y = 0; y < r.y; ++y)
        std::memcpy(out + (z * r.y + y) * r.x, static_cast<const std::byte*>(src) + row_offset(rect.host, y, z), r.x);
    if (!staging.coherent) EDGEMEM_TRY(vk::host_sync(d, staging, true));
    copy_rows(d.fns, cb, staging.buffer, buffer_of(mem), r, [&](std::size_t y, std::size_t z) { return (z * r.y + y) * r.x; },
              [&](std::size_t y, std::size_t z) { return mem.offset + row_offset(rect.buffer, y, z); });
    return {};
  };
  return vk::run(*q.record, ev, vk::recorder(record));
}

Result<void> Vulkan::read_rect(NativeQueue q, const NativeMem& mem, const Rect& rect, void* dst,
                               const CommandEvents& ev) noexcept {
  VulkanDeviceRecord& d = *q.record->device;
  const Extent3& r = rect.region;
  const std::size_t packed = r.x * r.y * r.z;
  EDGEMEM_TRY_ASSIGN(vk::Allocation staging, vk::allocate(d, packed, vk::Placement::staging));
  auto record = [&](VkCommandBuffer cb, vk::Allocation&) -> Result<void> {
    copy_rows(d.fns, cb, buffer_of(mem), staging.buffer, r,
              [&](std::size_t y, std::size_t z) { return mem.offset + row_offset(rect.buffer, y, z); },
              [&](std::size_t y, std::size_t z) { return (z * r.y + y) * r.x; });
    return {};
  };
  CommandEvents blocking = ev;
  blocking.out = nullptr;
  auto done = vk::run(*q.record, blocking, vk::recorder(record));
  if (done && !staging.coherent) done = vk::host_sync(d, staging, false);
  if (done) {
    const auto* in = static_cast<const std::byte*>(staging.host);
    for (std::size_t z = 0; z < r.z; ++z)
      for (std::size_t y = 0; y < r.y; ++y)
        std::memcpy(static_cast<std::byte*>(dst) + row_offset(rect.host, y, z), in + (z * r.y + y) * r.x, r.x);
  }
  vk::release(d, staging);
  EDGEMEM_TRY(done);
  return vk::complete_event(ev);
}

Result<void> Vulkan::copy_rect(NativeQueue q, const NativeMem& src, const NativeMem& dst, const CopyRect& rect,
                               const CommandEvents& ev) noexcept {
  vk::note_written(dst);
  VulkanDeviceRecord& d = *q.record->device;
  auto record = [&](VkCommandBuffer cb, vk::Allocation&) -> Result<void> {
    copy_rows(d.fns, cb, buffer_of(src), buffer_of(dst), rect.region,
              [&](std::size_t y, std::size_t z) { return src.offset + row_offset(rect.src, y, z); },
              [&](std::size_t y, std::size_t z) { return dst.offset + row_offset(rect.dst, y, z); });
    return {};
  };
  return vk::run(*q.record, ev, vk::recorder(record));
}

}  // namespace edgemem::backend
