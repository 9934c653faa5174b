// The submit path shared by every Queue command (see submit.hpp and docs/ordering.md). The common case
// (no wait list, no imported memory) has a short path of its own: it is what every per-command cost
// goal measures, and what stays in the instruction cache between a driver's calls.
#include "core/submit.hpp"

namespace edgemem::detail {

namespace {

/// Whether `u` touches memory whose commands need more than the ordering table: an import the driver
/// brackets, or an mmap'ed dma-buf the CPU reaches between sync calls.
[[maybe_unused]] bool special(const MemUse& u) noexcept { return u.node != nullptr && u.node->root->external != nullptr; }

/// After a blocking command that may still run on the device: records it (its event, or a marker after
/// it) on `a` and `b`. Errc: those of record_marker.
[[maybe_unused]] Result<void> record_still_running(QueueNode* q, const MemUse& a, const MemUse& b,
                                  Backend::NativeEvent running) noexcept {
  if (running != Backend::NativeEvent{}) {
    record_running(q, a, b, running);
    Backend::event_release(running);
    return {};
  }
  return record_marker(q, a, b);
}

/// With the table, once `sync`'s waits are set: runs `command(sync)` on `q`. Async (`produced` not
/// null): under the queue's ticket, its event recorded on `a` and `b` and left in `*produced`. Blocking:
/// a command that may still run is recorded (record_still_running); one that completed drains what its
/// queue did before it on `a` and `b` when `drains`. Errc: the command's, record_marker's.
[[maybe_unused]] Result<void> run_tracked(QueueNode* q, Backend::NativeEvent* produced, const MemUse& a,
                                          const MemUse& b, Backend::CommandEvents& sync, CommandRef command,
                                          bool drains) noexcept {
  if (produced != nullptr) {
    sync.out = produced;
    std::uint64_t ticket = 0;
    EDGEMEM_TRY(enqueue_ticketed(q, &ticket, [&] { return command(sync); }));
    record_pending(q, a, *produced, ticket);
    record_pending(q, b, *produced, ticket);
    return {};
  }
  bool still_running = false;
  Backend::NativeEvent running{};
  sync.still_running = &still_running;
  sync.running_event = &running;
  const std::uint64_t bound = ticket_bound(q);
  EDGEMEM_TRY(command(sync));
  if (still_running) return record_still_running(q, a, b, running);
  if (drains) {
    forget_completed(q, a, bound);
    forget_completed(q, b, bound);
  }
  return {};
}

/// The common case with the table: no wait list, no imported memory.
[[maybe_unused]] Result<void> submit_plain(QueueNode* q, Event* out, const MemUse& a, const MemUse& b, CommandRef command,
                          bool drains) noexcept {
  OrderWaits order;
  order.collect(q, a);
  order.collect(q, b);
  Backend::CommandEvents sync;
  sync.wait_count = order.size();
  sync.waits = sync.wait_count != 0 ? order.data() : nullptr;
  Backend::NativeEvent produced{};
  EDGEMEM_TRY(run_tracked(q, out != nullptr ? &produced : nullptr, a, b, sync, command, drains));
  if (out != nullptr) *out = HandleAccess::event(produced, q->ctx);
  return {};
}

/// Everything else: wait lists (folded past wait_chunk_events), imported memory (brackets, dma-buf
/// syncs), and backends without a table.
[[gnu::noinline]] Result<void> submit_general(QueueNode* q, WaitList waits, Event* out, const MemUse& a,
                                              const MemUse& b, CommandRef command, SubmitMode mode) noexcept {
  Backend::NativeEvent natives[wait_chunk_events + (tracks_pending ? max_order_waits : 0)];
  static_assert(sizeof natives / sizeof natives[0] <= contract::max_command_waits, "backends take at most max_command_waits");
  Backend::NativeEvent produced{};
  Backend::CommandEvents sync;
  sync.out = out != nullptr ? &produced : nullptr;
  FoldedWaits folded;  // declared before the command runs, released after it is enqueued
  // (Without `bracket`, an unmap: unmap_native ends the CPU's access its map started.)
  const HostSync cpu(mode.bracket ? a : MemUse{}, mode.bracket ? b : MemUse{});
  auto enqueue = [&]() -> Result<void> {
    if (mode.bracket) return run_bracketed(q->native, q->serial, a.node, b.node, sync, command);
    return command(sync);
  };
  auto run = [&]() -> Result<void> {
    if (!cpu.active()) return enqueue();
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
    auto run_with = [&](const Backend::CommandEvents&) { return run(); };  // run() reads `sync` itself
    EDGEMEM_TRY(run_tracked(q, sync.out, a, b, sync, CommandRef(run_with), mode.drains));
  } else {
    EDGEMEM_TRY_ASSIGN(sync.wait_count, folded.fold(q->native, waits, natives));
    sync.waits = sync.wait_count != 0 ? natives : nullptr;
    EDGEMEM_TRY(run());
  }
  if (out != nullptr) *out = HandleAccess::event(produced, q->ctx);
  return {};
}

}  // namespace

Result<void> submit_command(QueueNode* q, WaitList waits, Event* out, const MemUse& a, const MemUse& b,
                            CommandRef command, SubmitMode mode) noexcept {
  if constexpr (tracks_pending) {
    if (waits.empty() && !(mode.bracket && (special(a) || special(b))))
      return submit_plain(q, out, a, b, command, mode.drains);
  }
  EDGEMEM_TRY(check_waits(q->ctx, waits));
  return submit_general(q, waits, out, a, b, command, mode);
}

}  // namespace edgemem::detail
