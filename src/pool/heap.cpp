// Heap: a paged arena. A bitmap (1 = used) and a free list of preallocated buffer nodes, both in one
// bookkeeping block (detail::HeapBook) taken at init(), under a mutex; first-fit runs; buffers are
// views of the arena whose nodes live in the book (NodeOwnership::heap_run), so creating and
// destroying one never allocates and makes no driver call. When the last reference to a buffer goes,
// unref() releases its native object (if native() made one) and calls take_back_run(), which frees
// the pages and the node slot in one step.
#include <edgemem/heap.hpp>
#include <edgemem/queue.hpp>

#include <new>

#include "core/checks.hpp"
#include "core/live.hpp"
#include "core/nodes.hpp"
#include "pool/page_bitmap.hpp"

namespace edgemem {

using detail::MemNode;
using detail::RootNode;

namespace detail {

/// Alignment of the book's block: its header, the node slots and the bitmap words (on ILP32 ARM a
/// uint64_t needs 8 while a MemNode may need only 4).
constexpr std::size_t kBookAlign = alignof(MemNode) > alignof(std::uint64_t) ? alignof(MemNode) : alignof(std::uint64_t);

/// The heap's bookkeeping block: header, `capacity` node slots, the page bitmap, the slot free list.
/// While the heap lives, guarded by Heap::lock_; after the heap died with buffers still live it is
/// their owner, guarded by the arena root's return_lock, and frees itself with the last of them.
struct HeapBook final : NodeOwner {
  std::size_t block_bytes = 0;  // bytes of the whole block, for deallocate
  std::size_t capacity = 0;     // node slots
  unsigned char* nodes = nullptr;  // capacity * sizeof(MemNode)
  MapSlots* maps = nullptr;        // capacity mapping-slot sets, lent to the node of the same slot
  std::uint64_t* bitmap = nullptr;
  IndexFreeList slots;  // free node slots; out() counts the live nodes

  void* slot_storage(std::size_t i) const noexcept { return nodes + i * sizeof(MemNode); }
  MemNode* node(std::size_t i) const noexcept { return std::launder(static_cast<MemNode*>(slot_storage(i))); }
  std::size_t index_of(const MemNode* n) const noexcept {
    return static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(n) - nodes) / sizeof(MemNode);
  }
  /// Destroys a node of this book (its native object already released) and frees its slot.
  void recycle(MemNode* n) noexcept {
    const std::size_t slot = index_of(n);
    n->~MemNode();
    slots.give_back(static_cast<std::uint32_t>(slot));
  }
  static void destroy(HeapBook* book) noexcept {
    const std::size_t bytes = book->block_bytes;
    book->~HeapBook();
    DefaultAllocator::deallocate(book, bytes, kBookAlign);
  }
  /// Owner of the nodes left when the heap died: destroys each as it goes, then the book itself.
  static void take_back_orphan(NodeOwner* self, MemNode* n) noexcept {
    auto* book = static_cast<HeapBook*>(self);
    book->recycle(n);
    if (book->slots.out() == 0) destroy(book);
  }
};

}  // namespace detail

namespace {

using detail::HeapBook;

std::size_t round_up(std::size_t v, std::size_t a) noexcept { return (v + a - 1) / a * a; }

static_assert(detail::kBookAlign >= alignof(HeapBook), "the book's block is aligned for its header");

/// Builds the book for `capacity` nodes and `pages` pages, or null (out of host memory).
HeapBook* make_book(std::size_t capacity, std::size_t pages) noexcept {
  const std::size_t nodes_at = round_up(sizeof(HeapBook), alignof(MemNode));
  const std::size_t maps_at = round_up(nodes_at + capacity * sizeof(MemNode), alignof(detail::MapSlots));
  const std::size_t bitmap_at = round_up(maps_at + capacity * sizeof(detail::MapSlots), alignof(std::uint64_t));
  const std::size_t links_at = bitmap_at + detail::page_bitmap::words_for(pages) * sizeof(std::uint64_t);
  const std::size_t bytes = links_at + capacity * sizeof(std::uint32_t);
  void* block = DefaultAllocator::allocate(bytes, detail::kBookAlign);
  if (block == nullptr) return nullptr;
  auto* base = static_cast<unsigned char*>(block);
  auto* book = new (block) HeapBook();
  book->take_back = &HeapBook::take_back_orphan;
  book->block_bytes = bytes;
  book->capacity = capacity;
  book->nodes = base + nodes_at;
  book->maps = reinterpret_cast<detail::MapSlots*>(base + maps_at);
  for (std::size_t i = 0; i < capacity; ++i) new (&book->maps[i]) detail::MapSlots();
  for (std::size_t i = 0; i < capacity; ++i) book->maps[i].lent = true;
  book->bitmap = reinterpret_cast<std::uint64_t*>(base + bitmap_at);
  for (std::size_t w = 0; w < detail::page_bitmap::words_for(pages); ++w) book->bitmap[w] = 0;
  book->slots.reset(reinterpret_cast<std::uint32_t*>(base + links_at), capacity);
  return book;
}

}  // namespace

