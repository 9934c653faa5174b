// Ordering across queues (docs/ordering.md is the model; this is its code). Each root keeps a small
// fixed table of the commands that may still reach it: their queue, byte range, whether they write, a
// ticket (their place in their queue's order) and their own event. A command on queue Q waits for every
// entry of another queue whose range it shares where either side writes; same-queue order is the
// queue's own. Entries live in the root, not in a handle, so memory that goes back to a pool, ring or
// heap carries them to its next owner (stream-ordered release). An entry goes only when its command is
// known complete: its event has completed, or a blocking command of its queue that started after its
// ticket has returned. Backends whose commands complete at enqueue (host) keep no table at all.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <edgemem/event.hpp>
#include <edgemem/result.hpp>

#include "core/checks.hpp"
#include "core/nodes.hpp"

namespace edgemem::detail {

/// Commands one root remembers at once. A full table drops completed entries, then merges two entries
/// of one queue, then folds the oldest entries into one marker on the recording queue: it never waits
/// on the host to make room (only when the driver refuses that marker).
inline constexpr std::size_t max_pending_per_root = 16;

/// One command that may still reach a root: root-relative bytes [begin, end).
struct PendingCommand {
  std::size_t begin;
  std::size_t end;
  std::uint64_t queue;          // QueueNode::serial of its queue (no reference: a queue's handle may go)
  std::uint64_t ticket;         // its place in that queue's order (QueueNode::tickets)
  Backend::NativeEvent event;   // one reference held by the table: the command's own event (or a marker
                                // enqueued right after it, under the queue's submit_lock)
  bool writes;
  bool covers_earlier;          // `event` also completes after every command of `queue` with a lower
                                // ticket (false: a blocking command's own event, whose ticket was taken
                                // after it returned; it may stand for no other entry)
};

/// The table of a root (RootNode::pending); guarded by its own `lock` (the root's mappings have
/// theirs: a map and a command's record never wait for each other).
struct PendingTable {
  // User-provided, so make_node runs the member initializers only: entries past `count` are never
  // read and stay unwritten (a root is made per image and per buffer create).
  PendingTable() noexcept {}
  /// Guards `entries` and the writes of `count` and `sole_queue`. Taken before a queue's submit_lock
  /// (make_room's marker), never after it.
  Lock lock;
  PendingCommand entries[max_pending_per_root];
  /// Entries in use. Written under the lock; read without it only to skip an empty table (a command
  /// racing another thread's record is not ordered after it in any case).
  std::atomic<std::size_t> count{0};
  /// QueueNode::serial of the one queue every entry belongs to; 0 when the table is empty or holds
  /// entries of several queues. Written under the lock; read without it by OrderWaits::collect, which
  /// has nothing to wait for on a table of its own queue's entries (same race as `count`).
  std::atomic<std::uint64_t> sole_queue{0};
};

/// Whether the active backend needs the table (false: commands complete at enqueue).
inline constexpr bool tracks_pending = !Backend::completes_at_enqueue;

/// A byte range of one buffer a command touches (node-relative), and whether the command writes it.
struct MemUse {
  const MemNode* node = nullptr;  // null: no use
  ByteRange range{};
  bool writes = false;
};

/// Most events ordering can add to one command's wait list (two buffers, a full table each).
inline constexpr std::size_t max_order_waits = 2 * max_pending_per_root;

/// Events retained for one command's wait list; released when the command has been enqueued.
class OrderWaits {
 public:
  OrderWaits() noexcept = default;
  OrderWaits(const OrderWaits&) = delete;
  OrderWaits& operator=(const OrderWaits&) = delete;
  ~OrderWaits();
  /// Appends (retained) the events of commands on queues other than `queue` that conflict with `use`.
  void collect(const QueueNode* queue, const MemUse& use) noexcept;
  /// Copies the collected events to `out`; returns how many.
  std::size_t copy_to(Backend::NativeEvent* out) const noexcept;
  /// How many were collected.
  std::size_t size() const noexcept { return count_; }
  /// The collected events (valid while this object lives).
  const Backend::NativeEvent* data() const noexcept { return events_; }

