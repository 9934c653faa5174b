// Vulkan backend: the submission engine of vk_submit.cpp (Queues' batches, held ones, host waits).
#pragma once
#include "vk.hpp"

namespace edgemem::backend::vk {

/// A batch on `q` that waits for `waits` (and the caller's semaphores vulkan_queue_wait gave q) and
/// signals q's next value, which it returns: submitted now when its waits are ready and nothing of q
/// is held, else held. Errc: out_of_host_memory (holding it; nothing changed). A driver refusal of the
/// submit shows in the value's waits (backend_failure).
[[nodiscard]] Result<std::uint64_t> submit(VulkanQueueRecord& q, const Wait* waits, std::uint32_t count) noexcept;

/// Submits every held batch of `d` whose waits are ready, until none is.
void flush_device(VulkanDeviceRecord& d) noexcept;

/// Waits on the host until q's `value` has completed (submitting held batches meanwhile).
/// Errc: backend_failure (the device was lost, or the batch was refused).
[[nodiscard]] Result<void> wait_value(VulkanQueueRecord& q, std::uint64_t value) noexcept;

/// Whether q's `value` has completed. Errc: backend_failure.
[[nodiscard]] Result<bool> value_complete(VulkanQueueRecord& q, std::uint64_t value) noexcept;

/// Raises q's completed cache to `value`.
void note_completed(VulkanQueueRecord& q, std::uint64_t value) noexcept;

/// backend_failure when q's `value` belongs to a batch the driver refused (or came after it).
[[nodiscard]] Result<void> failed(const VulkanQueueRecord& q, std::uint64_t value) noexcept;

}  // namespace edgemem::backend::vk