Heap::~Heap() {
  if (page_count_ == 0) return;
  {
    std::lock_guard<detail::Lock> returns(detail::node_of(arena_)->root->return_lock);
    std::lock_guard<std::mutex> lock(lock_);
    if (book_->slots.out() != 0) {  // live buffers outlive the heap; the book goes with the last of them
      for (std::size_t i = 0; i < book_->capacity; ++i)
        if (book_->slots.is_out(i)) detail::orphan(book_->node(i), book_);
      book_ = nullptr;
    }
  }
  teardown();
}

void Heap::teardown() noexcept {
  if (book_ != nullptr) HeapBook::destroy(book_);
  book_ = nullptr;
  bitmap_ = nullptr;
  (void)arena_.release();
  page_bytes_ = page_count_ = max_buffers_ = free_pages_ = 0;
}

Result<void> Heap::init(const Context& ctx, Queue& q, std::size_t page_bytes, std::size_t page_count, Storage storage,
                        MemFlags flags, std::size_t max_buffers) noexcept {
  return init_arena(ctx, q, page_bytes, page_count, storage, flags, max_buffers, &detail::buffer_arena,
                    SvmGrain::coarse);
}

Result<void> Heap::init(const Context& ctx, Queue& q, std::size_t page_bytes, std::size_t page_count, SvmGrain grain,
                        std::size_t max_buffers) noexcept {
  return init_arena(ctx, q, page_bytes, page_count, Storage::shared, MemFlags::read_write, max_buffers,
                    &detail::svm_arena, grain);
}

Result<void> Heap::init_arena(const Context& ctx, Queue& q, std::size_t page_bytes, std::size_t page_count,
                              Storage storage, MemFlags flags, std::size_t max_buffers, detail::MakeArena make,
                              SvmGrain grain) noexcept {
  if (!ctx.valid()) return fail(Errc::released, "context is released");
  if (!q.valid()) return fail(Errc::released, "queue is released");
  if (page_count_ != 0) return fail(Errc::invalid_argument, "heap is already initialised");
  if (page_bytes == 0 || page_count == 0) return fail(Errc::invalid_argument, "page size or count is zero");
  if (detail::node_of(q)->ctx != detail::node_of(ctx)) return fail(Errc::invalid_argument, "queue belongs to another context");
  if (page_bytes % ctx.base_align() != 0)
    return fail(Errc::misaligned, "page size is not a multiple of the device base alignment");
  if (page_bytes > SIZE_MAX / page_count) return fail(Errc::out_of_range, "heap size overflows");
  if (page_bytes * page_count > ctx.info().max_alloc_bytes)
    return fail(Errc::out_of_range, "heap size exceeds the device's max allocation");
  const std::size_t capacity = max_buffers == 0 || max_buffers > page_count ? page_count : max_buffers;
  if (capacity >= detail::IndexFreeList::taken || capacity > (SIZE_MAX / 4) / (sizeof(MemNode) + sizeof(std::uint32_t)))
    return fail(Errc::out_of_range, "heap bookkeeping size overflows");

  HeapBook* book = make_book(capacity, page_count);
  if (book == nullptr) return fail(Errc::out_of_host_memory, "allocator could not provide the heap's bookkeeping");
  auto arena = make(ctx, q, page_bytes * page_count, storage, flags, grain);  // zero-filled
  if (!arena) {
    HeapBook::destroy(book);
    return fail(arena.error());
  }
  take_back = &Heap::take_back_run;
  std::lock_guard<std::mutex> lock(lock_);
  arena_ = std::move(*arena);
  book_ = book;
  bitmap_ = book->bitmap;
  page_bytes_ = page_bytes;
  max_buffers_ = capacity;
  free_pages_ = page_count;
  page_count_ = page_count;
  return {};
}

void Heap::mark(std::size_t first, std::size_t pages, bool used) noexcept {
  detail::page_bitmap::mark(bitmap_, first, pages, used);
  free_pages_ = used ? free_pages_ - pages : free_pages_ + pages;
}

