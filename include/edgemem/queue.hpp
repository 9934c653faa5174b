/// @file queue.hpp  Queue: an in-order command queue (a stream). Every transfer has a blocking form
/// and an async form (`*_async`) that takes a wait list and returns the command's Event.
/// All offsets and sizes are in bytes. Arguments are checked by edgemem before the backend is
/// called, in this order, so every backend answers bad input alike and a failed call changes nothing:
/// released handles (Errc::released), wrong context / null pointer / zero size (Errc::invalid_argument),
/// ranges (Errc::out_of_range), alignment (Errc::misaligned), overlap (Errc::overlap),
/// host-access flags (Errc::access_denied), open mappings (Errc::busy), wait list
/// (Errc::released for a released event, Errc::invalid_argument for an event of another context).
///
/// Wait lists: any length, no heap. The backend takes up to 32 of them per command; a longer list
/// costs a chain of marker commands on this queue (one per 31 events), enqueued just before the
/// command, which waits for the last marker instead: out_of_host_memory, out_of_device_memory or
/// backend_failure when the driver cannot enqueue one (the command then is not enqueued).
///
/// Threads: one Queue may be used from several threads at once (as an OpenCL queue may); commands from
/// two threads on one queue run in the order they were enqueued.
/// Ordering across queues (automatic; the model is docs/ordering.md): a command, map or unmap that
/// touches bytes a command on another queue of the same context still writes (or, for one that writes,
/// still reads) waits for that command without a wait list; order on one queue is the queue's own. Memory whose last handle goes while
/// commands still reach it returns to its pool, ring or heap at once and carries those commands to its
/// next owner, whose first command waits for them. A blocking call has completed when it returns (a
/// blocking write: `src` may be reused; the device write is ordered before every later command). Your
/// own kernels on native() handles join it through begin_native() before them and end_native() after
/// them (or order them with events yourself, or end a buffer's use on a queue with
/// Buffer::release(const Queue&)).
#pragma once
#include <cstddef>
#include <type_traits>

#include <edgemem/native.hpp>
#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/event.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/image.hpp>
#include <edgemem/image_mapping.hpp>
#include <edgemem/mapping.hpp>
#include <edgemem/pixel.hpp>
#include <edgemem/rect.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

namespace detail {
}

/// An in-order command queue on one context.
class Queue : public detail::Handle<detail::QueueNode> {
 public:
  /// Creates an in-order queue on `ctx`. Errc: released, out_of_host_memory, backend_failure.
  [[nodiscard]] static Result<Queue> create(const Context& ctx) noexcept;
  /// Interop: wraps an in-order queue made elsewhere on `ctx`'s context and device (cl_command_queue).
  /// AdoptMode::retain takes a reference of its own (the caller keeps and releases its own); borrow
  /// takes none (the caller keeps it alive while this queue lives). Errc: released, invalid_argument
  /// (null, other context or device, unknown mode; on CUDA the pseudo-streams CU_STREAM_LEGACY and
  /// CU_STREAM_PER_THREAD), unsupported (out-of-order queue; host backend),
  /// out_of_host_memory, backend_failure.
  [[nodiscard]] static Result<Queue> adopt(const Context& ctx, NativeQueue native,
                                           AdoptMode mode = AdoptMode::retain) noexcept;

  /// An empty (released) queue.
  Queue() noexcept = default;
  Queue(Queue&& other) noexcept = default;             ///< takes over `other`, leaving it released
  Queue& operator=(Queue&& other) noexcept = default;  ///< releases this, then takes over `other`
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;
  ~Queue() = default;  ///< release(); pending commands still complete

  /// Waits until every command enqueued so far has completed. Errc: released, backend_failure.
  [[nodiscard]] Result<void> finish() noexcept;

