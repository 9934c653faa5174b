// Ordering across queues: each root buffer keeps a small fixed table of the commands that may still
// reach it (their queue, byte range, whether they write, and a retained event). A command on queue Q
// waits for every entry of another queue whose range it shares where either side writes (read after
// write, write after read, write after write); same-queue order is the queue's own. Entries live in
// the root, not in a handle, so memory that goes back to a pool, ring or heap carries them to its next
// owner: that owner's first command (or map) waits for them automatically (stream-ordered release).
// Backends whose commands complete at enqueue (host) keep no table at all.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include <edgemem/event.hpp>
#include <edgemem/result.hpp>

#include "core/checks.hpp"
#include "core/nodes.hpp"

namespace edgemem::detail {

/// Commands one root remembers at once; a full table first drops completed entries, then merges
/// same-queue entries, and only when 16 queues have commands pending on one root waits for the oldest.
inline constexpr std::size_t max_pending_per_root = 16;

/// One command that may still reach a root: root-relative bytes [begin, end).
struct PendingCommand {
  std::size_t begin;
  std::size_t end;
  QueueNode* queue;             // one reference held by the table
  Backend::NativeEvent event;   // one reference held by the table; empty (a blocking write, or while
                                // one queue alone uses the root) until another queue needs to wait
                                // for it: then a marker on `queue` (event_of in ordering.cpp)
  bool writes;
};

/// The table of a root (MemNode::pending); guarded by the root's map_lock.
struct PendingTable {
  // User-provided, so make_node runs the member initializers only: entries past `count` are never
  // read and stay unwritten (a root is made per image and per buffer create).
  PendingTable() noexcept {}
  PendingCommand entries[max_pending_per_root];
  /// Entries in use. Written under the lock; read without it only to skip an empty table (a command
  /// racing another thread's record is not ordered after it in any case).
  std::atomic<std::size_t> count{0};
  /// QueueNode::serial of the first queue that recorded a command here, and whether any other queue
  /// has used the root since. While one queue alone uses a root, entries keep no event (a marker
  /// makes one if a second queue ever needs it), so single-queue work costs no driver call here.
  std::uint64_t first_queue = 0;
  bool many_queues = false;
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
  /// Errc: those of Backend::marker (a blocking write's entry gets its event only now).
  [[nodiscard]] Result<void> collect(const QueueNode* queue, const MemUse& use) noexcept;
  /// Copies the collected events to `out`; returns how many.
  std::size_t copy_to(Backend::NativeEvent* out) const noexcept;

 private:
  Backend::NativeEvent events_[max_order_waits];
  std::size_t count_ = 0;
};

/// Records `event` (the caller keeps its own reference; empty: a blocking write with no event) as a
/// command of `queue` on `use`'s bytes.
void record_pending(QueueNode* queue, const MemUse& use, Backend::NativeEvent event) noexcept;

/// A command of `queue` on `use`'s root has completed, so every earlier command of `queue` has:
/// their entries go.
void forget_completed(const QueueNode* queue, const MemUse& use) noexcept;

/// A new table for a root (null: out of host memory). Only when tracks_pending.
PendingTable* make_pending_table() noexcept;

/// Waits for every command the table still records (its event, or a marker on its queue; the queue's
/// finish when neither can be had): before memory the root only borrows (an import's mapping) goes.
/// Runs in a destructor: a failure is counted on `ctx` (Context::unreported_errors()).
void wait_pending(PendingTable* table, ContextNode* ctx) noexcept;

/// Releases every event of the table and the table itself (the root is being destroyed).
void destroy_pending_table(PendingTable* table) noexcept;

}  // namespace edgemem::detail
