// Wait lists of any length (see wait_list.hpp).
#include "core/wait_list.hpp"

namespace edgemem::detail {

Result<void> check_waits(const ContextNode* ctx, WaitList waits) noexcept {
  for (std::size_t i = 0; i < waits.size(); ++i) {
    if (!waits[i].valid()) return fail(Errc::released, "wait list holds a released event");
    if (detail::HandleAccess::context(waits[i]) != ctx)
      return fail(Errc::invalid_argument, "wait list holds an event of another context");
  }
  return {};
}

FoldedWaits::~FoldedWaits() {
  if (has_marker_) Backend::event_release(marker_);
}

Result<std::size_t> FoldedWaits::fold(Backend::NativeQueue queue, WaitList waits, Backend::NativeEvent* out) noexcept {
  const std::size_t total = waits.size();
  if (total <= wait_chunk_events) {
    for (std::size_t i = 0; i < total; ++i) out[i] = waits[i].native();
    return total;
  }
  // A chain of markers: each waits for the previous one and the next events (`out` as scratch), so
  // the last stands for the whole list.
  for (std::size_t next = 0; next < total;) {
    std::size_t n = 0;
    if (has_marker_) out[n++] = marker_;
    while (n < wait_chunk_events && next < total) out[n++] = waits[next++].native();
    Backend::NativeEvent made{};
    Backend::CommandEvents sync;
    sync.waits = out;
    sync.wait_count = n;
    sync.out = &made;
    auto done = Backend::marker(queue, sync);
    if (has_marker_) Backend::event_release(marker_);  // the new marker (if made) holds it
    has_marker_ = false;
    if (!done) return fail(done.error());
    marker_ = made;
    has_marker_ = true;
  }
  out[0] = marker_;
  return 1;
}

}  // namespace edgemem::detail