  /// Enqueues a marker: a command that moves no bytes and completes when every command enqueued on this
  /// queue before it, and every event of `waits`, has completed (clEnqueueMarkerWithWaitList). Its Event
  /// orders another queue's commands after this queue's work so far (as their wait list), or is waited
  /// for on the host. Errc: released (this queue; an event of `waits`), invalid_argument (an event of
  /// another context), out_of_host_memory, out_of_device_memory, backend_failure (the driver could not
  /// enqueue it).
  [[nodiscard]] Result<Event> marker(WaitList waits = {}) noexcept;
  /// Enqueues a barrier: a marker() after which no later command of this queue starts before it has
  /// completed. Every edgemem queue is in order (Queue::adopt refuses others), where a marker already
  /// does that, so barrier() is marker() and costs the same. Errc: as marker().
  [[nodiscard]] Result<Event> barrier(WaitList waits = {}) noexcept;

  /// Before your own commands on `mem`'s native() handle (a kernel, a raw transfer) on this queue's
  /// native handle: orders every command enqueued on this queue from now on behind the commands of
  /// other queues that still reach `mem` in a conflicting way (one marker with their events as its wait
  /// list; none when nothing of another queue reaches it; nothing to wait for on the host backend).
  /// `access`: what your commands do to `mem` (read; write or write_discard: they write). Errc:
  /// released (queue or mem), invalid_argument (mem of another context, unknown Access), busy (an open
  /// mapping of `mem`'s bytes that a writing `access` conflicts with, or a write mapping), those of
  /// marker() (out_of_host_memory, out_of_device_memory, backend_failure). Memory the driver imported
  /// (ImportPath::khr_*) is acquired here (clEnqueueAcquireExternalMemObjectsKHR, with those waits;
  /// unsupported when the platform lacks that entry point) and released by end_native(): call both
  /// around your commands on it, on the same queue. Holds are per queue (the extension acquires for one
  /// command-queue) and nest with each other and with open mappings made on that queue: a queue's first
  /// acquires, its last releases, and edgemem's own commands on the memory on that queue meanwhile are
  /// not bracketed again (other queues' commands still are). Also exhausted (the memory is held on 8
  /// other queues at once).
  [[nodiscard]] Result<void> begin_native(const Buffer& mem, Access access) noexcept;
  /// begin_native() for an image (its whole memory). Errc: as that.
  [[nodiscard]] Result<void> begin_native(const Image& mem, Access access) noexcept;
  /// After your own commands on `mem` are enqueued on this queue: records them (every command of this
  /// queue so far) as reaching all of `mem` with `access`, so commands of other queues that conflict
  /// wait for them, and memory that goes back to its pool, ring or heap carries them to its next owner.
  /// One marker on this queue stands for them (for memory the driver imported, after the last open
  /// hold's release, clEnqueueReleaseExternalMemObjectsKHR). A marker the driver refuses becomes a
  /// finish of this queue (counted in Context::unreported_errors()). Errc: released (queue or mem),
  /// invalid_argument (mem of another context, unknown Access), backend_failure (neither marker nor
  /// finish could be had), and for a driver import unsupported / backend_failure (the release could not
  /// be enqueued; your commands are recorded all the same).
  [[nodiscard]] Result<void> end_native(const Buffer& mem, Access access) noexcept;
  /// end_native() for an image (its whole memory). Errc: as that.
  [[nodiscard]] Result<void> end_native(const Image& mem, Access access) noexcept;

  /// Writes `bytes` bytes from `src` to `dst` at `offset`. Errc: released, invalid_argument
  /// (src null, bytes 0, other context), out_of_range, overlap (`src` shares a byte with the caller
  /// memory a Buffer::wrap `dst` uses, anywhere in it, or lies in an SVM `dst`'s allocation: use copy()),
  /// access_denied (dst host_read_only or host_no_access, or read-only imported memory: Buffer::import
  /// with MemFlags::read_only), busy.
  [[nodiscard]] Result<void> write(Buffer& dst, std::size_t offset, const void* src, std::size_t bytes) noexcept;
  /// Async write(); `src` must stay valid until the event completes. Errc: as write(), plus the wait
  /// list's (file comment).
  [[nodiscard]] Result<Event> write_async(Buffer& dst, std::size_t offset, const void* src, std::size_t bytes,
                                          WaitList waits = {}) noexcept;

