// The per-root table of pending commands (see ordering.hpp).
#include "core/ordering.hpp"

#include <mutex>

namespace edgemem::detail {

namespace {

bool conflicts(const PendingCommand& e, ByteRange r, bool writes) noexcept {
  return (writes || e.writes) && intersects(ByteRange{e.begin, e.end}, r);
}

ByteRange root_range(const MemUse& use) noexcept {
  return ByteRange{use.node->origin + use.range.begin, use.node->origin + use.range.end};
}

void drop(PendingCommand& e) noexcept {
  if (e.event != Backend::NativeEvent{}) Backend::event_release(e.event);
  unref(e.queue);
}

void erase(PendingTable& t, std::size_t i) noexcept {
  drop(t.entries[i]);
  const std::size_t n = t.count.load(std::memory_order_relaxed);
  for (std::size_t j = i + 1; j < n; ++j) t.entries[j - 1] = t.entries[j];  // keeps age order
  t.count.store(n - 1, std::memory_order_release);
}

/// The entry's event. An entry recorded without one (a blocking write, or any command while one queue
/// alone used the root) gets one now: a marker on its queue, which completes after that command (and
/// the rest of that queue so far). Errc: those of Backend::marker.
Result<Backend::NativeEvent> event_of(PendingCommand& e) noexcept {
  if (e.event == Backend::NativeEvent{}) {
    Backend::CommandEvents sync;
    sync.out = &e.event;
    EDGEMEM_TRY(Backend::marker(e.queue->native, sync));
  }
  return e.event;
}

/// Makes room for one entry of `queue`: drops completed entries, else returns the index of the newest
/// entry of `queue` (to widen), else waits for the oldest entry and drops it. Returns
/// max_pending_per_root when a slot was freed.
std::size_t make_room(PendingTable& t, const QueueNode* queue) noexcept {
  for (std::size_t i = t.count; i-- > 0;) {
    auto event = event_of(t.entries[i]);
    if (!event) continue;  // no marker now: keep the entry (it may still run)
    auto done = Backend::event_complete(*event);
    if (!done || *done) erase(t, i);  // a failed command has ended too
  }
  if (t.count < max_pending_per_root) return max_pending_per_root;
  for (std::size_t i = t.count; i-- > 0;)
    if (t.entries[i].queue == queue) return i;
  if (auto oldest = event_of(t.entries[0])) (void)Backend::event_wait(*oldest);  // 16 queues pending: rare
  erase(t, 0);
  return max_pending_per_root;
}

}  // namespace

OrderWaits::~OrderWaits() {
  for (std::size_t i = 0; i < count_; ++i) Backend::event_release(events_[i]);
}

Result<void> OrderWaits::collect(const QueueNode* queue, const MemUse& use) noexcept {
  if (use.node == nullptr) return {};
  PendingTable* t = use.node->root->pending;
  if (t == nullptr || t->count.load(std::memory_order_acquire) == 0) return {};
  const ByteRange r = root_range(use);
  std::lock_guard<std::mutex> lock(use.node->root->map_lock);
  for (std::size_t i = 0; i < t->count; ++i) {
    PendingCommand& e = t->entries[i];
    if (e.queue == queue) continue;
    t->many_queues = true;
    if (!conflicts(e, r, use.writes)) continue;
    EDGEMEM_TRY_ASSIGN(const Backend::NativeEvent event, event_of(e));
    bool seen = false;
    for (std::size_t j = 0; j < count_ && !seen; ++j) seen = events_[j] == event;
    if (seen || count_ == max_order_waits) continue;
    Backend::event_retain(event);
    events_[count_++] = event;
  }
  return {};
}

std::size_t OrderWaits::copy_to(Backend::NativeEvent* out) const noexcept {
  for (std::size_t i = 0; i < count_; ++i) out[i] = events_[i];
  return count_;
}

void record_pending(QueueNode* queue, const MemUse& use, Backend::NativeEvent event) noexcept {
  if (use.node == nullptr) return;
  PendingTable* t = use.node->root->pending;
  if (t == nullptr) return;
  ByteRange r = root_range(use);
  bool writes = use.writes;
  std::lock_guard<std::mutex> lock(use.node->root->map_lock);
  // Earlier commands of the same queue inside this range complete before this one: this entry stands
  // for them (keeping their write flag, so a reader on another queue still waits).
  for (std::size_t i = t->count; i-- > 0;) {
    const PendingCommand& e = t->entries[i];
    if (e.queue == queue && e.begin >= r.begin && e.end <= r.end) {
      writes = writes || e.writes;
      erase(*t, i);
    }
  }
  if (t->count == max_pending_per_root) {
    const std::size_t merge = make_room(*t, queue);
    if (merge != max_pending_per_root) {  // widen the newest same-queue entry: later, wider, still correct
      PendingCommand& e = t->entries[merge];
      r = ByteRange{e.begin < r.begin ? e.begin : r.begin, e.end > r.end ? e.end : r.end};
      writes = writes || e.writes;
      erase(*t, merge);
    }
  }
  if (t->first_queue == 0) t->first_queue = queue->serial;
  else if (t->first_queue != queue->serial) t->many_queues = true;
  if (!t->many_queues) event = Backend::NativeEvent{};  // made on demand (event_of)
  if (event != Backend::NativeEvent{}) Backend::event_retain(event);
  retain(queue);
  const std::size_t at = t->count.load(std::memory_order_relaxed);
  t->entries[at] = PendingCommand{r.begin, r.end, queue, event, writes};
  t->count.store(at + 1, std::memory_order_release);
}

void forget_completed(const QueueNode* queue, const MemUse& use) noexcept {
  if (use.node == nullptr) return;
  PendingTable* t = use.node->root->pending;
  if (t == nullptr || t->count.load(std::memory_order_acquire) == 0) return;
  std::lock_guard<std::mutex> lock(use.node->root->map_lock);
  for (std::size_t i = t->count; i-- > 0;)
    if (t->entries[i].queue == queue) erase(*t, i);
}

PendingTable* make_pending_table() noexcept { return make_node<PendingTable>(); }

void wait_pending(PendingTable* table, ContextNode* ctx) noexcept {
  if (table == nullptr) return;
  for (std::size_t i = 0; i < table->count.load(std::memory_order_relaxed); ++i) {
    PendingCommand& e = table->entries[i];
    auto event = event_of(e);
    const Result<void> waited = event ? Backend::event_wait(*event) : Result<void>(fail(event.error()));
    if (!waited) {
      report_dropped(ctx, waited.error());
      (void)Backend::queue_finish(e.queue->native);  // waits for the command all the same
    }
  }
}

void destroy_pending_table(PendingTable* table) noexcept {
  if (table == nullptr) return;
  for (std::size_t i = 0; i < table->count; ++i) drop(table->entries[i]);
  destroy_node(table);
}

}  // namespace edgemem::detail
