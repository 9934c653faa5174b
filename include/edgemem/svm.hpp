/// @file svm.hpp  Svm: shared virtual memory (OpenCL 2.0 SVM; pyopencl's SVMAllocation, opencl.hpp's
/// SVMAllocator). One address space for host and device: pointer() goes into kernel arguments
/// (clSetKernelArgSVMPointer) and into data structures that kernels follow. Move-only, RAII.
///
/// An Svm is a Buffer (it derives from one), so every Queue call that takes a Buffer takes an Svm, a
/// view of one or a block of an SVM pool, with the same checks, wait lists and ordering across
/// queues: write / read (clEnqueueSVMMemcpy with host memory), copy (SVM <-> SVM: clEnqueueSVMMemcpy;
/// SVM <-> Buffer: a copy through a buffer object over the SVM), fill (clEnqueueSVMMemFill), migrate
/// (clEnqueueSVMMigrateMem, OpenCL 2.1), map / unmap (clEnqueueSVMMap for coarse grain). The rect
/// transfers, images over it and Buffer::native() answer Errc::unsupported for SVM.
///
/// Host access, by grain:
/// - coarse: only inside a map (Queue::map, Mapping<T>), with the conflict rules of buffer maps. A host
///   store outside a map may be lost silently on a coarse-only GPU; builds with AddressSanitizer on
///   the host backend poison coarse SVM outside maps, so such a store fails there first.
/// - fine_buffer / fine_system: host_span() at any time, with no driver call. What is still yours:
///   host stores racing device work on the same bytes (order them with Queue::finish() or an Event;
///   edgemem does not allocate with CL_MEM_SVM_ATOMICS, so host-device atomics are not promised), and
///   the host view of bytes a kernel is writing. A host pointer into an Svm is refused as the host side
///   of its own write / read (Errc::overlap: use copy()); into another allocation it is host memory,
///   kept alive by you until the command completes, as for any async transfer.
///
/// Lifetime (the ordering promise of queue.hpp): freeing never runs under queued work edgemem knows
/// reaches the allocation (its commands on it, and your kernels recorded by end_native). When the last
/// reference goes (handles, views, mappings, pool blocks), an allocation with commands still queued on
/// it is freed by clEnqueueSVMFree on a queue that used it, after the commands of every queue that
/// reach it; with none it is freed at once (clSVMFree). Your own kernels on pointer() join that
/// ordering through Queue::begin_native / end_native, or release(const Queue&) after them; pointers
/// stored inside SVM that a kernel follows must also be declared to the kernel with
/// clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, ...) (OpenCL's rule, not edgemem's).
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/result.hpp>
#include <edgemem/span.hpp>

namespace edgemem {

/// The largest alignment Svm::create accepts, in bytes (OpenCL's: the largest data type, long16).
inline constexpr std::size_t svm_max_alignment = 128;

/// A shared virtual memory allocation or a view of one.
class Svm : public Buffer {
 public:
  /// Allocates `bytes` bytes of SVM of `grain`, its first byte aligned to `alignment` bytes (0: 128;
  /// edgemem never aligns to less than 128). Contents undefined. No driver call before every argument
  /// is checked. Errc: released (ctx), invalid_argument (unknown grain, bytes == 0, alignment not a
  /// power of two), unsupported (the device lacks `grain`: info().caps.svm_coarse / svm_fine_buffer /
  /// svm_fine_system), out_of_range (bytes > info().max_alloc_bytes, alignment > svm_max_alignment),
  /// out_of_device_memory, out_of_host_memory.
  [[nodiscard]] static Result<Svm> create(const Context& ctx, std::size_t bytes, SvmGrain grain = SvmGrain::coarse,
                                          std::size_t alignment = 0) noexcept;
  /// A new allocation with the size and grain of `other` (pyopencl's svm_empty_like; contents not
  /// copied). Errc: released (other), those of create().
  [[nodiscard]] static Result<Svm> like(const Svm& other) noexcept;

  /// An empty (released) handle.
  Svm() noexcept = default;
  Svm(Svm&& other) noexcept = default;             ///< takes over `other`, leaving it released
  Svm& operator=(Svm&& other) noexcept = default;  ///< drops this handle (even if mapped), then takes over `other`
  ~Svm() = default;  ///< drops the handle (the memory goes with the last reference, see the file comment)

  /// A view of `bytes` bytes at byte `offset` of this allocation (bounds checked; its pointer() is this
  /// one's plus `offset`). No driver call. Errc: released, invalid_argument (bytes == 0), out_of_range
  /// (offset + bytes > size(), overflow included), misaligned (the view's origin is not a multiple of
  /// the context's base_align()), out_of_host_memory.
  [[nodiscard]] Result<Svm> sub(std::size_t offset, std::size_t bytes) const noexcept;

  /// The grain the memory was allocated with (coarse when released).
  [[nodiscard]] SvmGrain grain() const noexcept;
  /// The first byte's address, for kernel arguments and for pointers stored in SVM (null when released).
  [[nodiscard]] void* pointer() const noexcept { return svm_pointer(); }

  /// The bytes as elements of T for direct host access: fine grain only (coarse needs a map). The span
  /// stays valid while this handle (or another reference to the memory) lives. Errc: released,
  /// access_denied (coarse grain: use Queue::map), misaligned (size() not a multiple of sizeof(T)).
  template <class T>
  [[nodiscard]] Result<Span<T>> host_span() const noexcept {
    auto bytes = fine_host_bytes(sizeof(T));
    if (!bytes) return fail(bytes.error());
    return Span<T>(static_cast<T*>(*bytes), size() / sizeof(T));
  }

 private:
  friend struct detail::HandleAccess;
  explicit Svm(detail::MemNode* node) noexcept : Buffer(node) {}
  [[nodiscard]] Result<void*> fine_host_bytes(std::size_t elem_size) const noexcept;
};

}  // namespace edgemem
