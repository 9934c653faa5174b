/// @file dlpack.hpp  DLPack: edgemem memory as a DLManagedTensor for NumPy, PyTorch and friends
/// (to_dlpack), and a producer's DLManagedTensor as an edgemem Buffer (from_dlpack), both zero-copy.
/// Built when <dlpack/dlpack.h> is found (config.hpp: EDGEMEM_HAS_DLPACK). Supported versions:
/// DLPack 0.6 (Debian 12's libdlpack-dev: DLManagedTensor, no flags field, so read-only-ness is not
/// carried); with a header that defines DLManagedTensorVersioned (DLPack 1.x), to_dlpack_versioned
/// also exists and marks read-only tensors with DLPACK_FLAG_BITMASK_READ_ONLY.
///
/// Lifetime rules:
/// - an exported tensor of a Buffer holds one reference to the buffer's memory: the buffer handle may
///   go first, the bytes stay until the consumer calls the tensor's deleter (exactly once, from any
///   thread). A tensor that is never handed on must still be deleted: `t->deleter(t)`. Memory that goes
///   back to an owner when its last holder lets go counts the tensor as a holder: a pool block or heap
///   run returns after the deleter (to a SingleThread pool too, through a lock-free stack its thread
///   drains: the deleter may run on any thread), and a SharedFrameRing frame the consumer consumed()
///   goes back to the producer only after the deleter (shared_frame_ring.hpp, "Holders");
/// - an exported tensor of a Mapping points at the mapping's host bytes and holds no reference: it is
///   valid only while the Mapping guard stays mapped (the deleter then only frees the record);
/// - an imported tensor is owned by the Buffer from_dlpack returns (and its views): its deleter runs
///   exactly once, right after the last of them lets the memory go. On failure the caller keeps it.
///
/// Wrapped, imported and from_dlpack memory follows caller memory's rule (external.hpp): on a device
/// that keeps its own copy (a discrete GPU), what edgemem's commands wrote reaches the tensor's bytes
/// after a map of them, and what the other library wrote reaches edgemem's commands after a
/// write_discard map; on unified memory and the host backend both are free.
#pragma once
#include <cstddef>
#include <cstdint>

#include <dlpack/dlpack.h>
#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/mapping.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

/// Most dimensions of an exported tensor (shape and strides are stored inline in its record).
inline constexpr int dlpack_max_ndim = 8;

/// Exports `buf`'s bytes as a kDLCPU tensor (device_id 0), zero-copy: `ndim` extents at `shape`
/// (elements), `strides` in elements (null: C-contiguous; each may be 0 or negative as long as every
/// element lies in the buffer), the first element `byte_offset` bytes into `buf`. data is the
/// address of `buf`'s first byte. For buffers whose bytes have a stable host address: every buffer of
/// the host backend except coarse-grain SVM; wrapped and imported buffers (Buffer::wrap, import,
/// create_exportable, from_dlpack) and fine-grain SVM on every backend; on the CUDA backend also
/// device, host and shared storage, as cuda.core exports them: kDLCUDA (the device pointer, device_id
/// the CUDA device), kDLCUDAHost (pinned) and kDLCUDAManaged. Other memory (device and shared storage
/// on OpenCL, coarse SVM) is reached only inside a map: map it and export the Mapping.
/// The tensor holds one reference to the memory (see the lifetime rules above); a pool block or heap
/// run goes back to its owner only after the deleter ran. A host_read_only buffer is exported, but
/// DLPack 0.6 cannot mark the tensor read-only (the consumer could write: to_dlpack_versioned can).
/// Read-only imported memory (Buffer::import with MemFlags::read_only) is mapped PROT_READ: a consumer
/// writing through a DLPack 0.6 tensor of it faults; to_dlpack_versioned marks it read-only.
/// Errc: released (buf), invalid_argument (ndim < 0 or > dlpack_max_ndim, shape == nullptr with
/// ndim > 0, a negative extent, dtype bits not a positive multiple of 8, lanes != 1), out_of_range
/// (an element past buf.size(), or an extent, stride or offset whose byte count overflows),
/// misaligned (byte_offset, or the address of the first element, not a multiple of the element's
/// alignment: its size's largest power-of-two divisor, at most 16 bytes), access_denied (a buffer
/// made host_write_only or host_no_access), unsupported (no stable host address, see above),
/// out_of_host_memory (the record could not be allocated). On failure nothing changes.
[[nodiscard]] Result<DLManagedTensor*> to_dlpack(const Buffer& buf, DLDataType dtype, const std::int64_t* shape,
                                                 int ndim, const std::int64_t* strides = nullptr,
                                                 std::size_t byte_offset = 0) noexcept;

