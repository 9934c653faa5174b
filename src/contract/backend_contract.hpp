/// @file contract/backend_contract.hpp  The backend contract: the one place that says what a backend
/// provides. Private: not installed. A backend is a struct of static functions in
/// backends/<name>/backend.hpp (see docs/adding_a_backend.md); edgemem's common layer has already
/// checked every argument (released handles, ranges, alignment, overlap, host-access flags,
/// capabilities) before it calls one, so an operation only does the native work and maps native
/// errors to an Errc, keeping the native code in Error::native.
///
/// What a backend struct declares besides the operations:
/// - `using NativeContext/NativeQueue/NativeMem/NativeEvent = edgemem::...;` (its native.hpp, installed
///   as edgemem/native.hpp; every handle compares with == and !=);
/// - `static constexpr const char* name` (DeviceInfo::backend);
/// - `static constexpr unsigned groups` (contract::Group bits: device | buffer, plus the optional ones);
/// - `static constexpr bool unmap_waits`: true when a blocking unmap waits on the host for work an
///   async one leaves to the device (OpenCL), so Mapping::unmap() enqueues it async where the ordering
///   table orders every later command; false where a blocking unmap costs no wait (CUDA, host);
/// - `static constexpr bool completes_at_enqueue`: true when every command has finished when its
///   enqueue returns (then the common layer keeps no record of pending commands).
///
/// The operations, by group. Offsets and sizes are in bytes. Every transfer takes a CommandEvents:
/// `waits` must complete first; `out` null means blocking (the command has completed on return, except
/// that a backend whose blocking write may still run on the device sets *still_running instead, when
/// given), otherwise the command's event goes to *out. Errc values named are those the native layer
/// maps to; any operation may also answer backend_failure for a native error without a closer Errc.
///
/// device (required)
/// - device_census(type, out): platforms and devices of `type` on each (Context::create's selection
///   rule is applied by the common layer from it). Errc: out_of_host_memory.
/// - context_create(sel, info): opens the device a resolved selector names (platform and device index
///   valid, EDGEMEM_DEVICE applied) and describes it into `info`, capabilities included
///   (DeviceInfo::caps). Errc: unsupported, invalid_argument, out_of_host_memory.
/// - context_adopt(native, mode, info): a context made elsewhere; retain takes a reference of its own,
///   borrow takes none. Errc: invalid_argument (null, device not in the context), unsupported.
/// - context_release(ctx, borrowed): drops a context from context_create or context_adopt: edgemem's own
///   state for it (pooled event records) always, its native reference unless it was borrowed.
/// - queue_create(ctx): an in-order queue. Errc: out_of_host_memory, out_of_device_memory.
/// - queue_adopt(ctx, q, mode): an in-order queue made elsewhere on ctx's device. Errc:
///   invalid_argument (null, other context or device), unsupported (out of order).
/// - queue_release(q): drops a queue from queue_create or a retained queue_adopt.
/// - queue_finish(q): waits for every command of q. Errc: backend_failure (a command failed).
/// - marker(q, ev): a command that completes when every command enqueued on q before it has, and ev.waits.
/// - event_wait(e), event_complete(e): wait for / poll one event. Errc: backend_failure (it failed).
/// - event_retain(e), event_release(e): one more / one less reference.
///
/// buffer (required)
/// - mem_create(ctx, desc): a linear memory object. Errc: out_of_device_memory, out_of_host_memory,
///   unsupported (host-access flags on a device that has none).
/// - mem_sub(root, origin, bytes, flags): a native sub-object of a root at `origin` (the common layer's
///   sub-buffers are views and ask for one only when the user needs the native handle, and for pool
///   blocks at init()). Errc: misaligned, out_of_host_memory.
/// - mem_adopt(ctx, mem, mode, out): describes a memory object made elsewhere into `out`, taking a
///   reference when mode is retain; it may complete `mem` itself (CUDA: the kind and host address of a
///   device pointer), and the common layer keeps the completed handle. Errc: invalid_argument (null, other context), unsupported (not a buffer).
/// - mem_release(mem): drops a memory object from mem_create, mem_sub or a retained mem_adopt.
/// - mem_address(ctx, mem): where a root object's bytes stay reachable outside maps (types.hpp
///   MemAddress; MemPlace::none when only a map reaches them): what DLPack exports. Cannot fail.
/// - mem_shadowed(mem): true when the backend keeps a device copy of the caller memory a root object
///   was made over (MemDesc::use_host) for this object alone, though it uses other caller memory in
///   place (CUDA: a wrap it could not register); Buffer::is_caller_memory_in_place(). Cannot fail.
/// - write, read (host <-> mem at offset), fill (a pattern of 1..DeviceInfo::caps.max_fill_pattern_bytes
///   bytes, a power of two, repeated), copy (mem -> mem, ranges not overlapping), write_rect,
///   read_rect, copy_rect (pitches resolved, never 0), migrate (to host or device; only when
///   caps.migration): commands on `mem` at `offset` of a root object (sub-buffers are views: the common
///   layer passes the root and adds the view's origin). Errc: out_of_device_memory, out_of_host_memory;
///   write, read, write_rect, read_rect: access_denied when the native layer refuses for host-access
///   flags (OpenCL's CL_INVALID_OPERATION there; the common layer has checked them already).
/// - map(q, mem, access, offset, bytes, ev): maps after ev.waits, blocking; returns the host address and
///   the backend's per-mapping state. Errc: backend_failure (map failed), out_of_host_memory,
///   access_denied (as for read and write).
/// - unmap(q, mem, mapped, ev): undoes one map, handing back what map returned; blocking (the write-back
///   has completed on return) or async when ev.out is set.
///
/// image (optional; the common layer calls it only when DeviceInfo::caps.images). Extents, origins and
/// regions are in pixels (ImageOrigin/ImageExtent: for a 1D array y is the layer, for a 2D array z);
/// every operation gets the image's ImageLayout; images are never views for commands: `image` is the
/// image's own native object (for an image view, the one image_from_buffer made).
/// - image_formats(ctx, type, access, out): the formats the device supports for images of `type`
///   used with `access` (called at context creation; formats outside ImageFormat are left out).
/// - image_create(ctx, desc): an image of desc.layout (pitches tight), initial pixels from
///   desc.copy_from with desc.host pitches. An image1d_buffer is never made here (the common layer
///   makes the buffer and calls image_from_buffer). Errc: out_of_device_memory, out_of_host_memory,
///   unsupported (format refused by the driver).
/// - image_from_buffer(ctx, buffer, layout, flags): a 2D (layout.row_pitch apart) or 1D-buffer image over
///   the native buffer object `buffer` (a root or a sub-object), alignment already checked.
///   Errc: misaligned, unsupported, out_of_host_memory.
/// - image_adopt(ctx, image, mode, out): describes an image made elsewhere (reference taken when
///   retain). Errc: invalid_argument (null, other context, not an image), unsupported.
/// - write_image, read_image (host memory laid out with `pitch`, resolved, never 0), copy_image (the
///   same extent from src at src_origin to dst_region; formats equal), fill_image (`color` of the
///   format's ColorKind, converted by OpenCL's rules), copy_image_to_buffer / copy_buffer_to_image
///   (the buffer side tightly packed at `offset` of a root object), map_image (blocking; reports the
///   mapping's pitches; undone by the buffer group's unmap with the image's native object).
///   Errc: out_of_device_memory, out_of_host_memory; access_denied as for buffers.
/// - sampler_create(ctx, desc, info): a sampler (desc checked valid; `info` is what the backend filled
///   in at context creation, so it picks its call from its own facts, never from a driver query).
///   sampler_release(s) drops it.
///
/// svm (optional; the common layer calls it only for a grain DeviceInfo::caps has). Allocations are
/// roots of the common layer like buffers (views, maps, ordering and pools are its own); an SvmAddress
/// names a byte of one (or host memory, for the host side of a memcpy). Sizes and offsets in bytes.
/// - svm_alloc(ctx, bytes, grain, alignment): `bytes` of `grain` (fine_system: memory any host pointer
///   reaches; the backend may allocate it as fine_buffer), aligned to `alignment` (a power of two,
///   128 at most; the common layer passes at least 128). Errc: out_of_device_memory, out_of_host_memory.
/// - svm_free(ctx, base): frees at once; the common layer calls it only when no command reaches `base`.
/// - svm_free_queued(q, base, ev): frees after ev.waits and every earlier command of q
///   (clEnqueueSVMFree); never blocking. Errc: out_of_host_memory.
/// - svm_memcpy (host <-> svm, svm <-> svm, not overlapping), svm_memfill (a pattern of
///   1..caps.max_fill_pattern_bytes bytes, a power of two; `dst` aligned to it), svm_buffer_copy (svm
///   <-> a root buffer object at `offset`, direction `to_svm`), svm_migrate (whole range; only when
///   caps.migration): commands as the buffer group's. Errc: out_of_device_memory, out_of_host_memory.
/// - svm_map(q, at, bytes, access, ev): coarse grain only (fine grain needs none): makes the bytes
///   visible to the host, blocking. svm_unmap(q, at, ev): undoes it (`at` as mapped); blocking or async.
///   Errc: backend_failure.
///
/// external (optional; the common layer calls it only for a kind DeviceInfo::caps.external_memory has):
/// mem_import (foreign memory described by ImportDesc as a root's native object), external_acquire /
/// external_release (around each command and map on a root whose ExternalRef says `bracketed`: the
/// cl_khr_external_memory acquire and release). Each row is documented at EDGEMEM_EXTERNAL_OPERATIONS.
#pragma once
#include <cstddef>
#include <type_traits>