 private:
  Backend::NativeEvent events_[max_order_waits];
  std::size_t count_ = 0;
};

/// The count of `q`'s tickets now: read before a blocking command is enqueued, it bounds what that
/// command's completion proves complete (forget_completed).
inline std::uint64_t ticket_bound(const QueueNode* q) noexcept { return q->tickets.load(std::memory_order_acquire); }

/// Runs `enqueue()` (an async command whose event the table will keep) under `q`'s submit_lock and,
/// when it succeeds, stores its ticket in `*ticket`.
template <class Enqueue>
Result<void> enqueue_ticketed(QueueNode* q, std::uint64_t* ticket, Enqueue&& enqueue) noexcept {
  std::lock_guard<detail::Lock> lock(q->submit_lock);
  EDGEMEM_TRY(enqueue());
  // Only holders of submit_lock write `tickets`: a plain store (no read-modify-write) suffices.
  *ticket = q->tickets.load(std::memory_order_relaxed) + 1;
  q->tickets.store(*ticket, std::memory_order_release);
  return {};
}

/// A marker on `q` after every command enqueued on it so far (and `waits`), with its event and ticket:
/// what stands for a command that has no event of its own (a blocking write still running, native
/// commands, a release on a queue). Errc: those of Backend::marker.
Result<void> ticketed_marker(QueueNode* q, const Backend::NativeEvent* waits, std::size_t wait_count,
                             Backend::NativeEvent* event, std::uint64_t* ticket) noexcept;

/// Records `event` (non-empty; the caller keeps its own reference), ticket `ticket` of `queue`, as a
/// command on `use`'s bytes; `covers_earlier`: the event completes after every command of `queue` with a
/// lower ticket too (PendingCommand). A full table makes room without waiting on the host (make_room in
/// ordering.cpp); only when the driver refuses the marker that folds a table of 16 queues is the oldest
/// entry waited for on the host, and the refusal counted in Context::unreported_errors().
void record_pending(QueueNode* queue, const MemUse& use, Backend::NativeEvent event, std::uint64_t ticket,
                    bool covers_earlier = true) noexcept;

/// Records a blocking command of `queue` that may still run, with `event` (its own, or one recorded
/// right after it; the caller keeps its reference), on `a` and `b`: its ticket is taken now, after it
/// returned, so every later ticket of `queue` was enqueued after it.
void record_running(QueueNode* queue, const MemUse& a, const MemUse& b, Backend::NativeEvent event) noexcept;

/// Makes `queue`'s commands so far ordered before every later command of other queues on the bytes of
/// `a` and `b` (either node may be null),
/// for commands that have no event (a blocking write still running, native commands, a release on a
/// queue): one ticketed marker recorded on both. When the driver refuses the marker, the queue is
/// finished on the host instead (nothing is left unordered) and the refusal counted in
/// Context::unreported_errors(). Errc: those of Backend::queue_finish (nothing could order them).
[[nodiscard]] Result<void> record_marker(QueueNode* queue, const MemUse& a, const MemUse& b = MemUse{}) noexcept;

/// A blocking command of `queue` that touched `use` has completed, and with it every command of
/// `queue` whose ticket is at most `bound` (ticket_bound read before its enqueue): their entries go.
void forget_completed(const QueueNode* queue, const MemUse& use, std::uint64_t bound) noexcept;

/// A new table for a root (null: out of host memory). Only when tracks_pending.
PendingTable* make_pending_table() noexcept;

/// wait_pending's work (a table exists).
void wait_table(PendingTable* table, ContextNode* ctx) noexcept;
/// destroy_pending_table's work (a table exists).
void destroy_table(PendingTable* table) noexcept;

/// Waits on the host for every command the table still records: before memory the root only borrows
/// (an import's mapping) goes. Runs in a destructor: a failed command is counted on `ctx`
/// (Context::unreported_errors()). Nothing where commands complete at enqueue (no table; no code).
inline void wait_pending(PendingTable* table, ContextNode* ctx) noexcept {
  if constexpr (tracks_pending) {
    if (table != nullptr) wait_table(table, ctx);
  }
}

/// Releases every event of the table and the table itself (the root is being destroyed). Nothing
/// where commands complete at enqueue.
inline void destroy_pending_table(PendingTable* table) noexcept {
  if constexpr (tracks_pending) {
    if (table != nullptr) destroy_table(table);
  }
}

}  // namespace edgemem::detail
