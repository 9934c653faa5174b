// Vulkan backend: the device's slots (its VkQueues), Queue records (a timeline semaphore each, reused
// once released and complete), markers, finish, events (values of a Queue's timeline, in records of
// the shared cache), and the caller's waits (vulkan_queue_wait).
#include <new>

#include <edgemem/allocator.hpp>

#include "contract/event_records.hpp"
#include "vk_memory.hpp"
#include "vk_submit.hpp"

namespace edgemem::backend {

namespace {

struct RecordOps {
  using Record = VulkanEvent;
  using Key = const void*;
  static Key key_of(const Record&) noexcept { return nullptr; }
  static void destroy(Record* e) noexcept {
    e->~VulkanEvent();
    DefaultAllocator::deallocate(e, sizeof(VulkanEvent), alignof(VulkanEvent));
  }
  static Result<Record*> make(Key) noexcept {
    void* mem = DefaultAllocator::allocate(sizeof(VulkanEvent), alignof(VulkanEvent));
    if (mem == nullptr) return fail(Errc::out_of_host_memory, "no memory for an event");
    return new (mem) VulkanEvent;
  }
};

using Records = contract::EventRecords<RecordOps>;

void unref_queue(VulkanQueueRecord* q) noexcept {
  if (q != nullptr) q->refs.fetch_sub(1, std::memory_order_acq_rel);  // at 0 it stays listed, free for reuse
}

/// A Queue record of `d` on `slot` with one reference: a released one whose batches have all been
/// submitted, else a new one with its timeline semaphore. Errc: out_of_host_memory, out_of_device_memory.
Result<VulkanQueueRecord*> take_queue(VulkanDeviceRecord& d, vk::Slot& slot) noexcept {
  {
    std::lock_guard<std::mutex> list(d.lock);
    for (VulkanQueueRecord* q = d.queues; q != nullptr; q = q->next) {
      std::uint32_t none = 0;
      std::lock_guard<std::mutex> guard(q->lock);
      if (q->batch_count != 0 || q->failed_from.load(std::memory_order_acquire) != 0) continue;
      if (!q->refs.compare_exchange_strong(none, 1, std::memory_order_acq_rel)) continue;
      q->slot = &slot;  // its timeline keeps counting from its last value
      ++slot.users;
      return q;
    }
  }
  void* mem = DefaultAllocator::allocate(sizeof(VulkanQueueRecord), alignof(VulkanQueueRecord));
  if (mem == nullptr) return fail(Errc::out_of_host_memory, "no memory for a Vulkan Queue record");
  VkSemaphoreTypeCreateInfo type{};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  VkSemaphore timeline = VK_NULL_HANDLE;
  const VkResult made = d.fns.vkCreateSemaphore(d.device, &info, nullptr, &timeline);
  if (made != VK_SUCCESS) {
    DefaultAllocator::deallocate(mem, sizeof(VulkanQueueRecord), alignof(VulkanQueueRecord));
    return vk::fail_vk(made);
  }
  auto* q = new (mem) VulkanQueueRecord;
  q->device = &d;
  q->slot = &slot;
  q->timeline = timeline;
  auto ring = vk::make_ring(*q);  // with the Queue: its commands allocate nothing afterwards
  if (!ring) {
    d.fns.vkDestroySemaphore(d.device, timeline, nullptr);
    q->~VulkanQueueRecord();
    DefaultAllocator::deallocate(mem, sizeof(VulkanQueueRecord), alignof(VulkanQueueRecord));
    return fail(ring.error());
  }
  q->refs.store(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> list(d.lock);
  ++slot.users;
  q->next = d.queues;
  d.queues = q;
  return q;
}

Vulkan::NativeQueue native_of(VulkanQueueRecord* q) noexcept {
  Vulkan::NativeQueue n;
  n.queue = q->slot->queue;
  n.device = q->device->device;
  n.family = q->device->family;
  n.index = static_cast<std::uint32_t>(q->slot - q->device->slots);
  n.submit_lock = &q->slot->lock;
  n.timeline = reinterpret_cast<std::uint64_t>(q->timeline);
  n.record = q;
  return n;
}

}  // namespace

namespace vk {

std::uint32_t waits_of(const Vulkan::CommandEvents& ev, Wait* out) noexcept {
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < ev.wait_count && n < kMaxBatchWaits; ++i) {
    const VulkanEvent* e = ev.waits[i];
    if (e == nullptr || e->queue == nullptr) continue;  // complete
    out[n++] = Wait{reinterpret_cast<VkSemaphore>(e->semaphore), e->value, e->queue, false};
  }
  return n;
}

bool host_ready(VulkanQueueRecord& q, const Vulkan::CommandEvents& ev) noexcept {
  std::uint64_t last = 0;
  {
    std::lock_guard<std::mutex> guard(q.lock);
    if (q.batch_count != 0 || q.extra_count != 0) return false;  // held, or a semaphore of the caller's to wait for
    last = q.assigned;
  }
  auto done = value_complete(q, last);  // (a refused batch answers an Error: the slow path reports it)
  if (!done || !*done) return false;
  for (std::size_t i = 0; i < ev.wait_count; ++i) {
    VulkanEvent* const e = ev.waits[i];
    if (e == nullptr || e->queue == nullptr) continue;
    done = value_complete(*e->queue, e->value);
    if (!done || !*done) return false;
  }
  return true;
}

Result<void> run(VulkanQueueRecord& q, const Vulkan::CommandEvents& ev, Recorder rec) noexcept {
  if (exiting()) return fail_exiting();
  if (rec.record == nullptr && host_ready(q, ev)) {  // a marker with nothing left to wait for: no batch
    deliver_completed(*q.device);
    reap(*q.device, false);
    return complete_event(ev);
  }
  Wait waits[kMaxBatchWaits];
  const std::uint32_t n = waits_of(ev, waits);
  Vulkan::NativeEvent record = nullptr;
  if (ev.out != nullptr) {
    EDGEMEM_TRY_ASSIGN(record, Records::take(nullptr));
  }
  auto value = submit(q, waits, n, rec);
  if (!value) {
    Records::give_back(record);
    return fail(value.error());
  }
  if (ev.out == nullptr) {  // blocking: what was retired behind the work it waited for goes now
    auto waited = wait_value(q, *value);
    deliver_completed(*q.device);
    reap(*q.device, false);
    return waited;
  }
  reap(*q.device, false);
  q.refs.fetch_add(1, std::memory_order_acq_rel);
  record->queue = &q;
  record->semaphore = reinterpret_cast<std::uint64_t>(q.timeline);
  record->value = *value;
  *ev.out = record;
  return {};
}

Result<void> complete_event(const Vulkan::CommandEvents& ev) noexcept {
  if (ev.out == nullptr) return {};
  EDGEMEM_TRY_ASSIGN(Vulkan::NativeEvent record, Records::take(nullptr));
  record->queue = nullptr;  // complete: no semaphore to wait for (a recycled record's are cleared)
  record->semaphore = 0;
  record->value = 0;
  *ev.out = record;
  return {};
}

Result<VulkanQueueRecord*> internal_queue(VulkanDeviceRecord& d) noexcept {
  {
    std::lock_guard<std::mutex> list(d.lock);
    if (d.internal != nullptr) return d.internal;
  }
  EDGEMEM_TRY_ASSIGN(VulkanQueueRecord * q, take_queue(d, d.slots[0]));
  std::lock_guard<std::mutex> list(d.lock);
  if (d.internal == nullptr) {
    d.internal = q;
    return q;
  }
  --q->slot->users;  // another thread made it meanwhile
  unref_queue(q);
  return d.internal;
}

Result<void> pool_events() noexcept { return Records::pool(nullptr); }

void drain_events() noexcept { Records::drain(nullptr); }

Result<void> init_device(VulkanDeviceRecord& record, VkDevice device, std::uint32_t family,
                         std::uint32_t queue_count) noexcept {
  EDGEMEM_TRY(load_device(device, record.fns));
  record.device = device;
  record.family = family;
  record.slot_count = queue_count < kMaxSlots ? queue_count : kMaxSlots;
  for (std::uint32_t i = 0; i < record.slot_count; ++i) record.fns.vkGetDeviceQueue(device, family, i, &record.slots[i].queue);
  return {};
}

void drain_device(VulkanDeviceRecord& d) noexcept {
  {
    std::lock_guard<std::mutex> guard(d.lock);
    d.flusher_stop = true;
    d.flusher_wake.notify_all();
  }
  if (d.flusher.joinable()) d.flusher.join();
  reap(d, true);
  const bool driver = !exiting();  // else no Vulkan call is safe: only the records go
  for (VulkanQueueRecord* q = d.queues; q != nullptr;) {
    VulkanQueueRecord* next = q->next;
    const std::uint64_t submitted = q->submitted.load(std::memory_order_acquire);
    VkSemaphoreWaitInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    info.semaphoreCount = 1;
    info.pSemaphores = &q->timeline;
    info.pValues = &submitted;
    if (driver) (void)d.fns.vkWaitSemaphores(d.device, &info, UINT64_MAX);  // held batches were never submitted
    free_recorded(*q);
    if (driver) d.fns.vkDestroySemaphore(d.device, q->timeline, nullptr);
    if (q->batches != nullptr) DefaultAllocator::deallocate(q->batches, sizeof(Batch) * q->batch_room, alignof(Batch));
    q->~VulkanQueueRecord();
    DefaultAllocator::deallocate(q, sizeof(VulkanQueueRecord), alignof(VulkanQueueRecord));
    q = next;
  }
  d.queues = nullptr;
  d.held.store(0, std::memory_order_release);
}

}  // namespace vk

Result<Vulkan::NativeQueue> Vulkan::queue_create(const NativeContext& ctx) noexcept {
  VulkanDeviceRecord& d = *ctx.record;
  vk::Slot* least = &d.slots[0];
  {
    std::lock_guard<std::mutex> list(d.lock);
    for (std::uint32_t i = 1; i < d.slot_count; ++i)
      if (d.slots[i].users < least->users) least = &d.slots[i];
  }
  EDGEMEM_TRY_ASSIGN(VulkanQueueRecord * q, take_queue(d, *least));
  return native_of(q);
}

Result<Vulkan::NativeQueue> Vulkan::queue_adopt(const NativeContext& ctx, NativeQueue q, AdoptMode) noexcept {
  if (q.queue == nullptr) return fail(Errc::invalid_argument, "adopt needs a VkQueue");
  VulkanDeviceRecord& d = *ctx.record;
  for (std::uint32_t i = 0; i < d.slot_count; ++i) {
    if (d.slots[i].queue != q.queue) continue;
    // A VkQueue has no reference count: retain and borrow alike. The adopted Queue gets a timeline of
    // its own; the caller's submits to the VkQueue must hold NativeQueue::submit_lock.
    EDGEMEM_TRY_ASSIGN(VulkanQueueRecord * r, take_queue(d, d.slots[i]));
    return native_of(r);
  }
  return fail(Errc::invalid_argument, "the VkQueue is not one of the context's queues (its family, index < queue_count)");
}

void Vulkan::queue_release(NativeQueue q) noexcept {
  if (q.record == nullptr) return;
  {  // waits no command took yet go with the Queue (a handed-over semaphore is nobody's now)
    VulkanQueueRecord& r = *q.record;
    std::lock_guard<std::mutex> guard(r.lock);
    for (std::uint32_t i = 0; i < r.extra_count; ++i)
      if (r.extra[i].owned && !vk::exiting()) r.device->fns.vkDestroySemaphore(r.device->device, r.extra[i].semaphore, nullptr);
    r.extra_count = 0;
  }
  {
    std::lock_guard<std::mutex> list(q.record->device->lock);
    --q.record->slot->users;
  }
  unref_queue(q.record);
}

Result<void> Vulkan::queue_finish(NativeQueue q) noexcept { return vk::run(*q.record, CommandEvents{}); }

Result<void> Vulkan::marker(NativeQueue q, const CommandEvents& ev) noexcept { return vk::run(*q.record, ev); }

Result<void> Vulkan::event_wait(NativeEvent e) noexcept {
  if (e == nullptr || e->queue == nullptr) return {};
  auto waited = vk::wait_value(*e->queue, e->value);
  vk::deliver_completed(*e->queue->device);  // reads of other Queues this one waited for
  return waited;
}

Result<bool> Vulkan::event_complete(NativeEvent e) noexcept {
  if (e == nullptr || e->queue == nullptr) return true;
  auto done = vk::value_complete(*e->queue, e->value);
  if (done && *done) vk::deliver_completed(*e->queue->device);  // reads of other Queues this one waited for
  return done;
}

void Vulkan::event_retain(NativeEvent e) noexcept { Records::retain(e); }

void Vulkan::event_release(NativeEvent e) noexcept {
  if (!Records::unref(e)) return;
  unref_queue(e->queue);
  e->queue = nullptr;
  Records::give_back(e);
}

}  // namespace edgemem::backend