#include <edgemem/device.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/rect.hpp>
#include <edgemem/result.hpp>

#include "contract/types.hpp"

/// The operations of the device group: X(group, name, fault, injected Errc, return type, parameters).
/// `fault` says how the fault-injecting wrapper (fault_injecting.hpp) treats the operation: before
/// (the fault replaces the call), after (the call runs, then the fault is reported, as a driver
/// reports a failed command), never (it cannot fail: releases and retains).
#define EDGEMEM_DEVICE_OPERATIONS(X)                                                                            \
  X(device, device_census, before, out_of_host_memory, Result<void>, (DeviceType type, DeviceCensus & out))    \
  X(device, context_create, before, out_of_host_memory, Result<NativeContext>,                                 \
    (const DeviceSelector& sel, DeviceInfo& info))                                                              \
  X(device, context_adopt, before, out_of_host_memory, Result<NativeContext>,                                  \
    (const NativeContext& native, AdoptMode mode, DeviceInfo& info))                                            \
  X(device, context_release, never, released, void, (NativeContext & ctx, bool borrowed))                                   \
  X(device, queue_create, before, out_of_host_memory, Result<NativeQueue>, (const NativeContext& ctx))         \
  X(device, queue_adopt, before, out_of_host_memory, Result<NativeQueue>,                                      \
    (const NativeContext& ctx, NativeQueue q, AdoptMode mode))                                                  \
  X(device, queue_release, never, released, void, (NativeQueue q))                                             \
  X(device, queue_finish, after, backend_failure, Result<void>, (NativeQueue q))                               \
  X(device, marker, before, out_of_host_memory, Result<void>, (NativeQueue q, const CommandEvents& ev))        \
  X(device, event_wait, after, backend_failure, Result<void>, (NativeEvent e))                                 \
  X(device, event_complete, after, backend_failure, Result<bool>, (NativeEvent e))                             \
  X(device, event_retain, never, released, void, (NativeEvent e))                                              \
  X(device, event_release, never, released, void, (NativeEvent e))

