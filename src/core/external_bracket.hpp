// Bracketing of commands and maps on memory the driver imported through cl_khr_external_memory
// (ExternalRef::bracketed): external_acquire before, external_release after, on the same in-order
// queue, so the command's event (and with it Event::wait, Queue::finish) completes only once the
// memory is handed back. For a map the acquire comes before the native map and the release after
// the native unmap. Compiles to nothing for a backend without the external group; otherwise the
// path without an import costs one pointer test per memory use. Each backend call here is a fault
// point of the fault-injecting wrapper like any other.
//
// Holds are counted per queue (ExternalRef::holds): the extension acquires memory for one
// command-queue, so a mapping or begin_native on queue A keeps A's commands from being bracketed again,
// never queue B's; B's commands get their own acquire and release (issue #29, to settle a). Every
// function takes the queue's serial number with its native queue, and the backend as a template
// parameter, so tests/core/bracket_test.cpp runs them over a recording backend.
#pragma once
#include <cstdint>
#include <mutex>

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

/// Open holds of queue `queue` (QueueNode::serial) on `ext`.
inline unsigned queue_holds(ExternalRef* ext, std::uint64_t queue) noexcept {
  std::lock_guard<std::mutex> lock(ext->holds_lock);
  for (const ExternalRef::QueueHold& h : ext->holds)
    if (h.count != 0 && h.queue == queue) return h.count;
  return 0;
}

/// Adds one hold of `queue` on `ext`: true when it is the queue's first (the caller acquires on it).
/// Errc: exhausted (max_hold_queues other queues hold it now; nothing changes).
inline Result<bool> add_queue_hold(ExternalRef* ext, std::uint64_t queue) noexcept {
  std::lock_guard<std::mutex> lock(ext->holds_lock);
  ExternalRef::QueueHold* free_entry = nullptr;
  for (ExternalRef::QueueHold& h : ext->holds) {
    if (h.count != 0 && h.queue == queue) {
      ++h.count;
      return false;
    }
    if (h.count == 0 && free_entry == nullptr) free_entry = &h;
  }
  if (free_entry == nullptr)
    return fail(Errc::exhausted, "the imported memory is held (mapped, begin_native) on too many queues at once");
  free_entry->queue = queue;
  free_entry->count = 1;
  return true;
}

/// Drops one hold of `queue` on `ext`: true when it was the queue's last (the caller releases on it);
/// false too when the queue held nothing (nothing changes).
inline bool drop_queue_hold(ExternalRef* ext, std::uint64_t queue) noexcept {
  std::lock_guard<std::mutex> lock(ext->holds_lock);
  for (ExternalRef::QueueHold& h : ext->holds)
    if (h.count != 0 && h.queue == queue) return --h.count == 0;
  return false;
}

/// `count` holds of queue `from` pass to queue `to`: a group of native maps at one address passes to a
/// member mapped on `to`, which unmaps them there (src/mapping.cpp, last_of_group), so their holds must
/// be `to`'s too. `to` must hold the memory already (a member of the group mapped on it does); when it
/// holds nothing, or `from` holds fewer than `count`, nothing passes. True when `from` gave its last
/// hold: the caller then releases the memory on `from`'s queue (release_external), outside its locks.
inline bool pass_queue_holds(ExternalRef* ext, std::uint64_t from, std::uint64_t to, unsigned count) noexcept {
  if (from == to || count == 0) return false;
  std::lock_guard<std::mutex> lock(ext->holds_lock);
  ExternalRef::QueueHold* giver = nullptr;
  ExternalRef::QueueHold* taker = nullptr;
  for (ExternalRef::QueueHold& h : ext->holds) {
    if (h.count == 0) continue;
    if (h.queue == from) giver = &h;
    if (h.queue == to) taker = &h;
  }
  if (giver == nullptr || taker == nullptr || giver->count < count) return false;
  giver->count -= count;
  taker->count += count;
  return giver->count == 0;
}