std::size_t Heap::find_run(std::size_t pages) const noexcept {
  return detail::page_bitmap::first_fit(bitmap_, page_count_, pages);
}

Result<Buffer> Heap::create_buffer(std::size_t bytes) noexcept {
  if (page_count_ == 0) return fail(Errc::released, "heap is not initialised");
  if (bytes == 0) return fail(Errc::invalid_argument, "size is zero");
  if (bytes > page_bytes_ * page_count_) return fail(Errc::out_of_range, "size exceeds the whole heap");
  const std::size_t pages = (bytes + page_bytes_ - 1) / page_bytes_;
  RootNode* root = detail::node_of(arena_)->root;
  std::size_t first = 0;
  std::uint32_t slot = 0;
  {
    std::lock_guard<std::mutex> lock(lock_);
    first = pages <= free_pages_ ? find_run(pages) : SIZE_MAX;
    if (first == SIZE_MAX) return fail(Errc::exhausted, "no run of free pages is long enough");
    if (!book_->slots.take(slot)) return fail(Errc::exhausted, "max_buffers buffers of the heap are live");
    mark(first, pages, true);
  }
  // A view of the arena (no driver call): its native sub-object comes only if native() is asked.
  auto* n = new (book_->slot_storage(slot)) MemNode();
  detail::init_view(n, root, first * page_bytes_, bytes, root->flags);
  n->maps = &book_->maps[slot];  // all free: the run that had it unmapped before it died
  n->ownership = detail::NodeOwnership::heap_run;
  n->owner.store(this, std::memory_order_relaxed);  // published with the handle
  n->owner_slot = static_cast<std::uint32_t>(slot);
  return detail::HandleAccess::buffer(n);
}

Result<Buffer> Heap::create_buffer_from_host(Queue& q, const void* data, std::size_t bytes) noexcept {
  if (page_count_ == 0) return fail(Errc::released, "heap is not initialised");
  if (!q.valid()) return fail(Errc::released, "queue is released");
  if (data == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
  if (detail::node_of(q)->ctx != detail::node_of(arena_)->ctx) return fail(Errc::invalid_argument, "queue belongs to another context");
  EDGEMEM_TRY(detail::check_host_access(arena_.flags(), false, true));
  EDGEMEM_TRY_ASSIGN(Buffer b, create_buffer(bytes));
  EDGEMEM_TRY(q.write(b, 0, data, bytes));  // on failure b dies and gives its pages back
  return b;
}

Result<Buffer> Heap::create_buffer_like(const Buffer& other) noexcept {
  if (page_count_ == 0) return fail(Errc::released, "heap is not initialised");
  if (!other.valid()) return fail(Errc::released, "buffer is released");
  return create_buffer(other.size());
}

void Heap::take_back_run(detail::NodeOwner* self, MemNode* node) noexcept {
  auto* heap = static_cast<Heap*>(self);
  std::lock_guard<std::mutex> lock(heap->lock_);
  const std::size_t first = node->origin / heap->page_bytes_;
  heap->mark(first, (node->bytes + heap->page_bytes_ - 1) / heap->page_bytes_, false);
  heap->book_->recycle(node);
}

std::size_t Heap::free_pages() const noexcept {
  std::lock_guard<std::mutex> lock(lock_);
  return free_pages_;
}

std::size_t Heap::live_buffers() const noexcept {
  std::lock_guard<std::mutex> lock(lock_);
  return book_ != nullptr ? book_->slots.out() : 0;
}

std::size_t Heap::largest_free_run() const noexcept {
  std::lock_guard<std::mutex> lock(lock_);
  return detail::page_bitmap::largest_free_run(bitmap_, page_count_);
}

bool Heap::is_page_mappable(std::size_t page) const noexcept {
  if (page >= page_count_) return false;
  RootNode* root = detail::node_of(arena_)->root;
  const detail::ByteRange range{page * page_bytes_, (page + 1) * page_bytes_};
  std::lock_guard<detail::Lock> lock(root->map_lock);
  return !detail::mapping_conflicts_locked(root, range, true);
}

Result<void> Heap::release() noexcept {
  if (page_count_ == 0) return {};
  {
    std::lock_guard<std::mutex> lock(lock_);
    if (book_->slots.out() != 0) return fail(Errc::busy, "buffers of the heap are still live");
  }
  teardown();
  return {};
}

}  // namespace edgemem
