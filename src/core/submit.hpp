// Plumbing shared by the Queue's commands: resolving handles and submitting to the backend with
// the caller's wait list, the waits ordering across queues adds (core/ordering.hpp), and an
// optional out-event.
#pragma once
#include <edgemem/buffer.hpp>
#include <edgemem/event.hpp>
#include <edgemem/result.hpp>

#include "core/checks.hpp"
#include "core/external_bracket.hpp"
#include "core/host_sync.hpp"
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
/// bytes in a conflicting way. An async command (`out` non-null, its event lands there) is enqueued under
/// q's submit_lock, takes its ticket and is recorded on the roots it touches; a blocking one that may
/// still run on the device (Backend::CommandEvents::still_running) is recorded with the event the
/// backend gives for it (running_event), else through a marker after it; any other blocking one has completed on return and, when `drains` (the backend ran it in the
/// queue's order: not a zero-copy unmap), so has every command of `q` enqueued before it started: their
/// entries on its roots go (docs/ordering.md). A wait list longer than wait_chunk_events is folded into
/// markers on `q` first (wait_list.hpp). With `bracket` (the default), a command on memory the driver
/// imported through cl_khr_external_memory runs between external_acquire and external_release
/// (external_bracket.hpp; the out-event is the release's). With `bracket`, a command on an mmap'ed dma-buf import runs
/// between DMA_BUF_SYNC_START and _END (host_sync.hpp), and so waits for its queue before returning
/// (also an async one: its Event is complete). Errc: released / invalid_argument (wait
/// list), those of Backend::marker (folding the wait list), of the bracket, or the command's own; for a
/// blocking command still running, those of Backend::queue_finish (record_marker). A marker ordering
/// needs and the driver refuses becomes a host wait, counted in Context::unreported_errors().
template <bool bracket = true, bool drains = true, class Command>
Result<void> submit(QueueNode* q, WaitList waits, Event* out, const MemUse& a, const MemUse& b,
                    Command&& command) noexcept {
  EDGEMEM_TRY(check_waits(q->ctx, waits));
  Backend::NativeEvent natives[wait_chunk_events + (tracks_pending ? max_order_waits : 0)];
  Backend::NativeEvent produced{};
  Backend::CommandEvents sync;
  sync.out = out != nullptr ? &produced : nullptr;
  FoldedWaits folded;  // declared before the command runs, released after it is enqueued
  // (Without `bracket`, an unmap: unmap_native ends the CPU's access its map started.)
  const HostSync cpu(bracket ? a : MemUse{}, bracket ? b : MemUse{});
  auto enqueue = [&]() -> Result<void> {
    if constexpr (bracket) return run_bracketed(q->native, q->serial, a.node, b.node, sync, command);
    else return command(sync);
  };
  auto run = [&]() -> Result<void> {
    if (!cpu.active()) return enqueue();  // the hot path
    cpu.start();
    auto ran = enqueue();
    if (ran && (out != nullptr || (sync.still_running != nullptr && *sync.still_running))) {
      // The CPU's access ends only once the command has touched the pages: wait for it here.
      auto finished = Backend::queue_finish(q->native);
      if (!finished) report_dropped(q->ctx, finished.error());
    }
    cpu.end();
    return ran;
  };
  if constexpr (tracks_pending) {
    OrderWaits order;
    order.collect(q, a);
    order.collect(q, b);
    EDGEMEM_TRY_ASSIGN(sync.wait_count, folded.fold(q->native, waits, natives));
    sync.wait_count += order.copy_to(natives + sync.wait_count);
    sync.waits = sync.wait_count != 0 ? natives : nullptr;
    if (out != nullptr) {
      std::uint64_t ticket = 0;
      EDGEMEM_TRY(enqueue_ticketed(q, &ticket, run));
      for (const MemUse* u : {&a, &b}) record_pending(q, *u, produced, ticket);
    } else {
      bool still_running = false;
      Backend::NativeEvent running{};
      sync.still_running = &still_running;
      sync.running_event = &running;
      const std::uint64_t bound = ticket_bound(q);
      EDGEMEM_TRY(run());
      if (still_running && running != Backend::NativeEvent{}) {
        record_running(q, a, b, running);
        Backend::event_release(running);
      } else if (still_running) {
        EDGEMEM_TRY(record_marker(q, a, b));
      } else if constexpr (drains) {
        for (const MemUse* u : {&a, &b}) forget_completed(q, *u, bound);
      }
    }
  } else {
    EDGEMEM_TRY_ASSIGN(sync.wait_count, folded.fold(q->native, waits, natives));
    sync.waits = sync.wait_count != 0 ? natives : nullptr;
    EDGEMEM_TRY(run());
  }
  if (out != nullptr) *out = HandleAccess::event(produced, q->ctx);
  return {};
}

/// submit() for a command on one buffer.
template <bool bracket = true, bool drains = true, class Command>
Result<void> submit(QueueNode* q, WaitList waits, Event* out, const MemUse& a, Command&& command) noexcept {
  return submit<bracket, drains>(q, waits, out, a, MemUse{}, std::forward<Command>(command));
}

/// Runs a blocking map (`map(sync)` returns the native mapping) on `use` after the commands of other
/// queues that still reach its bytes in a conflicting way; once it returns, every command of `q`
/// enqueued before it has completed (every backend's map runs in the queue's order), so their entries
/// on its root go. The map itself brackets imported memory (map_bracketed). Errc: the map's own.
template <class Map>
Result<contract::Mapped> submit_map(QueueNode* q, const MemUse& use, Map&& map) noexcept {
  Backend::CommandEvents sync;
  if constexpr (tracks_pending) {
    Backend::NativeEvent natives[max_order_waits];
    OrderWaits order;
    order.collect(q, use);
    sync.wait_count = order.copy_to(natives);
    sync.waits = sync.wait_count != 0 ? natives : nullptr;
    const std::uint64_t bound = ticket_bound(q);
    auto mapped = map(sync);
    if (mapped) forget_completed(q, use, bound);
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
