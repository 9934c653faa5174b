// Vulkan backend: blocks, the few large VkDeviceMemory allocations that small buffers share
// (maxMemoryAllocationCount: 4096 on some drivers). A buffer of up to kSmallBytes gets its own VkBuffer
// bound at an offset of a block of its memory type; larger ones get memory of their own. Every
// VkDeviceMemory edgemem allocates is counted against the device's limit.
#pragma once
#include "vk.hpp"

namespace edgemem::backend::vk {

/// The largest buffer (its memory requirement) a block serves.
constexpr VkDeviceSize kSmallBytes = VkDeviceSize{1} << 20;

/// Counts one more VkDeviceMemory of `d`. Errc: out_of_device_memory (maxMemoryAllocationCount, or
/// EDGEMEM_VULKAN_MAX_ALLOCATIONS, reached: nothing counted).
[[nodiscard]] Result<void> count_allocation(VulkanDeviceRecord& d) noexcept;

/// Counts one VkDeviceMemory of `d` less.
void uncount_allocation(VulkanDeviceRecord& d) noexcept;

/// Binds `a.buffer` (whose requirement is `req`) to `req.size` bytes of a block of memory type `type`,
/// a new block when none has room: sets a.memory, a.offset, a.reserved, a.block and a.host. False (nothing
/// taken) when a block cannot serve it (too large, or an alignment past a page): the caller allocates.
/// Errc: out_of_device_memory, out_of_host_memory (a new block could not be made).
[[nodiscard]] Result<bool> block_bind(VulkanDeviceRecord& d, const VkMemoryRequirements& req, std::uint32_t type,
                                      Allocation& a) noexcept;

/// Gives `a`'s pages back to its block; an empty block is freed unless it is its type's only one.
void block_free(VulkanDeviceRecord& d, const Allocation& a) noexcept;

/// The size class of a staging buffer of `bytes`: the power of two at or above it, 64 KiB at least.
constexpr VkDeviceSize staging_class(VkDeviceSize bytes) noexcept {
  VkDeviceSize c = VkDeviceSize{64} << 10;
  while (c < bytes) c <<= 1;
  return c;
}

/// Largest staging buffer kept for reuse, and most bytes kept at once.
constexpr VkDeviceSize kStagingKeepMax = VkDeviceSize{64} << 20;
constexpr VkDeviceSize kStagingKeepTotal = VkDeviceSize{128} << 20;

/// Takes a kept staging buffer of `bytes`' class into `a` (a.bytes = bytes). False: none kept.
bool take_staging(VulkanDeviceRecord& d, VkDeviceSize bytes, Allocation& a) noexcept;

/// Keeps released staging `a` for reuse; false when it is not kept (too large, or no room: the caller frees it).
bool put_staging(VulkanDeviceRecord& d, const Allocation& a) noexcept;

/// Frees the kept staging buffers; false when there was none.
bool drop_staging(VulkanDeviceRecord& d) noexcept;

/// Frees every block of `d` and the kept staging (context release: nothing is bound to them any more).
void free_blocks(VulkanDeviceRecord& d) noexcept;

}  // namespace edgemem::backend::vk
