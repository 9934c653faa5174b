// Vulkan backend: transfers and maps on a Queue. Writes take their bytes at enqueue (vkCmdUpdateBuffer
// for small aligned ones, else a staging copy), so an async write never waits (unless an async read not yet
// copied out lands in its source: vk_readback.cpp); an async read copies into staging and its bytes go
// out when the host first sees it complete (vk_readback.cpp); a blocking read waits; fills are
// vkCmdFillBuffer where the pattern and range allow it, else copies of a staged pattern; maps of
// host-visible memory are zero-copy, others go through staging.
#include <cstring>
#include <new>

#include <edgemem/allocator.hpp>

#include "vk_memory.hpp"
#include "vk_submit.hpp"

namespace edgemem::backend {

namespace {

constexpr VkDeviceSize kUpdateMax = 65536;       // vkCmdUpdateBuffer's limit
constexpr VkDeviceSize kFillChunk = 256 * 1024;  // staged pattern for wide or unaligned fills
constexpr std::uint32_t kRegions = 256;          // regions per vkCmdCopyBuffer

VkBuffer buffer_of(const Vulkan::NativeMem& m) noexcept { return reinterpret_cast<VkBuffer>(m.buffer); }

VulkanDeviceRecord& device_of(const Vulkan::NativeQueue& q) noexcept { return *q.record->device; }

/// A staging buffer holding `bytes` of `src` (flushed). Errc: out_of_device_memory, out_of_host_memory.
Result<vk::Allocation> staged_copy(VulkanDeviceRecord& d, const void* src, VkDeviceSize bytes) noexcept {
  EDGEMEM_TRY_ASSIGN(vk::Allocation s, vk::allocate(d, bytes, vk::Placement::staging));
  std::memcpy(s.host, src, static_cast<std::size_t>(bytes));
  if (!s.coherent) {
    auto flushed = vk::host_sync(d, s, true);
    if (!flushed) {
      vk::release(d, s);
      return fail(flushed.error());
    }
  }
  return s;
}

// Mapped::state: a StagedMap's address (8-byte aligned), or the mapped length shifted left by 2 with
// its low bits saying what unmap does: 0 with length 0 nothing (a zero-copy map needing no flush).
constexpr std::uintptr_t kFlush = 1;         // zero-copy map of non-coherent memory written by the host
constexpr std::uintptr_t kShadowRead = 2;    // the caller memory of a shadowed wrap, read
constexpr std::uintptr_t kShadowUpload = 3;  // the caller memory of a shadowed wrap, written: uploaded
constexpr std::uintptr_t kStateBits = 3;

/// The caller memory of `mem`'s first byte, for a shadowed wrap (root or view; its root starts at offset 0).
std::byte* caller_of(const Vulkan::NativeMem& mem) noexcept {
  return static_cast<std::byte*>(mem.root->caller) + mem.offset;
}

/// A StagedMap record: one of the device's kept ones (no allocation: the pools' steady state maps
/// device-local blocks), else from DefaultAllocator. Null: no memory.
vk::StagedMap* take_staged_map(VulkanDeviceRecord& d) noexcept {
  std::uint64_t free = d.staged_free.load(std::memory_order_acquire);
  while (free != 0) {
    const std::uint64_t bit = free & (~free + 1);  // the lowest free record
    if (d.staged_free.compare_exchange_weak(free, free & ~bit, std::memory_order_acq_rel)) {
      unsigned i = 0;
      while ((bit >> i) != 1) ++i;
      d.staged_maps[i] = vk::StagedMap{};
      return &d.staged_maps[i];
    }
  }
  void* mem = DefaultAllocator::allocate(sizeof(vk::StagedMap), alignof(vk::StagedMap));
  return mem != nullptr ? new (mem) vk::StagedMap : nullptr;
}

/// Gives a record of take_staged_map() back.
void give_back_staged_map(VulkanDeviceRecord& d, vk::StagedMap* m) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(m), first = reinterpret_cast<std::uintptr_t>(d.staged_maps);
  if (at >= first && at < first + sizeof d.staged_maps) {
    const std::size_t i = (at - first) / sizeof(vk::StagedMap);
    d.staged_free.fetch_or(std::uint64_t{1} << i, std::memory_order_acq_rel);
    return;
  }
  m->~StagedMap();
  DefaultAllocator::deallocate(m, sizeof(vk::StagedMap), alignof(vk::StagedMap));
}

}  // namespace