/// The operations of the buffer group (same columns as EDGEMEM_DEVICE_OPERATIONS).
#define EDGEMEM_BUFFER_OPERATIONS(X)                                                                            \
  X(buffer, mem_create, before, out_of_device_memory, Result<NativeMem>,                                       \
    (const NativeContext& ctx, const MemDesc& desc))                                                            \
  X(buffer, mem_sub, before, out_of_host_memory, Result<NativeMem>,                                            \
    (const NativeMem& root, std::size_t origin, std::size_t bytes, MemFlags flags))                             \
  X(buffer, mem_adopt, before, out_of_host_memory, Result<void>,                                               \
    (const NativeContext& ctx, NativeMem & mem, AdoptMode mode, AdoptedMem& out))                               \
  X(buffer, mem_release, never, released, void, (NativeMem & mem))                                             \
  X(buffer, mem_address, never, released, MemAddress, (const NativeContext& ctx, const NativeMem& mem))        \
  X(buffer, mem_shadowed, never, released, bool, (const NativeMem& mem))                                       \
  X(buffer, write, before, out_of_device_memory, Result<void>,                                                 \
    (NativeQueue q, const NativeMem& mem, std::size_t offset, const void* src, std::size_t bytes,               \
     const CommandEvents& ev))                                                                                  \
  X(buffer, read, before, out_of_device_memory, Result<void>,                                                  \
    (NativeQueue q, const NativeMem& mem, std::size_t offset, void* dst, std::size_t bytes,                     \
     const CommandEvents& ev))                                                                                  \
  X(buffer, fill, before, out_of_device_memory, Result<void>,                                                  \
    (NativeQueue q, const NativeMem& mem, std::size_t offset, std::size_t bytes, const void* pattern,           \
     std::size_t pattern_bytes, const CommandEvents& ev))                                                       \
  X(buffer, copy, before, out_of_device_memory, Result<void>,                                                  \
    (NativeQueue q, const NativeMem& src, const NativeMem& dst, std::size_t src_offset, std::size_t dst_offset, \
     std::size_t bytes, const CommandEvents& ev))                                                               \
  X(buffer, write_rect, before, out_of_device_memory, Result<void>,                                            \
    (NativeQueue q, const NativeMem& mem, const Rect& rect, const void* src, const CommandEvents& ev))           \
  X(buffer, read_rect, before, out_of_device_memory, Result<void>,                                             \
    (NativeQueue q, const NativeMem& mem, const Rect& rect, void* dst, const CommandEvents& ev))                \
  X(buffer, copy_rect, before, out_of_device_memory, Result<void>,                                             \
    (NativeQueue q, const NativeMem& src, const NativeMem& dst, const CopyRect& rect, const CommandEvents& ev)) \
  X(buffer, migrate, before, out_of_device_memory, Result<void>,                                               \
    (NativeQueue q, const NativeMem& mem, Migration to, const CommandEvents& ev))                               \
  X(buffer, map, before, backend_failure, Result<Mapped>,                                                      \
    (NativeQueue q, const NativeMem& mem, Access access, std::size_t offset, std::size_t bytes,                 \
     const CommandEvents& ev))                                                                                  \
  X(buffer, unmap, after, backend_failure, Result<void>,                                                       \
    (NativeQueue q, const NativeMem& mem, const Mapped& mapped, const CommandEvents& ev))

