// Vulkan backend: the loader (libvulkan.so.1) opened at run time, the process instance, the device
// entry points, and VkResult -> Errc.
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>

#include "contract/loaded_api.hpp"
#include "vk.hpp"

namespace edgemem::backend::vk {

namespace {

#define EDGEMEM_VK_STR2_(x) #x
#define EDGEMEM_VK_STR_(x) EDGEMEM_VK_STR2_(x)

using Loaded = contract::LoadedApi<Loader>;

std::atomic<bool> g_exiting{false};  // set by the exit handler load_once registers

Loaded load_once() noexcept {
  Loaded l;
  // Never closed: the instance and every device live as long as the process uses them.
  void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    l.error = Error{Errc::unsupported, 0,
                    "Vulkan backend: the Vulkan loader libvulkan.so.1 could not be loaded (no Vulkan installed, or "
                    "not on the loader's path)"};
    return l;
  }
  l.api.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
  if (l.api.vkGetInstanceProcAddr == nullptr) {
    l.error = Error{Errc::unsupported, 0, "Vulkan backend: libvulkan.so.1 lacks vkGetInstanceProcAddr"};
    return l;
  }
#define EDGEMEM_VK_LOOKUP_(fn, instance)                                                                      \
  l.api.fn = reinterpret_cast<PFN_##fn>(l.api.vkGetInstanceProcAddr(instance, EDGEMEM_VK_STR_(fn)));  \
  if (l.api.fn == nullptr) {                                                                             \
    l.error = Error{Errc::unsupported, 0, "Vulkan backend: the loader lacks " EDGEMEM_VK_STR_(fn) " (Vulkan < 1.2)"}; \
    return l;                                                                                               \
  }
#define EDGEMEM_VK_GLOBAL_(fn) EDGEMEM_VK_LOOKUP_(fn, VK_NULL_HANDLE)
  EDGEMEM_VK_GLOBAL_ENTRY_POINTS(EDGEMEM_VK_GLOBAL_)
  std::uint32_t version = 0;
  if (l.api.vkEnumerateInstanceVersion(&version) != VK_SUCCESS || version < VK_API_VERSION_1_2) {
    l.error = Error{Errc::unsupported, static_cast<std::int32_t>(version),
                    "Vulkan backend: the loader offers Vulkan < 1.2 (Error::native holds its version)"};
    return l;
  }
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pEngineName = "edgemem";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  const VkResult made = l.api.vkCreateInstance(&info, nullptr, &l.api.instance);
  if (made != VK_SUCCESS) {
    l.error = Error{Errc::unsupported, static_cast<std::int32_t>(made),
                    "Vulkan backend: vkCreateInstance failed (no driver: Error::native holds the VkResult)"};
    return l;
  }
  // The instance has loaded the layers and the driver, whose destructors are registered by now: an exit
  // handler registered after them runs before them, and tells every later release to leave Vulkan alone
  // (a static made before this, such as a Context, is destroyed after them).
  (void)std::atexit([] { g_exiting.store(true, std::memory_order_release); });
  const VkInstance instance = l.api.instance;
#define EDGEMEM_VK_INSTANCE_(fn) EDGEMEM_VK_LOOKUP_(fn, instance)
  EDGEMEM_VK_INSTANCE_ENTRY_POINTS(EDGEMEM_VK_INSTANCE_)
#undef EDGEMEM_VK_INSTANCE_
#undef EDGEMEM_VK_GLOBAL_
#undef EDGEMEM_VK_LOOKUP_
  l.ok = true;
  return l;
}

const Loaded& loaded() noexcept { return contract::loaded<Loader, load_once>(); }

constexpr contract::ErrcOf<VkResult> kMap[] = {
    {VK_ERROR_OUT_OF_HOST_MEMORY, Errc::out_of_host_memory},
    {VK_ERROR_OUT_OF_DEVICE_MEMORY, Errc::out_of_device_memory},
    {VK_ERROR_TOO_MANY_OBJECTS, Errc::out_of_device_memory},
    {VK_ERROR_FEATURE_NOT_PRESENT, Errc::unsupported},
    {VK_ERROR_EXTENSION_NOT_PRESENT, Errc::unsupported},
    {VK_ERROR_INCOMPATIBLE_DRIVER, Errc::unsupported},
    {VK_ERROR_INITIALIZATION_FAILED, Errc::unsupported},
    {VK_ERROR_MEMORY_MAP_FAILED, Errc::backend_failure},
    {VK_ERROR_DEVICE_LOST, Errc::backend_failure},
};

}  // namespace

Result<const Loader*> load() noexcept { return contract::api_or_error(loaded()); }

const Loader& loader() noexcept { return loaded().api; }

bool exiting() noexcept { return g_exiting.load(std::memory_order_acquire); }

Failure fail_exiting() noexcept {
  return fail(Errc::backend_failure, "Vulkan backend: the process is exiting (the Vulkan layers and driver may be gone)");
}

Result<void> load_device(VkDevice device, DeviceFns& out) noexcept {
  const Loader& l = loader();
#define EDGEMEM_VK_DEVICE_(fn)                                                                         \
  out.fn = reinterpret_cast<PFN_##fn>(l.vkGetDeviceProcAddr(device, EDGEMEM_VK_STR_(fn)));           \
  if (out.fn == nullptr) return fail(Errc::unsupported, "Vulkan backend: the device lacks " EDGEMEM_VK_STR_(fn));
  EDGEMEM_VK_DEVICE_ENTRY_POINTS(EDGEMEM_VK_DEVICE_)
#undef EDGEMEM_VK_DEVICE_
  return {};
}

Error to_error(VkResult status) noexcept {
  return Error{contract::errc_of(status, kMap), static_cast<std::int32_t>(status), "Vulkan call failed; Error::native holds the VkResult"};
}

}  // namespace edgemem::backend::vk
