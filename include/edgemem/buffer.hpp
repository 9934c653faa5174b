/// @file buffer.hpp  Buffer: a linear device memory object or a sub-buffer of one. Move-only, RAII.
/// Lifetime rule: a sub-buffer keeps its parent's memory alive (reference counted), so a parent
/// handle may be released or destroyed while sub-buffers exist; the memory goes with the last one.
#pragma once
#include <cstddef>

#include <edgemem/native.hpp>
#include <edgemem/context.hpp>
#include <edgemem/external.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/handle.hpp>
#include <edgemem/ipc_handle.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

class Queue;
class Image;


/// A buffer or sub-buffer.
class Buffer : public detail::Handle<detail::MemNode> {
 public:
  /// Allocates `bytes` bytes (contents undefined).
  /// Errc: released (context), invalid_argument (bytes == 0, bad flag combination, unknown Storage value),
  /// out_of_range (bytes > info().max_alloc_bytes), unsupported (host-access flags on a device without
  /// info().caps.host_access_flags), out_of_device_memory, out_of_host_memory.
  [[nodiscard]] static Result<Buffer> create(const Context& ctx, std::size_t bytes, Storage storage = Storage::device,
                                             MemFlags flags = MemFlags::read_write) noexcept;
  /// Allocates `bytes` bytes and copies them from `data`.
  /// Errc: as create(), plus invalid_argument (data == nullptr).
  [[nodiscard]] static Result<Buffer> from_host(const Context& ctx, const void* data, std::size_t bytes,
                                                Storage storage = Storage::device,
                                                MemFlags flags = MemFlags::read_write) noexcept;
  /// Uses `bytes` bytes of caller memory at `data` zero-copy (CL_MEM_USE_HOST_PTR; OIDN shared buffer).
  /// The caller keeps that memory alive and untouched (except through maps) while the buffer lives.
  /// Zero-copy on OpenCL only for page-aligned `data` and `bytes` a multiple of 64 on some drivers.
  /// Copies between two wrapped buffers over overlapping memory, and reads/writes whose host pointer
  /// lies in the wrapped memory itself, return Errc::overlap (undefined in OpenCL). A device that keeps
  /// its own copy (OpenCL without unified memory: NVIDIA) writes it back into the memory at maps, so
  /// memory the process may only read (PROT_READ) is refused there.
  /// Errc: as create(), plus invalid_argument (data == nullptr), unsupported (PROT_READ memory on such a device).
  [[nodiscard]] static Result<Buffer> wrap(const Context& ctx, void* data, std::size_t bytes,
                                           MemFlags flags = MemFlags::read_write) noexcept;
  /// A new buffer with the size, storage and flags of `other` (a fresh root; contents not copied).
  /// Errc: released (other), out_of_device_memory, out_of_host_memory.
  [[nodiscard]] static Result<Buffer> like(const Buffer& other) noexcept;
  /// A new buffer of `image`'s bytes (Image::size(): its pixels at its row and slice pitch), with its
  /// storage and flags (lluvia's createBufferLike). Errc: released (image), out_of_device_memory,
  /// out_of_host_memory.
  [[nodiscard]] static Result<Buffer> like(const Image& image) noexcept;
  /// Interop: wraps a buffer or sub-buffer made elsewhere on `ctx`'s context (a cl_mem). AdoptMode::retain
  /// takes a reference of its own (the caller keeps and releases its own); AdoptMode::borrow takes none
  /// and releases nothing (the caller keeps the cl_mem alive while this buffer and its views live).
  /// An adopted sub-buffer brings its parent along as its root, so sub() and the mapping rules work
  /// across both. Adopting a cl_mem that another
  /// edgemem Buffer holds gives an independent handle: the mapping rules are not shared between the two.
  /// A CL_MEM_USE_HOST_PTR buffer counts as wrapping its caller memory (the overlap checks of wrap apply).
  /// Errc: released (ctx),
  /// invalid_argument (null handle, other context, unknown mode), unsupported (not a buffer; host backend),
  /// out_of_host_memory, backend_failure.
  [[nodiscard]] static Result<Buffer> adopt(const Context& ctx, NativeMem native,
                                            AdoptMode mode = AdoptMode::retain) noexcept;

