/// @file backend/opencl.hpp  OpenCL backend policy: native handle types and the primitive operations
/// edgemem's objects are built from. The handle types are the cl_* types (declared here without
/// CL/cl.h, which only src/opencl/ includes). Primitives assume edgemem's common layer already
/// validated their arguments; every cl_int the driver returns is mapped to an Errc and kept in Error::native.
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/device.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/rect.hpp>
#include <edgemem/result.hpp>

struct _cl_platform_id;
struct _cl_device_id;
struct _cl_context;
struct _cl_command_queue;
struct _cl_mem;
struct _cl_event;

namespace edgemem::backend {

/// The OpenCL backend (OpenCL 1.2 baseline; 2.0/3.0 entry points only after a run-time version check).
struct OpenCL {
  /// Native context handles: the cl_context and the cl_device_id it was created for.
  struct NativeContext {
    _cl_context* context = nullptr;  ///< cl_context
    _cl_device_id* device = nullptr; ///< cl_device_id
  };
  /// Native queue handle: cl_command_queue (in order).
  using NativeQueue = _cl_command_queue*;
  /// Native memory handle: cl_mem (a buffer or sub-buffer).
  using NativeMem = _cl_mem*;
  /// Native event handle: cl_event.
  using NativeEvent = _cl_event*;
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
    Storage storage = Storage::device;  ///< placement (shared/host: CL_MEM_ALLOC_HOST_PTR)
    MemFlags flags = MemFlags::read_write;  ///< access flags
    const void* copy_from = nullptr; ///< initial contents (CL_MEM_COPY_HOST_PTR), or null
    void* use_host = nullptr;        ///< caller memory (CL_MEM_USE_HOST_PTR), or null
  };

  /// What mem_adopt learned about a memory object made elsewhere.
  struct AdoptedMem {
    std::size_t bytes = 0;                  ///< size in bytes
    Storage storage = Storage::device;      ///< placement: shared for CL_MEM_ALLOC_HOST_PTR, host for CL_MEM_USE_HOST_PTR
    MemFlags flags = MemFlags::read_write;  ///< access flags
    bool wrapped = false;                   ///< true when it uses caller memory (CL_MEM_USE_HOST_PTR)
    bool is_sub = false;                    ///< true for a sub-buffer: `parent` and `origin` are set
    NativeMem parent{};                    ///< for a sub-buffer: the buffer it was made from (not retained)
    std::size_t origin = 0;                 ///< for a sub-buffer: byte offset in `parent`
    /// Caller memory it uses (CL_MEM_USE_HOST_PTR): its CL_MEM_HOST_PTR, for a sub-buffer its parent's
    /// (the sub-buffer's bytes start `origin` bytes in); else null.
    void* host = nullptr;
  };

  static constexpr const char* name = "opencl";  ///< backend name
  /// Commands run asynchronously on the device: the common layer records pending commands per
  /// buffer so commands on other queues, and the next owner of pooled memory, wait for them.
  static constexpr bool completes_at_enqueue = false;

