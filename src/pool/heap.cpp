// Heap: a paged arena. A bitmap (1 = used) under a mutex, first-fit runs, and buffers that are
// sub-buffers of the arena whose last reference gives their pages back (MemNode::owner, keep 0).
#include <edgemem/heap.hpp>
#include <edgemem/queue.hpp>

#include "detail/checks.hpp"
#include "detail/nodes.hpp"

namespace edgemem {

using detail::MemNode;

namespace {
std::size_t words_for(std::size_t pages) noexcept { return (pages + 63) / 64; }
}  // namespace

Heap::~Heap() {
  if (page_count_ == 0) return;
  {
    std::lock_guard<std::mutex> map_lock(arena_.node()->map_lock);
    std::lock_guard<std::mutex> lock(lock_);
    for (std::size_t p = 0; p < page_count_; ++p)
      if (runs_[p] != nullptr) runs_[p]->owner = nullptr;  // live buffers outlive the heap as plain subs
  }
  teardown();
}

void Heap::teardown() noexcept {
  DefaultAllocator::deallocate(bitmap_, words_for(page_count_) * sizeof(std::uint64_t), alignof(std::uint64_t));
  DefaultAllocator::deallocate(runs_, page_count_ * sizeof(MemNode*), alignof(MemNode*));
  bitmap_ = nullptr;
  runs_ = nullptr;
  (void)arena_.release();
  page_bytes_ = page_count_ = free_pages_ = 0;
}

Result<void> Heap::init(const Context& ctx, Queue& q, std::size_t page_bytes, std::size_t page_count, Storage storage,
                        MemFlags flags) noexcept {
  if (!ctx.valid()) return fail(Errc::released, "context is released");
  if (!q.valid()) return fail(Errc::released, "queue is released");
  if (page_count_ != 0) return fail(Errc::invalid_argument, "heap is already initialised");
  if (page_bytes == 0 || page_count == 0) return fail(Errc::invalid_argument, "page size or count is zero");
  if (page_bytes % ctx.base_align() != 0)
    return fail(Errc::misaligned, "page size is not a multiple of the device base alignment");
  if (page_bytes > SIZE_MAX / page_count || page_count > SIZE_MAX / sizeof(MemNode*))
    return fail(Errc::out_of_range, "heap size overflows");
  if (page_bytes * page_count > ctx.info().max_alloc_bytes)
    return fail(Errc::out_of_range, "heap size exceeds the device's max allocation");

  const std::size_t words = words_for(page_count);
  auto* bitmap = static_cast<std::uint64_t*>(DefaultAllocator::allocate(words * sizeof(std::uint64_t),
                                                                         alignof(std::uint64_t)));
  auto* runs = static_cast<MemNode**>(DefaultAllocator::allocate(page_count * sizeof(MemNode*), alignof(MemNode*)));
  auto undo = [&](const Error& e) -> Failure {
    DefaultAllocator::deallocate(bitmap, words * sizeof(std::uint64_t), alignof(std::uint64_t));
    DefaultAllocator::deallocate(runs, page_count * sizeof(MemNode*), alignof(MemNode*));
    return fail(e);
  };
  if (bitmap == nullptr || runs == nullptr)
    return undo(Error{Errc::out_of_host_memory, 0, "allocator could not provide the heap's bookkeeping"});
  auto arena = Buffer::create(ctx, page_bytes * page_count, storage, flags);
  if (!arena) return undo(arena.error());
  const std::uint8_t zero = 0;
  if (auto r = q.fill(*arena, 0, arena->size(), &zero, 1); !r) return undo(r.error());
  if (auto r = q.finish(); !r) return undo(r.error());

  for (std::size_t w = 0; w < words; ++w) bitmap[w] = 0;
  for (std::size_t p = 0; p < page_count; ++p) runs[p] = nullptr;
  reclaim = &Heap::reclaim_run;
  std::lock_guard<std::mutex> lock(lock_);
  arena_ = std::move(*arena);
  bitmap_ = bitmap;
  runs_ = runs;
  page_bytes_ = page_bytes;
  page_count_ = page_count;
  free_pages_ = page_count;
  return {};
}

void Heap::mark(std::size_t first, std::size_t pages, bool used) noexcept {
  for (std::size_t p = first; p < first + pages; ++p) {
    const std::uint64_t bit = std::uint64_t{1} << (p % 64);
    if (used) bitmap_[p / 64] |= bit;
    else bitmap_[p / 64] &= ~bit;
  }
  free_pages_ = used ? free_pages_ - pages : free_pages_ + pages;
}

std::size_t Heap::find_run(std::size_t pages) const noexcept {
  std::size_t run = 0;
  for (std::size_t p = 0; p < page_count_; ++p) {
    if (run == 0 && p % 64 == 0 && bitmap_[p / 64] == ~std::uint64_t{0} && p + 64 <= page_count_) {
      p += 63;  // a full word of used pages
      continue;
    }
    run = page_used(p) ? 0 : run + 1;
    if (run == pages) return p + 1 - pages;
  }
  return SIZE_MAX;
}

Result<Buffer> Heap::create_buffer(std::size_t bytes) noexcept {
  if (page_count_ == 0) return fail(Errc::released, "heap is not initialised");
  if (bytes == 0) return fail(Errc::invalid_argument, "size is zero");
  if (bytes > page_bytes_ * page_count_) return fail(Errc::out_of_range, "size exceeds the whole heap");
  const std::size_t pages = (bytes + page_bytes_ - 1) / page_bytes_;
  std::size_t first = 0;
  {
    std::lock_guard<std::mutex> lock(lock_);
    first = pages <= free_pages_ ? find_run(pages) : SIZE_MAX;
    if (first == SIZE_MAX) return fail(Errc::exhausted, "no run of free pages is long enough");
    mark(first, pages, true);
  }
  auto sub = arena_.sub(first * page_bytes_, bytes);
  std::lock_guard<std::mutex> lock(lock_);
  if (!sub) {
    mark(first, pages, false);
    return fail(sub.error());
  }
  MemNode* n = sub->node();
  n->owner = this;
  n->owner_slot = static_cast<std::uint32_t>(first);
  n->owned_keep = 0;
  runs_[first] = n;
  return std::move(*sub);
}

Result<Buffer> Heap::create_buffer_from_host(Queue& q, const void* data, std::size_t bytes) noexcept {
  if (page_count_ == 0) return fail(Errc::released, "heap is not initialised");
  if (!q.valid()) return fail(Errc::released, "queue is released");
  if (data == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
  if (q.node()->ctx != arena_.node()->ctx) return fail(Errc::invalid_argument, "queue belongs to another context");
  EDGEMEM_TRY_ASSIGN(Buffer b, create_buffer(bytes));
  EDGEMEM_TRY(q.write(b, 0, data, bytes));  // on failure b dies and gives its pages back
  return b;
}

Result<Buffer> Heap::create_buffer_like(const Buffer& other) noexcept {
  if (page_count_ == 0) return fail(Errc::released, "heap is not initialised");
  if (!other.valid()) return fail(Errc::released, "buffer is released");
  return create_buffer(other.size());
}

void Heap::reclaim_run(detail::NodeOwner* self, MemNode* node) noexcept {
  auto* heap = static_cast<Heap*>(self);
  std::lock_guard<std::mutex> lock(heap->lock_);
  const std::size_t first = node->owner_slot;
  heap->mark(first, (node->bytes + heap->page_bytes_ - 1) / heap->page_bytes_, false);
  heap->runs_[first] = nullptr;
}

std::size_t Heap::free_pages() const noexcept {
  std::lock_guard<std::mutex> lock(lock_);
  return free_pages_;
}

std::size_t Heap::largest_free_run() const noexcept {
  std::lock_guard<std::mutex> lock(lock_);
  std::size_t best = 0, run = 0;
  for (std::size_t p = 0; p < page_count_; ++p) {
    run = page_used(p) ? 0 : run + 1;
    if (run > best) best = run;
  }
  return best;
}

bool Heap::is_page_mappable(std::size_t page) const noexcept {
  if (page >= page_count_) return false;
  MemNode* root = arena_.node();
  const detail::ByteRange range{page * page_bytes_, (page + 1) * page_bytes_};
  std::lock_guard<std::mutex> lock(root->map_lock);
  return !detail::mapping_conflicts_locked(root, range, true);
}

Result<void> Heap::release() noexcept {
  if (page_count_ == 0) return {};
  {
    std::lock_guard<std::mutex> lock(lock_);
    if (free_pages_ != page_count_) return fail(Errc::busy, "buffers of the heap are still live");
  }
  teardown();
  return {};
}

}  // namespace edgemem
