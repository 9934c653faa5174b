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

/// Adds one hold of `queue` on `ext`; the queue's first runs `acquire()` (the enqueue of the acquire)
/// under the holds' lock, so no other thread's hold of that queue (which enqueues no acquire of its own)
/// and no release of it comes between. True when it was the first. Errc: exhausted (max_hold_queues
/// other queues hold it now), those of `acquire` (the hold is undone); nothing changes on either.
template <class Acquire>
Result<bool> add_queue_hold(ExternalRef* ext, std::uint64_t queue, Acquire&& acquire) noexcept {
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
  EDGEMEM_TRY(acquire());
  free_entry->queue = queue;
  free_entry->count = 1;
  return true;
}

/// Drops one hold of `queue` on `ext`; the queue's last runs `release()` (the enqueue of the release)
/// under the holds' lock, so a hold another thread takes on that queue next acquires after it. True
/// when it was the last; false too when the queue held nothing (nothing changes). Errc: those of
/// `release` (the hold is gone all the same).
template <class Release>
Result<bool> drop_queue_hold(ExternalRef* ext, std::uint64_t queue, Release&& release) noexcept {
  std::lock_guard<std::mutex> lock(ext->holds_lock);
  for (ExternalRef::QueueHold& h : ext->holds) {
    if (h.count == 0 || h.queue != queue) continue;
    if (--h.count != 0) return false;
    EDGEMEM_TRY(release());
    return true;
  }
  return false;
}