/// The native object of `n`'s root when a command on `n` on queue `queue` must be bracketed now (a
/// bracketed import that this queue holds no mapping or begin_native of), else null.
template <class B = Backend>
inline const typename B::NativeMem* bracket_target(const MemNode* n, std::uint64_t queue) noexcept {
  ExternalRef* ext = bracketed_import<B>(n);
  return ext != nullptr && queue_holds(ext, queue) == 0 ? &n->root->native : nullptr;
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

/// Runs `command(s)` on `q` (serial `queue`) with the memory of nodes `a` and `b` (either may be null) acquired first
/// when bracketed, and released after it. The acquire takes `s`'s waits; the command none (the queue
/// is in order) but `s`'s still_running; `s.out` receives the last release's event, and a blocking
/// command is followed by a blocking release (after which it has completed: *still_running is false).
/// A failed command or second acquire still releases what was acquired (blocking). Errc: the
/// command's, or those of external_acquire / external_release.
template <class B = Backend, class Command>
Result<void> run_bracketed(typename B::NativeQueue q, std::uint64_t queue, const MemNode* a, const MemNode* b,
                           const typename B::CommandEvents& s, Command&& command) noexcept {
  using Events = typename B::CommandEvents;
  using Event = typename B::NativeEvent;
  const typename B::NativeMem* m[2] = {bracket_target<B>(a, queue), bracket_target<B>(b, queue)};
  if (m[0] == nullptr && m[1] == nullptr) return command(s);  // the hot path
  if (m[0] == nullptr || (m[1] != nullptr && *m[1] == *m[0])) m[0] = m[1], m[1] = nullptr;
  const unsigned count = m[1] != nullptr ? 2 : 1;
  EDGEMEM_TRY(acquire_external<B>(q, *m[0], s.waits, s.wait_count));
  if (count == 2) {
    auto second = acquire_external<B>(q, *m[1], nullptr, 0);
    if (!second) {
      (void)release_external<B>(q, *m[0], nullptr);
      return second;
    }
  }
  Event done{};
  Events inner;
  inner.out = s.out != nullptr ? &done : nullptr;
  inner.still_running = s.still_running;
  auto ran = command(static_cast<const Events&>(inner));
  if (ran && s.out != nullptr) B::event_release(done);
  Result<void> released{};
  for (unsigned i = 0; i < count; ++i) {
    // The last release carries the caller's out-event (blocking when there is none); an earlier one is
    // not waited for (the queue is in order). After a failed command every release blocks.
    Event early{};
    Event* out = !ran ? nullptr : i + 1 == count ? s.out : &early;
    auto r = release_external<B>(q, *m[i], out);
    if (r && out == &early) B::event_release(early);
    if (released && !r) released = fail(r.error());
  }
  if (!ran) return ran;
  if (!released) {
    // The command is enqueued but its release failed: wait for it, so nothing of it runs untracked.
    (void)B::queue_finish(q);
    if (s.still_running != nullptr) *s.still_running = false;
    return released;
  }
  if (s.out == nullptr && s.still_running != nullptr) *s.still_running = false;
  return released;
}

/// Opens one hold of queue `q` (serial `queue`) on `n`'s bracketed import (a map, begin_native): the
/// queue's first acquires the memory on `q` after `waits` (true: the waits are taken care of; false:
/// nothing was enqueued, the caller still owes them). Nothing for other memory. Errc: exhausted
/// (held on max_hold_queues other queues), those of external_acquire (the hold is undone).
template <class B = Backend>
Result<bool> hold_import(typename B::NativeQueue q, std::uint64_t queue, const MemNode* n,
                         const typename B::NativeEvent* waits, std::size_t wait_count) noexcept {
  ExternalRef* ext = bracketed_import<B>(n);
  if (ext == nullptr) return false;
  EDGEMEM_TRY_ASSIGN(const bool first, add_queue_hold(ext, queue));
  if (!first) return false;
  auto acquired = acquire_external<B>(q, n->root->native, waits, wait_count);
  if (!acquired) {
    (void)drop_queue_hold(ext, queue);
    return fail(acquired.error());
  }
  return true;
}

/// Closes one hold of queue `q` (serial `queue`) on `n`'s bracketed import: the queue's last releases
/// the memory on `q` (`out`: the release's event, blocking when null; untouched when nothing is
/// released; nothing either when the queue held none). Errc: those of external_release.
template <class B = Backend>
Result<void> unhold_import(typename B::NativeQueue q, std::uint64_t queue, const MemNode* n,
                           typename B::NativeEvent* out) noexcept {
  ExternalRef* ext = bracketed_import<B>(n);
  if (ext == nullptr || !drop_queue_hold(ext, queue)) return {};
  return release_external<B>(q, n->root->native, out);
}

/// Runs the blocking native map `map(s)` of node `n` on `q` (serial `queue`), after external_acquire of
/// its root on `q` when bracketed and `q` holds it not yet (the map then takes no waits: the queue is
/// in order); a failed map releases it again. The matching release follows the native unmap
/// (unmap_bracketed). Errc: the map's, or those of hold_import.
template <class B = Backend, class Map>
auto map_bracketed(typename B::NativeQueue q, std::uint64_t queue, const MemNode* n,
                   const typename B::CommandEvents& s, Map&& map) noexcept -> decltype(map(s)) {
  if (bracketed_import<B>(n) == nullptr) return map(s);
  EDGEMEM_TRY_ASSIGN(const bool acquired, hold_import<B>(q, queue, n, s.waits, s.wait_count));
  auto mapped = map(acquired ? typename B::CommandEvents{} : s);
  if (!mapped) (void)unhold_import<B>(q, queue, n, nullptr);
  return mapped;
}

/// Runs the native unmap `unmap(s)` of node `n` on `q` (serial `queue`, the map's), then
/// external_release of its root on `q` when that was the queue's last hold: `s.out` then receives the
/// release's event (blocking when null). The release follows a failed unmap too (blocking). Errc: the
/// unmap's, or the release's.
template <class B = Backend, class Unmap>
Result<void> unmap_bracketed(typename B::NativeQueue q, std::uint64_t queue, const MemNode* n,
                             const typename B::CommandEvents& s, Unmap&& unmap) noexcept {
  using Events = typename B::CommandEvents;
  using Event = typename B::NativeEvent;
  if (bracketed_import<B>(n) == nullptr) return unmap(s);
  Event unmapped{};
  Events inner = s;
  inner.out = s.out != nullptr ? &unmapped : nullptr;
  auto done = unmap(static_cast<const Events&>(inner));
  Event released_event{};
  auto released = unhold_import<B>(q, queue, n, done && s.out != nullptr ? &released_event : nullptr);
  if (done && s.out != nullptr) {
    // The caller's event: the release's when this unmap released the memory, else the unmap's.
    if (!released || released_event != Event{}) B::event_release(unmapped);
    if (released) *s.out = released_event != Event{} ? released_event : unmapped;
  }
  if (!done) return done;
  if (!released) (void)B::queue_finish(q);  // the unmap is enqueued: let it finish before reporting
  return released;
}

}  // namespace edgemem::detail
