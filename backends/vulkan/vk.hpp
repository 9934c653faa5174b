// The one place the Vulkan backend includes vulkan.h (with VK_NO_PROTOTYPES: nothing is linked; the
// loader libvulkan.so.1 is opened at run time, vk_loader.cpp), the entry points it uses, its device
// record, and small helpers shared by the backend's sources.
#pragma once
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>

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
#define EDGEMEM_VK_DEVICE_ENTRY_POINTS(X)                                                                     \
  X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkDeviceWaitIdle) X(vkQueueSubmit) X(vkCreateSemaphore)          \
  X(vkDestroySemaphore) X(vkWaitSemaphores) X(vkGetSemaphoreCounterValue) X(vkSignalSemaphore)              \
  X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers) X(vkResetCommandBuffer)       \
  X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdPipelineBarrier) X(vkCmdCopyBuffer)                 \
  X(vkCmdFillBuffer) X(vkCmdUpdateBuffer) X(vkCreateBuffer) X(vkDestroyBuffer)                              \
  X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) \
  X(vkUnmapMemory) X(vkFlushMappedMemoryRanges) X(vkInvalidateMappedMemoryRanges)

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

/// Whether the process has begun to exit (std::exit, or a return from main) since the loader was
/// loaded: the layers' and drivers' own destructors (the validation layer's object tables, say) may
/// have run, so no Vulkan call is safe. A handle released from then on (a Context or Buffer held in a
/// static made before the first Context) frees only edgemem's own records, and commands and waits answer
/// backend_failure; the process's end takes the device's objects with it.
bool exiting() noexcept;

/// The Error of a call made while the process exits (exiting()): Errc::backend_failure.
Failure fail_exiting() noexcept;

/// `device`'s entry points, looked up into `out`. Errc: unsupported (one is missing).
[[nodiscard]] Result<void> load_device(VkDevice device, DeviceFns& out) noexcept;

/// Sets up `record` for `device` (made or adopted with `queue_count` queues of `family`): entry points,
/// slots. Errc: unsupported (an entry point is missing).
[[nodiscard]] Result<void> init_device(VulkanDeviceRecord& record, VkDevice device, std::uint32_t family,
                                       std::uint32_t queue_count) noexcept;

/// Stops `record`'s flusher, waits for every submitted batch of its Queues, and frees their records
/// (context_release; no Queue or event of the device is left then).
void drain_device(VulkanDeviceRecord& record) noexcept;

/// One more user of the event-record cache (a context made or retained): the first makes its records.
/// Errc: out_of_host_memory.
[[nodiscard]] Result<void> pool_events() noexcept;

/// One less user of the event-record cache.
void drain_events() noexcept;

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

