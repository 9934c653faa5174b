/// @file vk_bench_harness.hpp  What vulkan_overhead measures with: the raw Vulkan entry points, loaded
/// at run time from libvulkan.so.1 as the Vulkan backend loads them (vk_loader.cpp: dlopen, then
/// vkGetInstanceProcAddr with edgemem's VkInstance and vkGetDeviceProcAddr with its VkDevice), so the
/// binary starts without a Vulkan loader and says so, and raw and edgemem calls take the same route
/// (through the same layers, when a layer is on); vk_ok() and ok(), the checks of a VkResult and of an
/// edgemem Result; the driver version as its vendor encodes it; memory-type choice as the backend's
/// (vk_memory.cpp, pick_type); RawQueue, the raw submit-and-wait sequence on edgemem's VkQueue; and a
/// raw host-visible buffer (the staging). The backend-neutral pieces (run_case, measure_ns, goals, the
/// summary line) are bench/goal_harness.hpp's.
#pragma once
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES 1  // nothing is linked: every entry point comes from the loader opened at run time
#endif
#include <dlfcn.h>
#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <mutex>

#include <edgemem/error.hpp>
#include <edgemem/native.hpp>

#include "../../../bench/goal_harness.hpp"
#include "../vk_memory_types.hpp"

namespace vkbench {

/// Instance-level entry points, looked up with edgemem's VkInstance.
#define VKBENCH_INSTANCE_FNS(X)                                                                           \
  X(vkGetPhysicalDeviceProperties) X(vkGetPhysicalDeviceMemoryProperties)                                 \
  X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetDeviceProcAddr)

/// Device-level entry points, looked up with edgemem's VkDevice (no loader trampoline per call).
#define VKBENCH_DEVICE_FNS(X)                                                                              \
  X(vkQueueSubmit) X(vkCreateSemaphore) X(vkDestroySemaphore) X(vkWaitSemaphores) X(vkCreateCommandPool)   \
  X(vkDestroyCommandPool) X(vkResetCommandPool) X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer)        \
  X(vkEndCommandBuffer) X(vkCmdPipelineBarrier) X(vkCmdCopyBuffer) X(vkCmdFillBuffer) X(vkCreateBuffer)   \
  X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory)                  \
  X(vkBindBufferMemory) X(vkMapMemory) X(vkFlushMappedMemoryRanges) X(vkInvalidateMappedMemoryRanges)

/// The loaded entry points, called as vk.vkQueueSubmit(...).
struct Vk {
#define VKBENCH_MEMBER_(fn) PFN_##fn fn = nullptr;
  VKBENCH_INSTANCE_FNS(VKBENCH_MEMBER_)
  VKBENCH_DEVICE_FNS(VKBENCH_MEMBER_)
#undef VKBENCH_MEMBER_
};

#define VKBENCH_STR2_(x) #x
#define VKBENCH_STR_(x) VKBENCH_STR2_(x)

/// Fills `vk` from libvulkan.so.1 (never closed) for edgemem's `instance` and `device`. Null on success,
/// else what is missing.
inline const char* load_vulkan(Vk& vk, VkInstance instance, VkDevice device) noexcept {
  void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return "libvulkan.so.1 could not be loaded (no Vulkan loader)";
  const auto gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
  if (gipa == nullptr) return "libvulkan.so.1 lacks vkGetInstanceProcAddr";
#define VKBENCH_INSTANCE_(fn)                                                    \
  vk.fn = reinterpret_cast<PFN_##fn>(gipa(instance, VKBENCH_STR_(fn)));          \
  if (vk.fn == nullptr) return "the Vulkan instance lacks " VKBENCH_STR_(fn);
  VKBENCH_INSTANCE_FNS(VKBENCH_INSTANCE_)
#undef VKBENCH_INSTANCE_
#define VKBENCH_DEVICE_(fn)                                                               \
  vk.fn = reinterpret_cast<PFN_##fn>(vk.vkGetDeviceProcAddr(device, VKBENCH_STR_(fn)));  \
  if (vk.fn == nullptr) return "the Vulkan device lacks " VKBENCH_STR_(fn);
  VKBENCH_DEVICE_FNS(VKBENCH_DEVICE_)
#undef VKBENCH_DEVICE_
  return nullptr;
}

/// The name of a VkResult (the common ones; others as "VkResult").
inline const char* vk_result_name(VkResult r) noexcept {
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    default: return "VkResult";
  }
}

/// check() of a Vulkan call: true on VK_SUCCESS, else records it with the VkResult's name.
inline bool vk_ok(VkResult status, const char* what) {
  return goal_harness::check(status == VK_SUCCESS, what, vk_result_name(status));
}

/// check() of an edgemem Result, with its Errc and message.
template <class R>
bool ok(const R& r, const char* what) {
  if (r) return true;
  char detail[256];
  std::snprintf(detail, sizeof detail, "%s (%s)", edgemem::to_string(r.error().code), r.error().message);
  return goal_harness::check(false, what, detail);
}

