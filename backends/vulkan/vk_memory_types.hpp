// Vulkan backend: the choice of a memory type by property flags, shared by vk_memory.cpp and
// bench/vulkan_overhead (whose raw memory is then of the type edgemem takes). Needs only vulkan.h.
#pragma once
#include <vulkan/vulkan.h>

#include <cstdint>

namespace edgemem::backend::vk {

/// The memory type of `bits` that has `need`, scoring `want` bits and avoiding `avoid` ones; -1: none.
inline int pick_type(const VkPhysicalDeviceMemoryProperties& m, std::uint32_t bits, VkMemoryPropertyFlags need,
                     VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) noexcept {
  int best = -1, best_score = -1;
  for (std::uint32_t i = 0; i < m.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags f = m.memoryTypes[i].propertyFlags;
    if ((bits & (1u << i)) == 0 || (f & need) != need) continue;
    int score = 0;
    for (VkMemoryPropertyFlags b = 1; b != 0 && b <= VK_MEMORY_PROPERTY_PROTECTED_BIT; b <<= 1) {
      if ((want & b) != 0 && (f & b) != 0) score += 2;
      if ((avoid & b) != 0 && (f & b) != 0) score -= 1;
    }
    if (score > best_score) {
      best = static_cast<int>(i);
      best_score = score;
    }
  }
  return best;
}

}  // namespace edgemem::backend::vk
