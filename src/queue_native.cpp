// Queue::begin_native / end_native: your own commands on native() handles (kernels, raw transfers)
// inside edgemem's ordering across queues. begin_native enqueues, on this queue, a marker that waits
// for the commands of other queues that still reach the memory in a conflicting way, so the commands
// enqueued after it are ordered behind them; end_native records this queue's commands so far as using
// the memory, so later commands of other queues (and the memory's next owner, for a pool block, ring
// frame or heap run) wait for them. The entry keeps no event until another queue needs one: then a
// marker on this queue, enqueued after the native commands, provides it.
#include <edgemem/queue.hpp>

#include "core/image_node.hpp"
#include "core/submit.hpp"

namespace edgemem {
namespace {

using detail::Backend;
using detail::MemNode;
using detail::QueueNode;

Result<detail::MemUse> native_use(const QueueNode* q, const MemNode* n, Access access) noexcept {
  if (q == nullptr) return fail(Errc::released, "queue is released");
  if (n == nullptr) return fail(Errc::released, "memory object is released");
  if (n->ctx != q->ctx) return fail(Errc::invalid_argument, "memory object belongs to another context");
  if (access != Access::read && access != Access::write && access != Access::write_discard)
    return fail(Errc::invalid_argument, "unknown Access");
  return detail::MemUse{n, detail::ByteRange{0, n->bytes}, access != Access::read};
}

Result<void> begin(QueueNode* q, const MemNode* n, Access access) noexcept {
  EDGEMEM_TRY_ASSIGN(const detail::MemUse use, native_use(q, n, access));
  EDGEMEM_TRY(detail::check_not_mapped(n, use.range, use.writes));
  // Memory the driver imported (cl_khr_external_memory) is held acquired for the native commands,
  // after the waits, until end() (nested holds: the first acquires, the last releases).
  const bool imported = detail::bracketed_import(n) != nullptr;
  if constexpr (detail::tracks_pending) {
    detail::OrderWaits order;
    order.collect(q, use);
    Backend::NativeEvent natives[detail::max_order_waits];
    Backend::CommandEvents sync;
    sync.wait_count = order.copy_to(natives);
    if (imported) {
      EDGEMEM_TRY_ASSIGN(const bool acquired,
                         detail::hold_import(q->native, q->serial, n, sync.wait_count != 0 ? natives : nullptr, sync.wait_count));
      if (acquired) return {};  // the acquire took the waits
    }
    if (sync.wait_count == 0) return {};  // nothing of another queue reaches it: no marker needed
    sync.waits = natives;
    Backend::NativeEvent marked{};  // not waited for: the host goes on, this queue's later commands wait
    sync.out = &marked;
    EDGEMEM_TRY(Backend::marker(q->native, sync));
    Backend::event_release(marked);
  } else if (imported) {
    EDGEMEM_TRY(detail::hold_import(q->native, q->serial, n, nullptr, 0));
  }
  return {};
}

Result<void> end(QueueNode* q, const MemNode* n, Access access) noexcept {
  EDGEMEM_TRY_ASSIGN(const detail::MemUse use, native_use(q, n, access));
  Backend::NativeEvent released{};  // not waited for: later commands of this queue run after it
  const Result<bool> unheld = detail::unhold_import(q->native, q->serial, n, &released);
  if (unheld && *unheld) Backend::event_release(released);
  // Recorded whatever the release answered (the native commands are enqueued): a marker after them
  // and the release stands for them (its event is theirs, no later command's).
  if constexpr (detail::tracks_pending) EDGEMEM_TRY(detail::record_marker(q, use));
  if (!unheld) return fail(unheld.error());
  return {};
}

}  // namespace

Result<void> Queue::begin_native(const Buffer& mem, Access access) noexcept {
  return begin(node_, static_cast<const MemNode*>(detail::node_of(mem)), access);
}
Result<void> Queue::begin_native(const Image& mem, Access access) noexcept {
  return begin(node_, static_cast<const MemNode*>(detail::node_of(mem)), access);
}
Result<void> Queue::end_native(const Buffer& mem, Access access) noexcept {
  return end(node_, static_cast<const MemNode*>(detail::node_of(mem)), access);
}
Result<void> Queue::end_native(const Image& mem, Access access) noexcept {
  return end(node_, static_cast<const MemNode*>(detail::node_of(mem)), access);
}

}  // namespace edgemem