  /// Imports foreign memory zero-copy (external.hpp: the paths tried, in order, and when it copies).
  /// The buffer keeps a duplicate of the fd and its mapping until its last view goes (then it first
  /// waits for the queued commands that still reach the memory); import_path() says how it was reached.
  /// With MemFlags::read_only in options.flags the import is read-only memory: an fd is mapped PROT_READ
  /// (so an O_RDONLY fd or a memfd sealed F_SEAL_WRITE / F_SEAL_FUTURE_WRITE imports), and every write
  /// to it or its views (write, fill, copy or copy_rect into it, write_rect, image writes, a map for
  /// writing, migrate other than to_device) is Errc::access_denied, on every path (a copy too).
  /// Errc: released (ctx), access_denied (an fd that cannot be mapped writable, imported without
  /// MemFlags::read_only), invalid_argument (bytes == 0, fd < 0 or closed, an
  /// fd of the wrong kind (a memfd that is not a regular file; a dma-buf that is neither a real dma-buf
  /// nor a memfd sealed against shrinking; a pipe, socket or directory), null host pointer, unknown
  /// HandleType, bad flags, a memfd not sealed against shrinking (F_SEAL_SHRINK) or, with
  /// require_sealed, growing, or a hugetlbfs memfd), out_of_range
  /// (offset + bytes past the fd's size (fstat / lseek), or bytes > info().max_alloc_bytes), misaligned
  /// (the memory misses the alignment rule of external.hpp and allow_copy is off), unsupported (an
  /// opaque fd without cl_khr_external_memory_opaque_fd, or no mmap on this system), out_of_host_memory,
  /// out_of_device_memory, backend_failure (mmap or the driver's import failed; Error::native is errno
  /// or the driver's code).
  [[nodiscard]] static Result<Buffer> import(const Context& ctx, const ExternalMemory& memory,
                                             const ImportOptions& options = {}) noexcept;
  /// Imports exported memory from another process (cuda.core's Buffer.from_ipc_descriptor), consuming
  /// `handle`: its fd moves into the buffer (on failure too, `handle` is left empty, so a handle is used
  /// once). The memory must be a memfd sealed against shrinking and growing (seals read before the
  /// size). With MemFlags::read_only in `flags` it is mapped PROT_READ and is read-only memory, as
  /// import(ctx, ExternalMemory) says. Errc: released (ctx, or an empty or already used handle),
  /// access_denied (a read-only export, PeerAccess::read_only, imported without MemFlags::read_only),
  /// invalid_argument (another device's uuid, a memfd without F_SEAL_SHRINK or F_SEAL_GROW, bad flags),
  /// and those of import(ctx, ExternalMemory).
  [[nodiscard]] static Result<Buffer> import(const Context& ctx, IpcHandle&& handle,
                                             MemFlags flags = MemFlags::read_write) noexcept;
  /// Allocates `bytes` bytes that export_handle() can hand to another process: a sealed memfd mapped
  /// and used zero-copy (CL_MEM_USE_HOST_PTR), its pages reserved at once (fallocate: out_of_host_memory
  /// here rather than a fault at the first write). On the host backend and unified-memory devices only.
  /// `peer` fixes what every process it is exported to may do: PeerAccess::read_only seals it
  /// F_SEAL_FUTURE_WRITE after this process mapped it (this buffer stays writable; no peer can write
  /// it). Errc: released (ctx), invalid_argument (bytes == 0, bad flags, unknown PeerAccess),
  /// out_of_range (bytes > info().max_alloc_bytes), unsupported (a device without unified memory, no
  /// memfd on this system, or PeerAccess::read_only on a kernel before 5.1), out_of_host_memory,
  /// out_of_device_memory, backend_failure (memfd_create, ftruncate, fcntl or mmap failed;
  /// Error::native is errno).
  [[nodiscard]] static Result<Buffer> create_exportable(const Context& ctx, std::size_t bytes,
                                                        MemFlags flags = MemFlags::read_write,
                                                        PeerAccess peer = PeerAccess::read_write) noexcept;

  /// An empty (released) buffer.
  Buffer() noexcept = default;
  Buffer(Buffer&& other) noexcept = default;             ///< takes over `other`, leaving it released
  Buffer& operator=(Buffer&& other) noexcept = default;  ///< drops this handle (even if mapped), then takes over `other`
  ~Buffer() = default;  ///< drops the handle; outstanding mappings stay valid until they unmap

  /// A sub-buffer of `bytes` bytes at byte `offset` of this buffer, with this buffer's flags: a view
  /// (its root plus an origin; a sub of a sub is resolved against the root). Making one costs no driver
  /// call: commands on it use the root's native object at its origin, and a native sub-object is made
  /// only when native() is first asked. Errc: released, invalid_argument (bytes == 0), out_of_range
  /// (offset + bytes > size(), overflow included), misaligned (root origin not a multiple of the
  /// context's base_align()), out_of_host_memory.
  [[nodiscard]] Result<Buffer> sub(std::size_t offset, std::size_t bytes) const noexcept;
  /// sub() with access `flags` that narrow this buffer's (OpenCL's rule: the same device access or any
  /// under read_write; the same host access, host_no_access, or any under none), e.g. a read-only view
  /// of a read-write frame. The native sub-object native() makes carries these flags. Errc: as sub(), plus
  /// invalid_argument (flags wider than this buffer's, or an invalid combination), unsupported
  /// (host-access flags on a device without info().caps.host_access_flags).
  [[nodiscard]] Result<Buffer> sub(std::size_t offset, std::size_t bytes, MemFlags flags) const noexcept;

