// Vulkan backend: the device census, contexts (a VkDevice with queues of one compute family), and the
// DeviceInfo they report.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include <edgemem/allocator.hpp>

#include "vk_block.hpp"
#include "vk_submit.hpp"

namespace edgemem::backend {

namespace {

constexpr std::uint32_t kMaxPhysical = 16;  // physical devices looked at
constexpr std::uint32_t kMaxFamilies = 16;  // queue families looked at
constexpr std::uint32_t kMaxQueues = 8;     // queues a context asks for

/// What makes a physical device usable: Vulkan 1.2, timeline semaphores, a compute queue family.
struct Candidate {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  std::uint32_t family = 0;       // the compute family edgemem uses
  std::uint32_t queue_count = 0;  // its queues
  bool buffer_device_address = false;
  bool host_import = false;  // VK_EXT_external_memory_host
};

/// True when `physical` offers the device extension `name` (false when the list cannot be read).
/// Errc: out_of_host_memory (no room for the list: an answer of false would make the device without it).
Result<bool> has_extension(VkPhysicalDevice physical, const char* name) noexcept {
  const vk::Loader& l = vk::loader();
  std::uint32_t count = 0;
  if (l.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr) != VK_SUCCESS || count == 0) return false;
  const std::size_t size = count * sizeof(VkExtensionProperties);
  void* mem = DefaultAllocator::allocate(size, alignof(VkExtensionProperties));
  if (mem == nullptr) return fail(Errc::out_of_host_memory, "no memory for the Vulkan device's extension list");
  auto* list = static_cast<VkExtensionProperties*>(mem);
  bool found = false;
  const VkResult r = l.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, list);
  for (std::uint32_t i = 0; (r == VK_SUCCESS || r == VK_INCOMPLETE) && i < count && !found; ++i)
    found = std::strcmp(list[i].extensionName, name) == 0;
  DefaultAllocator::deallocate(mem, size, alignof(VkExtensionProperties));
  return found;
}

bool of_type(const VkPhysicalDeviceProperties& p, DeviceType type) noexcept {
  switch (type) {
    case DeviceType::any: return true;
    case DeviceType::gpu:
      return p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
             p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
             p.deviceType == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU;
    case DeviceType::cpu: return p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    case DeviceType::accelerator: return p.deviceType == VK_PHYSICAL_DEVICE_TYPE_OTHER;
  }
  return false;
}

/// `physical` as a Candidate, or false when it does not qualify. Errc: out_of_host_memory.
Result<bool> qualify(VkPhysicalDevice physical, Candidate& out) noexcept {
  const vk::Loader& l = vk::loader();
  Candidate c;
  c.physical = physical;
  l.vkGetPhysicalDeviceProperties(physical, &c.props);
  if (c.props.apiVersion < VK_API_VERSION_1_2) return false;
  VkPhysicalDeviceVulkan12Features v12{};
  v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &v12;
  l.vkGetPhysicalDeviceFeatures2(physical, &features);
  if (v12.timelineSemaphore != VK_TRUE) return false;
  c.buffer_device_address = v12.bufferDeviceAddress == VK_TRUE;
  EDGEMEM_TRY_ASSIGN(c.host_import, has_extension(physical, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME));
  VkQueueFamilyProperties families[kMaxFamilies];
  std::uint32_t count = kMaxFamilies;
  l.vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families);
  // A compute family without graphics (a dedicated compute engine) with the most queues, else any
  // compute family.
  bool found = false, dedicated = false;
  for (std::uint32_t i = 0; i < count; ++i) {
    const VkQueueFlags f = families[i].queueFlags;
    if ((f & VK_QUEUE_COMPUTE_BIT) == 0 || families[i].queueCount == 0) continue;
    const bool no_graphics = (f & VK_QUEUE_GRAPHICS_BIT) == 0;
    const bool better = !found || (no_graphics && !dedicated) ||
                        (no_graphics == dedicated && families[i].queueCount > c.queue_count);
    if (!better) continue;
    found = true;
    dedicated = no_graphics;
    c.family = i;
    c.queue_count = families[i].queueCount;
  }
  if (!found) return false;
  out = c;
  return true;
}

