// Vulkan backend: the submission engine of vk_submit.cpp (Queues' batches, held ones, host waits).
#pragma once
#include <new>

#include <edgemem/allocator.hpp>

#include "vk.hpp"

namespace edgemem::backend::vk {

/// Grows the array `items` (`count` used, `room` allocated from DefaultAllocator) to `want` entries,
/// the used ones copied. Errc: out_of_host_memory (`what`'s message; nothing changed).
template <class T>
[[nodiscard]] Result<void> grow(T*& items, std::uint32_t count, std::uint32_t& room, std::uint32_t want,
                                const char* what) noexcept {
  void* mem = DefaultAllocator::allocate(sizeof(T) * want, alignof(T));
  if (mem == nullptr) return fail(Errc::out_of_host_memory, what);
  auto* grown = static_cast<T*>(mem);
  for (std::uint32_t i = 0; i < count; ++i) new (&grown[i]) T(items[i]);
  if (items != nullptr) DefaultAllocator::deallocate(items, sizeof(T) * room, alignof(T));
  items = grown;
  room = want;
  return {};
}

/// What records a batch's commands into a command buffer (between edgemem's barriers); it may allocate
/// `staging`, which is kept until the batch has completed. Errc: its own (nothing is submitted then).
struct Recorder {
  void* context = nullptr;
  Result<void> (*record)(void* context, VkCommandBuffer cb, Allocation& staging) = nullptr;
  void* read_to = nullptr;     ///< an async read: where the first `read_bytes` of `staging` go once the batch ran
  std::size_t read_bytes = 0;  ///< with read_to
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

/// A batch on `q` of the caller's own recorded command buffer `cb` (vulkan_queue_submit): in q's order as
/// submit()'s are, signalling q's next value, which it returns. Errc: out_of_host_memory (nothing changed).
[[nodiscard]] Result<std::uint64_t> submit_external(VulkanQueueRecord& q, VkCommandBuffer cb) noexcept;

/// The events of `ev.waits` not known complete, as waits (at most kMaxBatchWaits).
std::uint32_t waits_of(const Vulkan::CommandEvents& ev, Wait* out) noexcept;

/// Whether every command enqueued on q so far and every event of `ev.waits` has completed (their
/// timelines asked when the cache lags; reads seen complete are copied out) and nothing of q is held:
/// then a marker has nothing to wait for, and the host may touch host-visible memory at once. No lock
/// may be held.
bool host_ready(VulkanQueueRecord& q, const Vulkan::CommandEvents& ev) noexcept;

/// Runs a command on q under `ev`: waits for ev.waits, records `rec` (none: a marker), then hands its
/// event to *ev.out (async) or waits for it (blocking). Errc: out_of_host_memory, out_of_device_memory,
/// the recorder's, backend_failure. A marker (no `rec`) for which host_ready() holds
/// submits nothing: its event is complete at once.
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

/// Raises q's completed cache to `value` (the host has seen q's timeline reach it), first copying out
/// the bytes of q's async reads up to it (vk_readback.cpp).
void note_completed(VulkanQueueRecord& q, std::uint64_t value) noexcept;

/// Makes room for `room` async reads of q (a new Queue: kRingDepth, so its reads allocate nothing while
/// the device keeps up). Under q.deliver_lock, or before q is used. Errc: out_of_host_memory (nothing changed).
[[nodiscard]] Result<void> grow_reads(VulkanQueueRecord& q, std::uint32_t room) noexcept;

/// Adds `r` to q's async reads (before its batch is submitted). Under q's lock. Errc: out_of_host_memory.
[[nodiscard]] Result<void> add_read(VulkanQueueRecord& q, const ReadBack& r) noexcept;

/// Before the host copies `bytes` bytes at `src` into a command (write, write_rect): waits on the host
/// for the async reads of `d`'s Queues whose bytes are not out yet and land in any of those bytes, so
/// that a command ordered after such a read (a wait list, a marker, queue order) sends what it read.
/// No lock may be held. Errc: backend_failure (as wait_value).
[[nodiscard]] Result<void> await_reads_into(VulkanDeviceRecord& d, const void* src, std::size_t bytes) noexcept;

/// After the host saw a value of some Queue of `d` complete (an event's wait or poll, a blocking command):
/// copies out the async reads of every other Queue whose values have completed too (a value seen through
/// another Queue that waited for it on the device: `qa.read_async; qb.marker({read}).wait()`). One load
/// when no read is pending. No lock may be held.
void deliver_completed(VulkanDeviceRecord& d) noexcept;

/// Forgets q's last async read (its batch was not submitted after all). Under q's lock.
void drop_last_read(VulkanQueueRecord& q) noexcept;

/// At q's teardown (nothing of q runs any more): copies out the reads of batches that ran (up to
/// `submitted`), forgets the others, and frees the list.
void finish_reads(VulkanQueueRecord& q, std::uint64_t submitted) noexcept;

/// backend_failure when q's `value` belongs to a batch the driver refused (or came after it).
[[nodiscard]] Result<void> failed(const VulkanQueueRecord& q, std::uint64_t value) noexcept;

}  // namespace edgemem::backend::vk
