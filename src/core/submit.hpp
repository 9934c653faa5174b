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

/// A command for submit_command, passed as an object pointer and a function (no template: one copy of
/// the submit path serves every command).
class CommandRef {
 public:
  /// Refers to `f` (callable as `Result<void>(const Backend::CommandEvents&)`), which must outlive this.
  template <class F>
  explicit CommandRef(F& f) noexcept
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, const Backend::CommandEvents& s) noexcept -> Result<void> {
          return (*static_cast<F*>(o))(s);
        }) {}
  /// Runs the command with `s`.
  Result<void> operator()(const Backend::CommandEvents& s) const noexcept { return call_(object_, s); }

 private:
  void* object_;
  Result<void> (*call_)(void*, const Backend::CommandEvents&) noexcept;
};

/// How submit_command runs a command: `bracket` (the default) runs a command on memory the driver imported
/// through cl_khr_external_memory between external_acquire and external_release, and one on an mmap'ed
/// dma-buf import between DMA_BUF_SYNC_START and _END; `drains` (the default): the backend ran it in the
/// queue's order (not a zero-copy unmap).
struct SubmitMode {
  bool bracket = true;
  bool drains = true;
};

/// Checks `waits` (any length) against queue `q`, then runs `command(sync)` on memory uses `a` and `b`
/// (either node may be null). The command also waits for commands of other queues that still reach its
/// bytes in a conflicting way. An async command (`out` non-null, its event lands there) is enqueued under
/// q's submit_lock, takes its ticket and is recorded on the roots it touches; a blocking one that may
/// still run on the device (Backend::CommandEvents::still_running) is recorded with the event the
/// backend gives for it (running_event), else through a marker after it; any other blocking one has
/// completed on return and, when `mode.drains`, so has every command of `q` enqueued before it started:
/// their entries on its roots go (docs/ordering.md). A wait list longer than wait_chunk_events is folded
/// into markers on `q` first (wait_list.hpp). With `mode.bracket`, a command on memory the driver
/// imported runs between external_acquire and external_release (external_bracket.hpp; the out-event is
/// the release's), and a command on an mmap'ed dma-buf import between DMA_BUF_SYNC_START and _END
/// (host_sync.hpp), so it waits for its queue before returning (also an async one: its Event is
/// complete). Errc: released / invalid_argument (wait list), those of Backend::marker (folding the wait
/// list), of the bracket, or the command's own; for a blocking command still running, those of
/// Backend::queue_finish (record_marker). A marker ordering needs and the driver refuses becomes a host
/// wait, counted in Context::unreported_errors(). (core/submit.cpp; the common case, no wait list and
/// no imported memory, runs a short path of its own.)
Result<void> submit_command(QueueNode* q, WaitList waits, Event* out, const MemUse& a, const MemUse& b,
                            CommandRef command, SubmitMode mode = {}) noexcept;

/// submit_command() for a command given as any callable.
template <bool bracket = true, bool drains = true, class Command>
Result<void> submit(QueueNode* q, WaitList waits, Event* out, const MemUse& a, const MemUse& b,
                    Command&& command) noexcept {
  return submit_command(q, waits, out, a, b, CommandRef(command), SubmitMode{bracket, drains});
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
