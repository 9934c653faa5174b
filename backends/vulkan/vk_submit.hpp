// Vulkan backend: the submission engine of vk_submit.cpp (Queues' batches, held ones, host waits).
#pragma once
#include "vk.hpp"

namespace edgemem::backend::vk {

/// What records a batch's commands into a command buffer (between edgemem's barriers); it may allocate
/// `staging`, which is kept until the batch has completed. Errc: its own (nothing is submitted then).
struct Recorder {
  void* context = nullptr;
  Result<void> (*record)(void* context, VkCommandBuffer cb, Allocation& staging) = nullptr;
};

/// A Recorder calling `f(cb, staging)`.
template <class F>
Recorder recorder(F& f) noexcept {
  return Recorder{&f, [](void* c, VkCommandBuffer cb, Allocation& staging) -> Result<void> {
                    return (*static_cast<F*>(c))(cb, staging);
                  }};
}

/// A batch on `q` that waits for `waits` (and the caller's semaphores vulkan_queue_wait gave q), runs
/// what `rec` records (none: a marker) and signals q's next value, which it returns: submitted now when
/// its waits are ready and nothing of q is held, else held. Errc: out_of_host_memory,
/// out_of_device_memory, or the recorder's (nothing changed). A driver refusal of the submit shows in
/// the value's waits (backend_failure).
[[nodiscard]] Result<std::uint64_t> submit(VulkanQueueRecord& q, const Wait* waits, std::uint32_t count,
                                           Recorder rec = {}) noexcept;

/// The events of `ev.waits` not known complete, as waits (at most kMaxBatchWaits).
std::uint32_t waits_of(const Vulkan::CommandEvents& ev, Wait* out) noexcept;

/// Runs a command on q under `ev`: waits for ev.waits, records `rec` (none: a marker), then hands its
/// event to *ev.out (async) or waits for it (blocking). Errc: out_of_host_memory, out_of_device_memory,
/// the recorder's, backend_failure.
[[nodiscard]] Result<void> run(VulkanQueueRecord& q, const Vulkan::CommandEvents& ev, Recorder rec = {}) noexcept;

/// Hands a completed event to *ev.out, when set (a command that finished on the host). Errc: out_of_host_memory.
[[nodiscard]] Result<void> complete_event(const Vulkan::CommandEvents& ev) noexcept;

/// The device's own Queue (initial contents of device-local memory), made on first use.
/// Errc: out_of_host_memory, out_of_device_memory.
[[nodiscard]] Result<VulkanQueueRecord*> internal_queue(VulkanDeviceRecord& d) noexcept;

/// Gives a new Queue record `q` its ring of kRingDepth command-buffer records, so that a Queue allocates
/// nothing for its commands after it is made (take_recorded). Errc: out_of_host_memory (nothing changed).
[[nodiscard]] Result<void> make_ring(VulkanQueueRecord& q) noexcept;

/// Frees q's command buffers and their staging (drain_device; nothing of q runs any more).
void free_recorded(VulkanQueueRecord& q) noexcept;

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
