// DLPack (dlpack.hpp): to_dlpack exports host-addressable memory as a DLManagedTensor whose record
// (allocator-policy memory, shape and strides inline) holds one reference to the buffer's node;
// from_dlpack wraps a producer's CPU tensor and lets its deleter run as the root's ExternalRef.
// Empty unless <dlpack/dlpack.h> was found (EDGEMEM_HAS_DLPACK).
#include <edgemem/config.hpp>

#if EDGEMEM_HAS_DLPACK
#include <cstdint>

#include <edgemem/dlpack.hpp>

#include "core/nodes.hpp"

namespace edgemem {

using detail::MemNode;
using detail::RootNode;

namespace {

/// Bytes of one element of an exported tensor. Errc: invalid_argument.
Result<std::size_t> export_elem_bytes(DLDataType dtype) noexcept {
  if (dtype.bits == 0 || dtype.bits % 8 != 0) return fail(Errc::invalid_argument, "dtype bits are not a positive multiple of 8");
  if (dtype.lanes != 1) return fail(Errc::invalid_argument, "dtype lanes other than 1 are not exported");
  return std::size_t{dtype.bits} / 8;
}

/// Checks that the tensor (`shape`, `strides` in elements or null, `byte_offset`) lies in `size`
/// bytes at address `base`. Errc: invalid_argument, out_of_range, misaligned.
Result<void> check_export(std::uintptr_t base, std::size_t size, DLDataType dtype, const std::int64_t* shape,
                          int ndim, const std::int64_t* strides, std::size_t byte_offset) noexcept {
  if (ndim < 0 || ndim > dlpack_max_ndim) return fail(Errc::invalid_argument, "ndim is negative or above dlpack_max_ndim");
  if (ndim > 0 && shape == nullptr) return fail(Errc::invalid_argument, "shape is null");
  EDGEMEM_TRY_ASSIGN(const std::size_t elem, export_elem_bytes(dtype));
  bool empty = false;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return fail(Errc::invalid_argument, "an extent is negative");
    empty = empty || shape[i] == 0;
  }
  const auto elem64 = static_cast<std::int64_t>(elem);
  if (empty) {
    if (byte_offset > size) return fail(Errc::out_of_range, "byte_offset is past the buffer's end");
  } else {
    // Element indices of the lowest and highest element, relative to the first one.
    std::int64_t lo = 0, hi = 0, contiguous = 1;
    for (int i = ndim - 1; i >= 0; --i) {
      const std::int64_t stride = strides != nullptr ? strides[i] : contiguous;
      std::int64_t span = 0;
      if (__builtin_mul_overflow(shape[i] - 1, stride, &span) ||
          __builtin_add_overflow(span >= 0 ? hi : lo, span, span >= 0 ? &hi : &lo) ||
          (strides == nullptr && __builtin_mul_overflow(contiguous, shape[i], &contiguous)))
        return fail(Errc::out_of_range, "the tensor's extent overflows");
    }
    std::int64_t hi_end = 0, lo_bytes = 0;
    if (__builtin_mul_overflow(hi, elem64, &hi_end) || __builtin_add_overflow(hi_end, elem64, &hi_end) ||
        __builtin_mul_overflow(lo, elem64, &lo_bytes))
      return fail(Errc::out_of_range, "the tensor's byte extent overflows");
    const auto end = static_cast<std::uint64_t>(hi_end);
    if (end > size || byte_offset > size - end) return fail(Errc::out_of_range, "the tensor reaches past the buffer's end");
    if (lo_bytes < 0 && static_cast<std::uint64_t>(-(lo_bytes + 1)) + 1 > byte_offset)
      return fail(Errc::out_of_range, "a negative stride reaches before the buffer's first byte");
  }
  std::size_t align = elem & (~elem + 1);
  if (align > 16) align = 16;
  if (byte_offset % align != 0 || (base + byte_offset) % align != 0)
    return fail(Errc::misaligned, "the first element is not aligned to the element size");
  return {};
}

template <class M>
struct ExportRecord {
  M managed{};
  MemNode* node = nullptr;  // holds a reference (null for a mapping's tensor)
  std::int64_t shape[dlpack_max_ndim] = {};
  std::int64_t strides[dlpack_max_ndim] = {};
};

/// The tensor's deleter: drops the reference and frees the record (once per tensor, any thread).
template <class M>
void delete_export(M* self) noexcept {
  if (self == nullptr) return;
  auto* rec = static_cast<ExportRecord<M>*>(self->manager_ctx);
  MemNode* node = rec->node;
  detail::destroy_node(rec);
  if (node != nullptr) detail::unref(node);
}

/// A record for a checked tensor over `data`, taking a reference to `node` (when non-null).
/// Errc: out_of_host_memory.
template <class M>
Result<ExportRecord<M>*> make_export(void* data, MemNode* node, DLDataType dtype, const std::int64_t* shape,
                                     int ndim, const std::int64_t* strides, std::size_t byte_offset) noexcept {
  auto* rec = detail::make_node<ExportRecord<M>>();
  if (rec == nullptr) return fail(Errc::out_of_host_memory, "no memory for the DLPack tensor record");
  std::int64_t contiguous = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    rec->shape[i] = shape[i];
    rec->strides[i] = strides != nullptr ? strides[i] : contiguous;
    // Checked by check_export; with a zero extent the tensor has no elements and wrapped strides are moot.
    (void)__builtin_mul_overflow(contiguous, shape[i], &contiguous);
  }
  DLTensor& t = rec->managed.dl_tensor;
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = ndim;
  t.dtype = dtype;
  t.shape = rec->shape;
  t.strides = rec->strides;
  t.byte_offset = byte_offset;
  rec->managed.manager_ctx = rec;
  rec->managed.deleter = &delete_export<M>;
  if (node != nullptr) {
    detail::retain(node);
    rec->node = node;
  }
  return rec;
}

