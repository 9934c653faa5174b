/// @file backend/host.hpp  Host backend policy: native handle types and the primitive operations
/// edgemem's objects are built from, over plain host memory. Dependency-free.
/// Primitives assume edgemem's common layer already validated their arguments.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include <edgemem/device.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/rect.hpp>
#include <edgemem/result.hpp>

namespace edgemem::backend {

/// The host backend: memory objects are aligned host allocations; commands run in order at enqueue.
struct Host {
  /// Native context handle: identifies the emulated device.
  struct NativeContext {
    const void* device = nullptr;  ///< address of the emulated device's static descriptor
  };
  /// Native queue handle: the queue's completion counter (atomic: one queue may be used from several
  /// threads at once, as an OpenCL queue may).
  using NativeQueue = std::atomic<std::uint64_t>*;
  /// Native memory handle: the object's first byte and whether it owns its allocation.
  struct NativeMem {
    std::byte* data = nullptr;      ///< first byte of this object (root storage + origin for a sub-buffer)
    std::size_t owned_bytes = 0;    ///< bytes to return to the allocator on release (0: not owned)
  };
  /// Native event handle: the command's sequence number on its queue (0: none).
  using NativeEvent = std::uint64_t;
  /// How a command synchronises: its wait list and, for an async command, where its event goes.
  struct Sync {
    const NativeEvent* waits = nullptr;  ///< events to wait for
    std::size_t wait_count = 0;          ///< number of events in `waits`
    NativeEvent* out = nullptr;          ///< null: blocking; otherwise receives the command's event
    /// Blocking commands only, optional: a command that may still run on the device after its blocking
    /// call returns (OpenCL's blocking write, done once the host bytes are copied out) sets it to true
    /// instead of waiting; commands on the queue after it still run after it. Others leave it untouched.
    bool* still_running = nullptr;
  };
  /// What mem_create should make.
  struct MemDesc {
    std::size_t bytes = 0;           ///< size in bytes (> 0, <= max_alloc_bytes)
    Storage storage = Storage::device;  ///< placement
    MemFlags flags = MemFlags::read_write;  ///< access flags
    const void* copy_from = nullptr; ///< initial contents (bytes long), or null
    void* use_host = nullptr;        ///< caller memory to use zero-copy (bytes long), or null
  };

  /// What mem_adopt learned about a memory object made elsewhere.
  struct AdoptedMem {
    std::size_t bytes = 0;                  ///< size in bytes
    Storage storage = Storage::device;      ///< placement
    MemFlags flags = MemFlags::read_write;  ///< access flags
    bool wrapped = false;                   ///< true when it uses caller memory (CL_MEM_USE_HOST_PTR)
    bool is_sub = false;                    ///< true for a sub-buffer: `parent` and `origin` are set
    NativeMem parent{};                    ///< for a sub-buffer: the buffer it was made from (not retained)
    std::size_t origin = 0;                 ///< for a sub-buffer: byte offset in `parent`
    /// Caller memory it uses (CL_MEM_USE_HOST_PTR), for a sub-buffer its parent's; else null.
    void* host = nullptr;
  };

  static constexpr const char* name = "host";  ///< backend name
  /// Every command has completed when its enqueue returns, so no command can still reach memory
  /// later: the common layer keeps no record of pending commands for this backend.
  static constexpr bool completes_at_enqueue = true;

  /// One platform with one cpu device: `out.platforms` 1, `out.devices[0]` 1 for cpu and any, else 0. Never fails.
  [[nodiscard]] static Result<void> device_census(DeviceType type, DeviceCensus& out) noexcept;
  /// Opens the emulated device for a selector Context::create has resolved (platform 0, device -1 or 0,
  /// cpu or any; EDGEMEM_DEVICE already applied); fills `info`. Errc: unsupported, invalid_argument
  /// (a selector that was not resolved so).
  [[nodiscard]] static Result<NativeContext> context_create(const DeviceSelector& sel, DeviceInfo& info) noexcept;
  /// Interop adoption has nothing to adopt on the host. Errc: invalid_argument (null handle), unsupported.
  [[nodiscard]] static Result<NativeContext> context_adopt(const NativeContext& native, DeviceInfo& info) noexcept;
  /// Releases a context from context_create or context_adopt.
  static void context_release(NativeContext& ctx) noexcept;
  /// Creates an in-order queue. Errc: out_of_host_memory.
  [[nodiscard]] static Result<NativeQueue> queue_create(const NativeContext& ctx) noexcept;
  /// Interop adoption has nothing to adopt on the host. Errc: invalid_argument (null handle), unsupported.
  [[nodiscard]] static Result<NativeQueue> queue_adopt(const NativeContext& ctx, NativeQueue q) noexcept;
  /// Releases a queue from queue_create or queue_adopt.
  static void queue_release(NativeQueue q) noexcept;
  /// Waits for every command of the queue. Never fails on the host.
  [[nodiscard]] static Result<void> queue_finish(NativeQueue q) noexcept;

