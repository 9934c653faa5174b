#include "core/svm_root.hpp"

#include "core/ordering.hpp"

namespace edgemem::detail {

Result<void> check_not_svm(const MemNode* n) noexcept {
  if (is_svm(n))
    return fail(Errc::unsupported, "shared virtual memory has no buffer object for this call (see svm.hpp)");
  return {};
}

namespace {

/// Enqueues the free of `n` on a live queue edgemem owns, after every command its table records (their
/// events as the wait list): never blocking. Errc: unsupported (no such queue is left), those of
/// svm_free_queued. (Unused where commands complete at enqueue: the host backend, whose clang builds
/// would otherwise refuse it under -Werror.)
[[maybe_unused]] Result<void> free_queued(RootNode* n, PendingTable* t) noexcept {
  // Entries keep no queue: the queue whose command made one may be gone, and a borrowed one's native
  // queue with it (docs/ordering.md). Any live queue of the context can wait for their events.
  QueueNode* q = take_live_queue(n->ctx);
  if (q == nullptr) return fail(Errc::unsupported, "no live queue to enqueue the free on");
  Backend::NativeEvent waits[max_pending_per_root];
  const std::size_t count = t->count.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < count; ++i) waits[i] = t->entries[i].event;
  Backend::CommandEvents sync;
  sync.wait_count = count;
  sync.waits = count != 0 ? waits : nullptr;
  Backend::NativeEvent done{};
  sync.out = &done;  // never blocking: the free runs when the device gets there
  const Result<void> queued = Backend::svm_free_queued(q->native, n->svm, sync);
  if (queued) Backend::event_release(done);
  unref(q);
  return queued;
}

}  // namespace

void free_svm_root(RootNode* n) noexcept {
  if constexpr (tracks_pending) {
    PendingTable* t = n->pending;
    if (t != nullptr && t->count.load(std::memory_order_acquire) != 0) {
      auto queued = free_queued(n, t);
      if (queued) return;
      // No queue to free it on (every one released), or the free could not be enqueued: wait on the
      // host for everything recorded, then free at once. Only a refused enqueue is an error to count.
      if (queued.error().code != Errc::unsupported) report_dropped(n->ctx, queued.error());
      wait_pending(t, n->ctx);
    }
  }
  Backend::svm_free(n->ctx->native, n->svm);
}

}  // namespace edgemem::detail
