// Enqueueing a command with edgemem's CommandEvents: an async command's event goes to an event record
// (a ClEvent from the record cache, cl_event.cpp) handed out on success; a blocking one waits for it.
#pragma once
#include "cl.hpp"
#include "cl_error.hpp"

namespace edgemem::backend::cl {

/// A record for an async command's event (reference count 1), taken before the command so running
/// out of memory changes nothing. Errc: out_of_host_memory.
[[nodiscard]] Result<OpenCL::NativeEvent> take_event() noexcept;

/// Gives back a record whose command was never enqueued (its event is null).
void give_back_event(OpenCL::NativeEvent e) noexcept;

/// One more user of the record cache (context_create, context_adopt): the first makes its
/// records. Errc: out_of_host_memory.
[[nodiscard]] Result<void> pool_events() noexcept;

/// One less user of the record cache (context_release).
void drain_events() noexcept;

/// The event slot of one command under `sync`: for an async command (sync.out set) a record's cl_event,
/// handed to *sync.out when the enqueue succeeds and given back otherwise; null for a blocking one.
class EventOut {
 public:
  explicit EventOut(const OpenCL::CommandEvents& sync) noexcept : out_(sync.out) {}
  EventOut(const EventOut&) = delete;
  EventOut& operator=(const EventOut&) = delete;
  ~EventOut() {
    if (record_ != nullptr) give_back_event(record_);
  }

  /// Takes the record of an async command. Errc: out_of_host_memory.
  [[nodiscard]] Result<void> take() noexcept {
    if (out_ == nullptr) return {};
    EDGEMEM_TRY_ASSIGN(record_, take_event());
    return {};
  }
  /// Where the driver writes the command's event (null: blocking).
  cl_event* slot() noexcept { return record_ != nullptr ? &record_->event : nullptr; }
  /// CL_TRUE for a blocking command.
  cl_bool blocking() const noexcept { return out_ == nullptr ? CL_TRUE : CL_FALSE; }
  /// Ends the enqueue that answered `status`: on success the record goes to *sync.out. Returns status.
  cl_int settle(cl_int status) noexcept {
    if (status == CL_SUCCESS && record_ != nullptr) {
      *out_ = record_;
      record_ = nullptr;
    }
    return status;
  }

 private:
  OpenCL::NativeEvent* out_;
  OpenCL::NativeEvent record_ = nullptr;
};

/// Runs `enqueue(wait_count, waits, event_out)` under `sync`: when sync.out is set the command's event
/// goes there (the caller owns it); otherwise waits for the command's own event and releases it.
template <class Enqueue>
[[nodiscard]] Result<void> submit(const OpenCL::CommandEvents& sync, Enqueue&& enqueue) noexcept {
  const WaitList w(sync);
  if (sync.out != nullptr) {
    EventOut out(sync);
    EDGEMEM_TRY(out.take());
    return check(out.settle(enqueue(w.count, w.events(), out.slot())));
  }
  cl_event e = nullptr;
  EDGEMEM_TRY(check(enqueue(w.count, w.events(), &e)));
  auto done = wait_event(e);
  (void)clReleaseEvent(e);
  return done;
}

}  // namespace edgemem::backend::cl