  /// Allocates a memory object. Errc: out_of_host_memory.
  [[nodiscard]] static Result<NativeMem> mem_create(const NativeContext& ctx, const MemDesc& desc) noexcept;
  /// A sub-buffer of `root` at byte `origin` of `bytes` bytes. Never fails on the host.
  [[nodiscard]] static Result<NativeMem> mem_sub(const NativeMem& root, std::size_t origin, std::size_t bytes,
                                                 MemFlags flags) noexcept;
  /// Interop adoption has nothing to adopt on the host. Errc: invalid_argument (null handle), unsupported.
  [[nodiscard]] static Result<void> mem_adopt(const NativeContext& ctx, NativeMem mem, AdoptedMem& out) noexcept;
  /// Releases a memory object from mem_create, mem_sub or mem_adopt.
  static void mem_release(NativeMem& mem) noexcept;

  /// Writes `bytes` bytes from `src` at byte `offset`.
  [[nodiscard]] static Result<void> write(NativeQueue q, const NativeMem& mem, std::size_t offset, const void* src,
                                          std::size_t bytes, const Sync& sync) noexcept;
  /// Reads `bytes` bytes at byte `offset` into `dst`.
  [[nodiscard]] static Result<void> read(NativeQueue q, const NativeMem& mem, std::size_t offset, void* dst,
                                         std::size_t bytes, const Sync& sync) noexcept;
  /// Repeats a pattern of `pattern_bytes` bytes over `bytes` bytes at byte `offset`.
  [[nodiscard]] static Result<void> fill(NativeQueue q, const NativeMem& mem, std::size_t offset, std::size_t bytes,
                                         const void* pattern, std::size_t pattern_bytes, const Sync& sync) noexcept;
  /// Copies `bytes` bytes between two non-overlapping ranges.
  [[nodiscard]] static Result<void> copy(NativeQueue q, const NativeMem& src, const NativeMem& dst,
                                         std::size_t src_offset, std::size_t dst_offset, std::size_t bytes,
                                         const Sync& sync) noexcept;
  /// Rectangular write from host memory (pitches already resolved, never 0).
  [[nodiscard]] static Result<void> write_rect(NativeQueue q, const NativeMem& mem, const Rect& rect, const void* src,
                                               const Sync& sync) noexcept;
  /// Rectangular read into host memory (pitches already resolved, never 0).
  [[nodiscard]] static Result<void> read_rect(NativeQueue q, const NativeMem& mem, const Rect& rect, void* dst,
                                              const Sync& sync) noexcept;
  /// Rectangular copy between buffers (pitches already resolved, regions not overlapping).
  [[nodiscard]] static Result<void> copy_rect(NativeQueue q, const NativeMem& src, const NativeMem& dst,
                                              const CopyRect& rect, const Sync& sync) noexcept;
  /// Migrates contents; a no-op on the host.
  [[nodiscard]] static Result<void> migrate(NativeQueue q, const NativeMem& mem, Migration to, const Sync& sync) noexcept;
  /// Maps `bytes` bytes at byte `offset` after `sync.waits` (blocking; sync.out is ignored); returns the host address.
  [[nodiscard]] static Result<void*> map(NativeQueue q, const NativeMem& mem, Access access, std::size_t offset,
                                         std::size_t bytes, const Sync& sync) noexcept;
  /// Unmaps an address returned by map(); blocking, or async when sync.out is set.
  [[nodiscard]] static Result<void> unmap(NativeQueue q, const NativeMem& mem, void* mapped, const Sync& sync) noexcept;
  /// A command that completes when every command enqueued on `q` before it has (and sync.waits).
  [[nodiscard]] static Result<void> marker(NativeQueue q, const Sync& sync) noexcept;

  /// Waits for an event. Never fails on the host.
  [[nodiscard]] static Result<void> event_wait(NativeEvent e) noexcept;
  /// True when the event's command has completed.
  [[nodiscard]] static Result<bool> event_complete(NativeEvent e) noexcept;
  /// Takes one more reference to an event (each reference is dropped by event_release).
  static void event_retain(NativeEvent e) noexcept;
  /// Releases an event.
  static void event_release(NativeEvent e) noexcept;
};

}  // namespace edgemem::backend