Result<void> Vulkan::write(NativeQueue q, const NativeMem& mem, std::size_t offset, const void* src, std::size_t bytes,
                           const CommandEvents& ev) noexcept {
  VulkanDeviceRecord& d = device_of(q);
  EDGEMEM_TRY(vk::await_reads_into(d, src, bytes));  // `src` is copied now: an earlier async read's bytes first
  vk::note_written(mem);
  const VkDeviceSize at = mem.offset + offset;
  if (mem.host != nullptr && !vk::exiting() && vk::host_ready(*q.record, ev)) {  // host-visible, nothing left before it
    vk::deliver_completed(d);  // reads other Queues finished (seen through a wait) land before these bytes
    EDGEMEM_TRY(vk::complete_event(ev));  // (its record first: nothing fails after the bytes are written)
    std::memcpy(static_cast<std::byte*>(mem.host) + offset, src, bytes);
    if (mem.root->coherent) return {};
    auto flushed = vk::root_sync(d, *mem.root, at, bytes, true);
    if (!flushed && ev.out != nullptr) event_release(*ev.out);
    return flushed;
  }
  auto record = [&](VkCommandBuffer cb, vk::Allocation& staging) -> Result<void> {
    if (at % 4 == 0 && bytes % 4 == 0 && bytes <= kUpdateMax) {
      d.fns.vkCmdUpdateBuffer(cb, buffer_of(mem), at, bytes, src);
      return {};
    }
    EDGEMEM_TRY_ASSIGN(staging, staged_copy(d, src, bytes));
    const VkBufferCopy region{0, at, bytes};
    d.fns.vkCmdCopyBuffer(cb, staging.buffer, buffer_of(mem), 1, &region);
    return {};
  };
  return vk::run(*q.record, ev, vk::recorder(record));
}

Result<void> Vulkan::read(NativeQueue q, const NativeMem& mem, std::size_t offset, void* dst, std::size_t bytes,
                          const CommandEvents& ev) noexcept {
  VulkanDeviceRecord& d = device_of(q);
  if (ev.out != nullptr) {  // async: into staging the batch keeps; the bytes go out when it is seen complete
    auto record = [&](VkCommandBuffer cb, vk::Allocation& staging) -> Result<void> {
      EDGEMEM_TRY_ASSIGN(staging, vk::allocate(d, bytes, vk::Placement::staging));
      const VkBufferCopy region{mem.offset + offset, 0, bytes};
      d.fns.vkCmdCopyBuffer(cb, buffer_of(mem), staging.buffer, 1, &region);
      return {};
    };
    vk::Recorder rec = vk::recorder(record);
    rec.read_to = dst;
    rec.read_bytes = bytes;
    return vk::run(*q.record, ev, rec);
  }
  CommandEvents blocking = ev;
  if (mem.host != nullptr) {  // host-visible: the Queue's earlier commands, then the bytes themselves
    EDGEMEM_TRY(vk::run(*q.record, blocking));
    if (!mem.root->coherent)
      EDGEMEM_TRY(vk::root_sync(d, *mem.root, mem.offset + offset, bytes, false));
    std::memcpy(dst, static_cast<const std::byte*>(mem.host) + offset, bytes);
    return vk::complete_event(ev);
  }
  // Device-local: copied into staging this call owns, released once the bytes are out.
  EDGEMEM_TRY_ASSIGN(vk::Allocation staging, vk::allocate(d, bytes, vk::Placement::staging));
  auto record = [&](VkCommandBuffer cb, vk::Allocation&) -> Result<void> {
    const VkBufferCopy region{mem.offset + offset, 0, bytes};
    d.fns.vkCmdCopyBuffer(cb, buffer_of(mem), staging.buffer, 1, &region);
    return {};
  };
  auto done = vk::run(*q.record, blocking, vk::recorder(record));
  if (done && !staging.coherent) done = vk::host_sync(d, staging, false);
  if (done) std::memcpy(dst, staging.host, bytes);
  vk::release(d, staging);
  EDGEMEM_TRY(done);
  return vk::complete_event(ev);
}