  /// Size in bytes (0 when released).
  [[nodiscard]] std::size_t size() const noexcept;
  /// Byte offset of this buffer within its root buffer (0 for a root or when released).
  [[nodiscard]] std::size_t origin() const noexcept;
  /// True for a sub-buffer.
  [[nodiscard]] bool is_sub() const noexcept;
  /// Placement (Storage::device when released).
  [[nodiscard]] Storage storage() const noexcept;
  /// Access flags (read_write when released).
  [[nodiscard]] MemFlags flags() const noexcept;
  /// True when the host reaches the memory without a copy: host/shared storage, a wrapped buffer,
  /// a unified-memory device, or shared virtual memory (coarse grain: still only inside a map, as host
  /// and shared storage). False when released.
  [[nodiscard]] bool is_host_accessible() const noexcept;
  /// True for a buffer over caller memory (wrap; mmap and host-pointer imports; a view of one) whose
  /// device commands read and write those very bytes; false where the device keeps its own copy,
  /// synchronised with the memory only at maps (caller memory's rule, external.hpp: every such buffer
  /// of a device without caps.caller_memory_in_place; on CUDA, a wrap partly over another wrap's
  /// registered pages or memory CUDA will not register), for other buffers, and when released.
  [[nodiscard]] bool is_caller_memory_in_place() const noexcept;
  /// True when both are views of the same root allocation.
  [[nodiscard]] bool shares_root_with(const Buffer& other) const noexcept;
  /// True for shared virtual memory: an Svm, a view of one, or a block or run of an SVM pool or heap.
  [[nodiscard]] bool is_svm() const noexcept;
  /// For shared virtual memory (is_svm()): the address of this buffer's first byte, for kernel
  /// arguments (clSetKernelArgSVMPointer) and pointers stored in SVM. Null otherwise or when released.
  [[nodiscard]] void* svm_pointer() const noexcept;
  /// How an imported buffer (or a view of one) reached its memory; ImportPath::none otherwise or when
  /// released.
  [[nodiscard]] ImportPath import_path() const noexcept;
  /// A handle to this buffer's bytes for another process (cuda.core's get_ipc_descriptor): a
  /// duplicate of the root's sealed memfd, its size, and the device's uuid. The peer receives the whole
  /// file, so only a buffer that is all of it is exported (its bytes, and the zero padding to the next
  /// page of create_exportable): not a view of part of a buffer, a pool block or heap run (export the
  /// pool), nor an import of part of a memfd. For buffers made by create_exportable() or imported from
  /// an IpcHandle or a sealed memfd. Errc: released, unsupported (the memory is not a sealed memfd),
  /// access_denied (a view of part of its root; an import of part of a memfd; a read-only import of a
  /// memfd not sealed against writes, which the peer could write), backend_failure (dup failed;
  /// Error::native is errno).
  [[nodiscard]] Result<IpcHandle> export_handle() const noexcept;
  /// Native handle (cl_mem on OpenCL; the bytes on the host backend) for interop, e.g. kernel arguments.
  /// For a sub-buffer the first call makes its native sub-object (clCreateSubBuffer), kept until the
  /// buffer dies; pool blocks have theirs from init(). Thread-safe. Errc: released, misaligned,
  /// unsupported (shared virtual memory: use svm_pointer()), out_of_host_memory, backend_failure (the
  /// sub-object could not be made).
  [[nodiscard]] Result<NativeMem> native() const noexcept;
  /// Drops this handle. Idempotent. Errc: busy (a mapping made through this handle is still open;
  /// the buffer is left unchanged).
  [[nodiscard]] Result<void> release() noexcept;
  /// Drops this handle in `q`'s order (cuda.core's `close(stream)`): commands on other queues that
  /// later touch this memory, including the next owner of a pool block, ring frame or heap run, first
  /// wait for every command enqueued on `q` so far, your own kernels given native() included.
  /// Idempotent on a released buffer. Costs one marker command on `q`. Errc: released (q),
  /// invalid_argument (q on another context), busy (a mapping made through this handle is still open;
  /// nothing changes), out_of_host_memory, backend_failure (the marker could not be enqueued; the
  /// handle is kept).
  [[nodiscard]] Result<void> release(const Queue& q) noexcept;

 protected:
  /// A handle adopting one reference already held on `node` (Svm's too).
  explicit Buffer(detail::MemNode* node) noexcept : Handle(node) {}

 private:
  friend struct detail::HandleAccess;
};

}  // namespace edgemem