/// The qualifying devices of `type`, in the loader's order; how many in `count`. Errc: as vk::load, out_of_host_memory.
Result<void> candidates(DeviceType type, Candidate (&out)[kMaxPhysical], std::uint32_t& count) noexcept {
  EDGEMEM_TRY_ASSIGN(const vk::Loader* l, vk::load());
  VkPhysicalDevice physical[kMaxPhysical];
  std::uint32_t n = kMaxPhysical;
  const VkResult listed = l->vkEnumeratePhysicalDevices(l->instance, &n, physical);
  if (listed != VK_SUCCESS && listed != VK_INCOMPLETE) return vk::fail_vk(listed);
  count = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    Candidate c;
    EDGEMEM_TRY_ASSIGN(const bool qualifies, qualify(physical[i], c));
    if (qualifies && of_type(c.props, type)) out[count++] = c;
  }
  return {};
}

std::size_t to_size(VkDeviceSize v) noexcept {
  if constexpr (sizeof(std::size_t) < sizeof(VkDeviceSize)) {
    if (v > static_cast<VkDeviceSize>(SIZE_MAX)) return SIZE_MAX;
  }
  return static_cast<std::size_t>(v);
}

std::size_t max_of(std::size_t a, std::size_t b) noexcept { return a > b ? a : b; }

/// Fills `info` from `physical`, and the record's facts; `host_import`: the device was made with
/// VK_EXT_external_memory_host.
void describe(VkPhysicalDevice physical, bool host_import, VulkanDeviceRecord& record, DeviceInfo& info) noexcept {
  const vk::Loader& l = vk::loader();
  VkPhysicalDeviceDriverProperties driver{};
  driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  VkPhysicalDeviceIDProperties id{};
  id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  id.pNext = &driver;
  VkPhysicalDeviceMaintenance3Properties m3{};
  m3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  m3.pNext = &id;
  VkPhysicalDeviceExternalMemoryHostPropertiesEXT host{};
  host.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT;
  host.pNext = &m3;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = host_import ? static_cast<void*>(&host) : static_cast<void*>(&m3);
  l.vkGetPhysicalDeviceProperties2(physical, &props);
  l.vkGetPhysicalDeviceMemoryProperties(physical, &record.memory);
  record.limits = props.properties.limits;
  const VkPhysicalDeviceProperties& p = props.properties;
  std::snprintf(info.name, sizeof info.name, "%.127s", p.deviceName);
  std::snprintf(info.version, sizeof info.version, "Vulkan %u.%u.%u", VK_API_VERSION_MAJOR(p.apiVersion),
                VK_API_VERSION_MINOR(p.apiVersion), VK_API_VERSION_PATCH(p.apiVersion));
  std::snprintf(info.driver, sizeof info.driver, "%.63s %.63s", driver.driverName, driver.driverInfo);
  info.backend = Vulkan::name;
  info.version_major = VK_API_VERSION_MAJOR(p.apiVersion);
  info.version_minor = VK_API_VERSION_MINOR(p.apiVersion);
  std::memcpy(info.uuid, id.deviceUUID, sizeof info.uuid);
  info.has_uuid = true;
  // Device memory: the DEVICE_LOCAL heaps; unified when every DEVICE_LOCAL type is also HOST_VISIBLE.
  bool unified = true;
  for (std::uint32_t h = 0; h < record.memory.memoryHeapCount; ++h)
    if ((record.memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0)
      info.global_mem_bytes += to_size(record.memory.memoryHeaps[h].size);
  for (std::uint32_t t = 0; t < record.memory.memoryTypeCount; ++t) {
    const VkMemoryPropertyFlags f = record.memory.memoryTypes[t].propertyFlags;
    if ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0 && (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) == 0) unified = false;
  }
  info.max_alloc_bytes = to_size(m3.maxMemoryAllocationSize);
  // Views and pool blocks never share a non-coherent atom and are always legal descriptor offsets.
  info.base_align_bytes = max_of(max_of(256, to_size(p.limits.minStorageBufferOffsetAlignment)),
                                 max_of(to_size(p.limits.minUniformBufferOffsetAlignment),
                                        max_of(to_size(p.limits.minTexelBufferOffsetAlignment),
                                               to_size(p.limits.nonCoherentAtomSize))));
  info.caps.unified_memory = unified;
  record.unified = unified;
  info.caps.max_fill_pattern_bytes = 128;
  info.caps.host_access_flags = true;
  // Queue::migrate is a placement hint Vulkan cannot take (a memory type is fixed): an ordering point, as
  // CUDA's is for memory other than managed, so portable code runs unchanged.
  info.caps.migration = true;
  // Wraps: caller memory imported in place (VK_EXT_external_memory_host), else a device copy.
  record.host_align = host.minImportedHostPointerAlignment;
  if (host_import && record.host_align != 0)
    record.host_pointer_properties = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
        l.vkGetDeviceProcAddr(record.device, "vkGetMemoryHostPointerPropertiesEXT"));
  info.caps.caller_memory_in_place = record.host_pointer_properties != nullptr;
  // NVIDIA's driver imports no pages the process may only read (MAP_SHARED PROT_READ: a read-only fd
  // import), and after such a refusal (VK_ERROR_OUT_OF_DEVICE_MEMORY) every later allocation of the device
  // fails the same way (H200, driver 580.159.04: docs/peers/h200_vulkan_2026-11-29/probe_read_only.txt).
  // EDGEMEM_VULKAN_IMPORT_WRITABLE_ONLY=1 (tests): any driver is treated so (CI runs that path on lavapipe).
  // VkDeviceMemory allocations: small buffers share blocks (vk_block.hpp), so the limit is seldom met;
  // EDGEMEM_VULKAN_MAX_ALLOCATIONS=N (tests) sets a lower one, as on drivers that report 4096.
  record.max_allocations = p.limits.maxMemoryAllocationCount;
  const char* max_env = std::getenv("EDGEMEM_VULKAN_MAX_ALLOCATIONS");
  if (max_env != nullptr && std::strtoul(max_env, nullptr, 10) > 0 &&
      std::strtoul(max_env, nullptr, 10) < record.max_allocations)
    record.max_allocations = static_cast<std::uint32_t>(std::strtoul(max_env, nullptr, 10));
  // EDGEMEM_VULKAN_NONCOHERENT=1 (tests): every host-visible type is flushed and invalidated as if it were
  // not coherent (valid on coherent memory too), so lavapipe's CI runs those paths under the validation layer.
  const char* noncoherent = std::getenv("EDGEMEM_VULKAN_NONCOHERENT");
  record.force_noncoherent = noncoherent != nullptr && noncoherent[0] == '1';
  const char* force = std::getenv("EDGEMEM_VULKAN_IMPORT_WRITABLE_ONLY");
  record.import_checks_writable =
      driver.driverID == VK_DRIVER_ID_NVIDIA_PROPRIETARY || (force != nullptr && force[0] == '1');
  info.caps.read_only_caller_memory_in_place = info.caps.caller_memory_in_place && !record.import_checks_writable;
}