/// The operations of the image group (same columns as EDGEMEM_DEVICE_OPERATIONS).
#define EDGEMEM_IMAGE_OPERATIONS(X)                                                                             \
  X(image, image_formats, before, out_of_host_memory, Result<void>,                                            \
    (const NativeContext& ctx, ImageType type, FormatAccess access, FormatSet& out))                            \
  X(image, image_create, before, out_of_device_memory, Result<NativeMem>,                                      \
    (const NativeContext& ctx, const ImageCreate& desc))                                                        \
  X(image, image_from_buffer, before, out_of_host_memory, Result<NativeMem>,                                   \
    (const NativeContext& ctx, const NativeMem& buffer, const ImageLayout& layout, MemFlags flags))              \
  X(image, image_adopt, before, out_of_host_memory, Result<void>,                                              \
    (const NativeContext& ctx, NativeMem image, AdoptMode mode, AdoptedImage& out))                             \
  X(image, write_image, before, out_of_device_memory, Result<void>,                                            \
    (NativeQueue q, const NativeMem& image, const ImageLayout& layout, const ImageRegion& region,               \
     const void* src, const HostPitch& pitch, const CommandEvents& ev))                                         \
  X(image, read_image, before, out_of_device_memory, Result<void>,                                             \
    (NativeQueue q, const NativeMem& image, const ImageLayout& layout, const ImageRegion& region, void* dst,    \
     const HostPitch& pitch, const CommandEvents& ev))                                                          \
  X(image, copy_image, before, out_of_device_memory, Result<void>,                                             \
    (NativeQueue q, const NativeMem& src, const ImageLayout& src_layout, const NativeMem& dst,                  \
     const ImageLayout& dst_layout, const ImageOrigin& src_origin, const ImageRegion& dst_region,               \
     const CommandEvents& ev))                                                                                  \
  X(image, fill_image, before, out_of_device_memory, Result<void>,                                             \
    (NativeQueue q, const NativeMem& image, const ImageLayout& layout, const Color& color,                      \
     const ImageRegion& region, const CommandEvents& ev))                                                       \
  X(image, copy_image_to_buffer, before, out_of_device_memory, Result<void>,                                   \
    (NativeQueue q, const NativeMem& image, const ImageLayout& layout, const ImageRegion& region,               \
     const NativeMem& buffer, std::size_t offset, const CommandEvents& ev))                                     \
  X(image, copy_buffer_to_image, before, out_of_device_memory, Result<void>,                                   \
    (NativeQueue q, const NativeMem& buffer, std::size_t offset, const NativeMem& image,                        \
     const ImageLayout& layout, const ImageRegion& region, const CommandEvents& ev))                            \
  X(image, map_image, before, backend_failure, Result<MappedImage>,                                            \
    (NativeQueue q, const NativeMem& image, const ImageLayout& layout, Access access, const ImageRegion& region, \
     const CommandEvents& ev))                                                                                  \
  X(image, sampler_create, before, out_of_host_memory, Result<NativeSampler>,                                  \
    (const NativeContext& ctx, const SamplerDesc& desc, const DeviceInfo& info))                                \
  X(image, sampler_release, never, released, void, (NativeSampler s))

