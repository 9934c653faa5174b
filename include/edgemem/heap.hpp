/// @file heap.hpp  Heap: a paged arena (lluvia style). One device allocation of `page_count` pages of
/// `page_bytes` bytes; buffers are contiguous runs of pages found first-fit over a bitmap, returned as
/// ordinary Buffers (sub-buffers of the arena) that give their pages back when the last reference to
/// them goes (the handle, its mappings and its sub-buffers).
///
/// Memory: init() takes everything the heap will ever need: the arena (one Buffer::create) and one
/// bookkeeping block from the allocator policy holding the page bitmap and `max_buffers` buffer nodes
/// (440 bytes each on x86-64 with max_mappings_per_buffer 8). After init() no call of the heap allocates.
/// Cost: create_buffer*() is O(page_count) worst case (first-fit scan of the bitmap, skipping fully used
/// 64-page words) plus, on OpenCL, one clCreateSubBuffer; the buffer's destruction is O(pages of its
/// run) plus, on OpenCL, one clReleaseMemObject. No heap allocation either way, with any allocator
/// policy. free_pages() is O(1), largest_free_run() O(page_count). Thread-safe (a mutex around the
/// bitmap and the node free list).
/// Not copyable or movable (buffers point at their heap): declare it, then init() it.
/// Destruction policy: as FixedPool: release() is refused with Errc::busy while buffers are out; the
/// destructor detaches live buffers, which then live on as plain sub-buffers of the arena (the
/// bookkeeping block goes with the last of them).
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/handle.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

class Queue;

namespace detail {
struct HeapBook;
}

/// A paged arena of device memory.
class Heap : private detail::NodeOwner {
 public:
  /// An uninitialised heap: create_buffer*() return Errc::released until init() succeeds.
  Heap() noexcept = default;
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;
  ~Heap();  ///< see the destruction policy in the file comment

  /// Allocates `page_count` pages of `page_bytes` bytes as one buffer, zero-fills it through `q` with a
  /// device fill (waiting for it; allowed for every host-access flag), so deferred device allocation
  /// fails here, and takes node storage for `max_buffers` live buffers (0: page_count, the most that can
  /// ever be live; larger values are clamped to page_count). On failure the heap stays uninitialised.
  /// Errc: released (ctx or q), invalid_argument (page_bytes or page_count 0, already initialised, q on
  /// another context, bad flag combination), misaligned (page_bytes not a multiple of ctx.base_align()),
  /// out_of_range (size overflow, or total bytes > the device's max allocation), out_of_device_memory,
  /// out_of_host_memory (the bookkeeping block), backend_failure.
  [[nodiscard]] Result<void> init(const Context& ctx, Queue& q, std::size_t page_bytes, std::size_t page_count,
                                  Storage storage = Storage::device, MemFlags flags = MemFlags::read_write,
                                  std::size_t max_buffers = 0) noexcept;
  /// init() over one shared virtual memory allocation of `grain` (Svm::create): every buffer it hands
  /// out is SVM (Buffer::svm_pointer() for kernel arguments). Errc: as init() above, plus those of
  /// Svm::create (unsupported: the device lacks `grain`).
  [[nodiscard]] Result<void> init(const Context& ctx, Queue& q, std::size_t page_bytes, std::size_t page_count,
                                  SvmGrain grain, std::size_t max_buffers = 0) noexcept;

  /// A buffer of `bytes` bytes on the first run of ceil(bytes / page_bytes) free pages (contents
  /// undefined), with the heap's storage and flags. No heap allocation. Errc: released (not initialised),
  /// invalid_argument (bytes 0), out_of_range (bytes > page_bytes * page_count: it can never fit),
  /// exhausted (no free run that long now, or max_buffers() buffers live), out_of_host_memory and
  /// backend_failure (OpenCL: clCreateSubBuffer failed). A failed call changes nothing.
  [[nodiscard]] Result<Buffer> create_buffer(std::size_t bytes) noexcept;
  /// create_buffer(bytes), then writes `bytes` bytes from `data` into it through `q` (blocking).
  /// Errc: as create_buffer(), plus invalid_argument (data null, q on another context), access_denied
  /// (heap flags host_read_only or host_no_access), released (q). On failure the pages go back.
  [[nodiscard]] Result<Buffer> create_buffer_from_host(Queue& q, const void* data, std::size_t bytes) noexcept;
  /// create_buffer(other.size()) (the heap's storage and flags; contents not copied).
  /// Errc: released (heap not initialised, or `other` released), as create_buffer().
  [[nodiscard]] Result<Buffer> create_buffer_like(const Buffer& other) noexcept;

  /// Bytes per page (0 before init()).
  [[nodiscard]] std::size_t page_size() const noexcept { return page_bytes_; }
  /// Pages in the heap (0 before init()).
  [[nodiscard]] std::size_t page_count() const noexcept { return page_count_; }
  /// Buffers that can be live at once (node storage taken at init(); 0 before init()).
  [[nodiscard]] std::size_t max_buffers() const noexcept { return max_buffers_; }
  /// Buffers of the heap live now (handles, or runs kept by mappings or sub-buffers). O(1).
  [[nodiscard]] std::size_t live_buffers() const noexcept;
  /// Pages not in any buffer now. O(1).
  [[nodiscard]] std::size_t free_pages() const noexcept;
  /// Longest run of free pages now, in pages. O(page_count).
  [[nodiscard]] std::size_t largest_free_run() const noexcept;
  /// False while any open mapping covers a byte of page `page` (or page >= page_count()).
  /// O(open mappings of the arena).
  [[nodiscard]] bool is_page_mappable(std::size_t page) const noexcept;
  /// Frees the arena; init() may be called again afterwards. Idempotent.
  /// Errc: busy (buffers of the heap still live; nothing changes).
  [[nodiscard]] Result<void> release() noexcept;

 private:
  Result<void> init_arena(const Context& ctx, Queue& q, std::size_t page_bytes, std::size_t page_count,
                          Storage storage, MemFlags flags, std::size_t max_buffers,
                          Result<Buffer> (*make)(const Context&, const Queue&, std::size_t, Storage, MemFlags,
                                                 SvmGrain) noexcept,
                          SvmGrain grain) noexcept;
  static void take_back_run(detail::NodeOwner* self, detail::MemNode* node) noexcept;
  void mark(std::size_t first, std::size_t pages, bool used) noexcept;
  std::size_t find_run(std::size_t pages) const noexcept;
  void teardown() noexcept;

  Buffer arena_;
  detail::HeapBook* book_ = nullptr;  // bitmap and node storage (one allocation)
  std::uint64_t* bitmap_ = nullptr;   // in book_: 1 bit per page, 1 = used
  std::size_t page_bytes_ = 0;
  std::size_t page_count_ = 0;
  std::size_t max_buffers_ = 0;
  std::size_t free_pages_ = 0;
  mutable std::mutex lock_;
};

}  // namespace edgemem