  /// The platforms (clGetPlatformIDs, at most DeviceCensus::max_platforms; 0 when none is installed) and
  /// the devices of `type` on each (clGetDeviceIDs; CL_DEVICE_TYPE_ALL for any). Errc: as the driver answers.
  [[nodiscard]] static Result<void> device_census(DeviceType type, DeviceCensus& out) noexcept;
  /// Opens device `sel.device_index` of `sel.type` on platform `sel.platform_index`, a selector
  /// Context::create has resolved against device_census() (EDGEMEM_DEVICE already applied; device -1:
  /// the platform's default device for any, else its first of the type); fills `info`.
  /// Errc: invalid_argument, unsupported (a selector that names no device), backend_failure.
  [[nodiscard]] static Result<NativeContext> context_create(const DeviceSelector& sel, DeviceInfo& info) noexcept;
  /// Takes a retained reference to a cl_context made elsewhere (native.device must be one of its devices) and describes that device into `info`. Errc: invalid_argument (null handle, device not in the context), or the driver's answer.
  [[nodiscard]] static Result<NativeContext> context_adopt(const NativeContext& native, DeviceInfo& info) noexcept;
  /// Releases a context from context_create or context_adopt.
  static void context_release(NativeContext& ctx) noexcept;
  /// Creates an in-order queue. Errc: out_of_host_memory, out_of_device_memory, backend_failure.
  [[nodiscard]] static Result<NativeQueue> queue_create(const NativeContext& ctx) noexcept;
  /// Takes a retained reference to an in-order cl_command_queue made elsewhere on `ctx`'s context and device. Errc: invalid_argument (null, other context or device), unsupported (out-of-order queue), or the driver's answer.
  [[nodiscard]] static Result<NativeQueue> queue_adopt(const NativeContext& ctx, NativeQueue q) noexcept;
  /// Releases a queue from queue_create or queue_adopt.
  static void queue_release(NativeQueue q) noexcept;
  /// Waits for every command of the queue. Errc: as the driver answers (see opencl/cl_error.cpp).
  [[nodiscard]] static Result<void> queue_finish(NativeQueue q) noexcept;

  /// Allocates a memory object. Errc: out_of_host_memory, out_of_device_memory, backend_failure.
  [[nodiscard]] static Result<NativeMem> mem_create(const NativeContext& ctx, const MemDesc& desc) noexcept;
  /// A sub-buffer of `root` at byte `origin` of `bytes` bytes. Errc: as the driver answers (see opencl/cl_error.cpp).
  [[nodiscard]] static Result<NativeMem> mem_sub(const NativeMem& root, std::size_t origin, std::size_t bytes,
                                                 MemFlags flags) noexcept;
  /// Retains a cl_mem buffer or sub-buffer made elsewhere on `ctx`'s context and describes it into `out`. Errc: invalid_argument (null, other context), unsupported (an image or pipe), or the driver's answer.
  [[nodiscard]] static Result<void> mem_adopt(const NativeContext& ctx, NativeMem mem, AdoptedMem& out) noexcept;
  /// Releases a memory object from mem_create, mem_sub or mem_adopt.
  static void mem_release(NativeMem& mem) noexcept;

  /// Writes `bytes` bytes from `src` at byte `offset`. Blocking (sync.out null): `src` may be reused on
  /// return; the device write may still run (then *sync.still_running is set), or, without
  /// sync.still_running, the call waits for it.
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
  /// Migrates contents; clEnqueueMigrateMemObjects; Errc: unsupported before OpenCL 1.2.
  [[nodiscard]] static Result<void> migrate(NativeQueue q, const NativeMem& mem, Migration to, const Sync& sync) noexcept;
  /// Maps `bytes` bytes at byte `offset` after `sync.waits` (blocking; sync.out is ignored); returns the host address.
  [[nodiscard]] static Result<void*> map(NativeQueue q, const NativeMem& mem, Access access, std::size_t offset,
                                         std::size_t bytes, const Sync& sync) noexcept;
  /// Unmaps an address returned by map(); blocking (the write-back has completed when it returns), or
  /// async when sync.out is set.
  [[nodiscard]] static Result<void> unmap(NativeQueue q, const NativeMem& mem, void* mapped, const Sync& sync) noexcept;
  /// clEnqueueMarkerWithWaitList: completes when every command enqueued on `q` before it has.
  [[nodiscard]] static Result<void> marker(NativeQueue q, const Sync& sync) noexcept;

  /// Waits for an event. Errc: as the driver answers (see opencl/cl_error.cpp).
  [[nodiscard]] static Result<void> event_wait(NativeEvent e) noexcept;
  /// True when the event's command has completed.
  [[nodiscard]] static Result<bool> event_complete(NativeEvent e) noexcept;
  /// clRetainEvent: one more reference (each is dropped by event_release).
  static void event_retain(NativeEvent e) noexcept;
  /// Releases an event.
  static void event_release(NativeEvent e) noexcept;
};

}  // namespace edgemem::backend
