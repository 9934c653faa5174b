#include "core/nodes.hpp"

#include <thread>

#include "core/image_node.hpp"
#include "core/live.hpp"
#include "core/ordering.hpp"
#include "core/svm_root.hpp"

namespace edgemem::detail {

namespace {
template <class T>
bool drop(T* n) noexcept {
  return n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1;
}
}  // namespace

void report_dropped(ContextNode* ctx, const Error& e) noexcept {
  if (ctx == nullptr) return;
  std::lock_guard<std::mutex> lock(ctx->unreported_lock);
  ++ctx->unreported_count;
  ctx->unreported_last = e;
}

void init_view(MemNode* n, MemNode* parent, std::size_t origin, std::size_t bytes, MemFlags flags) noexcept {
  retain(parent);  // the context is borrowed through the parent chain
  n->ctx = parent->ctx;
  n->parent = parent;
  n->root = parent->root;
  n->origin = origin;
  n->bytes = bytes;
  n->storage = parent->storage;
  n->flags = flags;
  n->wrapped = parent->wrapped;
  live_add(n->image ? Live::image : Live::sub_buffer, 1);
}

void destroy_mem_node(MemNode* n) noexcept {
  if (n->image) destroy_node(static_cast<ImageNode*>(n));
  else if (n->root == n) destroy_node(static_cast<RootNode*>(n));
  else destroy_node(n);
}

MemNode* take_view_node(RootNode* root) noexcept {
  if (root->spare_view.load(std::memory_order_relaxed) != nullptr) {
    if (MemNode* spare = root->spare_view.exchange(nullptr, std::memory_order_acquire); spare != nullptr)
      return new (spare) MemNode();
  }
  return make_node<MemNode>();
}

Result<Backend::NativeMem> native_of(MemNode* n) noexcept {
  EDGEMEM_TRY(check_not_svm(n));
  if (n->parent == nullptr || n->native_state.load(std::memory_order_acquire) == kNativeReady) return n->native;
  // No mutex: the first caller claims the making; another waits for it (rare: two threads asking the
  // same view's first native() at once). A failed make lets the next call try again.
  for (;;) {
    std::uint8_t state = kNativeNone;
    if (n->native_state.compare_exchange_strong(state, kNativeMaking, std::memory_order_acquire)) {
      auto made = Backend::mem_sub(n->root->native, n->origin, n->bytes, n->flags);
      if (!made) {
        n->native_state.store(kNativeNone, std::memory_order_release);
        return fail(made.error());
      }
      n->native = *made;
      n->native_state.store(kNativeReady, std::memory_order_release);
      return n->native;
    }
    if (state == kNativeReady) return n->native;
    std::this_thread::yield();
  }
}

void unref(ContextNode* n) noexcept {
  if (n == nullptr || !drop(n)) return;
  if (!n->borrowed) Backend::context_release(n->native);
  live_add(Live::context, -1);
  destroy_node(n);
}

void link_queue(QueueNode* n) noexcept {
  if (n->borrowed) return;  // its native queue may go with its handle: never used after that
  std::lock_guard<std::mutex> lock(n->ctx->queues_lock);
  n->next = n->ctx->queues;
  if (n->next != nullptr) n->next->prev = n;
  n->ctx->queues = n;
}

QueueNode* take_live_queue(ContextNode* ctx) noexcept {
  std::lock_guard<std::mutex> lock(ctx->queues_lock);
  for (QueueNode* q = ctx->queues; q != nullptr; q = q->next) {
    // A node whose count reached 0 is being unlinked by its last unref: not to be revived.
    std::uint32_t refs = q->refs.load(std::memory_order_relaxed);
    while (refs != 0 && !q->refs.compare_exchange_weak(refs, refs + 1, std::memory_order_acq_rel)) {
    }
    if (refs != 0) return q;
  }
  return nullptr;
}

void unref(QueueNode* n) noexcept {
  if (n == nullptr || !drop(n)) return;
  if (!n->borrowed) {
    std::lock_guard<std::mutex> lock(n->ctx->queues_lock);
    if (n->prev != nullptr) n->prev->next = n->next;
    else n->ctx->queues = n->next;
    if (n->next != nullptr) n->next->prev = n->prev;
  }
  if (!n->borrowed) Backend::queue_release(n->native);
  live_add(Live::queue, -1);
  ContextNode* ctx = n->ctx;
  destroy_node(n);
  unref(ctx);
}

void unref(MemNode* n) noexcept {
  // Iterative so a deep chain of sub-buffers cannot exhaust the stack.
  while (n != nullptr) {
    // The sole holder needs no atomic update: with one reference left, nobody else can add one.
    const std::uint32_t left =
        n->refs.load(std::memory_order_acquire) == 1 ? 0 : n->refs.fetch_sub(1, std::memory_order_acq_rel) - 1;
    if (left != 0) {
      if (left == 1 && n->ownership == NodeOwnership::pool_block) {  // back to its pool's reference
        // No mutex: the pool's own spinlock guards its free list (see NodeOwnership).
        NodeOwner* pool = n->owner.load(std::memory_order_acquire);
        if (pool != nullptr) pool->take_back(pool, n);
      }
      return;
    }
    RootNode* const own = n->root == n ? n->root : nullptr;  // a root's record, null for a view
    if (own != nullptr && own->svm != nullptr) {
      free_svm_root(own);
    } else {
      // Foreign memory (an import's mapping) goes right after the native object, so first every
      // command that may still reach it must be done (clReleaseMemObject alone would defer).
      if (own != nullptr && own->external != nullptr) wait_pending(own->pending, n->ctx);
      // A view has a native object of its own only once native_of made it (or it was adopted).
      if (!n->borrowed && (own != nullptr || n->native_state.load(std::memory_order_acquire) == kNativeReady))
        Backend::mem_release(n->native);
    }
    if (own != nullptr) {
      if (own->external != nullptr) own->external->release(own->external);
      destroy_pending_table(own->pending);
    }
    live_add(n->image ? Live::image : n->parent == nullptr ? Live::buffer : Live::sub_buffer, -1);
    MemNode* parent = n->parent;
    ContextNode* ctx = n->ctx;
    if (n->maps != nullptr && !n->maps->lent && parent != nullptr && n->ownership == NodeOwnership::none) {
      // An ordinary view's mapping slots wait in the root for the next view's first map.
      std::lock_guard<detail::Lock> lock(n->root->map_lock);
      n->maps->spare_next = n->root->spare_maps;
      n->root->spare_maps = n->maps;
      n->maps = nullptr;
    }
    if (n->ownership == NodeOwnership::heap_run) {
      // Its owner takes back the pages and the node's storage (never the allocator's) in one step,
      // so a page is never free while the node that covered it is still in use.
      std::lock_guard<detail::Lock> lock(n->root->map_lock);
      NodeOwner* heap = n->owner.load(std::memory_order_relaxed);
      heap->take_back(heap, n);
    } else if (parent != nullptr && !n->image && n->ownership == NodeOwnership::none) {
      // A plain view: its storage waits in the root for the next view (the root frees it when it dies).
      RootNode* root = n->root;
      n->~MemNode();
      MemNode* none = nullptr;
      if (!root->spare_view.compare_exchange_strong(none, n, std::memory_order_release, std::memory_order_relaxed))
        DefaultAllocator::deallocate(n, sizeof(MemNode), alignof(MemNode));
    } else {
      destroy_mem_node(n);
    }
    if (parent == nullptr) unref(ctx);  // only a root holds its context
    n = parent;
  }
}

}  // namespace edgemem::detail
