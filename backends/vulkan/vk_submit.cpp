// Vulkan backend: submissions of Queues (a timeline semaphore each, over the device's VkQueues),
// and the flusher that submits the batches held for values whose signals are not submitted yet.
//
// Why batches are held: a batch may wait for a value whose signal is not submitted (another Queue's
// command held behind a gate, or the caller's semaphore). Vulkan allows that, but a device executes a
// VkQueue's submissions in order: on a single-queue device (lavapipe, many embedded GPUs) every later
// submit of every Queue would wait behind it. So a batch goes to vkQueueSubmit only when each of its
// waits is an edgemem value already submitted or a value the host has seen; until then it waits in
// its Queue's list (the Queue is in order: the batches after it wait too). Whoever submits a batch
// then submits the held ones it unblocks (flush_device); a thread submits those waiting for the
// caller's semaphores once the host sees them.
#include <chrono>
#include <cstring>
#include <new>

#include <edgemem/allocator.hpp>

#include "vk_memory.hpp"
#include "vk_submit.hpp"

namespace edgemem::backend::vk {

namespace {

/// Whether `w` may be submitted now: an edgemem value whose signal is submitted, or a value the host sees.
bool ready(const VulkanDeviceRecord& d, const Wait& w) noexcept {
  if (w.from != nullptr) return w.from->submitted.load(std::memory_order_acquire) >= w.value;
  std::uint64_t now = 0;
  return d.fns.vkGetSemaphoreCounterValue(d.device, w.semaphore, &now) == VK_SUCCESS && now >= w.value;
}

/// Hands one batch to q's VkQueue: waits `waits`, signals q's timeline at `value`. Under q's lock.
VkResult submit_now(VulkanQueueRecord& q, const Wait* waits, std::uint32_t count, std::uint64_t value,
                    VkCommandBuffer cb) noexcept {
  VkSemaphore sems[kMaxBatchWaits];
  std::uint64_t values[kMaxBatchWaits];
  VkPipelineStageFlags stages[kMaxBatchWaits];
  for (std::uint32_t i = 0; i < count; ++i) {
    sems[i] = waits[i].semaphore;
    values[i] = waits[i].value;
    stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  }
  VkTimelineSemaphoreSubmitInfo timeline{};
  timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline.waitSemaphoreValueCount = count;
  timeline.pWaitSemaphoreValues = values;
  timeline.signalSemaphoreValueCount = 1;
  timeline.pSignalSemaphoreValues = &value;
  VkSubmitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.pNext = &timeline;
  info.waitSemaphoreCount = count;
  info.pWaitSemaphores = sems;
  info.pWaitDstStageMask = stages;
  info.commandBufferCount = cb != VK_NULL_HANDLE ? 1 : 0;
  info.pCommandBuffers = &cb;
  info.signalSemaphoreCount = 1;
  info.pSignalSemaphores = &q.timeline;
  std::lock_guard<VulkanSubmitLock> guard(q.slot->lock);
  return q.device->fns.vkQueueSubmit(q.slot->queue, 1, &info, VK_NULL_HANDLE);
}

/// Marks `value` submitted (or, when the driver refused the batch, signalled from the host so nobody
/// waits for it forever, and remembered as failed). Under q's lock.
void settle(VulkanQueueRecord& q, std::uint64_t value, VkResult status) noexcept {
  if (status != VK_SUCCESS) {
    std::uint64_t none = 0;
    (void)q.failed_from.compare_exchange_strong(none, value, std::memory_order_acq_rel);
    VkSemaphoreSignalInfo signal{};
    signal.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
    signal.semaphore = q.timeline;
    signal.value = value;
    (void)q.device->fns.vkSignalSemaphore(q.device->device, &signal);
  }
  q.submitted.store(value, std::memory_order_release);
}

/// Destroys q's handed-over semaphores whose batches have completed (`all`: every one; nothing runs).
/// Under q's lock.
void sweep_owned(VulkanQueueRecord& q, bool all) noexcept {
  const std::uint64_t completed = q.completed.load(std::memory_order_acquire);
  std::uint32_t kept = 0;
  for (std::uint32_t i = 0; i < q.owned_count; ++i) {
    if (all || q.owned[i].value <= completed) q.device->fns.vkDestroySemaphore(q.device->device, q.owned[i].semaphore, nullptr);
    else q.owned[kept++] = q.owned[i];
  }
  q.owned_count = kept;
}

/// Remembers the handed-over semaphores among `waits` of q's batch `value`, to destroy once it has run
/// (with no room left, waits for q's earlier values first). Under q's lock.
void keep_owned(VulkanQueueRecord& q, const Wait* waits, std::uint32_t count, std::uint64_t value) noexcept {
  for (std::uint32_t i = 0; i < count; ++i) {
    if (!waits[i].owned) continue;
    if (q.owned_count == sizeof q.owned / sizeof q.owned[0]) {
      std::uint64_t now = 0;
      if (q.device->fns.vkGetSemaphoreCounterValue(q.device->device, q.timeline, &now) == VK_SUCCESS) note_completed(q, now);
      sweep_owned(q, false);
    }
    if (q.owned_count < sizeof q.owned / sizeof q.owned[0]) q.owned[q.owned_count++] = Owned{waits[i].semaphore, value};
  }
}

/// Submits q's held batches from the oldest while their waits are ready. Under q's lock. True when
/// one was submitted.
bool flush_queue(VulkanQueueRecord& q) noexcept {
  bool progress = false;
  std::uint32_t done = 0;
  for (; done < q.batch_count; ++done) {
    const Batch& b = q.batches[done];
    bool all = true;
    for (std::uint32_t i = 0; i < b.wait_count && all; ++i) all = ready(*q.device, b.waits[i]);
    if (!all) break;
    settle(q, b.value, submit_now(q, b.waits, b.wait_count, b.value, b.cb));
    keep_owned(q, b.waits, b.wait_count, b.value);
    progress = true;
  }
  if (done != 0) {
    for (std::uint32_t i = done; i < q.batch_count; ++i) q.batches[i - done] = q.batches[i];
    q.batch_count -= done;
    q.device->held.fetch_sub(done, std::memory_order_acq_rel);
  }
  return progress;
}

/// Appends a held batch to q's list. Under q's lock. Errc: out_of_host_memory (nothing changed).
Result<void> hold(VulkanQueueRecord& q, const Wait* waits, std::uint32_t count, std::uint64_t value,
                  VkCommandBuffer cb) noexcept {
  if (q.batch_count == q.batch_room)
    EDGEMEM_TRY(grow(q.batches, q.batch_count, q.batch_room, q.batch_room == 0 ? 4 : q.batch_room * 2,
                     "no memory to hold a Vulkan submission"));
  Batch* b = new (&q.batches[q.batch_count]) Batch;
  b->cb = cb;
  b->value = value;
  b->wait_count = count;
  for (std::uint32_t i = 0; i < count; ++i) b->waits[i] = waits[i];
  ++q.batch_count;
  q.device->held.fetch_add(1, std::memory_order_acq_rel);
  return {};
}

/// The flusher: while batches are held, submits those the host's signals unblock (polling every
/// millisecond: the values it waits for are the caller's, signalled outside edgemem).
void flusher_main(VulkanDeviceRecord* d) noexcept {
  std::unique_lock<std::mutex> lock(d->lock);
  while (!d->flusher_stop) {
    if (d->held.load(std::memory_order_acquire) == 0 || exiting()) {  // exiting: no Vulkan call is safe
      d->flusher_wake.wait(lock);
      continue;
    }
    lock.unlock();
    flush_device(*d);
    lock.lock();
    if (d->held.load(std::memory_order_acquire) != 0) d->flusher_wake.wait_for(lock, std::chrono::milliseconds(1));
  }
}

/// Starts d's flusher if it is not running. Errc: out_of_host_memory (no thread).
void wake_flusher(VulkanDeviceRecord& d) noexcept {
  std::lock_guard<std::mutex> guard(d.lock);
  if (!d.flusher_running) {
    d.flusher = std::thread(flusher_main, &d);  // -fno-exceptions: a failed start aborts, as std::thread does
    d.flusher_running = true;
  }
  d.flusher_wake.notify_one();
}


/// Grows q's ring of command-buffer records to `room` entries. Under q's lock (or before q is shared).
/// Errc: out_of_host_memory (nothing changed).
Result<void> grow_ring(VulkanQueueRecord& q, std::uint32_t room) noexcept {
  return grow(q.recorded, q.recorded_count, q.recorded_room, room, "no memory for a Vulkan command buffer record");
}

/// `r`'s command buffer reset and its staging released, for a new batch. Under q's lock.
/// Errc: out_of_host_memory, out_of_device_memory.
Result<Recorded*> reuse(VulkanQueueRecord& q, Recorded& r) noexcept {
  EDGEMEM_TRY(check(q.device->fns.vkResetCommandBuffer(r.cb, 0)));
  release(*q.device, r.staging);
  return &r;
}

/// A command buffer of q free for a new batch (its value completed), reset, its staging released; or a
/// new one while the ring has room. With kRingDepth batches of q pending, the host waits for the
/// oldest when it is submitted (it and everything it waits for are on the device already: nothing
/// but the device's progress is waited for); the ring grows only past batches that are held (a gate:
/// the host never waits for those). So a Queue the device keeps up with allocates nothing after it is
/// made, however far the host runs ahead. Under q's lock. Errc: out_of_host_memory,
/// out_of_device_memory, backend_failure (the device was lost).
Result<Recorded*> take_recorded(VulkanQueueRecord& q) noexcept {
  VulkanDeviceRecord& d = *q.device;
  std::uint64_t completed = q.completed.load(std::memory_order_acquire);
  bool refreshed = false;
  Recorded* oldest = nullptr;
  for (std::uint32_t i = 0; i < q.recorded_count; ++i) {
    Recorded& r = q.recorded[i];
    if (r.value > completed && !refreshed) {
      refreshed = true;
      std::uint64_t now = 0;
      if (d.fns.vkGetSemaphoreCounterValue(d.device, q.timeline, &now) == VK_SUCCESS) {
        note_completed(q, now);
        completed = q.completed.load(std::memory_order_acquire);
      }
    }
    if (r.value <= completed) return reuse(q, r);
    if (oldest == nullptr || r.value < oldest->value) oldest = &r;
  }
  if (q.recorded_count == q.recorded_room && oldest != nullptr &&
      oldest->value <= q.submitted.load(std::memory_order_acquire)) {
    VkSemaphoreWaitInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    info.semaphoreCount = 1;
    info.pSemaphores = &q.timeline;
    info.pValues = &oldest->value;
    EDGEMEM_TRY(check(d.fns.vkWaitSemaphores(d.device, &info, UINT64_MAX)));
    note_completed(q, oldest->value);
    return reuse(q, *oldest);
  }
  if (q.pool == VK_NULL_HANDLE) {
    VkCommandPoolCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    info.queueFamilyIndex = d.family;
    EDGEMEM_TRY(check(d.fns.vkCreateCommandPool(d.device, &info, nullptr, &q.pool)));
  }
  if (q.recorded_count == q.recorded_room) EDGEMEM_TRY(grow_ring(q, q.recorded_room == 0 ? kRingDepth : q.recorded_room * 2));
  VkCommandBufferAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  info.commandPool = q.pool;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  Recorded* r = new (&q.recorded[q.recorded_count]) Recorded;
  EDGEMEM_TRY(check(d.fns.vkAllocateCommandBuffers(d.device, &info, &r->cb)));
  ++q.recorded_count;
  return r;
}

/// A global barrier in `cb`: what `src` stages wrote (`src_access`) is visible to `dst` stages.
void barrier(const DeviceFns& f, VkCommandBuffer cb, VkPipelineStageFlags src, VkAccessFlags src_access,
             VkPipelineStageFlags dst, VkAccessFlags dst_access) noexcept {
  VkMemoryBarrier b{};
  b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  f.vkCmdPipelineBarrier(cb, src, dst, 0, 1, &b, 0, nullptr, 0, nullptr);
}

/// Records `rec`'s commands into `r`'s buffer between the barriers that order them after everything
/// submitted before on the VkQueue and make them visible to everything after, and the host. Under q's lock.
Result<void> record(VulkanQueueRecord& q, Recorded& r, Recorder rec) noexcept {
  const DeviceFns& f = q.device->fns;
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  EDGEMEM_TRY(check(f.vkBeginCommandBuffer(r.cb, &begin)));
  barrier(f, r.cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT,
          VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  auto recorded = rec.record(rec.context, r.cb, r.staging);
  barrier(f, r.cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
  const VkResult ended = f.vkEndCommandBuffer(r.cb);
  if (!recorded) {
    release(*q.device, r.staging);
    return recorded;
  }
  return check(ended);
}

}  // namespace

void flush_device(VulkanDeviceRecord& d) noexcept {
  if (exiting()) return;
  bool progress = true;
  while (progress && d.held.load(std::memory_order_acquire) != 0) {
    progress = false;
    std::lock_guard<std::mutex> list(d.lock);
    for (VulkanQueueRecord* q = d.queues; q != nullptr; q = q->next) {
      std::lock_guard<std::mutex> guard(q->lock);
      if (q->batch_count != 0 && flush_queue(*q)) progress = true;
    }
  }
  d.progress.notify_all();
}

namespace {

/// submit() and submit_external(): the batch of `external` (the caller's) or of what `rec` records.
Result<std::uint64_t> submit_batch(VulkanQueueRecord& q, const Wait* waits, std::uint32_t count, Recorder rec,
                                   VkCommandBuffer external) noexcept {
  Wait all[kMaxBatchWaits];
  std::uint32_t n = 0;
  bool submitted = false;
  std::uint64_t value = 0;
  {
    std::lock_guard<std::mutex> guard(q.lock);
    for (std::uint32_t i = 0; i < q.extra_count && n < kMaxBatchWaits; ++i) all[n++] = q.extra[i];
    for (std::uint32_t i = 0; i < count && n < kMaxBatchWaits; ++i) {
      const Wait& w = waits[i];
      if (w.from == &q) continue;  // its own earlier values: the Queue is in order
      if (w.from != nullptr && w.from->completed.load(std::memory_order_acquire) >= w.value) continue;
      all[n++] = w;
    }
    VkCommandBuffer cb = external;
    Recorded* r = nullptr;
    if (rec.record != nullptr) {
      EDGEMEM_TRY_ASSIGN(r, take_recorded(q));
      EDGEMEM_TRY(record(q, *r, rec));
      cb = r->cb;
    }
    value = q.assigned + 1;
    if (rec.read_to != nullptr) {  // known before any thread can see `value` complete
      const ReadBack back{value, r->staging.host, rec.read_to, rec.read_bytes,
                          r->staging.coherent ? VK_NULL_HANDLE : r->staging.memory, r->staging.offset,
                          r->staging.block != nullptr ? r->staging.bytes : VK_WHOLE_SIZE,
                          memory_bytes_of(r->staging.block, r->staging.reserved)};
      auto added = add_read(q, back);
      if (!added) {
        release(*q.device, r->staging);
        return fail(added.error());
      }
    }
    bool go = q.batch_count == 0;
    for (std::uint32_t i = 0; i < n && go; ++i) go = ready(*q.device, all[i]);
    sweep_owned(q, false);
    if (go) {
      settle(q, value, submit_now(q, all, n, value, cb));
      keep_owned(q, all, n, value);
      submitted = true;
    } else {
      auto held = hold(q, all, n, value, cb);
      if (!held) {
        if (rec.read_to != nullptr) drop_last_read(q);
        if (r != nullptr) release(*q.device, r->staging);
        return fail(held.error());
      }
    }
    if (r != nullptr) r->value = value;
    q.assigned = value;
    q.extra_count = 0;
  }
  VulkanDeviceRecord& d = *q.device;
  if (!submitted) wake_flusher(d);
  else if (d.held.load(std::memory_order_acquire) != 0) flush_device(d);  // it may unblock others
  return value;
}

}  // namespace

Result<std::uint64_t> submit(VulkanQueueRecord& q, const Wait* waits, std::uint32_t count, Recorder rec) noexcept {
  return submit_batch(q, waits, count, rec, VK_NULL_HANDLE);
}

Result<std::uint64_t> submit_external(VulkanQueueRecord& q, VkCommandBuffer cb) noexcept {
  return submit_batch(q, nullptr, 0, Recorder{}, cb);
}

Result<void> wait_value(VulkanQueueRecord& q, std::uint64_t value) noexcept {
  if (exiting()) return fail_exiting();
  VulkanDeviceRecord& d = *q.device;
  while (q.submitted.load(std::memory_order_acquire) < value) {
    flush_device(d);
    std::unique_lock<std::mutex> lock(d.lock);
    if (q.submitted.load(std::memory_order_acquire) < value) d.progress.wait_for(lock, std::chrono::milliseconds(1));
  }
  if (q.completed.load(std::memory_order_acquire) < value) {
    VkSemaphoreWaitInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    info.semaphoreCount = 1;
    info.pSemaphores = &q.timeline;
    info.pValues = &value;
    EDGEMEM_TRY(check(d.fns.vkWaitSemaphores(d.device, &info, UINT64_MAX)));
    note_completed(q, value);
  }
  return failed(q, value);
}

Result<bool> value_complete(VulkanQueueRecord& q, std::uint64_t value) noexcept {
  if (q.completed.load(std::memory_order_acquire) < value) {
    if (exiting()) return fail_exiting();
    if (q.submitted.load(std::memory_order_acquire) < value) return false;
    std::uint64_t now = 0;
    EDGEMEM_TRY(check(q.device->fns.vkGetSemaphoreCounterValue(q.device->device, q.timeline, &now)));
    if (now < value) return false;
    note_completed(q, now);
  }
  EDGEMEM_TRY(failed(q, value));
  return true;
}

Result<void> failed(const VulkanQueueRecord& q, std::uint64_t value) noexcept {
  const std::uint64_t from = q.failed_from.load(std::memory_order_acquire);
  if (from != 0 && value >= from)
    return fail(Errc::backend_failure, "Vulkan backend: the driver refused a held submission of this Queue (vkQueueSubmit)");
  return {};
}

Result<void> make_ring(VulkanQueueRecord& q) noexcept {
  EDGEMEM_TRY(grow_reads(q, kRingDepth));
  auto ring = grow_ring(q, kRingDepth);
  if (!ring) finish_reads(q, 0);  // frees the reads' room again
  return ring;
}

void free_recorded(VulkanQueueRecord& q) noexcept {
  VulkanDeviceRecord& d = *q.device;
  finish_reads(q, q.submitted.load(std::memory_order_acquire));
  if (exiting()) {  // no Vulkan call is safe: only the records go (the process's end takes the objects)
    q.owned_count = 0;
    if (q.recorded != nullptr) DefaultAllocator::deallocate(q.recorded, sizeof(Recorded) * q.recorded_room, alignof(Recorded));
    q.pool = VK_NULL_HANDLE;
    q.recorded = nullptr;
    q.recorded_count = q.recorded_room = 0;
    return;
  }
  sweep_owned(q, true);
  for (std::uint32_t i = 0; i < q.batch_count; ++i)  // held, never submitted: their handed-over semaphores too
    for (std::uint32_t j = 0; j < q.batches[i].wait_count; ++j)
      if (q.batches[i].waits[j].owned) d.fns.vkDestroySemaphore(d.device, q.batches[i].waits[j].semaphore, nullptr);
  for (std::uint32_t j = 0; j < q.extra_count; ++j)
    if (q.extra[j].owned) d.fns.vkDestroySemaphore(d.device, q.extra[j].semaphore, nullptr);
  for (std::uint32_t i = 0; i < q.recorded_count; ++i) release(d, q.recorded[i].staging);
  if (q.pool != VK_NULL_HANDLE) d.fns.vkDestroyCommandPool(d.device, q.pool, nullptr);  // frees its buffers
  if (q.recorded != nullptr) DefaultAllocator::deallocate(q.recorded, sizeof(Recorded) * q.recorded_room, alignof(Recorded));
  q.pool = VK_NULL_HANDLE;
  q.recorded = nullptr;
  q.recorded_count = q.recorded_room = 0;
}

}  // namespace edgemem::backend::vk
