// Bracketing of commands and maps on memory the driver imported through cl_khr_external_memory
// (ExternalRef::bracketed): external_acquire before, external_release after, on the same in-order
// queue, so the command's event (and with it Event::wait, Queue::finish) completes only once the
// memory is handed back. For a map the acquire comes before the native map and the release after
// the native unmap. Compiles to nothing for a backend without the external group; otherwise the
// path without an import costs one pointer test per memory use. Each backend call here is a fault
// point of the fault-injecting wrapper like any other.
#pragma once
#include <edgemem/result.hpp>

#include "core/nodes.hpp"

namespace edgemem::detail {

/// The import record of `n`'s root when its memory must be bracketed, else null.
template <class B = Backend>
inline ExternalRef* bracketed_import(const MemNode* n) noexcept {
  if constexpr ((B::groups & contract::group_external) != 0) {
    if (n == nullptr) return nullptr;
    ExternalRef* ext = n->root->external;
    if (ext != nullptr && ext->bracketed) return ext;
  }
  (void)n;
  return nullptr;
}

/// The native object of `n`'s root when a command on `n` must be bracketed now (a bracketed import
/// that no open mapping or begin_native holds acquired), else null.
template <class B = Backend>
inline const typename B::NativeMem* bracket_target(const MemNode* n) noexcept {
  const ExternalRef* ext = bracketed_import<B>(n);
  return ext != nullptr && ext->holds.load(std::memory_order_acquire) == 0 ? &n->root->native : nullptr;
}

/// external_acquire of `m` on `q` after `waits`, without blocking (its event is let go at once: what
/// follows on the in-order queue runs after it).
template <class B = Backend>
Result<void> acquire_external(typename B::NativeQueue q, const typename B::NativeMem& m,
                              const typename B::NativeEvent* waits, std::size_t wait_count) noexcept {
  if constexpr ((B::groups & contract::group_external) != 0) {
    typename B::NativeEvent acquired{};
    typename B::CommandEvents s;
    s.waits = waits;
    s.wait_count = wait_count;
    s.out = &acquired;
    EDGEMEM_TRY(B::external_acquire(q, m, s));
    B::event_release(acquired);
  }
  (void)q, (void)m, (void)waits, (void)wait_count;
  return {};
}

/// external_release of `m` on `q`: blocking when `out` is null, else its event lands in `*out`.
template <class B = Backend>
Result<void> release_external(typename B::NativeQueue q, const typename B::NativeMem& m,
                              typename B::NativeEvent* out) noexcept {
  if constexpr ((B::groups & contract::group_external) != 0) {
    typename B::CommandEvents s;
    s.out = out;
    return B::external_release(q, m, s);
  }
  (void)q, (void)m, (void)out;
  return {};
}

/// Runs `command(s)` on `q` with the memory of nodes `a` and `b` (either may be null) acquired first
/// when bracketed, and released after it. The acquire takes `s`'s waits; the command none (the queue
/// is in order) but `s`'s still_running; `s.out` receives the last release's event, and a blocking
/// command is followed by a blocking release (after which it has completed: *still_running is false).
/// A failed command or second acquire still releases what was acquired (blocking). Errc: the
/// command's, or those of external_acquire / external_release.
template <class Command>
Result<void> run_bracketed(Backend::NativeQueue q, const MemNode* a, const MemNode* b,
                           const Backend::CommandEvents& s, Command&& command) noexcept {
  const Backend::NativeMem* m[2] = {bracket_target(a), bracket_target(b)};
  if (m[0] == nullptr && m[1] == nullptr) return command(s);  // the hot path
  if (m[0] == nullptr || (m[1] != nullptr && *m[1] == *m[0])) m[0] = m[1], m[1] = nullptr;
  const unsigned count = m[1] != nullptr ? 2 : 1;
  EDGEMEM_TRY(acquire_external(q, *m[0], s.waits, s.wait_count));
  if (count == 2) {
    auto second = acquire_external(q, *m[1], nullptr, 0);
    if (!second) {
      (void)release_external(q, *m[0], nullptr);
      return second;
    }
  }
  Backend::NativeEvent done{};
  Backend::CommandEvents inner;
  inner.out = s.out != nullptr ? &done : nullptr;
  inner.still_running = s.still_running;
  auto ran = command(static_cast<const Backend::CommandEvents&>(inner));
  if (ran && s.out != nullptr) Backend::event_release(done);
  Result<void> released{};
  for (unsigned i = 0; i < count; ++i) {
    // The last release carries the caller's out-event (blocking when there is none); an earlier one is
    // not waited for (the queue is in order). After a failed command every release blocks.
    Backend::NativeEvent early{};
    Backend::NativeEvent* out = !ran ? nullptr : i + 1 == count ? s.out : &early;
    auto r = release_external(q, *m[i], out);
    if (r && out == &early) Backend::event_release(early);
    if (released && !r) released = fail(r.error());
  }
  if (!ran) return ran;
  if (!released) {
    // The command is enqueued but its release failed: wait for it, so nothing of it runs untracked.
    (void)Backend::queue_finish(q);
    if (s.still_running != nullptr) *s.still_running = false;
    return released;
  }
  if (s.out == nullptr && s.still_running != nullptr) *s.still_running = false;
  return released;
}

/// Opens one hold on `n`'s bracketed import (a map, begin_native): the first acquires its memory on
/// `q` after `waits` (true: the waits are taken care of; false: nothing was enqueued, the caller
/// still owes them). Nothing for other memory. Errc: those of external_acquire (the hold is undone).
inline Result<bool> hold_import(Backend::NativeQueue q, const MemNode* n, const Backend::NativeEvent* waits,
                                std::size_t wait_count) noexcept {
  ExternalRef* ext = bracketed_import(n);
  if (ext == nullptr || ext->holds.fetch_add(1, std::memory_order_acq_rel) != 0) return false;
  auto acquired = acquire_external(q, n->root->native, waits, wait_count);
  if (!acquired) {
    ext->holds.fetch_sub(1, std::memory_order_acq_rel);
    return fail(acquired.error());
  }
  return true;
}

/// Closes one hold on `n`'s bracketed import: the last releases its memory on `q` (`out`: the
/// release's event, blocking when null; untouched when nothing is released). Errc: those of
/// external_release.
inline Result<void> unhold_import(Backend::NativeQueue q, const MemNode* n, Backend::NativeEvent* out) noexcept {
  ExternalRef* ext = bracketed_import(n);
  if (ext == nullptr || ext->holds.fetch_sub(1, std::memory_order_acq_rel) != 1) return {};
  return release_external(q, n->root->native, out);
}

/// Runs the blocking native map `map(s)` of node `n` on `q`, after external_acquire of its root when
/// bracketed (the map then takes no waits: the queue is in order); a failed map releases it again.
/// The matching release follows the native unmap (unmap_bracketed). Errc: the map's, or the acquire's.
template <class Map>
auto map_bracketed(Backend::NativeQueue q, const MemNode* n, const Backend::CommandEvents& s, Map&& map) noexcept
    -> decltype(map(s)) {
  if (bracketed_import(n) == nullptr) return map(s);
  EDGEMEM_TRY_ASSIGN(const bool acquired, hold_import(q, n, s.waits, s.wait_count));
  auto mapped = map(acquired ? Backend::CommandEvents{} : s);
  if (!mapped) (void)unhold_import(q, n, nullptr);
  return mapped;
}

/// Runs the native unmap `unmap(s)` of node `n` on `q`, then external_release of its root when
/// bracketed: `s.out` then receives the release's event (blocking when null). The release follows
/// a failed unmap too (blocking). Errc: the unmap's, or the release's.
template <class Unmap>
Result<void> unmap_bracketed(Backend::NativeQueue q, const MemNode* n, const Backend::CommandEvents& s,
                             Unmap&& unmap) noexcept {
  if (bracketed_import(n) == nullptr) return unmap(s);
  Backend::NativeEvent unmapped{};
  Backend::CommandEvents inner = s;
  inner.out = s.out != nullptr ? &unmapped : nullptr;
  auto done = unmap(static_cast<const Backend::CommandEvents&>(inner));
  Backend::NativeEvent released_event{};
  auto released = unhold_import(q, n, done && s.out != nullptr ? &released_event : nullptr);
  if (done && s.out != nullptr) {
    // The caller's event: the release's when this unmap released the memory, else the unmap's.
    if (!released || released_event != Backend::NativeEvent{}) Backend::event_release(unmapped);
    if (released) *s.out = released_event != Backend::NativeEvent{} ? released_event : unmapped;
  }
  if (!done) return done;
  if (!released) (void)Backend::queue_finish(q);  // the unmap is enqueued: let it finish before reporting
  return released;
}

}  // namespace edgemem::detail
