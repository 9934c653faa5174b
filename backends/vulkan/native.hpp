/// @file native.hpp  The native handle types of the Vulkan backend, for interop (installed as
/// edgemem/native.hpp when edgemem is built with -Dmemory_backend=vulkan), declared without vulkan.h:
/// dispatchable handles as their `_T*` types, non-dispatchable ones (VkBuffer, VkDeviceMemory,
/// VkSemaphore) as std::uint64_t, which is what they are on 32-bit targets and what their pointers
/// convert to on 64-bit ones. Every handle compares with == and !=, on every backend.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <edgemem/result.hpp>

struct VkInstance_T;
struct VkPhysicalDevice_T;
struct VkDevice_T;
struct VkQueue_T;
struct VkCommandBuffer_T;

namespace edgemem {

struct VulkanDeviceRecord;  // the backend's per-device state (queues, pools, limits)
struct VulkanBlock;         // a VkDeviceMemory small buffers share
struct VulkanQueueRecord;   // the backend's per-Queue state (timeline semaphore, command buffers)

/// The lock every vkQueueSubmit on one VkQueue holds (NativeQueue::submit_lock): BasicLockable, so
/// std::lock_guard<VulkanSubmitLock> works. Complete here: the caller's own submits take it too.
struct VulkanSubmitLock {
  std::mutex mutex;                  ///< the lock itself
  void lock() { mutex.lock(); }      ///< takes it
  void unlock() { mutex.unlock(); }  ///< gives it back
};

/// Device features a NativeContext says its VkDevice was made with (bits of NativeContext::features).
enum VulkanFeature : std::uint32_t {
  vulkan_timeline_semaphore = 1u << 0,  ///< VkPhysicalDeviceVulkan12Features::timelineSemaphore (required)
  vulkan_buffer_device_address = 1u << 1,  ///< bufferDeviceAddress
  vulkan_external_memory_host = 1u << 2,   ///< VK_EXT_external_memory_host enabled (zero-copy Buffer::wrap)
};

/// Native context handles: the instance, physical device and device edgemem uses, with the queue
/// family (and how many of its queues) the device was made with. To adopt a VkDevice made elsewhere,
/// fill every field but `record` (Vulkan cannot tell which queues and features a device has).
struct NativeContext {
  VkInstance_T* instance = nullptr;        ///< VkInstance
  VkPhysicalDevice_T* physical = nullptr;  ///< VkPhysicalDevice
  VkDevice_T* device = nullptr;            ///< VkDevice
  std::uint32_t queue_family = 0;          ///< the compute queue family edgemem submits to
  std::uint32_t queue_count = 0;           ///< queues of that family the device was made with
  std::uint32_t features = 0;              ///< VulkanFeature bits the device was made with
  VulkanDeviceRecord* record = nullptr;    ///< edgemem's state of the device (null when adopting)
  /// Same device.
  friend bool operator==(const NativeContext& a, const NativeContext& b) noexcept {
    return a.device == b.device && a.physical == b.physical && a.instance == b.instance;
  }
  /// Another device.
  friend bool operator!=(const NativeContext& a, const NativeContext& b) noexcept { return !(a == b); }
};

/// Native queue handles. Several edgemem Queues may share one VkQueue: each has its own timeline
/// semaphore. Submit your dispatches between begin_native and end_native with vulkan_queue_submit, which
/// keeps them in the Queue's order; any other vkQueueSubmit of yours on `queue` must hold `submit_lock`
/// (a VkQueue is externally synchronized) and is ordered only after what edgemem has submitted so far:
/// nothing of edgemem's waits for it (a marker or finish() whose Queue has nothing left to run submits
/// nothing), so wait for it yourself before edgemem's commands touch what it writes.
struct NativeQueue {
  VkQueue_T* queue = nullptr;              ///< VkQueue
  VkDevice_T* device = nullptr;            ///< VkDevice of the queue
  std::uint32_t family = 0;                ///< queue family index
  std::uint32_t index = 0;                 ///< queue index within the family
  VulkanSubmitLock* submit_lock = nullptr; ///< lock() / unlock() around your own vkQueueSubmit
  std::uint64_t timeline = 0;              ///< VkSemaphore (timeline) this Queue's commands signal
  VulkanQueueRecord* record = nullptr;     ///< edgemem's state of the Queue
  /// Same Queue (two Queues over one VkQueue are different queues).
  friend bool operator==(const NativeQueue& a, const NativeQueue& b) noexcept {
    return a.record == b.record && a.queue == b.queue;
  }
  /// Another Queue.
  friend bool operator!=(const NativeQueue& a, const NativeQueue& b) noexcept { return !(a == b); }
};

/// How a root's memory was obtained, and so what releasing it does.
enum class VulkanMemKind : std::uint8_t {
  none,      ///< no memory
  device,    ///< a VkBuffer and its own VkDeviceMemory, not host-visible: maps are staged
  mapped,    ///< a VkBuffer and its own host-visible VkDeviceMemory, mapped for its life: maps are zero-copy
  shadowed,  ///< a device copy of caller memory (wrap), synchronised at map and unmap (VulkanRoot::caller)
  borrowed,  ///< a VkBuffer edgemem does not own (adopted): nothing is released
};

/// What one root allocation holds, shared by the NativeMem of the root and of its views (Vulkan has no
/// sub-buffer objects: a view is a range of its root's VkBuffer). Released with its last NativeMem.
struct VulkanRoot {
  std::uint64_t memory = 0;          ///< VkDeviceMemory bound to the root's VkBuffer (0: unknown, adopted)
  std::uint64_t memory_offset = 0;   ///< where the root's VkBuffer is bound in `memory`, bytes (roots of up
                                     ///< to 1 MiB share memory blocks: maxMemoryAllocationCount)
  VulkanBlock* block = nullptr;      ///< the block `memory` is (null: memory of the root's own)
  std::uint64_t reserved = 0;        ///< the block's bytes the root holds
  std::uint64_t device_address = 0;  ///< vkGetBufferDeviceAddress of the root's first byte (0: none)
  VulkanMemKind kind = VulkanMemKind::none;  ///< what releasing it does
  std::atomic<std::uint32_t> refs{1};        ///< the root's NativeMem and each view's
  VulkanDeviceRecord* device = nullptr;      ///< the device it belongs to
  std::uint64_t bytes = 0;                   ///< size of the allocation
  bool coherent = true;                      ///< host-visible memory needing no flush or invalidate
  void* caller = nullptr;  ///< shadowed: the caller memory of the root's first byte (NativeMem::offset 0)
  bool device_read_only = false;  ///< made MemFlags::read_only: kernels only read it
  /// A shadow some edgemem command has written (write, fill, copy, rects, unmap): its maps refresh the
  /// caller memory; one made MemFlags::read_only and never written equals it (the pages may be PROT_READ).
  std::atomic<bool> shadow_written{false};
};

/// Native memory handle: a range of a VkBuffer. For a descriptor, bind `buffer` at `offset`, `size` bytes.
struct NativeMem {
  std::uint64_t buffer = 0;   ///< VkBuffer
  std::uint64_t offset = 0;   ///< first byte within `buffer`
  std::uint64_t size = 0;     ///< bytes
  void* host = nullptr;       ///< host address of the first byte when the memory stays mapped, else null
  VulkanRoot* root = nullptr; ///< the allocation it is a range of (its memory and device address)
  /// The same range of the same object.
  friend bool operator==(const NativeMem& a, const NativeMem& b) noexcept {
    return a.buffer == b.buffer && a.offset == b.offset && a.size == b.size && a.root == b.root;
  }
  /// Another object or range.
  friend bool operator!=(const NativeMem& a, const NativeMem& b) noexcept { return !(a == b); }
};

/// An edgemem event: a value of a Queue's timeline semaphore, with the reference count edgemem's events
/// need. Wait for it in your own submits with `semaphore` >= `value`, unless `semaphore` is 0: a command
/// the host finished at once (nothing left to wait for) has none.
struct VulkanEvent {
  VulkanQueueRecord* queue = nullptr;  ///< the Queue it belongs to (null: complete, and `semaphore` 0)
  std::uint64_t semaphore = 0;         ///< VkSemaphore (timeline)
  std::uint64_t value = 0;             ///< the value the command signals
  std::atomic<std::uint32_t> refs{1};  ///< references; the last release gives it back to the backend
  bool pooled = false;                 ///< kept for reuse when released (the record cache's)
};

/// Native event handle: a VulkanEvent (null: none).
using NativeEvent = VulkanEvent*;

/// Makes the next command of Queue `q` (and so every later one: queues are in order) wait until the
/// timeline semaphore `semaphore` (a VkSemaphore of q's device) reaches `value`: a fence of another API
/// or a signal from the host (vkSignalSemaphore). edgemem holds the command back, without submitting it,
/// until the host sees that value, so other Queues sharing q's VkQueue are not held behind it. With
/// `adopt`, edgemem destroys the semaphore once the command waiting for it has run (or with the context),
/// so the caller may forget it after signalling it. At most 8 waits are pending at once. Errc: released
/// (q is not an edgemem Queue's), invalid_argument (semaphore 0), out_of_host_memory (8 pending).
[[nodiscard]] Result<void> vulkan_queue_wait(const NativeQueue& q, std::uint64_t semaphore, std::uint64_t value,
                                             bool adopt = false) noexcept;

/// Submits the caller's own recorded command buffer `cb` (a dispatch between Queue::begin_native and
/// end_native) as the next command of Queue `q`, in q's order: after every command enqueued on q before
/// it, held ones included (a Queue waiting, through vulkan_queue_wait or another Queue, for a value whose
/// signal is not submitted yet holds its later commands back; a vkQueueSubmit of your own on
/// NativeQueue::queue would overtake them), and before every later one. Returns the value of q's timeline
/// semaphore (NativeQueue::timeline) that signals when `cb` has run: keep `cb` (and what it uses) until
/// then. Record your own barriers in `cb` (edgemem's commands end with one that makes their writes
/// visible to every later stage, and begin with one that waits for every earlier command on the VkQueue).
/// Errc: released (q is not an edgemem Queue's), invalid_argument (cb null), out_of_host_memory (q holds
/// commands and no memory was left to hold this one; nothing was submitted). A refusal of the driver shows
/// when the value is waited for (backend_failure).
[[nodiscard]] Result<std::uint64_t> vulkan_queue_submit(const NativeQueue& q, VkCommandBuffer_T* cb) noexcept;

/// Native sampler handle (images come with issue #33: always 0).
using NativeSampler = std::uint32_t;

}  // namespace edgemem
