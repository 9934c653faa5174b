// The one place the Vulkan backend includes vulkan.h (with VK_NO_PROTOTYPES: nothing is linked; the
// loader libvulkan.so.1 is opened at run time, vk_loader.cpp), the entry points it uses, its device
// record, and small helpers shared by the backend's sources.
#pragma once
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>

#include "backend.hpp"

/// Entry points reached with a null instance.
#define EDGEMEM_VK_GLOBAL_ENTRY_POINTS(X) X(vkCreateInstance) X(vkEnumerateInstanceVersion)

/// Entry points of the process instance.
#define EDGEMEM_VK_INSTANCE_ENTRY_POINTS(X)                                                                  \
  X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties)                         \
  X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFeatures2) X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties) X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice)            \
  X(vkGetDeviceProcAddr)

/// Entry points of one device (looked up with vkGetDeviceProcAddr: no loader trampoline per call).
#define EDGEMEM_VK_DEVICE_ENTRY_POINTS(X) X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkDeviceWaitIdle)

namespace edgemem::backend::vk {

/// The loader's global and instance entry points, and the process instance they belong to.
struct Loader {
#define EDGEMEM_VK_MEMBER_(fn) PFN_##fn fn = nullptr;
  EDGEMEM_VK_GLOBAL_ENTRY_POINTS(EDGEMEM_VK_MEMBER_)
  EDGEMEM_VK_INSTANCE_ENTRY_POINTS(EDGEMEM_VK_MEMBER_)
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  VkInstance instance = VK_NULL_HANDLE;  ///< made on first use (Vulkan 1.2), kept for the process
};

/// One device's entry points.
struct DeviceFns {
  EDGEMEM_VK_DEVICE_ENTRY_POINTS(EDGEMEM_VK_MEMBER_)
#undef EDGEMEM_VK_MEMBER_
};

/// The loader and the process instance, loaded once. Errc: unsupported (no libvulkan.so.1, an entry
/// point missing, no Vulkan 1.2 instance), with the reason in the message.
[[nodiscard]] Result<const Loader*> load() noexcept;

/// The loaded entry points (after a successful load()).
const Loader& loader() noexcept;

/// `device`'s entry points, looked up into `out`. Errc: unsupported (one is missing).
[[nodiscard]] Result<void> load_device(VkDevice device, DeviceFns& out) noexcept;

/// A VkResult as an Error (the VkResult in Error::native).
Error to_error(VkResult status) noexcept;

/// Fails with `status` as an Error.
inline Failure fail_vk(VkResult status) noexcept { return Failure(to_error(status)); }

/// Success, or `status` as an Error.
[[nodiscard]] inline Result<void> check(VkResult status) noexcept {
  if (status == VK_SUCCESS) return {};
  return fail_vk(status);
}

}  // namespace edgemem::backend::vk

namespace edgemem {

/// The backend's state of one device (NativeContext::record): its entry points and facts gathered at
/// context creation.
struct VulkanDeviceRecord {
  backend::vk::DeviceFns fns{};                 ///< the device's entry points
  bool owned = false;                           ///< edgemem made the VkDevice (and destroys it)
  VkPhysicalDeviceMemoryProperties memory{};    ///< memory types and heaps
  VkPhysicalDeviceLimits limits{};              ///< the device's limits
};

}  // namespace edgemem