/// `count` holds of queue `from` pass to queue `to`: a group of native maps at one address passes to a
/// member mapped on `to`, which unmaps them there (src/mapping.cpp, last_of_group), so their holds must
/// be `to`'s too. `to` must hold the memory already (a member of the group mapped on it does); when it
/// holds nothing, or `from` holds fewer than `count`, nothing passes. When `from` gave its last hold,
/// `release()` (the enqueue of the release on `from`'s queue) runs under the holds' lock, as in
/// drop_queue_hold. True when it ran. Errc: those of `release` (the holds have passed all the same).
template <class Release>
Result<bool> pass_queue_holds(ExternalRef* ext, std::uint64_t from, std::uint64_t to, unsigned count,
                              Release&& release) noexcept {
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
  if (giver->count != 0) return false;
  EDGEMEM_TRY(release());
  return true;
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

/// Ends a release enqueued with event `ev`: hands `ev` to `*out`, or (out null) waits for it on the host
/// and lets it go. Errc: those of event_wait (the release failed).
template <class B = Backend>
Result<void> settle_release(typename B::NativeEvent ev, typename B::NativeEvent* out) noexcept {
  if (out != nullptr) {
    *out = ev;
    return {};
  }
  auto waited = B::event_wait(ev);
  B::event_release(ev);
  return waited;
}

/// Opens one hold of queue `q` (serial `queue`) on `n`'s bracketed import (a map, begin_native, one
/// command): the queue's first acquires the memory on `q` after `waits` (true: the waits are taken care
/// of; false: nothing was enqueued, the caller still owes them). Nothing for other memory. Errc:
/// exhausted (held on max_hold_queues other queues), those of external_acquire (the hold is undone).
template <class B = Backend>
Result<bool> hold_import(typename B::NativeQueue q, std::uint64_t queue, const MemNode* n,
                         const typename B::NativeEvent* waits, std::size_t wait_count) noexcept {
  ExternalRef* ext = bracketed_import<B>(n);
  if (ext == nullptr) return false;
  return add_queue_hold(ext, queue, [&] { return acquire_external<B>(q, n->root->native, waits, wait_count); });
}

/// Closes one hold of queue `q` (serial `queue`) on `n`'s bracketed import: the queue's last releases
/// the memory on `q` (`out`: the release's event; null: waited for on the host). True when it released
/// (`*out` is set only then); false when the queue keeps holding it, held nothing, or `n` is no such
/// import. Errc: those of external_release and event_wait.
template <class B = Backend>
Result<bool> unhold_import(typename B::NativeQueue q, std::uint64_t queue, const MemNode* n,
                           typename B::NativeEvent* out) noexcept {
  ExternalRef* ext = bracketed_import<B>(n);
  if (ext == nullptr) return false;
  typename B::NativeEvent released{};
  EDGEMEM_TRY_ASSIGN(const bool last, drop_queue_hold(ext, queue, [&] {
                       return release_external<B>(q, n->root->native, &released);
                     }));
  if (!last) return false;
  EDGEMEM_TRY(settle_release<B>(released, out));
  return true;
}

/// Runs `command(s)` on `q` (serial `queue`) with the memory of nodes `a` and `b` (either may be null)
/// held on `q` while it is enqueued: one hold each (hold_import), so the queue's first acquires the
/// memory before it and its last releases it after it, both enqueued under the holds' lock; a queue
/// that holds the memory already (a mapping, begin_native, another thread's command) enqueues neither.
/// The waits of `s` go to the first acquire, else to the command; `s.out` receives the last release's
/// event, else the command's. A blocking command whose hold released the memory waited for that
/// release (it has completed: *still_running is false). A failed command or second hold still drops
/// what was held (a release then blocks). Errc: exhausted (max_hold_queues other queues hold one of the
/// imports and `q` does not: the command does not run, since without a hold of its own its bracket
/// could not be ordered against another thread's first hold on `q`), the command's, or those of
/// external_acquire / external_release / event_wait.
template <class B = Backend, class Command>
Result<void> run_bracketed(typename B::NativeQueue q, std::uint64_t queue, const MemNode* a, const MemNode* b,
                           const typename B::CommandEvents& s, Command&& command) noexcept {
  using Events = typename B::CommandEvents;
  using Event = typename B::NativeEvent;
  const MemNode* m[2] = {bracketed_import<B>(a) != nullptr ? a : nullptr, bracketed_import<B>(b) != nullptr ? b : nullptr};
  if (m[0] == nullptr && m[1] == nullptr) return command(s);  // the hot path
  if (m[0] == nullptr || (m[1] != nullptr && m[1]->root == m[0]->root)) m[0] = m[1], m[1] = nullptr;
  const unsigned count = m[1] != nullptr ? 2 : 1;
  auto hold = [&](unsigned i, const Event* w, std::size_t wc) { return hold_import<B>(q, queue, m[i], w, wc); };
  auto unhold = [&](unsigned i, Event* out) { return unhold_import<B>(q, queue, m[i], out); };
  EDGEMEM_TRY_ASSIGN(bool took_waits, hold(0, s.waits, s.wait_count));
  if (count == 2) {
    auto second = hold(1, took_waits ? nullptr : s.waits, took_waits ? 0 : s.wait_count);
    if (!second) {
      (void)unhold(0, nullptr);
      return fail(second.error());
    }
    took_waits = took_waits || *second;
  }
  Event done{};
  Events inner;
  inner.waits = took_waits ? nullptr : s.waits;
  inner.wait_count = took_waits ? 0 : s.wait_count;
  inner.out = s.out != nullptr ? &done : nullptr;
  inner.still_running = s.still_running;
  auto ran = command(static_cast<const Events&>(inner));
  // Dropped in reverse; with an out-event, the last release enqueued is the caller's (the queue is in
  // order: it completes after the command and the other release), else the command's own event.
  const bool async = ran && s.out != nullptr;
  Event last{};  // the last release enqueued (async only)
  bool released = false;
  Result<void> dropped{};
  for (unsigned i = count; i-- > 0;) {
    Event ev{};
    auto r = unhold(i, async ? &ev : nullptr);
    if (!r) {
      if (dropped) dropped = fail(r.error());
      continue;
    }
    if (!*r) continue;
    if (!async) {
      if (s.still_running != nullptr) *s.still_running = false;  // the release was waited for
      continue;
    }
    if (released) B::event_release(last);
    last = ev;
    released = true;
  }
  if (async) {
    if (released) B::event_release(done);
    const Event caller = released ? last : done;
    if (dropped) *s.out = caller;
    else B::event_release(caller);  // the call fails: no event goes out
  }
  if (!ran) return ran;
  if (!dropped) {
    // The command is enqueued but a release failed: wait for it, so nothing of it runs untracked.
    (void)B::queue_finish(q);
    if (s.still_running != nullptr) *s.still_running = false;
  }
  return dropped;
}

/// Runs the blocking native map `map(s)` of node `n` on `q` (serial `queue`), holding its root on `q`
/// when it is a bracketed import (hold_import: the queue's first hold acquires it, and the map then
/// takes no waits: the queue is in order); a failed map drops the hold again. The matching drop
/// follows the native unmap (unmap_bracketed). Errc: the map's, or those of hold_import.
template <class B = Backend, class Map>
auto map_bracketed(typename B::NativeQueue q, std::uint64_t queue, const MemNode* n,
                   const typename B::CommandEvents& s, Map&& map) noexcept -> decltype(map(s)) {
  if (bracketed_import<B>(n) == nullptr) return map(s);
  EDGEMEM_TRY_ASSIGN(const bool acquired, hold_import<B>(q, queue, n, s.waits, s.wait_count));
  auto mapped = map(acquired ? typename B::CommandEvents{} : s);
  if (!mapped) (void)unhold_import<B>(q, queue, n, nullptr);
  return mapped;
}

/// Runs the native unmap `unmap(s)` of node `n` on `q` (serial `queue`, the map's), then drops its hold
/// (unhold_import): when that was the queue's last, the memory is released on `q` and `s.out` receives
/// the release's event (blocking when null), else the unmap's. The hold is dropped after a failed
/// unmap too (a release then blocks). Errc: the unmap's, or those of unhold_import.
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
  const bool async = done && s.out != nullptr;
  Event released_event{};
  auto released = unhold_import<B>(q, queue, n, async ? &released_event : nullptr);
  if (async) {
    // The caller's event: the release's when this unmap released the memory, else the unmap's.
    if (released && *released) {
      B::event_release(unmapped);
      *s.out = released_event;
    } else if (released) {
      *s.out = unmapped;
    } else {
      B::event_release(unmapped);
    }
  }
  if (!done) return done;
  if (!released) {
    (void)B::queue_finish(q);  // the unmap is enqueued: let it finish before reporting
    return fail(released.error());
  }
  return {};
}

}  // namespace edgemem::detail