  /// Reads `bytes` bytes of `src` at `offset` into `dst`. Errc: released, invalid_argument
  /// (dst null, bytes 0, other context), out_of_range, overlap (`dst` shares a byte with the caller
  /// memory a Buffer::wrap `src` uses, anywhere in it, or lies in an SVM `src`'s allocation: use copy()),
  /// access_denied (src host_write_only or host_no_access), busy.
  [[nodiscard]] Result<void> read(const Buffer& src, std::size_t offset, void* dst, std::size_t bytes) noexcept;
  /// Async read(); `dst` must stay valid and untouched until the event completes. Errc: as read(), plus
  /// the wait list's (file comment).
  [[nodiscard]] Result<Event> read_async(const Buffer& src, std::size_t offset, void* dst, std::size_t bytes,
                                         WaitList waits = {}) noexcept;

  /// Fills `bytes` bytes of `dst` at `offset` with a repeated pattern of `pattern_bytes` bytes
  /// (1, 2, 4, 8, 16, 32, 64 or 128). Errc: released, invalid_argument (pattern null or of another size,
  /// bytes 0, other context), out_of_range, misaligned (offset or bytes not a multiple of
  /// pattern_bytes), overlap (the pattern's bytes lie in the caller memory a Buffer::wrap `dst` uses,
  /// at the bytes filled), access_denied (dst host_read_only or host_no_access: a fill counts as a host
  /// write; or read-only imported memory), busy, unsupported (pattern_bytes above info().caps.max_fill_pattern_bytes).
  [[nodiscard]] Result<void> fill(Buffer& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                                  std::size_t pattern_bytes) noexcept;
  /// Async fill(). Errc: as fill(), plus the wait list's (file comment).
  [[nodiscard]] Result<Event> fill_async(Buffer& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                                         std::size_t pattern_bytes, WaitList waits = {}) noexcept;

  /// Copies `bytes` bytes from `src` at `src_offset` to `dst` at `dst_offset`. Errc: released,
  /// invalid_argument (bytes 0, other context), out_of_range, overlap (ranges overlap within one root
  /// buffer or SVM allocation, in the caller memory two buffers use (Buffer::wrap, host-pointer and mmap
  /// imports, create_exportable), or in one file two buffers were made over: two imports of one memfd
  /// or dma-buf, an export and its own import; issue #29.7), access_denied (dst is read-only imported
  /// memory: Buffer::import with MemFlags::read_only), busy;
  /// between SVM and a buffer also out_of_device_memory, backend_failure (the buffer object made over
  /// the SVM for the command).
  [[nodiscard]] Result<void> copy(const Buffer& src, Buffer& dst, std::size_t src_offset, std::size_t dst_offset,
                                  std::size_t bytes) noexcept;
  /// Async copy(). Errc: as copy(), plus the wait list's (file comment).
  [[nodiscard]] Result<Event> copy_async(const Buffer& src, Buffer& dst, std::size_t src_offset,
                                         std::size_t dst_offset, std::size_t bytes, WaitList waits = {}) noexcept;