/// Where a buffer's tensor lives: its first byte and the DLPack device that reaches it.
struct ExportTarget {
  std::byte* data = nullptr;
  DLDevice device{kDLCPU, 0};
};

/// The address of `n`'s first byte where it is stable outside maps (on the CUDA backend, device,
/// pinned and managed memory as kDLCUDA, kDLCUDAHost and kDLCUDAManaged, cuda.core's types). Errc:
/// released, access_denied, unsupported.
Result<ExportTarget> export_target(const Buffer& buf) noexcept {
  const MemNode* n = detail::node_of(buf);
  if (n == nullptr) return fail(Errc::released, "buffer is released");
  if (has(n->flags, MemFlags::host_write_only) || has(n->flags, MemFlags::host_no_access))
    return fail(Errc::access_denied, "the buffer's host-access flags forbid host reads");
  const RootNode* root = n->root;
  if (root->svm != nullptr) {
    if (root->svm_grain == SvmGrain::coarse)
      return fail(Errc::unsupported, "coarse-grain SVM is reached only inside a map: map it and export the Mapping");
    return ExportTarget{root->svm + n->origin};
  }
  if (root->host != nullptr) return ExportTarget{const_cast<std::byte*>(root->host) + n->origin};
  const contract::MemAddress at = detail::Backend::mem_address(root->ctx->native, root->native);
  switch (at.place) {
    case contract::MemPlace::none: break;
    case contract::MemPlace::host: return ExportTarget{at.data + n->origin, DLDevice{kDLCPU, 0}};
    case contract::MemPlace::device: return ExportTarget{at.data + n->origin, DLDevice{kDLCUDA, at.device}};
    case contract::MemPlace::pinned: return ExportTarget{at.data + n->origin, DLDevice{kDLCUDAHost, 0}};
    case contract::MemPlace::managed: return ExportTarget{at.data + n->origin, DLDevice{kDLCUDAManaged, 0}};
  }
  return fail(Errc::unsupported, "the buffer has no stable host address: map it and export the Mapping");
}

template <class M>
Result<ExportRecord<M>*> export_buffer(const Buffer& buf, DLDataType dtype, const std::int64_t* shape, int ndim,
                                       const std::int64_t* strides, std::size_t byte_offset) noexcept {
  EDGEMEM_TRY_ASSIGN(const ExportTarget target, export_target(buf));
  EDGEMEM_TRY(check_export(reinterpret_cast<std::uintptr_t>(target.data), buf.size(), dtype, shape, ndim, strides,
                           byte_offset));
  EDGEMEM_TRY_ASSIGN(auto* rec, make_export<M>(target.data, detail::node_of(buf), dtype, shape, ndim, strides, byte_offset));
  rec->managed.dl_tensor.device = target.device;
  return rec;
}

template <class M>
Result<ExportRecord<M>*> export_mapping(void* data, std::size_t bytes, DLDataType dtype, const std::int64_t* shape,
                                        int ndim, const std::int64_t* strides, std::size_t byte_offset) noexcept {
  if (data == nullptr) return fail(Errc::released, "mapping is not mapped");
  EDGEMEM_TRY(check_export(reinterpret_cast<std::uintptr_t>(data), bytes, dtype, shape, ndim, strides, byte_offset));
  return make_export<M>(data, nullptr, dtype, shape, ndim, strides, byte_offset);
}

/// An imported tensor, owned by the root that wraps its bytes: the root lets it go after its native object.
struct ImportRecord : detail::ExternalRef {
  DLManagedTensor* tensor = nullptr;
};

void release_import(detail::ExternalRef* self) noexcept {
  auto* rec = static_cast<ImportRecord*>(self);
  DLManagedTensor* tensor = rec->tensor;
  detail::destroy_node(rec);
  if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);
}

