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

void destroy_mem_node(MemNode* n) noexcept {
  if (n->image) destroy_node(static_cast<ImageNode*>(n));
  else if (n->root == n) destroy_node(static_cast<RootNode*>(n));
  else destroy_node(n);
}

namespace {

bool same_view(const KeptView* k, std::size_t origin, std::size_t bytes, MemFlags flags) noexcept {
  return k->origin == origin && k->bytes == bytes && k->flags == flags;
}

/// A fresh MemNode in kept storage `k`, with `k`'s native sub-object when `with_native`.
MemNode* revive(KeptView* k, bool with_native) noexcept {
  const Backend::NativeMem native = with_native ? k->native : Backend::NativeMem{};
  k->~KeptView();
  auto* n = new (k) MemNode();
  if (with_native) {
    n->native = native;
    n->native_state.store(kNativeReady, std::memory_order_relaxed);
  }
  return n;
}

/// Gives the storage of `k` and of every kept view after it on its list back to the allocator policy
/// (their native sub-objects already released).
void free_storage(KeptView* k) noexcept {
  while (k != nullptr) {
    KeptView* next = k->next;
    k->~KeptView();
    DefaultAllocator::deallocate(k, sizeof(MemNode), alignof(MemNode));
    k = next;
  }
}

/// Puts `k` on its root's lists: at the back of `kept_natives` when it holds a native sub-object (the
/// oldest one there then leaves it, its sub-object released and its storage on `spare_views`, when
/// the list is full), else on `spare_views`; when the root keeps kMaxSpareViews already, releases
/// `k`'s native sub-object and frees it.
void list_kept(RootNode* root, KeptView* k) noexcept {
  bool release = false;  // a native sub-object leaves: released outside the lock
  Backend::NativeMem released{};
  bool free_k = false;
  {
    std::lock_guard<SpinLock> lock(root->spare_lock);
    const std::uint32_t count = root->spare_count.load(std::memory_order_relaxed);
    if (count < kMaxSpareViews) {
      if (k->has_native) {
        std::uint32_t natives = root->native_count.load(std::memory_order_relaxed);
        if (natives == kMaxKeptNatives) {
          KeptView* oldest = root->kept_natives;
          root->kept_natives = oldest->next;
          release = true;
          released = oldest->native;
          oldest->has_native = false;
          oldest->next = root->spare_views;
          root->spare_views = oldest;
          --natives;
        }
        k->next = nullptr;
        if (root->kept_natives == nullptr) root->kept_natives = k;
        else root->kept_natives_tail->next = k;
        root->kept_natives_tail = k;
        root->native_count.store(natives + 1, std::memory_order_relaxed);
      } else {
        k->next = root->spare_views;
        root->spare_views = k;
      }
      root->spare_count.store(count + 1, std::memory_order_relaxed);
    } else {
      free_k = true;  // not kept
      release = k->has_native;
      if (release) released = k->native;
    }
  }
  if (release) Backend::mem_release(released);
  if (free_k) {
    k->next = nullptr;
    free_storage(k);
  }
}

}  // namespace

