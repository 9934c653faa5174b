// Plumbing shared by the Queue's commands: resolving handles and submitting to the backend with
// a wait list and an optional out-event.
#pragma once
#include <edgemem/buffer.hpp>
#include <edgemem/event.hpp>
#include <edgemem/result.hpp>

#include "detail/checks.hpp"
#include "detail/nodes.hpp"

namespace edgemem::detail {

/// The node of `buf` if both handles are live and share a context. Errc: released, invalid_argument.
inline Result<MemNode*> use(const QueueNode* q, const Buffer& buf) noexcept {
  if (q == nullptr) return fail(Errc::released, "queue is released");
  MemNode* n = buf.node();
  if (n == nullptr) return fail(Errc::released, "buffer is released");
  if (n->ctx != q->ctx) return fail(Errc::invalid_argument, "buffer belongs to another context");
  return n;
}

/// Checks `waits` against queue `q`, then runs `command(sync)`; when `out` is non-null the command is
/// async and its event lands in *out. Errc: released / exhausted / invalid_argument (wait list), or the
/// command's own.
template <class Command>
Result<void> submit(const QueueNode* q, WaitList waits, Event* out, Command&& command) noexcept {
  Backend::NativeEvent natives[max_wait_events];
  EDGEMEM_TRY(gather_waits(q->ctx, waits, natives));
  Backend::NativeEvent produced{};
  Backend::Sync sync;
  sync.waits = waits.empty() ? nullptr : natives;
  sync.wait_count = waits.size();
  sync.out = out != nullptr ? &produced : nullptr;
  EDGEMEM_TRY(command(sync));
  if (out != nullptr) *out = Event::adopt_native(produced, q->ctx);
  return {};
}

/// Runs a command that fills an Event and returns that event.
template <class Enqueue>
Result<Event> as_async(Enqueue&& enqueue) noexcept {
  Event event;
  EDGEMEM_TRY(enqueue(&event));
  return event;
}

}  // namespace edgemem::detail