/// The operations of the svm group (same columns as EDGEMEM_DEVICE_OPERATIONS).
#define EDGEMEM_SVM_OPERATIONS(X)                                                                               \
  X(svm, svm_alloc, before, out_of_device_memory, Result<void*>,                                               \
    (const NativeContext& ctx, std::size_t bytes, SvmGrain grain, std::size_t alignment))                       \
  X(svm, svm_free, never, released, void, (const NativeContext& ctx, void* base))                              \
  X(svm, svm_free_queued, before, out_of_host_memory, Result<void>,                                            \
    (NativeQueue q, void* base, const CommandEvents& ev))                                                       \
  X(svm, svm_memcpy, before, out_of_device_memory, Result<void>,                                               \
    (NativeQueue q, const SvmAddress& dst, const SvmAddress& src, std::size_t bytes, const CommandEvents& ev))  \
  X(svm, svm_memfill, before, out_of_device_memory, Result<void>,                                              \
    (NativeQueue q, const SvmAddress& dst, std::size_t bytes, const void* pattern, std::size_t pattern_bytes,   \
     const CommandEvents& ev))                                                                                  \
  X(svm, svm_buffer_copy, before, out_of_device_memory, Result<void>,                                          \
    (NativeQueue q, const SvmAddress& svm, std::size_t svm_bytes, const NativeMem& mem, std::size_t offset,     \
     std::size_t bytes, bool to_svm, const CommandEvents& ev))                                                  \
  X(svm, svm_migrate, before, out_of_device_memory, Result<void>,                                              \
    (NativeQueue q, const SvmAddress& at, std::size_t bytes, Migration to, const CommandEvents& ev))            \
  X(svm, svm_map, before, backend_failure, Result<void>,                                                       \
    (NativeQueue q, const SvmAddress& at, std::size_t bytes, Access access, const CommandEvents& ev))           \
  X(svm, svm_unmap, after, backend_failure, Result<void>,                                                      \
    (NativeQueue q, const SvmAddress& at, const CommandEvents& ev))

