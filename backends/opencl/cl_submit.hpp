// Enqueueing a command with edgemem's CommandEvents: async hands the command's event out, blocking waits for it.
#pragma once
#include "cl.hpp"
#include "cl_error.hpp"

namespace edgemem::backend::cl {

/// Runs `enqueue(wait_count, waits, event_out)` under `sync`: when sync.out is set the command's event
/// goes there (the caller owns it); otherwise waits for the command's own event and releases it.
template <class Enqueue>
[[nodiscard]] Result<void> submit(const OpenCL::CommandEvents& sync, Enqueue&& enqueue) noexcept {
  const WaitList w = waits_of(sync);
  if (sync.out != nullptr) return check(enqueue(w.count, w.events, sync.out));
  cl_event e = nullptr;
  EDGEMEM_TRY(check(enqueue(w.count, w.events, &e)));
  auto done = wait_event(e);
  (void)clReleaseEvent(e);
  return done;
}

}  // namespace edgemem::backend::cl