  /// Writes a rectangular region from host memory `src` (`src_bytes` long) into `dst`. Errc: released,
  /// invalid_argument (src null, a region extent 0, a pitch smaller than its row/slice, slice pitch not
  /// a multiple of row pitch, other context), out_of_range (region past the buffer or past `src_bytes`,
  /// overflow included), overlap (the host side's bytes, from its first to its last, share a byte with
  /// the caller memory a Buffer::wrap `dst` uses), access_denied (dst host_read_only or host_no_access,
  /// or read-only imported memory), busy, unsupported (shared virtual memory: svm.hpp).
  [[nodiscard]] Result<void> write_rect(Buffer& dst, const Rect& rect, const void* src, std::size_t src_bytes) noexcept;
  /// Async write_rect(). Errc: as write_rect(), plus the wait list's (file comment).
  [[nodiscard]] Result<Event> write_rect_async(Buffer& dst, const Rect& rect, const void* src, std::size_t src_bytes,
                                               WaitList waits = {}) noexcept;
  /// Reads a rectangular region of `src` into host memory `dst` (`dst_bytes` long). Errc: as write_rect()
  /// (overlap: the host side's bytes share a byte with the caller memory a Buffer::wrap `src` uses;
  /// access_denied: src host_write_only or host_no_access).
  [[nodiscard]] Result<void> read_rect(const Buffer& src, const Rect& rect, void* dst, std::size_t dst_bytes) noexcept;
  /// Async read_rect(). Errc: as read_rect(), plus the wait list's (file comment).
  [[nodiscard]] Result<Event> read_rect_async(const Buffer& src, const Rect& rect, void* dst, std::size_t dst_bytes,
                                              WaitList waits = {}) noexcept;
  /// Copies a rectangular region between buffers (host-access flags do not apply: it runs on the
  /// device). Errc: as write_rect() for each side (its host overlap and host-flag access_denied aside;
  /// access_denied still for a read-only imported `dst`), plus overlap (the two regions share a byte of
  /// one root buffer, of the caller memory two buffers use, or of one file two buffers were made over:
  /// as copy()).
  [[nodiscard]] Result<void> copy_rect(const Buffer& src, Buffer& dst, const CopyRect& rect) noexcept;
  /// Async copy_rect(). Errc: as copy_rect(), plus the wait list's (file comment).
  [[nodiscard]] Result<Event> copy_rect_async(const Buffer& src, Buffer& dst, const CopyRect& rect,
                                              WaitList waits = {}) noexcept;

  /// Moves `buf`'s contents to the host or the device (a validated no-op on the host backend).
  /// A sub-buffer migrates through its native sub-object (made on first use), leaving the rest of its root;
  /// SVM migrates its own bytes (clEnqueueSVMMigrateMem). Errc: released, invalid_argument (other
  /// context, unknown Migration), busy (mapped), unsupported (!info().caps.migration; for SVM
  /// !info().caps.svm_migration), access_denied (to_host or to_device_discard of read-only imported
  /// memory), out_of_host_memory.
  [[nodiscard]] Result<void> migrate(Buffer& buf, Migration to) noexcept;
  /// Async migrate(). Errc: as migrate(), plus the wait list's (file comment).
  [[nodiscard]] Result<Event> migrate_async(Buffer& buf, Migration to, WaitList waits = {}) noexcept;

