// Vulkan backend: async reads. A read_async copies the bytes into staging on the device; the thread
// that first sees its batch complete (note_completed: an event's wait or poll, a blocking command or a
// finish of the Queue, a command buffer's reuse) copies them to the caller's memory, and only then
// raises the Queue's completed cache: no thread sees the read complete before its bytes are out, and
// the host never waits for a read it did not ask to wait for.
#include <cstring>

#include "vk_memory.hpp"
#include "vk_submit.hpp"

namespace edgemem::backend::vk {

namespace {

/// Copies out q's reads of values up to `value` (their batches ran) and forgets them. Under q.deliver_lock.
void deliver(VulkanQueueRecord& q, std::uint64_t value) noexcept {
  std::uint32_t done = 0;
  for (; done < q.read_count && q.reads[done].value <= value; ++done) {
    const ReadBack& r = q.reads[done];
    if (r.memory != VK_NULL_HANDLE) (void)host_sync(*q.device, r.memory, r.offset, r.span, r.memory_bytes, false);
    std::memcpy(r.to, r.from, r.bytes);
  }
  if (done == 0) return;
  q.device->pending_reads.fetch_sub(done, std::memory_order_acq_rel);
  for (std::uint32_t i = done; i < q.read_count; ++i) q.reads[i - done] = q.reads[i];
  q.read_count -= done;
}

}  // namespace

void note_completed(VulkanQueueRecord& q, std::uint64_t value) noexcept {
  std::uint64_t seen = q.completed.load(std::memory_order_acquire);
  if (seen >= value) return;
  std::lock_guard<std::mutex> guard(q.deliver_lock);
  if (q.read_count != 0) deliver(q, value);
  seen = q.completed.load(std::memory_order_relaxed);
  while (seen < value && !q.completed.compare_exchange_weak(seen, value, std::memory_order_acq_rel)) {
  }
}

Result<void> grow_reads(VulkanQueueRecord& q, std::uint32_t room) noexcept {
  return grow(q.reads, q.read_count, q.read_room, room, "no memory to keep a Vulkan async read");
}

Result<void> add_read(VulkanQueueRecord& q, const ReadBack& r) noexcept {
  std::lock_guard<std::mutex> guard(q.deliver_lock);
  if (q.read_count == q.read_room) EDGEMEM_TRY(grow_reads(q, q.read_room == 0 ? kRingDepth : q.read_room * 2));
  new (&q.reads[q.read_count++]) ReadBack(r);
  q.device->pending_reads.fetch_add(1, std::memory_order_acq_rel);
  return {};
}

Result<void> await_reads_into(VulkanDeviceRecord& d, const void* src, std::size_t bytes) noexcept {
  if (d.pending_reads.load(std::memory_order_acquire) == 0) return {};
  const auto* begin = static_cast<const std::byte*>(src);
  const std::byte* end = begin + bytes;
  for (;;) {  // one Queue at a time: wait_value takes the device's and the Queues' locks
    VulkanQueueRecord* wait_on = nullptr;
    std::uint64_t value = 0;
    {
      std::lock_guard<std::mutex> list(d.lock);
      for (VulkanQueueRecord* q = d.queues; q != nullptr && wait_on == nullptr; q = q->next) {
        std::lock_guard<std::mutex> guard(q->deliver_lock);
        for (std::uint32_t i = 0; i < q->read_count; ++i) {
          const auto* to = static_cast<const std::byte*>(q->reads[i].to);
          if (to < end && begin < to + q->reads[i].bytes) {
            wait_on = q;
            value = q->reads[i].value;
          }
        }
      }
    }
    if (wait_on == nullptr) return {};
    EDGEMEM_TRY(wait_value(*wait_on, value));  // copies them out (note_completed)
  }
}

void deliver_completed(VulkanDeviceRecord& d) noexcept {
  while (d.pending_reads.load(std::memory_order_acquire) != 0 && !exiting()) {
    VulkanQueueRecord* done = nullptr;
    std::uint64_t now = 0;
    {
      std::lock_guard<std::mutex> list(d.lock);
      for (VulkanQueueRecord* q = d.queues; q != nullptr && done == nullptr; q = q->next) {
        std::uint64_t oldest = 0;
        {
          std::lock_guard<std::mutex> guard(q->deliver_lock);
          if (q->read_count == 0) continue;
          oldest = q->reads[0].value;
        }
        if (d.fns.vkGetSemaphoreCounterValue(d.device, q->timeline, &now) == VK_SUCCESS && now >= oldest) done = q;
      }
    }
    if (done == nullptr) return;
    note_completed(*done, now);  // (outside the device's lock: it may invalidate staging)
  }
}

void drop_last_read(VulkanQueueRecord& q) noexcept {
  std::lock_guard<std::mutex> guard(q.deliver_lock);
  if (q.read_count == 0) return;
  --q.read_count;
  q.device->pending_reads.fetch_sub(1, std::memory_order_acq_rel);
}

void finish_reads(VulkanQueueRecord& q, std::uint64_t submitted) noexcept {
  std::lock_guard<std::mutex> guard(q.deliver_lock);
  if (!exiting()) deliver(q, submitted);  // exiting: no Vulkan call is safe, nobody waits for them
  q.device->pending_reads.fetch_sub(q.read_count, std::memory_order_acq_rel);
  q.read_count = 0;
  if (q.reads != nullptr) DefaultAllocator::deallocate(q.reads, sizeof(ReadBack) * q.read_room, alignof(ReadBack));
  q.reads = nullptr;
  q.read_room = 0;
}

}  // namespace edgemem::backend::vk