/// The byte count of a C-contiguous CPU tensor. Errc: invalid_argument, out_of_range, unsupported.
Result<std::size_t> import_bytes(const DLTensor& t) noexcept {
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost)
    return fail(Errc::unsupported, "only kDLCPU and kDLCUDAHost tensors are imported");
  if (t.data == nullptr) return fail(Errc::invalid_argument, "the tensor's data is null");
  if (t.ndim < 0) return fail(Errc::invalid_argument, "ndim is negative");
  if (t.ndim > 0 && t.shape == nullptr) return fail(Errc::invalid_argument, "shape is null");
  if (t.dtype.bits == 0 || t.dtype.bits % 8 != 0 || t.dtype.lanes == 0)
    return fail(Errc::invalid_argument, "dtype bits are not a positive multiple of 8, or lanes is 0");
  std::uint64_t count = 1;
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] < 0) return fail(Errc::invalid_argument, "an extent is negative");
    if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(t.shape[i]), &count))
      return fail(Errc::out_of_range, "the tensor's element count overflows");
  }
  if (count == 0) return fail(Errc::invalid_argument, "the tensor has no bytes");
  if (t.strides != nullptr) {
    std::int64_t expected = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
      if (t.shape[i] != 1 && t.strides[i] != expected)
        return fail(Errc::unsupported, "only C-contiguous tensors are imported zero-copy");
      if (__builtin_mul_overflow(expected, t.shape[i], &expected))
        return fail(Errc::out_of_range, "the tensor's element count overflows");
    }
  }
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, std::uint64_t{t.dtype.bits} / 8 * t.dtype.lanes, &bytes) ||
      bytes > SIZE_MAX || t.byte_offset > UINTPTR_MAX - reinterpret_cast<std::uintptr_t>(t.data))
    return fail(Errc::out_of_range, "the tensor's byte count overflows");
  return static_cast<std::size_t>(bytes);
}

}  // namespace

Result<DLManagedTensor*> to_dlpack(const Buffer& buf, DLDataType dtype, const std::int64_t* shape, int ndim,
                                   const std::int64_t* strides, std::size_t byte_offset) noexcept {
  EDGEMEM_TRY_ASSIGN(auto* rec, export_buffer<DLManagedTensor>(buf, dtype, shape, ndim, strides, byte_offset));
  return &rec->managed;
}

Result<DLManagedTensor*> detail::dlpack_of_mapping(void* data, std::size_t bytes, DLDataType dtype,
                                                   const std::int64_t* shape, int ndim, const std::int64_t* strides,
                                                   std::size_t byte_offset) noexcept {
  EDGEMEM_TRY_ASSIGN(auto* rec, export_mapping<DLManagedTensor>(data, bytes, dtype, shape, ndim, strides, byte_offset));
  return &rec->managed;
}

#ifdef DLPACK_FLAG_BITMASK_READ_ONLY
namespace {
void set_version(DLManagedTensorVersioned& m, bool read_only) noexcept {
  m.version.major = DLPACK_MAJOR_VERSION;
  m.version.minor = DLPACK_MINOR_VERSION;
  m.flags = read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
}
}  // namespace

Result<DLManagedTensorVersioned*> to_dlpack_versioned(const Buffer& buf, DLDataType dtype, const std::int64_t* shape,
                                                      int ndim, const std::int64_t* strides,
                                                      std::size_t byte_offset) noexcept {
  EDGEMEM_TRY_ASSIGN(auto* rec,
                     export_buffer<DLManagedTensorVersioned>(buf, dtype, shape, ndim, strides, byte_offset));
  const detail::ExternalRef* ext = detail::node_of(buf)->root->external;  // read-only imported memory too
  set_version(rec->managed, has(buf.flags(), MemFlags::host_read_only) || (ext != nullptr && ext->read_only));
  return &rec->managed;
}

Result<DLManagedTensorVersioned*> detail::dlpack_versioned_of_mapping(void* data, std::size_t bytes, bool read_only,
                                                                      DLDataType dtype, const std::int64_t* shape,
                                                                      int ndim, const std::int64_t* strides,
                                                                      std::size_t byte_offset) noexcept {
  EDGEMEM_TRY_ASSIGN(auto* rec,
                     export_mapping<DLManagedTensorVersioned>(data, bytes, dtype, shape, ndim, strides, byte_offset));
  set_version(rec->managed, read_only);
  return &rec->managed;
}
#endif

Result<Buffer> from_dlpack(const Context& ctx, DLManagedTensor* tensor, MemFlags flags) noexcept {
  if (detail::node_of(ctx) == nullptr) return fail(Errc::released, "context is released");
  if (tensor == nullptr) return fail(Errc::invalid_argument, "tensor is null");
  EDGEMEM_TRY_ASSIGN(const std::size_t bytes, import_bytes(tensor->dl_tensor));
  auto* rec = detail::make_node<ImportRecord>();
  if (rec == nullptr) return fail(Errc::out_of_host_memory, "no memory for the DLPack import record");
  rec->release = release_import;
  rec->path = ImportPath::host_ptr;
  auto b = Buffer::wrap(ctx, static_cast<std::byte*>(tensor->dl_tensor.data) + tensor->dl_tensor.byte_offset, bytes,
                        flags);
  if (!b) {
    detail::destroy_node(rec);  // the tensor stays the caller's
    return fail(b.error());
  }
  rec->tensor = tensor;
  detail::node_of(*b)->root->external = rec;
  return b;
}

}  // namespace edgemem

#endif  // EDGEMEM_HAS_DLPACK
