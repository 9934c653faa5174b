// A command's wait list on its way to the backend. Any length is accepted: the backend is handed at
// most wait_chunk_events of the caller's events per command (they are copied to a stack array, since
// an Event is not a bare native event), and a longer list is folded into marker commands on the waiting
// queue first: a chain of markers, each waiting for the previous one and the next
// wait_chunk_events - 1 events, the command then waiting for the last. No heap: one stack array of
// wait_chunk_events native events.
#pragma once
#include <cstddef>

#include <edgemem/event.hpp>
#include <edgemem/result.hpp>

#include "core/nodes.hpp"

namespace edgemem::detail {

/// Events of the caller's wait list the backend gets per command or marker (the size of the stack
/// arrays that carry them).
inline constexpr std::size_t wait_chunk_events = 32;

/// Checks every event of `waits`, of any length, without touching any. Errc: released (an event is
/// released or moved from), invalid_argument (an event of a context other than `ctx`).
Result<void> check_waits(const ContextNode* ctx, WaitList waits) noexcept;

/// The native events one command on `queue` waits for, standing for a checked wait list of any length.
/// Markers it enqueues are released with it (after the command has been enqueued: a command keeps what
/// it waits for alive on its own).
class FoldedWaits {
 public:
  FoldedWaits() noexcept = default;
  FoldedWaits(const FoldedWaits&) = delete;
  FoldedWaits& operator=(const FoldedWaits&) = delete;
  ~FoldedWaits();

  /// Writes at most wait_chunk_events native events to `out` (room for wait_chunk_events) that complete
  /// only when every event of `waits` has: the events themselves when there are that few, else the last
  /// of a chain of markers on `queue` that wait for them. Returns how many. Errc: those of Backend::marker (markers made so
  /// far are released; commands already enqueued on the queue stay, harmless).
  [[nodiscard]] Result<std::size_t> fold(Backend::NativeQueue queue, WaitList waits,
                                         Backend::NativeEvent* out) noexcept;

 private:
  Backend::NativeEvent marker_{};  // the last marker of the chain (released with this object)
  bool has_marker_ = false;
};

}  // namespace edgemem::detail