Result<void> Vulkan::fill(NativeQueue q, const NativeMem& mem, std::size_t offset, std::size_t bytes, const void* pattern,
                          std::size_t pattern_bytes, const CommandEvents& ev) noexcept {
  vk::note_written(mem);
  VulkanDeviceRecord& d = device_of(q);
  const VkDeviceSize at = mem.offset + offset;
  auto record = [&](VkCommandBuffer cb, vk::Allocation& staging) -> Result<void> {
    if (pattern_bytes <= 4 && at % 4 == 0 && bytes % 4 == 0) {
      std::uint32_t word = 0;
      for (std::size_t i = 0; i < 4; i += pattern_bytes) std::memcpy(reinterpret_cast<std::byte*>(&word) + i, pattern, pattern_bytes);
      d.fns.vkCmdFillBuffer(cb, buffer_of(mem), at, bytes, word);
      return {};
    }
    // A chunk of whole patterns, copied to each part of the range (regions read one source, write
    // disjoint bytes: no barrier between them).
    const VkDeviceSize chunk = bytes < kFillChunk ? bytes : kFillChunk / pattern_bytes * pattern_bytes;
    EDGEMEM_TRY_ASSIGN(staging, vk::allocate(d, chunk, vk::Placement::staging));
    for (VkDeviceSize i = 0; i < chunk; i += pattern_bytes)
      std::memcpy(static_cast<std::byte*>(staging.host) + i, pattern, pattern_bytes);
    if (!staging.coherent) EDGEMEM_TRY(vk::host_sync(d, staging, true));
    VkBufferCopy regions[kRegions];
    std::uint32_t n = 0;
    for (VkDeviceSize done = 0; done < bytes; done += chunk) {
      regions[n++] = VkBufferCopy{0, at + done, bytes - done < chunk ? bytes - done : chunk};
      if (n == kRegions) {
        d.fns.vkCmdCopyBuffer(cb, staging.buffer, buffer_of(mem), n, regions);
        n = 0;
      }
    }
    if (n != 0) d.fns.vkCmdCopyBuffer(cb, staging.buffer, buffer_of(mem), n, regions);
    return {};
  };
  return vk::run(*q.record, ev, vk::recorder(record));
}

Result<void> Vulkan::copy(NativeQueue q, const NativeMem& src, const NativeMem& dst, std::size_t src_offset,
                          std::size_t dst_offset, std::size_t bytes, const CommandEvents& ev) noexcept {
  vk::note_written(dst);
  VulkanDeviceRecord& d = device_of(q);
  auto record = [&](VkCommandBuffer cb, vk::Allocation&) -> Result<void> {
    const VkBufferCopy region{src.offset + src_offset, dst.offset + dst_offset, bytes};
    d.fns.vkCmdCopyBuffer(cb, buffer_of(src), buffer_of(dst), 1, &region);
    return {};
  };
  return vk::run(*q.record, ev, vk::recorder(record));
}

Result<void> Vulkan::migrate(NativeQueue q, const NativeMem&, Migration, const CommandEvents& ev) noexcept {
  return vk::run(*q.record, ev);  // Vulkan moves nothing (a memory type is fixed): an ordering point
}