  /// Maps `bytes` bytes of `buf` at `offset` (blocking) as elements of T; see mapping.hpp for the rules.
  /// Errc: released, invalid_argument (bytes 0, other context, unknown Access value), out_of_range,
  /// misaligned (offset not a multiple of alignof(T) or bytes not a multiple of sizeof(T)), access_denied
  /// (Access::read of a host_write_only or host_no_access buffer; write or write_discard of a
  /// host_read_only or host_no_access one, or of read-only imported memory), busy (conflicting mapping),
  /// exhausted (the handle already
  /// holds max_mappings_per_buffer mappings), out_of_host_memory (the handle's mapping slots, made on
  /// its first map), backend_failure.
  template <class T = std::byte>
  [[nodiscard]] Result<Mapping<T>> map(Buffer& buf, Access access, std::size_t offset, std::size_t bytes) noexcept {
    auto raw = map_bytes(buf, false, access, offset, bytes, sizeof(T), alignof(T));
    if (!raw) return fail(raw.error());
    return Mapping<T>(std::move(*raw));
  }
  /// Maps the whole of `buf` as elements of T. Errc: as the ranged map().
  template <class T = std::byte>
  [[nodiscard]] Result<Mapping<T>> map(Buffer& buf, Access access) noexcept {
    return map<T>(buf, access, 0, buf.size());
  }
  /// Maps `bytes` bytes of a const `buf` at `offset` for reading, as Mapping<const T> (q.read takes a
  /// const Buffer& too). T must be const: `map<float>(const_buf, ...)` does not compile (no overload).
  /// A write access through a const Buffer& is refused: Errc::invalid_argument (Access::write or
  /// write_discard; checked with the access value, before ranges). Errc: as the ranged map() above.
  template <class T = const std::byte, std::enable_if_t<std::is_const_v<T>, int> = 0>
  [[nodiscard]] Result<Mapping<T>> map(const Buffer& buf, Access access, std::size_t offset,
                                       std::size_t bytes) noexcept {
    auto raw = map_bytes(buf, true, access, offset, bytes, sizeof(T), alignof(T));
    if (!raw) return fail(raw.error());
    return Mapping<T>(std::move(*raw));
  }
  /// Maps the whole of a const `buf` for reading as `Mapping<const T>`. Errc: as the ranged const map().
  template <class T = const std::byte, std::enable_if_t<std::is_const_v<T>, int> = 0>
  [[nodiscard]] Result<Mapping<T>> map(const Buffer& buf, Access access) noexcept {
    return map<T>(buf, access, 0, buf.size());
  }

  // Images (image.hpp): origins, extents and regions in pixels; the same checks, ordering and mapping
  // rules as buffers, an image's bytes being the span from its region's first to last pixel (a view:
  // in its buffer). Every call below also answers Errc::released for a released image or buffer and
  // invalid_argument for one of another context.

