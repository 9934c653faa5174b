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

/// The native object of `n`'s root when commands on `n` must be bracketed, else null.
template <class B = Backend>
inline const typename B::NativeMem* bracket_target(const MemNode* n) noexcept {
  if constexpr ((B::groups & contract::group_external) != 0) {
    if (n == nullptr) return nullptr;
    const ExternalRef* ext = n->root->external;
    if (ext != nullptr && ext->bracketed) return &n->root->native;
  }
  (void)n;
  return nullptr;
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
    Backend::NativeEvent* out = ran && i + 1 == count ? s.out : nullptr;
    auto r = release_external(q, *m[i], out);
    if (released && !r) released = fail(r.error());
  }
  if (!ran) return ran;
  if (released && s.out == nullptr && s.still_running != nullptr) *s.still_running = false;
  return released;
}

/// Runs the blocking native map `map(s)` of node `n` on `q`, after external_acquire of its root when
/// bracketed (the map then takes no waits: the queue is in order); a failed map releases it again.
/// The matching release follows the native unmap (unmap_bracketed). Errc: the map's, or the acquire's.
template <class Map>
auto map_bracketed(Backend::NativeQueue q, const MemNode* n, const Backend::CommandEvents& s, Map&& map) noexcept
    -> decltype(map(s)) {
  const Backend::NativeMem* m = bracket_target(n);
  if (m == nullptr) return map(s);
  EDGEMEM_TRY(acquire_external(q, *m, s.waits, s.wait_count));
  auto mapped = map(Backend::CommandEvents{});
  if (!mapped) (void)release_external(q, *m, nullptr);
  return mapped;
}

/// Runs the native unmap `unmap(s)` of node `n` on `q`, then external_release of its root when
/// bracketed: `s.out` then receives the release's event (blocking when null). The release follows
/// a failed unmap too (blocking). Errc: the unmap's, or the release's.
template <class Unmap>
Result<void> unmap_bracketed(Backend::NativeQueue q, const MemNode* n, const Backend::CommandEvents& s,
                             Unmap&& unmap) noexcept {
  const Backend::NativeMem* m = bracket_target(n);
  if (m == nullptr) return unmap(s);
  Backend::NativeEvent unmapped{};
  Backend::CommandEvents inner = s;
  inner.out = s.out != nullptr ? &unmapped : nullptr;
  auto done = unmap(static_cast<const Backend::CommandEvents&>(inner));
  if (done && s.out != nullptr) Backend::event_release(unmapped);
  auto released = release_external(q, *m, done ? s.out : nullptr);
  if (!done) return done;
  return released;
}

}  // namespace edgemem::detail
