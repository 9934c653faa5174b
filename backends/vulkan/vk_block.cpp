// Vulkan backend: blocks small buffers share (vk_block.hpp). First fit over each block's page bitmap
// (the heap's: src/pool/page_bitmap.hpp), blocks in the order of their slots.
#include "pool/page_bitmap.hpp"
#include "vk_block.hpp"
#include "vk_memory.hpp"

namespace edgemem::backend::vk {

namespace bits = edgemem::detail::page_bitmap;

Result<void> count_allocation(VulkanDeviceRecord& d) noexcept {
  std::uint32_t now = d.allocations.load(std::memory_order_relaxed);
  do {
    if (now >= d.max_allocations)
      return fail(Errc::out_of_device_memory, "the device's maxMemoryAllocationCount is reached");
  } while (!d.allocations.compare_exchange_weak(now, now + 1, std::memory_order_relaxed));
  return {};
}

void uncount_allocation(VulkanDeviceRecord& d) noexcept { d.allocations.fetch_sub(1, std::memory_order_relaxed); }

namespace {

/// Frees `b`'s memory (unmapping it): its slot is free again.
void destroy(VulkanDeviceRecord& d, VulkanBlock& b) noexcept {
  if (!exiting()) d.fns.vkFreeMemory(d.device, b.memory, nullptr);
  uncount_allocation(d);
  b = VulkanBlock{};
}

/// A new block of memory type `type` in a free slot, mapped when host-visible; null when every slot is
/// taken. Under block_lock. Errc: out_of_device_memory.
Result<VulkanBlock*> make_block(VulkanDeviceRecord& d, std::uint32_t type) noexcept {
  VulkanBlock* b = nullptr;
  for (VulkanBlock& slot : d.blocks)
    if (slot.memory == VK_NULL_HANDLE) {
      b = &slot;
      break;
    }
  if (b == nullptr) return b;
  EDGEMEM_TRY(count_allocation(d));
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = VulkanBlock::kBlockBytes;
  alloc.memoryTypeIndex = type;
  VkResult status = d.fns.vkAllocateMemory(d.device, &alloc, nullptr, &b->memory);
  if (status == VK_SUCCESS && (d.memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0)
    status = d.fns.vkMapMemory(d.device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->host);
  if (status != VK_SUCCESS) {
    if (b->memory != VK_NULL_HANDLE) d.fns.vkFreeMemory(d.device, b->memory, nullptr);
    uncount_allocation(d);
    *b = VulkanBlock{};
    return fail_vk(status);
  }
  b->type = type;
  return b;
}

/// Whether a block of `b`'s type other than `b` is empty too (then `b`, empty, may go: one stays, so a
/// loop that makes and releases one buffer next to a full block allocates nothing).
bool another_empty_of_type(const VulkanDeviceRecord& d, const VulkanBlock& b) noexcept {
  for (const VulkanBlock& other : d.blocks)
    if (&other != &b && other.memory != VK_NULL_HANDLE && other.type == b.type && other.used_pages == 0) return true;
  return false;
}

}  // namespace

Result<bool> block_bind(VulkanDeviceRecord& d, const VkMemoryRequirements& req, std::uint32_t type,
                        Allocation& a) noexcept {
  const VkDeviceSize atom = d.limits.nonCoherentAtomSize;
  if (req.size == 0 || req.size > kSmallBytes || req.alignment > VulkanBlock::kGranule || atom > VulkanBlock::kGranule ||
      VulkanBlock::kGranule % (req.alignment != 0 ? req.alignment : 1) != 0)
    return false;
  const auto pages = static_cast<std::size_t>((req.size + VulkanBlock::kGranule - 1) / VulkanBlock::kGranule);
  std::lock_guard<std::mutex> guard(d.block_lock);
  VulkanBlock* b = nullptr;
  std::size_t first = SIZE_MAX;
  for (VulkanBlock& slot : d.blocks) {
    if (slot.memory == VK_NULL_HANDLE || slot.type != type || VulkanBlock::kPages - slot.used_pages < pages) continue;
    first = bits::first_fit(slot.words, VulkanBlock::kPages, pages);
    if (first != SIZE_MAX) {
      b = &slot;
      break;
    }
  }
  if (b == nullptr) {
    EDGEMEM_TRY_ASSIGN(b, make_block(d, type));
    if (b == nullptr) return false;  // every slot taken: memory of its own
    first = 0;
  }
  const VkDeviceSize offset = first * VulkanBlock::kGranule;
  const VkResult status = d.fns.vkBindBufferMemory(d.device, a.buffer, b->memory, offset);
  if (status != VK_SUCCESS) {
    if (b->used_pages == 0 && another_empty_of_type(d, *b)) destroy(d, *b);
    return fail_vk(status);
  }
  bits::mark(b->words, first, pages, true);
  b->used_pages += pages;
  a.memory = b->memory;
  a.offset = offset;
  a.reserved = pages * VulkanBlock::kGranule;
  a.block = b;
  a.host = b->host != nullptr ? static_cast<unsigned char*>(b->host) + offset : nullptr;
  return true;
}

void block_free(VulkanDeviceRecord& d, const Allocation& a) noexcept {
  VulkanBlock& b = *a.block;
  const auto pages = static_cast<std::size_t>(a.reserved / VulkanBlock::kGranule);
  std::lock_guard<std::mutex> guard(d.block_lock);
  bits::mark(b.words, static_cast<std::size_t>(a.offset / VulkanBlock::kGranule), pages, false);
  b.used_pages -= pages;
  if (b.used_pages == 0 && another_empty_of_type(d, b)) destroy(d, b);  // one empty block per type stays
}

bool take_staging(VulkanDeviceRecord& d, VkDeviceSize bytes, Allocation& a) noexcept {
  const VkDeviceSize cls = staging_class(bytes);
  std::lock_guard<std::mutex> guard(d.block_lock);
  for (Allocation& kept : d.staging_cache)
    if (kept.memory != VK_NULL_HANDLE && kept.staging_class == cls) {
      a = kept;
      a.bytes = bytes;
      kept = Allocation{};
      return true;
    }
  return false;
}

bool put_staging(VulkanDeviceRecord& d, const Allocation& a) noexcept {
  if (a.staging_class > kStagingKeepMax || a.host == nullptr) return false;  // (null: its making failed)
  std::lock_guard<std::mutex> guard(d.block_lock);
  VkDeviceSize total = a.staging_class;
  Allocation* room = nullptr;
  for (Allocation& kept : d.staging_cache) {
    if (kept.memory == VK_NULL_HANDLE) room = &kept;
    else total += kept.staging_class;
  }
  if (room == nullptr || total > kStagingKeepTotal) return false;
  *room = a;
  return true;
}

bool drop_staging(VulkanDeviceRecord& d) noexcept {
  Allocation dropped[sizeof d.staging_cache / sizeof d.staging_cache[0]];
  std::size_t n = 0;
  {
    std::lock_guard<std::mutex> guard(d.block_lock);
    for (Allocation& kept : d.staging_cache)
      if (kept.memory != VK_NULL_HANDLE) {
        dropped[n++] = kept;
        kept = Allocation{};
      }
  }
  for (std::size_t i = 0; i < n; ++i) {  // (outside the lock: a block's range goes back under it)
    dropped[i].staging_class = 0;  // not kept again: freed
    release(d, dropped[i]);
  }
  return n != 0;
}

void free_blocks(VulkanDeviceRecord& d) noexcept {
  (void)drop_staging(d);
  std::lock_guard<std::mutex> guard(d.block_lock);
  for (VulkanBlock& b : d.blocks)
    if (b.memory != VK_NULL_HANDLE) destroy(d, b);
}

}  // namespace edgemem::backend::vk
