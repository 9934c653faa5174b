/// @file backends/vulkan/backend.hpp  The Vulkan backend: the backend contract
/// (src/contract/backend_contract.hpp documents every operation) over Vulkan 1.2 core, the loader
/// (libvulkan.so.1) opened at run time (vk_loader.cpp), so one binary runs with or without a Vulkan
/// driver. Private: not installed. vulkan.h is included only by this folder's .cpp files (through
/// vk.hpp); every VkResult is mapped to an Errc in vk_loader.cpp and kept in Error::native.
///
/// The mapping (lluvia's vocabulary; the plan: docs/backends/vulkan.md):
/// - one platform whose devices are the physical devices with Vulkan 1.2, timeline semaphores and a
///   compute queue family (integrated, discrete and virtual GPUs: gpu; CPU implementations such as
///   lavapipe: cpu; others: accelerator); Context = a VkDevice with up to 8 queues of one compute family;
/// - still to come (issue #32, in steps): Queues over those VkQueues with a timeline semaphore each,
///   events as semaphore values, memory, transfers and maps. Until then queue_create and every buffer
///   operation answer unsupported.
#pragma once
#include "contract/backend_contract.hpp"

namespace edgemem::backend {

/// The Vulkan backend.
struct Vulkan : contract::BackendTypes {
  static constexpr const char* name = "vulkan";  ///< DeviceInfo::backend
  static constexpr unsigned groups = contract::group_device | contract::group_buffer;  ///< contract groups
  /// Commands run asynchronously on the device.
  static constexpr bool completes_at_enqueue = false;
  /// A blocking staged unmap waits for its upload, which an async one leaves to the device.
  static constexpr bool unmap_waits = true;

  EDGEMEM_DEVICE_OPERATIONS(EDGEMEM_DECLARE_OPERATION)
  EDGEMEM_BUFFER_OPERATIONS(EDGEMEM_DECLARE_OPERATION)
};

/// The backend this folder builds (src/contract/active.hpp).
using Selected = Vulkan;

}  // namespace edgemem::backend