  /// Writes `region` of `dst` from host memory `src` (`src_bytes` long, laid out with `pitch`).
  /// Errc: invalid_argument (src null, a region extent 0, a bad pitch: see HostPitch), out_of_range
  /// (region past the image, or the layout past src_bytes), overlap (src in the caller memory a wrapped
  /// buffer under a view uses), access_denied (host_read_only or host_no_access, or a view of read-only
  /// imported memory), busy.
  [[nodiscard]] Result<void> write_image(Image& dst, const ImageRegion& region, const void* src, std::size_t src_bytes,
                                         HostPitch pitch = {}) noexcept;
  /// Async write_image(); `src` must stay valid until the event completes. Errc: as write_image(), plus the wait list's.
  [[nodiscard]] Result<Event> write_image_async(Image& dst, const ImageRegion& region, const void* src,
                                                std::size_t src_bytes, HostPitch pitch = {}, WaitList waits = {}) noexcept;
  /// Reads `region` of `src` into host memory `dst` (`dst_bytes` long, laid out with `pitch`).
  /// Errc: as write_image() (access_denied: host_write_only or host_no_access).
  [[nodiscard]] Result<void> read_image(const Image& src, const ImageRegion& region, void* dst, std::size_t dst_bytes,
                                        HostPitch pitch = {}) noexcept;
  /// Async read_image(). Errc: as read_image(), plus the wait list's.
  [[nodiscard]] Result<Event> read_image_async(const Image& src, const ImageRegion& region, void* dst,
                                               std::size_t dst_bytes, HostPitch pitch = {}, WaitList waits = {}) noexcept;
  /// Copies `dst_region.extent` pixels from `src` at `src_origin` to `dst_region` of `dst`. Errc:
  /// invalid_argument (formats differ, an extent 0), out_of_range (either region past its image),
  /// overlap (the regions share pixels of one image, or bytes of one buffer under two views),
  /// access_denied (dst views read-only imported memory), busy.
  [[nodiscard]] Result<void> copy_image(const Image& src, Image& dst, ImageOrigin src_origin,
                                        const ImageRegion& dst_region) noexcept;
  /// Async copy_image(). Errc: as copy_image(), plus the wait list's.
  [[nodiscard]] Result<Event> copy_image_async(const Image& src, Image& dst, ImageOrigin src_origin,
                                               const ImageRegion& dst_region, WaitList waits = {}) noexcept;
  /// Fills `region` of `dst` with `color` (its kind must be the format's: Color::floats for normalised
  /// and float formats, ints / uints for the integer ones), converted by OpenCL's rules (pixel.hpp).
  /// Errc: invalid_argument (color kind, an extent 0), out_of_range, access_denied (host_read_only or
  /// host_no_access: a fill counts as a host write, as for buffers; or read-only imported memory), busy.
  [[nodiscard]] Result<void> fill_image(Image& dst, const Color& color, const ImageRegion& region) noexcept;
  /// Async fill_image(). Errc: as fill_image(), plus the wait list's.
  [[nodiscard]] Result<Event> fill_image_async(Image& dst, const Color& color, const ImageRegion& region,
                                               WaitList waits = {}) noexcept;
  /// Copies `region` of `src` to `dst` at byte `dst_offset`, pixels tightly packed (row after row,
  /// slice after slice). Errc: invalid_argument (an extent 0), out_of_range (region past the image or
  /// the bytes past the buffer), overlap (the buffer's bytes and the image's share a root: a view of
  /// it), access_denied (the written side is read-only imported memory), busy, unsupported (`dst` is
  /// shared virtual memory).
  [[nodiscard]] Result<void> copy_image_to_buffer(const Image& src, const ImageRegion& region, Buffer& dst,
                                                  std::size_t dst_offset) noexcept;
  /// Async copy_image_to_buffer(). Errc: as copy_image_to_buffer(), plus the wait list's.
  [[nodiscard]] Result<Event> copy_image_to_buffer_async(const Image& src, const ImageRegion& region, Buffer& dst,
                                                         std::size_t dst_offset, WaitList waits = {}) noexcept;
  /// Copies tightly packed pixels from `src` at byte `src_offset` into `region` of `dst`. Errc: as
  /// copy_image_to_buffer().
  [[nodiscard]] Result<void> copy_buffer_to_image(const Buffer& src, std::size_t src_offset, Image& dst,
                                                  const ImageRegion& region) noexcept;
  /// Async copy_buffer_to_image(). Errc: as copy_buffer_to_image(), plus the wait list's.
  [[nodiscard]] Result<Event> copy_buffer_to_image_async(const Buffer& src, std::size_t src_offset, Image& dst,
                                                         const ImageRegion& region, WaitList waits = {}) noexcept;
  /// Maps `region` of `img` (blocking) under the mapping rules of mapping.hpp, the image's bytes being
  /// its region's span. The guard reports the row and slice pitch the map really has (a device may map
  /// with pitches other than the image's). Errc: invalid_argument (unknown Access, an extent 0),
  /// out_of_range, access_denied (as Queue::map), busy (conflicting mapping), exhausted, out_of_host_memory,
  /// backend_failure.
  [[nodiscard]] Result<ImageMapping> map_image(Image& img, Access access, const ImageRegion& region) noexcept;
  /// Maps the whole of `img`. Errc: as the ranged map_image().
  [[nodiscard]] Result<ImageMapping> map_image(Image& img, Access access) noexcept {
    return map_image(img, access, img.region());
  }

  /// Native queue (cl_command_queue on OpenCL) for interop.
  [[nodiscard]] NativeQueue native() const noexcept;
  /// Drops this handle; mappings made on it still unmap on it. Idempotent, never fails.
  Result<void> release() noexcept;

 private:
  friend struct detail::HandleAccess;
  explicit Queue(detail::QueueNode* node) noexcept : Handle(node) {}
  Result<MappingBase> map_bytes(const Buffer& buf, bool read_only_handle, Access access, std::size_t offset,
                                std::size_t bytes, std::size_t elem_size, std::size_t elem_align) noexcept;
};

}  // namespace edgemem