namespace backend::vk {

constexpr std::uint32_t kMaxSlots = 8;        ///< VkQueues a device is made with, at most
constexpr std::uint32_t kMaxBatchWaits = 72;  ///< waits of one batch: a command's (64) and a Queue's extra ones
/// Batches of one Queue on the device at once (its ring of command buffers, made with the Queue); past
/// that the host waits for the oldest (vk_submit.cpp, take_recorded; tests/queue_test.cpp stalls the
/// device until a Queue has this many pending).
constexpr std::uint32_t kRingDepth = 32;

/// One VkQueue of the device and the lock its submits hold.
struct Slot {
  VkQueue queue = VK_NULL_HANDLE;
  VulkanSubmitLock lock;
  std::uint32_t users = 0;  ///< live Queues bound to it (under the device's lock)
};

/// A wait of a batch: a timeline value of one of edgemem's Queues (`from`), or of a semaphore of the
/// caller's (`from` null: ready once the host sees the value).
struct Wait {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  std::uint64_t value = 0;
  VulkanQueueRecord* from = nullptr;
  bool owned = false;  ///< the caller's semaphore handed to edgemem: destroyed once its batch has run
};

/// A semaphore handed to edgemem (vulkan_queue_wait's `adopt`), destroyed once `value` of its Queue has completed.
struct Owned {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  std::uint64_t value = 0;
};

/// A submission not yet handed to its VkQueue: it waits for a value whose signal is not submitted yet.
/// (Vulkan allows that, but a single-queue device such as lavapipe then holds every later submit of
/// every Queue behind it: edgemem submits a batch only once its waits' signals are submitted.)
struct Batch {
  VkCommandBuffer cb = VK_NULL_HANDLE;  ///< its commands (null: none, a marker)
  std::uint64_t value = 0;  ///< the value it signals
  std::uint32_t wait_count = 0;
  Wait waits[kMaxBatchWaits];
};

/// An async read's bytes, copied from its staging to the caller's memory by the thread that first sees
/// its batch complete (note_completed), before any thread can see that.
struct ReadBack {
  std::uint64_t value = 0;                 ///< the batch that copies the bytes into the staging
  const void* from = nullptr;              ///< the staging's host address
  void* to = nullptr;                      ///< the caller's memory
  std::size_t bytes = 0;                   ///< how many
  VkDeviceMemory memory = VK_NULL_HANDLE;  ///< the staging's memory, invalidated first (null: coherent)
  VkDeviceSize offset = 0;                 ///< where the staging is in `memory`
  VkDeviceSize span = 0;                   ///< the staging's bytes to invalidate (VK_WHOLE_SIZE: all of `memory`)
  VkDeviceSize memory_bytes = 0;           ///< the size of `memory`
};

/// A buffer and its memory (its own, or a range of a block: vk_block.hpp), host-visible (staging) or not.
struct Allocation {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* host = nullptr;     ///< mapped for its life when host-visible, else null
  bool coherent = true;     ///< host writes and reads need no flush or invalidate
  VkDeviceSize bytes = 0;   ///< its size
  VkDeviceSize offset = 0;  ///< where the buffer is bound in `memory` (0 unless in a block)
  VkDeviceSize reserved = 0;    ///< the block's bytes it holds (a block's range)
  VulkanBlock* block = nullptr; ///< the block `memory` belongs to (null: memory of its own)
  VkDeviceSize staging_class = 0;  ///< staging: its buffer's size (a power of two), kept for reuse when released
};

/// What a staged map keeps until its unmap (Mapped::state points to it).
struct StagedMap {
  Allocation staging{};
  VkDeviceSize offset = 0;  ///< in the buffer
  bool write = false;       ///< unmap uploads the staging
};

/// StagedMap records a device keeps (staged maps open at once without an allocation).
constexpr std::size_t kStagedMaps = 64;

/// A command buffer of a Queue and the staging its commands read or write, free again once `value`
/// has completed.
struct Recorded {
  VkCommandBuffer cb = VK_NULL_HANDLE;
  std::uint64_t value = 0;
  Allocation staging{};
};

/// Memory to free once every Queue has passed the values it had when it was released.
struct Retired {
  Allocation allocation{};
  VulkanRoot* root = nullptr;  ///< destroyed with it (null: staging only)
  Retired* next = nullptr;
  std::uint32_t count = 0;
  struct Pending {
    VulkanQueueRecord* queue;
    std::uint64_t value;
  } pending[1];  ///< `count` of them (allocated to size)
};

}  // namespace backend::vk

/// One block: kBlockBytes of one memory type, mapped for its life when host-visible, and which of its
/// kGranule-byte pages are taken (a bitmap, first fit). A slot of VulkanDeviceRecord::blocks (no memory:
/// a free slot), so blocks come and go without an allocation of edgemem's. Under its block_lock.
struct VulkanBlock {
  static constexpr VkDeviceSize kBlockBytes = VkDeviceSize{32} << 20;  ///< the size of every block
  static constexpr VkDeviceSize kGranule = 4096;                       ///< its page, bytes
  static constexpr std::size_t kPages = static_cast<std::size_t>(kBlockBytes / kGranule);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* host = nullptr;          ///< its first byte, when host-visible
  std::uint32_t type = 0;        ///< its memory type
  std::size_t used_pages = 0;    ///< pages taken
  std::uint64_t words[kPages / 64] = {};  ///< one bit per page, 1 = taken
  static constexpr std::uint32_t kSlots = 32;  ///< blocks a device has at most (1 GiB; past them buffers get memory of their own)
};