MemNode* take_kept_or_new_view_node(RootNode* root, std::size_t origin, std::size_t bytes, MemFlags flags) noexcept {
  if (root->spare_count.load(std::memory_order_relaxed) != 0) {
    KeptView* k = nullptr;
    bool with_native = false;
    {
      std::lock_guard<SpinLock> lock(root->spare_lock);
      if (root->native_count.load(std::memory_order_relaxed) != 0) {
        // A kept native sub-object of these bytes and access, among the oldest few.
        KeptView* prev = nullptr;
        KeptView* at = root->kept_natives;
        for (std::uint32_t depth = 0; at != nullptr && depth < kNativeSearch; ++depth, prev = at, at = at->next) {
          if (!same_view(at, origin, bytes, flags)) continue;
          (prev != nullptr ? prev->next : root->kept_natives) = at->next;
          if (root->kept_natives_tail == at) root->kept_natives_tail = prev;
          k = at;
          with_native = true;
          root->native_count.store(root->native_count.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
          break;
        }
      }
      if (k == nullptr && root->spare_views != nullptr) {
        k = root->spare_views;
        root->spare_views = k->next;
      }
      if (k != nullptr)
        root->spare_count.store(root->spare_count.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    }
    if (k != nullptr) return revive(k, with_native);
  }
  return make_node<MemNode>();
}

MemNode* take_view_node_kept_native(RootNode* root, KeptView* k, std::size_t origin, std::size_t bytes,
                                    MemFlags flags) noexcept {
  if (same_view(k, origin, bytes, flags)) return revive(k, true);
  // Another view's bytes: the sub-object stays for that view's next turn, back in the slot or, when the
  // slot was filled meanwhile, on the list.
  KeptView* none = nullptr;
  if (!root->spare_view.compare_exchange_strong(none, k, std::memory_order_release, std::memory_order_relaxed))
    list_kept(root, k);
  return take_kept_or_new_view_node(root, origin, bytes, flags);
}

void keep_view_storage(RootNode* root, MemNode* n) noexcept {
  if (!n->borrowed && n->native_state.load(std::memory_order_acquire) == kNativeReady) {
    const Backend::NativeMem native = n->native;
    const std::size_t origin = n->origin, bytes = n->bytes;
    const MemFlags flags = n->flags;
    n->~MemNode();
    KeptView* k = new (n) KeptView(true);
    k->native = native;
    k->origin = origin;
    k->bytes = bytes;
    k->flags = flags;
    // The newest native sub-object takes the slot; an older one there goes on the list.
    if (KeptView* old = root->spare_view.exchange(k, std::memory_order_acq_rel); old != nullptr) list_kept(root, old);
    return;
  }
  n->~MemNode();
  KeptView* k = new (n) KeptView(false);
  KeptView* none = nullptr;
  if (root->spare_view.load(std::memory_order_relaxed) == nullptr &&
      root->spare_view.compare_exchange_strong(none, k, std::memory_order_release, std::memory_order_relaxed))
    return;
  list_kept(root, k);
}

void drop_kept_native(RootNode* root) noexcept {
  // The root is dying: no other thread reaches its kept views.
  KeptView* k = root->spare_view.load(std::memory_order_acquire);
  if (k != nullptr && k->has_native) {
    Backend::mem_release(k->native);
    k->has_native = false;
  }
  for (k = root->kept_natives; k != nullptr; k = k->next) {
    Backend::mem_release(k->native);
    k->has_native = false;
  }
}

RootNode::~RootNode() {
  if (KeptView* k = spare_view.load(std::memory_order_acquire); k != nullptr) {
    k->next = nullptr;
    free_storage(k);
  }
  free_storage(spare_views);
  free_storage(kept_natives);
  for (MapSlots* s = spare_maps; s != nullptr;) {
    MapSlots* next = s->spare_next;
    destroy_node(s);
    s = next;
  }
}

Result<Backend::NativeMem> native_of(MemNode* n) noexcept {
  EDGEMEM_TRY(check_not_svm(n));
  if (n->parent == nullptr || n->native_state.load(std::memory_order_acquire) >= kNativeReady) return n->native;
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
    if (state >= kNativeReady) return n->native;
    std::this_thread::yield();
  }
}

void unref(ContextNode* n) noexcept {
  if (n == nullptr || !drop(n)) return;
  Backend::context_release(n->native, n->borrowed);
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
    // A plain view's storage, and the native sub-object native_of made for it, go on to its root.
    const bool plain_view = n->parent != nullptr && !n->image && n->ownership == NodeOwnership::none;
    const std::uint8_t native_state = n->native_state.load(std::memory_order_acquire);
    if (own != nullptr) drop_kept_native(own);  // a dead view's sub-object goes before its root's object
    if (own != nullptr && own->svm != nullptr) {
      free_svm_root(own);
    } else {
      // Foreign memory (an import's mapping) goes right after the native object, so first every
      // command that may still reach it must be done (clReleaseMemObject alone would defer).
      if (own != nullptr && own->external != nullptr) wait_pending(own->pending, n->ctx);
      // A view has a native object of its own only once native_of made it (or it was given one).
      const bool view_native = native_state >= kNativeReady && !(plain_view && native_state == kNativeReady);
      if (!n->borrowed && (own != nullptr || view_native)) Backend::mem_release(n->native);
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
      std::lock_guard<detail::Lock> lock(n->root->return_lock);
      NodeOwner* heap = n->owner.load(std::memory_order_relaxed);
      heap->take_back(heap, n);
    } else if (plain_view) {
      // Its storage waits in the root for the next view (the root frees it when it dies).
      keep_view_storage(n->root, n);
    } else {
      destroy_mem_node(n);
    }
    if (parent == nullptr) unref(ctx);  // only a root holds its context
    n = parent;
  }
}

}  // namespace edgemem::detail
