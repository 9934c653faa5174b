// The per-root table of pending commands (see ordering.hpp and docs/ordering.md).
#include "core/ordering.hpp"

namespace edgemem::detail {

namespace {

/// Entries a full table of 16 queues folds into one marker (the oldest ones).
constexpr std::size_t kFold = max_pending_per_root / 2;

bool conflicts(const PendingCommand& e, ByteRange r, bool writes) noexcept {
  return (writes || e.writes) && intersects(ByteRange{e.begin, e.end}, r);
}

ByteRange root_range(const MemUse& use) noexcept {
  return ByteRange{use.node->origin + use.range.begin, use.node->origin + use.range.end};
}

/// Sets PendingTable::sole_queue from the first `n` entries.
void update_sole_queue(PendingTable& t, std::size_t n) noexcept {
  std::uint64_t sole = n != 0 ? t.entries[0].queue : 0;
  for (std::size_t i = 1; i < n && sole != 0; ++i)
    if (t.entries[i].queue != sole) sole = 0;
  t.sole_queue.store(sole, std::memory_order_release);
}

void erase(PendingTable& t, std::size_t i) noexcept {
  Backend::event_release(t.entries[i].event);
  const std::size_t n = t.count.load(std::memory_order_relaxed);
  for (std::size_t j = i + 1; j < n; ++j) t.entries[j - 1] = t.entries[j];  // keeps age order
  update_sole_queue(t, n - 1);
  t.count.store(n - 1, std::memory_order_release);
}

/// Appends `e` (its event reference passes to the table). The table has room.
void append(PendingTable& t, const PendingCommand& e) noexcept {
  const std::size_t at = t.count.load(std::memory_order_relaxed);
  t.entries[at] = e;
  const std::uint64_t sole = t.sole_queue.load(std::memory_order_relaxed);
  t.sole_queue.store(at == 0 || sole == e.queue ? e.queue : 0, std::memory_order_release);
  t.count.store(at + 1, std::memory_order_release);
}

/// `into` stands for `from` too (same queue, `from`'s ticket lower: `into`'s event completes after
/// both): the range widens to cover both, a write stays a write.
void widen(PendingCommand& into, const PendingCommand& from) noexcept {
  if (from.begin < into.begin) into.begin = from.begin;
  if (from.end > into.end) into.end = from.end;
  into.writes = into.writes || from.writes;
}

/// Under the lock: frees at least one slot of the full table `t` for a record of `q`, in this order:
/// entries whose command has completed go; else two entries of one queue become the later one; else
/// (16 queues) the oldest kFold entries fold into one marker on `q` that waits for their events; only
/// when the driver refuses that marker does the host wait, for the oldest entry (the refusal is counted
/// in Context::unreported_errors()).
[[gnu::noinline, gnu::cold]] void make_room(PendingTable& t, QueueNode* q) noexcept {
  for (std::size_t i = t.count; i-- > 0;) {
    auto done = Backend::event_complete(t.entries[i].event);
    if (!done) {
      // The query failed, not necessarily the command: the host waits for it (a failed command has
      // ended too), so the entry never goes while its command may still run; the failure is counted.
      report_dropped(q->ctx, done.error());
      (void)Backend::event_wait(t.entries[i].event);
    }
    if (!done || *done) erase(t, i);
  }
  if (t.count < max_pending_per_root) return;
  for (std::size_t i = 0; i < t.count; ++i) {
    for (std::size_t j = i + 1; j < t.count; ++j) {
      if (t.entries[i].queue != t.entries[j].queue) continue;
      const bool j_later = t.entries[j].ticket > t.entries[i].ticket;
      if (!t.entries[j_later ? j : i].covers_earlier) continue;
      widen(t.entries[j_later ? j : i], t.entries[j_later ? i : j]);
      erase(t, j_later ? i : j);
      return;
    }
  }
  Backend::NativeEvent waits[kFold];
  PendingCommand folded = t.entries[0];
  for (std::size_t i = 0; i < kFold; ++i) {
    waits[i] = t.entries[i].event;
    widen(folded, t.entries[i]);
  }
  const Result<void> marked = ticketed_marker(q, waits, kFold, &folded.event, &folded.ticket);
  if (marked) {
    folded.queue = q->serial;
    for (std::size_t i = kFold; i-- > 0;) erase(t, i);
    append(t, folded);
    return;
  }
  report_dropped(q->ctx, marked.error());
  (void)Backend::event_wait(t.entries[0].event);  // a failed command has ended too
  erase(t, 0);
}

}  // namespace

OrderWaits::~OrderWaits() {
  for (std::size_t i = 0; i < count_; ++i) Backend::event_release(events_[i]);
}

void OrderWaits::collect(const QueueNode* queue, const MemUse& use) noexcept {
  if (use.node == nullptr) return;
  PendingTable* t = use.node->root->pending;
  if (t == nullptr || t->count.load(std::memory_order_acquire) == 0) return;
  if (t->sole_queue.load(std::memory_order_acquire) == queue->serial) return;  // only its own queue's
  const ByteRange r = root_range(use);
  std::lock_guard<detail::Lock> lock(t->lock);
  for (std::size_t i = 0; i < t->count; ++i) {
    const PendingCommand& e = t->entries[i];
    if (e.queue == queue->serial || !conflicts(e, r, use.writes)) continue;
    bool seen = false;
    for (std::size_t j = 0; j < count_ && !seen; ++j) seen = events_[j] == e.event;
    if (seen) continue;
    // Room is certain: two uses, each root's table holds at most max_pending_per_root entries.
    Backend::event_retain(e.event);
    events_[count_++] = e.event;
  }
}

std::size_t OrderWaits::copy_to(Backend::NativeEvent* out) const noexcept {
  for (std::size_t i = 0; i < count_; ++i) out[i] = events_[i];
  return count_;
}

Result<void> ticketed_marker(QueueNode* q, const Backend::NativeEvent* waits, std::size_t wait_count,
                             Backend::NativeEvent* event, std::uint64_t* ticket) noexcept {
  Backend::CommandEvents sync;
  sync.waits = wait_count != 0 ? waits : nullptr;
  sync.wait_count = wait_count;
  sync.out = event;
  return enqueue_ticketed(q, ticket, [&] { return Backend::marker(q->native, sync); });
}

void record_pending(QueueNode* queue, const MemUse& use, Backend::NativeEvent event, std::uint64_t ticket,
                    bool covers_earlier) noexcept {
  if (use.node == nullptr) return;
  PendingTable* t = use.node->root->pending;
  if (t == nullptr) return;
  PendingCommand entry{0, 0, queue->serial, ticket, event, use.writes, covers_earlier};
  const ByteRange r = root_range(use);
  entry.begin = r.begin;
  entry.end = r.end;
  std::lock_guard<detail::Lock> lock(t->lock);
  for (std::size_t i = t->count; i-- > 0;) {
    const PendingCommand& e = t->entries[i];
    if (e.queue != entry.queue || e.begin > r.begin || e.end < r.end) continue;
    // A later command of this queue over these bytes, writing if this one does, stands for this one.
    if (e.ticket > ticket && e.covers_earlier && (e.writes || !entry.writes)) return;
  }
  // Earlier commands of this queue inside this range complete before this one: this entry stands for
  // them (keeping their write flag, so a reader on another queue still waits).
  for (std::size_t i = t->count; i-- > 0 && covers_earlier;) {
    const PendingCommand& e = t->entries[i];
    if (e.queue == entry.queue && e.ticket < ticket && e.begin >= r.begin && e.end <= r.end) {
      entry.writes = entry.writes || e.writes;
      erase(*t, i);
    }
  }
  if (t->count == max_pending_per_root) make_room(*t, queue);
  Backend::event_retain(event);
  append(*t, entry);
}

void record_running(QueueNode* queue, const MemUse& a, const MemUse& b, Backend::NativeEvent event) noexcept {
  std::uint64_t ticket = 0;
  (void)enqueue_ticketed(queue, &ticket, []() -> Result<void> { return {}; });
  record_pending(queue, a, event, ticket, false);
  record_pending(queue, b, event, ticket, false);
}

Result<void> record_marker(QueueNode* queue, const MemUse& a, const MemUse& b) noexcept {
  const bool tracked_a = a.node != nullptr && a.node->root->pending != nullptr;
  const bool tracked_b = b.node != nullptr && b.node->root->pending != nullptr;
  if (!tracked_a && !tracked_b) return {};
  Backend::NativeEvent event{};
  std::uint64_t ticket = 0;
  const Result<void> marked = ticketed_marker(queue, nullptr, 0, &event, &ticket);
  if (marked) {
    record_pending(queue, a, event, ticket);
    record_pending(queue, b, event, ticket);
    Backend::event_release(event);
    return {};
  }
  // No marker: the queue's commands so far end on the host, so nothing of them is left unordered; the
  // refusal is counted (Context::unreported_errors()), as the call itself has done its work.
  report_dropped(queue->ctx, marked.error());
  const std::uint64_t bound = ticket_bound(queue);
  EDGEMEM_TRY(Backend::queue_finish(queue->native));
  forget_completed(queue, a, bound);
  forget_completed(queue, b, bound);
  return {};
}

void forget_completed(const QueueNode* queue, const MemUse& use, std::uint64_t bound) noexcept {
  if (use.node == nullptr) return;
  PendingTable* t = use.node->root->pending;
  if (t == nullptr || t->count.load(std::memory_order_acquire) == 0) return;
  std::lock_guard<detail::Lock> lock(t->lock);
  for (std::size_t i = t->count; i-- > 0;)
    if (t->entries[i].queue == queue->serial && t->entries[i].ticket <= bound) erase(*t, i);
}

PendingTable* make_pending_table() noexcept { return make_node<PendingTable>(); }

void wait_table(PendingTable* table, ContextNode* ctx) noexcept {
  for (std::size_t i = 0; i < table->count.load(std::memory_order_relaxed); ++i) {
    const Result<void> waited = Backend::event_wait(table->entries[i].event);
    if (!waited) report_dropped(ctx, waited.error());  // a failed command has ended too
  }
}

void destroy_table(PendingTable* table) noexcept {
  for (std::size_t i = 0; i < table->count; ++i) Backend::event_release(table->entries[i].event);
  destroy_node(table);
}

}  // namespace edgemem::detail
