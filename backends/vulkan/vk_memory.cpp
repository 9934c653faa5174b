// Vulkan backend: memory types by Storage, buffers with their own memory (mapped for life when
// host-visible), views as ranges of their root, and memory released while commands may still reach it
// (destroyed once every Queue has passed the values it had then).
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include <edgemem/allocator.hpp>

#include "vk_block.hpp"
#include "vk_memory_types.hpp"
#include "vk_memory.hpp"
#include "vk_submit.hpp"

namespace edgemem::backend::vk {

namespace {

/// Whether every page of [begin, end) is mapped writable in this process (/proc/self/maps, read with a
/// buffer on the stack: nothing allocated). False when it cannot tell.
bool pages_writable(std::uintptr_t begin, std::uintptr_t end) noexcept {
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  std::size_t have = 0;
  std::uintptr_t need = begin;
  bool answer = false, done = false;
  while (!done) {
    const ssize_t got = read(fd, buf + have, sizeof buf - 1 - have);
    if (got <= 0) break;
    have += static_cast<std::size_t>(got);
    buf[have] = '\0';
    char* line = buf;
    char* nl = nullptr;
    while (!done && (nl = std::strchr(line, '\n')) != nullptr) {  // "start-end perms ..."
      *nl = '\0';
      char* dash = nullptr;
      const std::uintptr_t lo = std::strtoull(line, &dash, 16);
      char* space = nullptr;
      const std::uintptr_t hi = *dash == '-' ? std::strtoull(dash + 1, &space, 16) : 0;
      if (hi > need) {
        if (lo > need || space == nullptr || space[0] != ' ' || space[2] != 'w') done = true;  // a gap, or not writable
        else if ((need = hi) >= end) answer = done = true;
      }
      line = nl + 1;
    }
    have = static_cast<std::size_t>(buf + have - line);  // a line cut by the buffer's end: kept
    std::memmove(buf, line, have);
    if (have == sizeof buf - 1) break;  // a line longer than the buffer: cannot tell
  }
  close(fd);
  return answer;
}

constexpr VkMemoryPropertyFlags kDeviceLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags kVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
constexpr VkMemoryPropertyFlags kCoherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;

/// Every use a buffer may be put to (today's default: any interop use works).
constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                      VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT |
                                      VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                      VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT;

}  // namespace

Result<Allocation> allocate(VulkanDeviceRecord& d, VkDeviceSize bytes, Placement placement) noexcept {
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = bytes;
  info.usage = kUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  Allocation a;
  if (placement == Placement::staging && staging_class(bytes) <= kStagingKeepMax) {  // kept for reuse (vk_block.hpp)
    if (take_staging(d, bytes, a)) return a;
    info.size = a.staging_class = staging_class(bytes);
  }
  a.bytes = bytes;
  EDGEMEM_TRY(check(d.fns.vkCreateBuffer(d.device, &info, nullptr, &a.buffer)));
  VkMemoryRequirements req{};
  d.fns.vkGetBufferMemoryRequirements(d.device, a.buffer, &req);
  int type = -1;
  switch (placement) {
    case Placement::device:  // device-local: host-visible on unified memory; else not (host reads of a BAR crawl)
      type = d.unified ? pick_type(d.memory, req.memoryTypeBits, kDeviceLocal, kVisible | kCoherent | kCached, 0)
                       : pick_type(d.memory, req.memoryTypeBits, kDeviceLocal, 0, kVisible);
      break;
    case Placement::host:  // host memory the device reaches
      type = pick_type(d.memory, req.memoryTypeBits, kVisible, kCoherent | kCached, d.unified ? 0u : kDeviceLocal);
      break;
    case Placement::shared:  // host-visible, device-local where there is such memory
      type = pick_type(d.memory, req.memoryTypeBits, kVisible, kCoherent | kDeviceLocal | kCached, 0);
      break;
    case Placement::staging:
      type = pick_type(d.memory, req.memoryTypeBits, kVisible, kCoherent | kCached, kDeviceLocal);
      break;
  }
  if (type < 0) type = pick_type(d.memory, req.memoryTypeBits, 0, kDeviceLocal, 0);
  if (type < 0) {
    release(d, a);
    return fail_vk(VK_ERROR_OUT_OF_DEVICE_MEMORY);
  }
  const VkMemoryPropertyFlags f = d.memory.memoryTypes[type].propertyFlags;
  a.coherent = (f & kVisible) == 0 || ((f & kCoherent) != 0 && !d.force_noncoherent);
  // Up to kSmallBytes: a range of a block (no VkDeviceMemory of its own: maxMemoryAllocationCount).
  auto in_block = block_bind(d, req, static_cast<std::uint32_t>(type), a);
  if (!in_block && drop_staging(d)) in_block = block_bind(d, req, static_cast<std::uint32_t>(type), a);
  if (in_block && *in_block) return a;
  // Not for a block (too large, an alignment past a page, every slot taken), or no block could be made
  // (the allocation limit, or no 32 MiB left of the type): memory of its own.
  auto counted = count_allocation(d);
  if (!counted && drop_staging(d)) counted = count_allocation(d);  // cached staging gives way
  if (!counted) {
    release(d, a);
    return fail(counted.error());
  }
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<std::uint32_t>(type);
  a.reserved = req.size;
  VkResult status = d.fns.vkAllocateMemory(d.device, &alloc, nullptr, &a.memory);
  if (status != VK_SUCCESS) uncount_allocation(d);  // (release counts only memory it frees)
  if (status == VK_SUCCESS) status = d.fns.vkBindBufferMemory(d.device, a.buffer, a.memory, 0);
  if (status == VK_SUCCESS && (f & kVisible) != 0) status = d.fns.vkMapMemory(d.device, a.memory, 0, VK_WHOLE_SIZE, 0, &a.host);
  if (status != VK_SUCCESS) {
    release(d, a);
    return fail_vk(status);
  }
  return a;
}

Result<Allocation> import_host(VulkanDeviceRecord& d, void* p, VkDeviceSize bytes, VkDeviceSize& offset) noexcept {
  if (d.host_pointer_properties == nullptr) return fail(Errc::unsupported, "the device cannot import host memory");
  const VkDeviceSize align = d.host_align;
  const auto first = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t base = first / align * align;
  offset = first - base;
  const VkDeviceSize span = (offset + bytes + align - 1) / align * align;
  void* const base_ptr = reinterpret_cast<void*>(base);
  if (d.import_checks_writable && !pages_writable(base, base + span))  // a refusal would break the device
    return fail(Errc::unsupported, "the driver cannot import pages the process may only read");
  constexpr auto kType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  VkMemoryHostPointerPropertiesEXT props{};
  props.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
  if (d.host_pointer_properties(d.device, kType, base_ptr, &props) != VK_SUCCESS || props.memoryTypeBits == 0)
    return fail(Errc::unsupported, "the driver cannot import these host pages");
  VkExternalMemoryBufferCreateInfo external{};
  external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  external.handleTypes = kType;
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.pNext = &external;
  info.size = span;
  info.usage = kUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  Allocation a;
  a.bytes = span;
  EDGEMEM_TRY(check(d.fns.vkCreateBuffer(d.device, &info, nullptr, &a.buffer)));
  VkMemoryRequirements req{};
  d.fns.vkGetBufferMemoryRequirements(d.device, a.buffer, &req);
  const int type = pick_type(d.memory, req.memoryTypeBits & props.memoryTypeBits, kVisible, kCoherent | kCached, 0);
  VkImportMemoryHostPointerInfoEXT import{};
  import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
  import.handleType = kType;
  import.pHostPointer = base_ptr;
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.pNext = &import;
  alloc.allocationSize = span;
  alloc.memoryTypeIndex = static_cast<std::uint32_t>(type);
  auto counted = count_allocation(d);
  if (!counted) {
    release(d, a);
    return fail(counted.error());
  }
  VkResult status = type < 0 || req.size > span ? VK_ERROR_INVALID_EXTERNAL_HANDLE
                                                : d.fns.vkAllocateMemory(d.device, &alloc, nullptr, &a.memory);
  if (status != VK_SUCCESS) uncount_allocation(d);  // (release counts only memory it frees)
  if (status == VK_SUCCESS) status = d.fns.vkBindBufferMemory(d.device, a.buffer, a.memory, 0);
  if (status != VK_SUCCESS) {
    release(d, a);  // (NVIDIA answers out of device memory for pages the process may only read)
    return fail(Errc::unsupported, "the driver refused to import these host pages");
  }
  a.host = p;
  a.reserved = span;
  a.coherent = (d.memory.memoryTypes[type].propertyFlags & kCoherent) != 0;  // (never mapped: not forced)
  return a;
}

void release(VulkanDeviceRecord& d, Allocation& a) noexcept {
  if (exiting()) {  // no Vulkan call is safe: the process's end takes the memory
    a = Allocation{};
    return;
  }
  if (a.staging_class != 0 && a.memory != VK_NULL_HANDLE && put_staging(d, a)) {
    a = Allocation{};
    return;
  }
  if (a.buffer != VK_NULL_HANDLE) d.fns.vkDestroyBuffer(d.device, a.buffer, nullptr);
  if (a.block != nullptr) {
    block_free(d, a);
  } else if (a.memory != VK_NULL_HANDLE) {
    d.fns.vkFreeMemory(d.device, a.memory, nullptr);  // unmaps it too
    uncount_allocation(d);
  }
  a = Allocation{};
}

Result<void> host_sync(VulkanDeviceRecord& d, VkDeviceMemory memory, VkDeviceSize offset, VkDeviceSize bytes,
                       VkDeviceSize memory_bytes, bool to_device) noexcept {
  const VkDeviceSize atom = d.limits.nonCoherentAtomSize != 0 ? d.limits.nonCoherentAtomSize : 1;
  VkMappedMemoryRange range{};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = memory;
  range.offset = offset / atom * atom;
  const VkDeviceSize end = (offset + bytes + atom - 1) / atom * atom;  // (bytes VK_WHOLE_SIZE: wraps, below)
  // An end rounded past the memory's last byte (not a multiple of the atom) is said as VK_WHOLE_SIZE.
  range.size = bytes == VK_WHOLE_SIZE || end < offset || end > memory_bytes ? VK_WHOLE_SIZE : end - range.offset;
  return check(to_device ? d.fns.vkFlushMappedMemoryRanges(d.device, 1, &range)
                         : d.fns.vkInvalidateMappedMemoryRanges(d.device, 1, &range));
}

void retire(VulkanDeviceRecord& d, const Allocation& a, VulkanRoot* root) noexcept {
  // What every Queue has enqueued so far (held batches included) may still reach the memory.
  constexpr std::uint32_t kOnStack = 64;
  Retired::Pending seen[kOnStack];
  std::uint32_t pending = 0, total = 0;
  {
    std::lock_guard<std::mutex> list(d.lock);
    for (VulkanQueueRecord* q = d.queues; q != nullptr; q = q->next) {
      std::lock_guard<std::mutex> guard(q->lock);
      if (q->assigned <= q->completed.load(std::memory_order_acquire)) continue;
      // The cache may lag (a blocking call's wait, another thread's): ask the semaphore once.
      std::uint64_t now = 0;
      if (q->submitted.load(std::memory_order_acquire) == q->assigned &&
          d.fns.vkGetSemaphoreCounterValue(d.device, q->timeline, &now) == VK_SUCCESS) {
        note_completed(*q, now);
        if (q->assigned <= now) continue;
      }
      if (pending < kOnStack) seen[pending++] = Retired::Pending{q, q->assigned};
      ++total;
    }
  }
  if (total == 0 || exiting()) {  // nothing can reach it (the common case), or nothing runs any more
    Allocation copy = a;
    release(d, copy);
    if (root != nullptr) free_root(root);
    return;
  }
  const std::size_t size = sizeof(Retired) + (pending - 1) * sizeof(Retired::Pending);
  void* mem = total == pending ? DefaultAllocator::allocate(size, alignof(Retired)) : nullptr;
  if (mem == nullptr) {  // no memory to remember it (or past kOnStack Queues): the host waits for them
    bool waited = true;
    for (std::uint32_t i = 0; i < pending; ++i) waited = wait_value(*seen[i].queue, seen[i].value).has_value() && waited;
    if (waited && total > pending) {
      retire(d, a, root);  // the rest (each round waits for up to kOnStack more Queues)
      return;
    }
    // Done, or a wait failed (the device is lost: nothing of it runs any more): freed now.
    Allocation copy = a;
    release(d, copy);
    if (root != nullptr) free_root(root);
    return;
  }
  auto* r = new (mem) Retired;
  r->allocation = a;
  r->root = root;
  r->count = pending;
  for (std::uint32_t i = 0; i < pending; ++i) r->pending[i] = seen[i];
  std::lock_guard<std::mutex> list(d.lock);
  r->next = d.retired;
  d.retired = r;
}

void reap(VulkanDeviceRecord& d, bool wait) noexcept {
  const bool driver = !exiting();  // else no Vulkan call is safe: only context_release (wait) frees the records
  if (!driver && !wait) return;
  std::lock_guard<std::mutex> list(d.lock);
  for (Retired** at = &d.retired; *at != nullptr;) {
    Retired* r = *at;
    bool done = true;
    for (std::uint32_t i = 0; i < r->count && done && driver; ++i) {
      VulkanQueueRecord& q = *r->pending[i].queue;
      const std::uint64_t v = r->pending[i].value;
      if (wait && q.submitted.load(std::memory_order_acquire) >= v) {
        VkSemaphoreWaitInfo info{};
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
        info.semaphoreCount = 1;
        info.pSemaphores = &q.timeline;
        info.pValues = &v;
        (void)d.fns.vkWaitSemaphores(d.device, &info, UINT64_MAX);
        note_completed(q, v);
      }
      std::uint64_t now = q.completed.load(std::memory_order_acquire);
      if (now < v && d.fns.vkGetSemaphoreCounterValue(d.device, q.timeline, &now) == VK_SUCCESS) note_completed(q, now);
      done = now >= v || (wait && q.submitted.load(std::memory_order_acquire) < v);  // never submitted: nothing reaches it
    }
    if (!done) {
      at = &r->next;
      continue;
    }
    *at = r->next;
    release(d, r->allocation);
    if (r->root != nullptr) free_root(r->root);
    const std::size_t size = sizeof(Retired) + (r->count > 1 ? r->count - 1 : 0) * sizeof(Retired::Pending);
    r->~Retired();
    DefaultAllocator::deallocate(r, size, alignof(Retired));
  }
}

void free_root(VulkanRoot* root) noexcept {
  root->~VulkanRoot();
  DefaultAllocator::deallocate(root, sizeof(VulkanRoot), alignof(VulkanRoot));
}

}  // namespace edgemem::backend::vk