void free_record(VulkanDeviceRecord* record) noexcept {
  vk::drain_device(*record);
  vk::free_blocks(*record);
  vk::drain_events();
  record->~VulkanDeviceRecord();
  DefaultAllocator::deallocate(record, sizeof(VulkanDeviceRecord), alignof(VulkanDeviceRecord));
}

/// A new device record for `device` (queue_count queues of `family`), its entry points looked up, the
/// event records pooled and its internal Queue made (initial contents and wraps' copies upload through
/// it: made now, it is no allocation of the first such buffer). Errc: out_of_host_memory,
/// out_of_device_memory, unsupported.
Result<VulkanDeviceRecord*> make_record(VkDevice device, std::uint32_t family, std::uint32_t queue_count) noexcept {
  void* mem = DefaultAllocator::allocate(sizeof(VulkanDeviceRecord), alignof(VulkanDeviceRecord));
  if (mem == nullptr) return fail(Errc::out_of_host_memory, "no memory for a Vulkan device record");
  auto* record = new (mem) VulkanDeviceRecord;
  auto ready = vk::init_device(*record, device, family, queue_count);
  if (ready) ready = vk::pool_events();
  if (!ready) {
    record->~VulkanDeviceRecord();
    DefaultAllocator::deallocate(mem, sizeof(VulkanDeviceRecord), alignof(VulkanDeviceRecord));
    return fail(ready.error());
  }
  auto internal = vk::internal_queue(*record);
  if (!internal) {
    free_record(record);
    return fail(internal.error());
  }
  return record;
}

}  // namespace

Result<void> Vulkan::device_census(DeviceType type, DeviceCensus& out) noexcept {
  out = DeviceCensus{};
  Candidate found[kMaxPhysical];
  std::uint32_t count = 0;
  EDGEMEM_TRY(candidates(type, found, count));  // no loader or no driver: unsupported, naming which
  out.platforms = 1;
  out.devices[0] = count;
  return {};
}