edgemem::Result<void> edgemem::vulkan_queue_wait(const NativeQueue& q, std::uint64_t semaphore, std::uint64_t value,
                                                 bool adopt) noexcept {
  if (q.record == nullptr) return fail(Errc::released, "vulkan_queue_wait: not an edgemem Queue's native handle");
  if (semaphore == 0) return fail(Errc::invalid_argument, "vulkan_queue_wait: no semaphore");
  VulkanQueueRecord& r = *q.record;
  std::lock_guard<std::mutex> guard(r.lock);
  if (r.extra_count == sizeof r.extra / sizeof r.extra[0])
    return fail(Errc::out_of_host_memory, "vulkan_queue_wait: 8 waits are pending on this Queue already");
  r.extra[r.extra_count++] = edgemem::backend::vk::Wait{reinterpret_cast<VkSemaphore>(semaphore), value, nullptr, adopt};
  return {};
}

edgemem::Result<std::uint64_t> edgemem::vulkan_queue_submit(const NativeQueue& q, VkCommandBuffer_T* cb) noexcept {
  if (q.record == nullptr) return fail(Errc::released, "vulkan_queue_submit: not an edgemem Queue's native handle");
  if (cb == nullptr) return fail(Errc::invalid_argument, "vulkan_queue_submit: no command buffer");
  if (edgemem::backend::vk::exiting()) return edgemem::backend::vk::fail_exiting();
  return edgemem::backend::vk::submit_external(*q.record, cb);
}
