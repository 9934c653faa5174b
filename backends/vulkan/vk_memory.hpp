// Vulkan backend: buffers with their own memory (vk_memory.cpp) and the retirement of memory released
// while commands may still reach it.
#pragma once
#include "vk.hpp"

namespace edgemem::backend::vk {

/// Where an allocation's memory comes from.
enum class Placement {
  device,   ///< device-local (host-visible too on unified memory)
  host,     ///< host memory the device reaches
  shared,   ///< host-visible, device-local where the device has such memory
  staging,  ///< host-visible, for copies to and from device-local memory
};

/// A buffer of `bytes` with its own memory, mapped for life when host-visible.
/// Errc: out_of_device_memory, out_of_host_memory.
[[nodiscard]] Result<Allocation> allocate(VulkanDeviceRecord& d, VkDeviceSize bytes, Placement placement) noexcept;

/// A buffer over `bytes` of caller memory at `p`, imported in place (VK_EXT_external_memory_host): the
/// import covers the whole host_align-aligned pages around them, so the bytes start `offset` into the
/// buffer; `a.host` is `p`. Errc: unsupported (the device cannot import, or the driver refused these
/// pages, whatever its answer: the caller then keeps a copy), out_of_host_memory.
[[nodiscard]] Result<Allocation> import_host(VulkanDeviceRecord& d, void* p, VkDeviceSize bytes, VkDeviceSize& offset) noexcept;

/// Notes that a command writes `m`'s bytes (a shadow's maps then refresh the caller memory).
inline void note_written(const Vulkan::NativeMem& m) noexcept {
  if (m.root != nullptr && m.root->kind == VulkanMemKind::shadowed) m.root->shadow_written.store(true, std::memory_order_relaxed);
}

/// Destroys `a` at once (nothing may reach it any more).
void release(VulkanDeviceRecord& d, Allocation& a) noexcept;

/// Flushes (`to_device`) or invalidates `bytes` at `offset` of host-visible, non-coherent `memory` (of
/// `memory_bytes` bytes), rounded out to nonCoherentAtomSize. Errc: out_of_host_memory, out_of_device_memory.
[[nodiscard]] Result<void> host_sync(VulkanDeviceRecord& d, VkDeviceMemory memory, VkDeviceSize offset,
                                     VkDeviceSize bytes, VkDeviceSize memory_bytes, bool to_device) noexcept;

/// The size of the VkDeviceMemory an allocation (`block`, `reserved`) is bound to.
inline VkDeviceSize memory_bytes_of(const VulkanBlock* block, VkDeviceSize reserved) noexcept {
  return block != nullptr ? VulkanBlock::kBlockBytes : reserved;
}

/// host_sync() of `bytes` at `at` of a root's VkBuffer (`root`: memory of its own or a block's range).
[[nodiscard]] inline Result<void> root_sync(VulkanDeviceRecord& d, const VulkanRoot& root, VkDeviceSize at,
                                            VkDeviceSize bytes, bool to_device) noexcept {
  return host_sync(d, reinterpret_cast<VkDeviceMemory>(root.memory), root.memory_offset + at, bytes,
                   memory_bytes_of(root.block, root.reserved), to_device);
}

/// Flushes (`to_device`) or invalidates the bytes of host-visible, non-coherent allocation `a` (only
/// its own range of a block). Errc: out_of_host_memory, out_of_device_memory.
[[nodiscard]] inline Result<void> host_sync(VulkanDeviceRecord& d, const Allocation& a, bool to_device) noexcept {
  return host_sync(d, a.memory, a.offset, a.block != nullptr ? a.bytes : VK_WHOLE_SIZE,
                   memory_bytes_of(a.block, a.reserved), to_device);
}

/// Destroys `a` (and frees `root`, when given) once every Queue has passed what it has enqueued now.
void retire(VulkanDeviceRecord& d, const Allocation& a, VulkanRoot* root) noexcept;

/// Destroys the retired memory nothing reaches any more; `wait`: waits for all of it (context_release).
void reap(VulkanDeviceRecord& d, bool wait) noexcept;

/// Frees a root record.
void free_root(VulkanRoot* root) noexcept;

}  // namespace edgemem::backend::vk