Result<Vulkan::NativeContext> Vulkan::context_create(const DeviceSelector& sel, DeviceInfo& info) noexcept {
  Candidate found[kMaxPhysical];
  std::uint32_t count = 0;
  EDGEMEM_TRY(candidates(sel.type, found, count));
  if (sel.platform_index > 0 || count == 0 || (sel.device_index >= 0 && static_cast<std::uint32_t>(sel.device_index) >= count))
    return fail(Errc::invalid_argument, "no such Vulkan device (platform 0 has the qualifying devices)");
  // No index given: the first discrete GPU, else the first device.
  std::uint32_t pick = 0;
  if (sel.device_index >= 0) pick = static_cast<std::uint32_t>(sel.device_index);
  else
    while (pick < count && found[pick].props.deviceType != VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) ++pick;
  if (pick == count) pick = 0;
  const Candidate& c = found[pick];
  const std::uint32_t queues = c.queue_count < kMaxQueues ? c.queue_count : kMaxQueues;
  float priorities[kMaxQueues];
  for (float& p : priorities) p = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = c.family;
  queue_info.queueCount = queues;
  queue_info.pQueuePriorities = priorities;
  VkPhysicalDeviceVulkan12Features v12{};
  v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  v12.timelineSemaphore = VK_TRUE;
  v12.bufferDeviceAddress = c.buffer_device_address ? VK_TRUE : VK_FALSE;
  const char* extensions[] = {VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME};
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = &v12;
  device_info.enabledExtensionCount = c.host_import ? 1u : 0u;
  device_info.ppEnabledExtensionNames = extensions;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  const vk::Loader& l = vk::loader();
  VkDevice device = VK_NULL_HANDLE;
  EDGEMEM_TRY(vk::check(l.vkCreateDevice(c.physical, &device_info, nullptr, &device)));
  auto record = make_record(device, c.family, queues);
  if (!record) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDevice>(l.vkGetDeviceProcAddr(device, "vkDestroyDevice"));
    if (destroy != nullptr) destroy(device, nullptr);
    return fail(record.error());
  }
  (*record)->owned = true;
  describe(c.physical, c.host_import, **record, info);
  NativeContext native;
  native.instance = l.instance;
  native.physical = c.physical;
  native.device = device;
  native.queue_family = c.family;
  native.queue_count = queues;
  native.features = vulkan_timeline_semaphore | (c.buffer_device_address ? vulkan_buffer_device_address : 0u) |
                    (c.host_import ? vulkan_external_memory_host : 0u);
  native.record = *record;
  return native;
}

Result<Vulkan::NativeContext> Vulkan::context_adopt(const NativeContext& native, AdoptMode mode, DeviceInfo& info) noexcept {
  if (native.instance == nullptr || native.physical == nullptr || native.device == nullptr || native.queue_count == 0)
    return fail(Errc::invalid_argument, "adopt needs a VkInstance, VkPhysicalDevice, VkDevice and its queue family and count");
  if ((native.features & vulkan_timeline_semaphore) == 0)
    return fail(Errc::invalid_argument, "the adopted VkDevice must have been made with timelineSemaphore enabled");
  EDGEMEM_TRY(vk::load());
  Candidate c;
  EDGEMEM_TRY_ASSIGN(const bool qualifies, qualify(native.physical, c));
  if (!qualifies) return fail(Errc::unsupported, "the adopted VkPhysicalDevice has no Vulkan 1.2 or no compute queue");
  // A VkDevice has no reference count: retain and borrow both leave it to its maker (owned stays false);
  // each adopt has a record of its own (queues, memory blocks), freed by context_release.
  (void)mode;
  EDGEMEM_TRY_ASSIGN(VulkanDeviceRecord * record, make_record(native.device, native.queue_family, native.queue_count));
  describe(native.physical, (native.features & vulkan_external_memory_host) != 0 && c.host_import, *record, info);
  NativeContext adopted = native;
  adopted.record = record;
  return adopted;
}

void Vulkan::context_release(NativeContext& ctx, bool) noexcept {
  if (ctx.record != nullptr) {
    const bool owned = ctx.record->owned;
    const vk::DeviceFns fns = ctx.record->fns;
    free_record(ctx.record);  // waits for its Queues' submitted work
    if (owned && !vk::exiting()) fns.vkDestroyDevice(ctx.device, nullptr);  // exiting: the process's end takes it
  }
  ctx = NativeContext{};
}

}  // namespace edgemem::backend