/// The operations of the external group (same columns as EDGEMEM_DEVICE_OPERATIONS): the driver's own
/// zero-copy imports. mem_import answers unsupported when none of its paths takes `desc` (the common
/// layer then maps the fd itself); `path` says which one did. A memory object it made is bracketed by
/// the common layer: external_acquire before each command or map on it, external_release after (after
/// the unmap for a map), on the same queue (clEnqueueAcquire/ReleaseExternalMemObjectsKHR).
#define EDGEMEM_EXTERNAL_OPERATIONS(X)                                                                          \
  X(external, mem_import, before, out_of_device_memory, Result<NativeMem>,                                     \
    (const NativeContext& ctx, const ImportDesc& desc, ImportPath& path))                                       \
  X(external, external_acquire, before, backend_failure, Result<void>,                                         \
    (NativeQueue q, const NativeMem& mem, const CommandEvents& ev))                                             \
  X(external, external_release, before, backend_failure, Result<void>,                                         \
    (NativeQueue q, const NativeMem& mem, const CommandEvents& ev))

/// Every operation of every group, in one list (the fault wrapper and the checks expand it).
#define EDGEMEM_BACKEND_OPERATIONS(X)                                                                 \
  EDGEMEM_DEVICE_OPERATIONS(X) EDGEMEM_BUFFER_OPERATIONS(X) EDGEMEM_IMAGE_OPERATIONS(X) EDGEMEM_SVM_OPERATIONS(X) \
  EDGEMEM_EXTERNAL_OPERATIONS(X)

/// Inside a backend struct: declares one operation with the contract's signature, e.g.
/// `EDGEMEM_DEVICE_OPERATIONS(EDGEMEM_DECLARE_OPERATION)`. The types it names (NativeQueue,
/// CommandEvents, ...) must be visible in the struct (see contract::BackendTypes).
#define EDGEMEM_DECLARE_OPERATION(group, name, fault, errc, ret, params) EDGEMEM_DECLARE_##fault##_(name, ret, params)
#define EDGEMEM_DECLARE_before_(name, ret, params) [[nodiscard]] static ret name params noexcept;
#define EDGEMEM_DECLARE_after_(name, ret, params) [[nodiscard]] static ret name params noexcept;
#define EDGEMEM_DECLARE_never_(name, ret, params) static ret name params noexcept;

