#include "detail/nodes.hpp"

namespace edgemem::detail {

namespace {
template <class T>
bool drop(T* n) noexcept {
  return n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1;
}
}  // namespace

void unref(ContextNode* n) noexcept {
  if (n == nullptr || !drop(n)) return;
  Backend::context_release(n->native);
  destroy_node(n);
}

void unref(QueueNode* n) noexcept {
  if (n == nullptr || !drop(n)) return;
  Backend::queue_release(n->native);
  ContextNode* ctx = n->ctx;
  destroy_node(n);
  unref(ctx);
}

void unref(MemNode* n) noexcept {
  // Iterative so a deep chain of sub-buffers cannot exhaust the stack.
  while (n != nullptr && drop(n)) {
    Backend::mem_release(n->native);
    MemNode* parent = n->parent;
    ContextNode* ctx = n->ctx;
    destroy_node(n);
    unref(ctx);
    n = parent;
  }
}

}  // namespace edgemem::detail
