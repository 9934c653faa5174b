/// @file event.hpp  Event: completion of one async command. Move-only; the native event is
/// released exactly once (by release() or the destructor).
#pragma once
#include <edgemem/handle.hpp>
#include <edgemem/native.hpp>
#include <edgemem/result.hpp>
#include <edgemem/span.hpp>

namespace edgemem {

namespace detail {
struct ContextNode;
struct HandleAccess;
/// How an Event lets go of its native event (detail::NativeTraits).
struct EventKind {
  using Native = NativeEvent;                                          ///< a ClEvent record on OpenCL
  using Extra = NoExtra;                                               ///< nothing kept beside it
  static void free(NativeEvent native, ContextNode* ctx) noexcept;  ///< releases it, drops `ctx`
};
}  // namespace detail

/// Completion of an async command. It keeps its context alive (as a cl_event does), so it may
/// outlive every Context, Queue and Buffer handle.
class Event : private detail::Unique<detail::NativeTraits<detail::EventKind>> {
 public:
  /// An empty (released) event.
  Event() noexcept = default;
  Event(Event&& other) noexcept = default;             ///< takes over `other`, leaving it released
  Event& operator=(Event&& other) noexcept = default;  ///< releases this, then takes over `other`
  ~Event() = default;                                  ///< release()

  /// Blocks until the command completes. Errc: released, backend_failure (the command failed).
  [[nodiscard]] Result<void> wait() const noexcept;
  /// True when the command has completed. Errc: released, backend_failure (the command failed).
  [[nodiscard]] Result<bool> is_complete() const noexcept;
  using Unique::valid;  ///< true until released or moved from
  /// Native event for interop: a ClEvent on OpenCL (its `event` is the cl_event), a CudaEvent on CUDA.
  [[nodiscard]] NativeEvent native() const noexcept { return get().native; }
  /// Releases the native event. Idempotent, never fails.
  Result<void> release() noexcept {
    reset();
    return {};
  }

 private:
  friend struct detail::HandleAccess;  // makes events of backend commands, reads their context
};

/// Events a command waits for before it starts, any number, all from commands on the same context as the
/// waiting queue (another context's returns Errc::invalid_argument; a released or moved-from one
/// Errc::released). Past 32 events a command costs a chain of markers, one per 31 events (see queue.hpp).
using WaitList = Span<const Event>;

/// Blocks until every event of `events` has completed: any number, of any contexts (a host-side wait;
/// none returns at once). Every event is checked before any is waited for. Errc: released (an event is
/// released or moved from; nothing is waited for), backend_failure (a command failed: the first such
/// in list order, reported after waiting for all of them).
[[nodiscard]] Result<void> wait_all(WaitList events) noexcept;

}  // namespace edgemem