/// The backend's state of one device (NativeContext::record): its entry points, facts gathered at
/// context creation, its queues, and the Queues made on them.
struct VulkanDeviceRecord {
  backend::vk::DeviceFns fns{};                 ///< the device's entry points
  VkDevice device = VK_NULL_HANDLE;             ///< the VkDevice
  bool owned = false;                           ///< edgemem made the VkDevice (and destroys it)
  VkPhysicalDeviceMemoryProperties memory{};    ///< memory types and heaps
  VkPhysicalDeviceLimits limits{};              ///< the device's limits
  bool unified = false;                         ///< every device-local memory type is host-visible
  /// VK_EXT_external_memory_host's entry point (null: the device was made without it, wraps are shadowed).
  PFN_vkGetMemoryHostPointerPropertiesEXT host_pointer_properties = nullptr;
  VkDeviceSize host_align = 0;                  ///< minImportedHostPointerAlignment (bytes)
  bool import_checks_writable = false;          ///< host-pointer imports only of pages the process may write (NVIDIA)
  std::uint32_t family = 0;                     ///< the queue family of the slots
  std::uint32_t slot_count = 0;                 ///< slots in use
  backend::vk::Slot slots[backend::vk::kMaxSlots];
  std::mutex lock;                              ///< guards `queues`, the slots' users, the flusher's state
  VulkanQueueRecord* queues = nullptr;          ///< every Queue record of the device (live or free), linked
  std::atomic<std::uint32_t> held{0};           ///< batches held by its Queues
  std::atomic<std::uint32_t> pending_reads{0};  ///< async reads of its Queues whose bytes are not out yet
  std::condition_variable progress;             ///< notified when held batches are submitted
  std::condition_variable flusher_wake;         ///< wakes the flusher (a batch is held, or stop)
  std::thread flusher;                          ///< submits held batches the host's signals unblock
  bool flusher_running = false;                 ///< under `lock`
  bool flusher_stop = false;                    ///< under `lock`
  backend::vk::Retired* retired = nullptr;      ///< memory released while commands may still reach it (under `lock`)
  VulkanQueueRecord* internal = nullptr;        ///< edgemem's own Queue (initial contents), made on first use
  std::mutex block_lock;                        ///< guards `blocks` and their bitmaps
  VulkanBlock blocks[VulkanBlock::kSlots];      ///< the memory small buffers share (vk_block.hpp; under block_lock)
  std::atomic<std::uint32_t> allocations{0};    ///< live VkDeviceMemory allocations of edgemem's
  std::uint32_t max_allocations = UINT32_MAX;   ///< maxMemoryAllocationCount (or EDGEMEM_VULKAN_MAX_ALLOCATIONS)
  backend::vk::StagedMap staged_maps[backend::vk::kStagedMaps];  ///< records for staged maps (vk_transfer.cpp)
  std::atomic<std::uint64_t> staged_free{~std::uint64_t{0}};     ///< which of staged_maps are free (bit i: record i)
  /// Staging buffers (with their VkBuffer, in a block or not) released and kept for the next transfer of
  /// their class (under block_lock; vk_block.hpp).
  backend::vk::Allocation staging_cache[8];
  bool force_noncoherent = false;               ///< EDGEMEM_VULKAN_NONCOHERENT=1: host-visible memory flushed and invalidated as if not coherent
};

/// The backend's state of one Queue (NativeQueue::record): its timeline semaphore and the batches it
/// could not submit yet. Kept in its device's list for reuse once released and complete.
struct VulkanQueueRecord {
  VulkanDeviceRecord* device = nullptr;
  backend::vk::Slot* slot = nullptr;
  VkSemaphore timeline = VK_NULL_HANDLE;
  VulkanQueueRecord* next = nullptr;            ///< the device's list
  std::mutex lock;                              ///< guards assigned, the batches and the extra waits
  std::uint64_t assigned = 0;                   ///< the last value given to a batch
  std::atomic<std::uint64_t> submitted{0};      ///< the last value handed to vkQueueSubmit
  std::atomic<std::uint64_t> completed{0};      ///< the last value seen complete (a cache), raised after its reads' bytes are out
  std::mutex deliver_lock;                      ///< guards `reads`; held while `completed` rises past a read
  backend::vk::ReadBack* reads = nullptr;       ///< async reads whose bytes are not out yet, by value (grown from DefaultAllocator)
  std::uint32_t read_count = 0, read_room = 0;
  backend::vk::Batch* batches = nullptr;        ///< held batches, oldest first (grown from DefaultAllocator)
  std::uint32_t batch_count = 0, batch_room = 0;
  VkCommandPool pool = VK_NULL_HANDLE;          ///< its command buffers' (made on the first command)
  backend::vk::Recorded* recorded = nullptr;    ///< its command buffers, free once their value completed (the ring:
                                                ///< kRingDepth entries made with the record, more only past held batches)
  std::uint32_t recorded_count = 0, recorded_room = 0;
  backend::vk::Wait extra[8];                   ///< the caller's semaphores the next batch waits for
  backend::vk::Owned owned[16];                 ///< handed-over semaphores of submitted batches, to destroy
  std::uint32_t owned_count = 0;
  std::uint32_t extra_count = 0;
  std::atomic<std::uint64_t> failed_from{0};    ///< the first value whose batch the driver refused (0: none)
  std::atomic<std::uint32_t> refs{0};           ///< the Queue handle's and every event's; 0: free for reuse
};

}  // namespace edgemem
