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

FoldedWaits::~FoldedWaits() { release_markers(); }

void FoldedWaits::release_markers() noexcept {
  for (std::size_t i = 0; i < count_; ++i) Backend::event_release(markers_[i]);
  count_ = 0;
}

Result<void> FoldedWaits::add_marker(Backend::NativeQueue queue, const Backend::NativeEvent* events,
                                     std::size_t n) noexcept {
  if (count_ == wait_chunk_events) {
    // Full: one marker waiting for all of them takes their place.
    Backend::NativeEvent all{};
    Backend::CommandEvents sync;
    sync.waits = markers_;
    sync.wait_count = count_;
    sync.out = &all;
    EDGEMEM_TRY(Backend::marker(queue, sync));
    release_markers();
    markers_[count_++] = all;
  }
  Backend::NativeEvent m{};
  Backend::CommandEvents sync;
  sync.waits = events;
  sync.wait_count = n;
  sync.out = &m;
  EDGEMEM_TRY(Backend::marker(queue, sync));
  markers_[count_++] = m;
  return {};
}

Result<std::size_t> FoldedWaits::fold(Backend::NativeQueue queue, WaitList waits, Backend::NativeEvent* out) noexcept {
  const std::size_t total = waits.size();
  if (total <= wait_chunk_events) {
    for (std::size_t i = 0; i < total; ++i) out[i] = waits[i].native();
    return total;
  }
  for (std::size_t first = 0; first < total; first += wait_chunk_events) {
    const std::size_t n = total - first < wait_chunk_events ? total - first : wait_chunk_events;
    for (std::size_t i = 0; i < n; ++i) out[i] = waits[first + i].native();  // `out` as scratch
    auto added = add_marker(queue, out, n);
    if (!added) {
      release_markers();
      return fail(added.error());
    }
  }
  for (std::size_t i = 0; i < count_; ++i) out[i] = markers_[i];
  return count_;
}

}  // namespace edgemem::detail