namespace edgemem::contract {

/// The types every backend's operations use; a backend struct derives from it (or declares the same names).
struct BackendTypes {
  using NativeContext = edgemem::NativeContext;  ///< native.hpp
  using NativeQueue = edgemem::NativeQueue;      ///< native.hpp
  using NativeMem = edgemem::NativeMem;          ///< native.hpp
  using NativeEvent = edgemem::NativeEvent;      ///< native.hpp
  using CommandEvents = contract::CommandEvents; ///< types.hpp
  using MemDesc = contract::MemDesc;             ///< types.hpp
  using AdoptedMem = contract::AdoptedMem;       ///< types.hpp
  using Mapped = contract::Mapped;               ///< types.hpp
  using MemAddress = contract::MemAddress;       ///< types.hpp
  using NativeSampler = edgemem::NativeSampler;  ///< native.hpp
  using ImageLayout = contract::ImageLayout;     ///< types.hpp
  using ImageCreate = contract::ImageCreate;     ///< types.hpp
  using AdoptedImage = contract::AdoptedImage;   ///< types.hpp
  using MappedImage = contract::MappedImage;     ///< types.hpp
  using SvmAddress = contract::SvmAddress;       ///< types.hpp
  using ImportDesc = contract::ImportDesc;       ///< types.hpp
};

/// How the fault-injecting wrapper treats an operation (the `fault` column).
enum class FaultKind : unsigned char {
  before,  ///< an injected fault replaces the call
  after,   ///< the call runs, then the injected fault is reported
  never,   ///< not a fault point (cannot fail)
};

/// One row of the operation list, for tools and tests (the fault suite checks its points against it).
struct OperationInfo {
  const char* group;  ///< "device", "buffer", ...
  const char* name;   ///< the operation's name, as fault::Injected::call reports it
  FaultKind fault;    ///< how fault injection treats it
  Errc injected;      ///< the Errc a fault point injects (meaningless for never)
};

#define EDGEMEM_OPERATION_INFO_(group, name, fault, errc, ret, params) \
  OperationInfo{#group, #name, FaultKind::fault, Errc::errc},
/// Every operation of the contract, in list order.
inline constexpr OperationInfo operations[] = {EDGEMEM_BACKEND_OPERATIONS(EDGEMEM_OPERATION_INFO_)};
#undef EDGEMEM_OPERATION_INFO_

namespace check {
// One detector per operation: true when B declares a static member of that name.
#define EDGEMEM_HAS_OPERATION_(group, name, fault, errc, ret, params) \
  template <class B, class = void>                                    \
  struct has_##name : std::false_type {};                             \
  template <class B>                                                  \
  struct has_##name<B, std::void_t<decltype(&B::name)>> : std::true_type {};
EDGEMEM_BACKEND_OPERATIONS(EDGEMEM_HAS_OPERATION_)
#undef EDGEMEM_HAS_OPERATION_

template <class B, class = void>
struct has_types : std::false_type {};
template <class B>
struct has_types<B, std::void_t<typename B::NativeContext, typename B::NativeQueue, typename B::NativeMem,
                                typename B::NativeEvent, typename B::NativeSampler, decltype(B::name), decltype(B::groups),
                                decltype(B::completes_at_enqueue), decltype(B::unmap_waits)>> : std::true_type {};
}  // namespace check

/// Compile-time check of a backend struct against the contract: every operation of every group it
/// declares, with exactly the contract's signature. Instantiated once per build in active.hpp; a
/// failure names the missing or mistyped operation.
template <class B>
struct CheckBackend : BackendTypes {
  static_assert(check::has_types<B>::value,
                "backend lacks a native handle type, `name`, `groups`, `completes_at_enqueue` or `unmap_waits` "
                "(src/contract/backend_contract.hpp)");
  static_assert((B::groups & (group_device | group_buffer)) == (group_device | group_buffer),
                "backend must declare the required groups device and buffer");
#define EDGEMEM_CHECK_OPERATION_(group, name, fault, errc, ret, params)                                         \
  template <class T = B>                                                                                       \
  static constexpr bool name##_ok() noexcept {                                                                 \
    if constexpr (check::has_##name<T>::value) return std::is_same_v<decltype(&T::name), ret(*) params noexcept>; \
    else return (T::groups & group_##group) == 0;                                                              \
  }                                                                                                            \
  static_assert(check::has_##name<B>::value || (B::groups & group_##group) == 0,                               \
                "backend lacks contract operation `" #name "` of group " #group                                \
                " (src/contract/backend_contract.hpp)");                                                       \
  static_assert(name##_ok(), "backend operation `" #name "` does not have the contract's signature "           \
                             "(src/contract/backend_contract.hpp)");
  EDGEMEM_BACKEND_OPERATIONS(EDGEMEM_CHECK_OPERATION_)
#undef EDGEMEM_CHECK_OPERATION_
  static constexpr bool ok = true;  ///< true once every assertion above held
};

}  // namespace edgemem::contract