Result<Vulkan::Mapped> Vulkan::map(NativeQueue q, const NativeMem& mem, Access access, std::size_t offset,
                                   std::size_t bytes, const CommandEvents& ev) noexcept {
  VulkanDeviceRecord& d = device_of(q);
  CommandEvents blocking = ev;
  blocking.out = nullptr;
  if (mem.root->kind == VulkanMemKind::shadowed) {  // the caller's memory is the mapping: refreshed unless discarded
    std::byte* const host = caller_of(mem) + offset;
    // A copy no kernel writes and no command has written equals the caller's bytes: nothing to refresh
    // (and the caller's pages may be PROT_READ: a wrap of read-only memory made MemFlags::read_only).
    const bool same = mem.root->device_read_only && !mem.root->shadow_written.load(std::memory_order_relaxed);
    if (access == Access::write_discard || same) EDGEMEM_TRY(vk::run(*q.record, blocking));
    else EDGEMEM_TRY(read(q, mem, offset, host, bytes, blocking));
    return Mapped{host, (static_cast<std::uintptr_t>(bytes) << 2) | (access == Access::read ? kShadowRead : kShadowUpload)};
  }
  if (mem.host != nullptr) {
    EDGEMEM_TRY(vk::run(*q.record, blocking));
    if (!mem.root->coherent && access != Access::write_discard)
      EDGEMEM_TRY(vk::root_sync(d, *mem.root, mem.offset + offset, bytes, false));
    const bool flush = !mem.root->coherent && access != Access::read;
    return Mapped{static_cast<std::byte*>(mem.host) + offset, flush ? (static_cast<std::uintptr_t>(bytes) << 2) | kFlush : 0u};
  }
  vk::StagedMap* const m = take_staged_map(d);
  if (m == nullptr) return fail(Errc::out_of_host_memory, "no memory for a staged Vulkan map");
  m->offset = mem.offset + offset;
  m->write = access != Access::read;
  auto drop = [&](Failure f) -> Failure {
    vk::release(d, m->staging);
    give_back_staged_map(d, m);
    return f;
  };
  auto made = vk::allocate(d, bytes, vk::Placement::staging);
  if (!made) return drop(fail(made.error()));
  m->staging = *made;
  auto record = [&](VkCommandBuffer cb, vk::Allocation&) -> Result<void> {
    const VkBufferCopy region{m->offset, 0, bytes};
    d.fns.vkCmdCopyBuffer(cb, buffer_of(mem), m->staging.buffer, 1, &region);
    return {};
  };
  auto done = access == Access::write_discard ? vk::run(*q.record, blocking) : vk::run(*q.record, blocking, vk::recorder(record));
  if (done && !m->staging.coherent && access != Access::write_discard)
    done = vk::host_sync(d, m->staging, false);
  if (!done) return drop(fail(done.error()));
  return Mapped{m->staging.host, reinterpret_cast<std::uintptr_t>(m)};
}

Result<void> Vulkan::unmap(NativeQueue q, const NativeMem& mem, const Mapped& mapped, const CommandEvents& ev) noexcept {
  VulkanDeviceRecord& d = device_of(q);
  const std::uintptr_t how = mapped.state & kStateBits;
  if (how == kShadowUpload) {  // the caller's bytes, taken at enqueue (the caller may write them again at once)
    const auto at = static_cast<std::size_t>(static_cast<std::byte*>(mapped.host) - caller_of(mem));
    return write(q, mem, at, mapped.host, static_cast<std::size_t>(mapped.state >> 2), ev);
  }
  if (mapped.state == 0 || how != 0) {  // zero-copy or a shadow read: written bytes flushed, no command needed
    if (how == kFlush) {
      const auto at = static_cast<VkDeviceSize>(static_cast<std::byte*>(mapped.host) - static_cast<std::byte*>(mem.host));
      EDGEMEM_TRY(vk::root_sync(d, *mem.root, mem.offset + at, mapped.state >> 2, true));
    }
    if (ev.wait_count == 0) return vk::complete_event(ev);
    return vk::run(*q.record, ev);
  }
  auto* m = reinterpret_cast<vk::StagedMap*>(mapped.state);
  Result<void> done{};
  if (m->write) {  // the staging goes with the command buffer: released once the upload has run
    auto record = [&](VkCommandBuffer cb, vk::Allocation& staging) -> Result<void> {
      if (!m->staging.coherent) EDGEMEM_TRY(vk::host_sync(d, m->staging, true));
      const VkBufferCopy region{0, m->offset, m->staging.bytes};
      d.fns.vkCmdCopyBuffer(cb, m->staging.buffer, buffer_of(mem), 1, &region);
      staging = m->staging;
      m->staging = vk::Allocation{};
      return {};
    };
    done = vk::run(*q.record, ev, vk::recorder(record));
  } else {
    done = ev.wait_count == 0 ? vk::complete_event(ev) : vk::run(*q.record, ev);
  }
  if (!done) return done;  // the mapping stays open: unmap again
  vk::release(d, m->staging);
  give_back_staged_map(d, m);
  return {};
}

}  // namespace edgemem::backend
