// Plumbing shared by the Queue's commands: resolving handles and submitting to the backend with
// the caller's wait list, the waits ordering across queues adds (core/ordering.hpp), and an
// optional out-event.
#pragma once
#include <edgemem/buffer.hpp>
#include <edgemem/event.hpp>
#include <edgemem/result.hpp>

#include "core/checks.hpp"
#include "core/external_bracket.hpp"
#include "core/nodes.hpp"
#include "core/ordering.hpp"
#include "core/wait_list.hpp"

namespace edgemem::detail {

/// The node of `buf` if both handles are live and share a context. Errc: released, invalid_argument.
inline Result<MemNode*> use(const QueueNode* q, const Buffer& buf) noexcept {
  if (q == nullptr) return fail(Errc::released, "queue is released");
  MemNode* n = detail::node_of(buf);
  if (n == nullptr) return fail(Errc::released, "buffer is released");
  if (n->ctx != q->ctx) return fail(Errc::invalid_argument, "buffer belongs to another context");
  return n;
}

/// Checks `waits` (any length) against queue `q`, then runs `command(sync)` on memory uses `a` and `b`
/// (either node may be null). The command also waits for commands of other queues that still reach its
/// bytes in a conflicting way; an async command (`out` non-null, its event lands there) is recorded on
/// the roots it touches, and so is a blocking one that may still run on the device
/// (Backend::CommandEvents::still_running); any other blocking one has completed on return, and with it
/// every earlier command of `q`. A wait list longer than wait_chunk_events is folded into markers on
/// `q` first (wait_list.hpp). With `bracket` (the default), a command on memory the driver imported
/// through cl_khr_external_memory runs between external_acquire and external_release
/// (external_bracket.hpp; the out-event is the release's). Errc: released / invalid_argument (wait
/// list), those of Backend::marker (folding, ordering), of the bracket, or the command's own.
template <bool bracket = true, class Command>
Result<void> submit(QueueNode* q, WaitList waits, Event* out, const MemUse& a, const MemUse& b,
                    Command&& command) noexcept {
  EDGEMEM_TRY(check_waits(q->ctx, waits));
  Backend::NativeEvent natives[wait_chunk_events + (tracks_pending ? max_order_waits : 0)];
  Backend::NativeEvent produced{};
  Backend::CommandEvents sync;
  sync.out = out != nullptr ? &produced : nullptr;
  FoldedWaits folded;  // declared before the command runs, released after it is enqueued
  if constexpr (tracks_pending) {
    OrderWaits order;
    EDGEMEM_TRY(order.collect(q, a));
    EDGEMEM_TRY(order.collect(q, b));
    EDGEMEM_TRY_ASSIGN(sync.wait_count, folded.fold(q->native, waits, natives));
    sync.wait_count += order.copy_to(natives + sync.wait_count);
    sync.waits = sync.wait_count != 0 ? natives : nullptr;
    bool still_running = false;
    if (out == nullptr) sync.still_running = &still_running;
    if constexpr (bracket) EDGEMEM_TRY(run_bracketed(q->native, a.node, b.node, sync, command));
    else EDGEMEM_TRY(command(sync));
    for (const MemUse* u : {&a, &b}) {
      if (out != nullptr || still_running) record_pending(q, *u, produced);
      else forget_completed(q, *u);
    }
  } else {
    EDGEMEM_TRY_ASSIGN(sync.wait_count, folded.fold(q->native, waits, natives));
    sync.waits = sync.wait_count != 0 ? natives : nullptr;
    if constexpr (bracket) EDGEMEM_TRY(run_bracketed(q->native, a.node, b.node, sync, command));
    else EDGEMEM_TRY(command(sync));
  }
  if (out != nullptr) *out = HandleAccess::event(produced, q->ctx);
  return {};
}

/// submit() for a command on one buffer.
template <bool bracket = true, class Command>
Result<void> submit(QueueNode* q, WaitList waits, Event* out, const MemUse& a, Command&& command) noexcept {
  return submit<bracket>(q, waits, out, a, MemUse{}, std::forward<Command>(command));
}

/// Runs a blocking map (`map(sync)` returns the native mapping) on `use` after the commands of other
/// queues that still reach its bytes in a conflicting way; once it returns, every earlier command of
/// `q` has completed. The map itself brackets imported memory (map_bracketed). Errc: the map's own.
template <class Map>
Result<contract::Mapped> submit_map(QueueNode* q, const MemUse& use, Map&& map) noexcept {
  Backend::CommandEvents sync;
  if constexpr (tracks_pending) {
    Backend::NativeEvent natives[max_order_waits];
    OrderWaits order;
    EDGEMEM_TRY(order.collect(q, use));
    sync.wait_count = order.copy_to(natives);
    sync.waits = sync.wait_count != 0 ? natives : nullptr;
    auto mapped = map(sync);
    if (mapped) forget_completed(q, use);
    return mapped;
  } else {
    return map(sync);
  }
}

/// Runs a command that fills an Event and returns that event.
template <class Enqueue>
Result<Event> as_async(Enqueue&& enqueue) noexcept {
  Event event;
  EDGEMEM_TRY(enqueue(&event));
  return event;
}

}  // namespace edgemem::detail
