#include "core/svm_root.hpp"

#include "core/ordering.hpp"

namespace edgemem::detail {

Result<void> check_not_svm(const MemNode* n) noexcept {
  if (is_svm(n))
    return fail(Errc::unsupported, "shared virtual memory has no buffer object for this call (see svm.hpp)");
  return {};
}

namespace {

/// Enqueues the free of `n` after every command its table records. Errc: those of collecting the
/// waits (markers) and of svm_free_queued. (Unused where commands complete at enqueue: the host
/// backend, whose clang builds would otherwise refuse it under -Werror.)
[[maybe_unused]] Result<void> free_queued(MemNode* n, PendingTable* t) noexcept {
  QueueNode* q = t->entries[t->count.load(std::memory_order_relaxed) - 1].queue;
  OrderWaits order;
  EDGEMEM_TRY(order.collect(q, MemUse{n, ByteRange{0, n->bytes}, true}));
  Backend::NativeEvent waits[max_order_waits];
  Backend::CommandEvents sync;
  sync.wait_count = order.copy_to(waits);
  sync.waits = sync.wait_count != 0 ? waits : nullptr;
  Backend::NativeEvent done{};
  sync.out = &done;  // never blocking: the free runs when the device gets there
  EDGEMEM_TRY(Backend::svm_free_queued(q->native, n->svm, sync));
  Backend::event_release(done);
  return {};
}

}  // namespace

void free_svm_root(MemNode* n) noexcept {
  if constexpr (tracks_pending) {
    PendingTable* t = n->pending;
    if (t != nullptr && t->count.load(std::memory_order_acquire) != 0) {
      auto queued = free_queued(n, t);
      if (queued) return;
      // Could not enqueue the free: counted (Context::unreported_errors()); wait for everything
      // recorded, then free at once.
      report_dropped(n->ctx, queued.error());
      for (std::size_t i = 0; i < t->count.load(std::memory_order_relaxed); ++i) {
        (void)Backend::queue_finish(t->entries[i].queue->native);
      }
    }
  }
  Backend::svm_free(n->ctx->native, n->svm);
}

}  // namespace edgemem::detail