/// The driver version as the vendor encodes it (NVIDIA: 10.8.8.6 bits; others: Vulkan's 10.10.12).
inline void driver_version(const VkPhysicalDeviceProperties& p, char* out, std::size_t size) {
  const std::uint32_t v = p.driverVersion;
  if (p.vendorID == 0x10DE)
    std::snprintf(out, size, "%u.%u.%u.%u", v >> 22, (v >> 14) & 0xFFu, (v >> 6) & 0xFFu, v & 0x3Fu);
  else
    std::snprintf(out, size, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

/// The backend's own choice of memory type (raw memory is of the type edgemem takes).
using edgemem::backend::vk::pick_type;

/// A raw VkBuffer with its own host-visible, host-coherent memory, mapped for its life (the staging).
struct HostBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* host = nullptr;
  std::uint32_t type = 0;  ///< its memory type

  /// Makes `bytes` of it, of the type the backend's staging takes (host-visible, coherent and cached
  /// scored, device-local avoided) among the coherent ones. False (recorded) on a failure.
  bool make(const Vk& vk, VkDevice device, const VkPhysicalDeviceMemoryProperties& props, VkDeviceSize bytes) {
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = bytes;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (!vk_ok(vk.vkCreateBuffer(device, &info, nullptr, &buffer), "vkCreateBuffer (raw staging)")) return false;
    VkMemoryRequirements req{};
    vk.vkGetBufferMemoryRequirements(device, buffer, &req);
    const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const int t = pick_type(props, req.memoryTypeBits, visible, VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (!goal_harness::check(t >= 0, "a host-visible, coherent memory type for the raw staging")) return false;
    type = static_cast<std::uint32_t>(t);
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    return vk_ok(vk.vkAllocateMemory(device, &alloc, nullptr, &memory), "vkAllocateMemory (raw staging)") &&
           vk_ok(vk.vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory (raw staging)") &&
           vk_ok(vk.vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &host), "vkMapMemory (raw staging)");
  }

  /// Destroys what make() made (vkFreeMemory unmaps).
  void destroy(const Vk& vk, VkDevice device) {
    if (buffer != VK_NULL_HANDLE) vk.vkDestroyBuffer(device, buffer, nullptr);
    if (memory != VK_NULL_HANDLE) vk.vkFreeMemory(device, memory, nullptr);
    *this = HostBuffer{};
  }
};

/// The raw submit-and-wait sequence on edgemem's own VkQueue: a command pool of the queue's family, one
/// command buffer re-recorded for every command, and a timeline semaphore of its own that each submit
/// signals with the next value, waited for on the host before run() returns.
class RawQueue {
 public:
  /// Makes the pool, the command buffer and the semaphore on `nq`'s device. False (recorded) on a failure.
  bool init(const Vk& vk, const edgemem::NativeQueue& nq) {
    vk_ = &vk;
    device_ = nq.device;
    queue_ = nq.queue;
    lock_ = nq.submit_lock;
    VkCommandPoolCreateInfo pool{};
    pool.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pool.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pool.queueFamilyIndex = nq.family;
    if (!vk_ok(vk.vkCreateCommandPool(device_, &pool, nullptr, &pool_), "vkCreateCommandPool (raw)")) return false;
    VkCommandBufferAllocateInfo cb{};
    cb.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cb.commandPool = pool_;
    cb.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cb.commandBufferCount = 1;
    if (!vk_ok(vk.vkAllocateCommandBuffers(device_, &cb, &cb_), "vkAllocateCommandBuffers (raw)")) return false;
    VkSemaphoreTypeCreateInfo type{};
    type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo sem{};
    sem.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    sem.pNext = &type;
    return vk_ok(vk.vkCreateSemaphore(device_, &sem, nullptr, &timeline_), "vkCreateSemaphore (raw timeline)");
  }

  /// Destroys what init() made (nothing of it is pending: run() waits).
  void destroy() {
    if (vk_ == nullptr) return;
    if (timeline_ != VK_NULL_HANDLE) vk_->vkDestroySemaphore(device_, timeline_, nullptr);
    if (pool_ != VK_NULL_HANDLE) vk_->vkDestroyCommandPool(device_, pool_, nullptr);  // frees cb_ too
    timeline_ = VK_NULL_HANDLE;
    pool_ = VK_NULL_HANDLE;
    cb_ = VK_NULL_HANDLE;
  }

  /// vkResetCommandPool, vkBeginCommandBuffer (ONE_TIME_SUBMIT), record(cb), a barrier making the
  /// transfer writes visible to later transfers and the host, vkEndCommandBuffer, vkQueueSubmit under
  /// the queue's submit lock signalling the next value, and vkWaitSemaphores for it. False on a failure.
  template <class Record>
  bool run(Record&& record, const char* what) {
    const Vk& vk = *vk_;
    if (!vk_ok(vk.vkResetCommandPool(device_, pool_, 0), "vkResetCommandPool (raw)")) return false;
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (!vk_ok(vk.vkBeginCommandBuffer(cb_, &begin), "vkBeginCommandBuffer (raw)")) return false;
    record(cb_);
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
    vk.vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0,
                            nullptr);
    if (!vk_ok(vk.vkEndCommandBuffer(cb_), "vkEndCommandBuffer (raw)")) return false;
    const std::uint64_t next = value_ + 1;
    VkTimelineSemaphoreSubmitInfo values{};
    values.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    values.signalSemaphoreValueCount = 1;
    values.pSignalSemaphoreValues = &next;
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.pNext = &values;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb_;
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &timeline_;
    VkResult submitted;
    {
      std::lock_guard<edgemem::VulkanSubmitLock> hold(*lock_);  // the VkQueue is externally synchronized
      submitted = vk.vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE);
    }
    if (!vk_ok(submitted, what)) return false;
    value_ = next;
    return wait_last("vkWaitSemaphores (raw)");
  }

  /// vkWaitSemaphores for the last value submitted (complete at once when run() waited for it).
  bool wait_last(const char* what) {
    VkSemaphoreWaitInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    info.semaphoreCount = 1;
    info.pSemaphores = &timeline_;
    info.pValues = &value_;
    return vk_ok(vk_->vkWaitSemaphores(device_, &info, UINT64_MAX), what);
  }

 private:
  const Vk* vk_ = nullptr;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  edgemem::VulkanSubmitLock* lock_ = nullptr;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  std::uint64_t value_ = 0;  ///< the last value submitted
};

}  // namespace vkbench