/// Imports a producer's tensor as a Buffer over its bytes, zero-copy (Buffer::wrap of data +
/// byte_offset; on OpenCL, CL_MEM_USE_HOST_PTR, with wrap's alignment notes), for kDLCPU and
/// kDLCUDAHost tensors that are C-contiguous (strides null, or the compact row-major strides; the
/// stride of an extent-1 dimension is ignored). size() = product of the extents * bits / 8 * lanes.
/// On success the buffer owns `tensor`: its deleter (when non-null) runs exactly once, after the last
/// view of the buffer is gone. DLPack 0.6 carries no read-only flag: pass MemFlags that match what
/// the producer allows. On failure `tensor` is not consumed: the caller still owns it.
/// Errc: released (ctx), invalid_argument (tensor == nullptr, data == nullptr, ndim < 0,
/// shape == nullptr with ndim > 0, a negative extent, dtype bits not a multiple of 8 or lanes == 0,
/// zero bytes, bad flags), out_of_range (the byte count overflows or exceeds info().max_alloc_bytes),
/// unsupported (another device type, or strides that are not C-contiguous; host-access flags on a
/// device without them), out_of_host_memory, out_of_device_memory, backend_failure (the driver
/// refused the wrap).
[[nodiscard]] Result<Buffer> from_dlpack(const Context& ctx, DLManagedTensor* tensor,
                                         MemFlags flags = MemFlags::read_write) noexcept;

namespace detail {
/// Exports `bytes` host bytes at `data` (a live mapping's) as to_dlpack does, with no reference held. Errc: as to_dlpack, less released and unsupported.
[[nodiscard]] Result<DLManagedTensor*> dlpack_of_mapping(void* data, std::size_t bytes, DLDataType dtype,
                                                         const std::int64_t* shape, int ndim,
                                                         const std::int64_t* strides,
                                                         std::size_t byte_offset) noexcept;
}  // namespace detail

/// Exports the host bytes of a live mapping (its data() is the tensor's data) as to_dlpack does. The
/// tensor holds no reference: it is valid while `m` stays mapped; delete it before unmapping. A
/// mapping made with Access::read must not be written through the tensor (DLPack 0.6 cannot say so;
/// to_dlpack_versioned does). Errc: released (m not mapped), and those of to_dlpack but unsupported
/// and access_denied (out_of_range: past m.size_bytes()).
template <class T>
[[nodiscard]] Result<DLManagedTensor*> to_dlpack(const Mapping<T>& m, DLDataType dtype, const std::int64_t* shape,
                                                 int ndim, const std::int64_t* strides = nullptr,
                                                 std::size_t byte_offset = 0) noexcept {
  if (!m.mapped()) return fail(Errc::released, "mapping is not mapped");
  return detail::dlpack_of_mapping(const_cast<void*>(static_cast<const void*>(m.data())), m.size_bytes(), dtype,
                                   shape, ndim, strides, byte_offset);
}

#ifdef DLPACK_FLAG_BITMASK_READ_ONLY
/// to_dlpack(buf, ...) as a DLManagedTensorVersioned (DLPack 1.x headers only): flags has
/// DLPACK_FLAG_BITMASK_READ_ONLY when `buf` is host_read_only. Errc: as to_dlpack.
[[nodiscard]] Result<DLManagedTensorVersioned*> to_dlpack_versioned(const Buffer& buf, DLDataType dtype,
                                                                    const std::int64_t* shape, int ndim,
                                                                    const std::int64_t* strides = nullptr,
                                                                    std::size_t byte_offset = 0) noexcept;

namespace detail {
/// dlpack_of_mapping as a versioned tensor, READ_ONLY when `read_only`. Errc: as dlpack_of_mapping.
[[nodiscard]] Result<DLManagedTensorVersioned*> dlpack_versioned_of_mapping(
    void* data, std::size_t bytes, bool read_only, DLDataType dtype, const std::int64_t* shape, int ndim,
    const std::int64_t* strides, std::size_t byte_offset) noexcept;
}  // namespace detail

/// to_dlpack(m, ...) as a DLManagedTensorVersioned (DLPack 1.x headers only): flags has
/// DLPACK_FLAG_BITMASK_READ_ONLY when `m` was mapped with Access::read. Errc: as to_dlpack(m, ...).
template <class T>
[[nodiscard]] Result<DLManagedTensorVersioned*> to_dlpack_versioned(const Mapping<T>& m, DLDataType dtype,
                                                                    const std::int64_t* shape, int ndim,
                                                                    const std::int64_t* strides = nullptr,
                                                                    std::size_t byte_offset = 0) noexcept {
  if (!m.mapped()) return fail(Errc::released, "mapping is not mapped");
  return detail::dlpack_versioned_of_mapping(const_cast<void*>(static_cast<const void*>(m.data())),
                                             m.size_bytes(), m.access() == Access::read, dtype, shape, ndim,
                                             strides, byte_offset);
}
#endif

}  // namespace edgemem
