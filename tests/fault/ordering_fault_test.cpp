/// Issue #28, case 6 (-Dfault_injection=true): a backend call the ordering table makes (a marker that
/// gives an entry its event, an event query, a wait) may fail; the command that needed it must then
/// either return an Error or keep the order, never run with an edge dropped. Each scenario holds
/// commands behind gates (tests/support/gate.hpp), counts the fault points of the one call under test,
/// then fails each point k in turn (fault::arm(k)) and checks: the call's Error (and nothing of it
/// enqueued), or blocking readers of each range on queues and threads of their own, started while the
/// gates are still closed, that do not return before they open and then see every write. The gates
/// open from a watchdog 200 ms after the call began (a table that waits on the host for a held command
/// is case 5's bug, not this one's). Scenarios:
///  - 17 queues, each with a held write to its own range of one root (the 17th finds the table full);
///  - one queue with 16 held writes to disjoint ranges, then an async read of the whole root on another
///    queue (it waits for all 16 and finds the table full).
/// Host backend: no gates and no table; the ungated scenario is checked once.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <edgemem/fault.hpp>

#include "conformance/ordering_helpers.hpp"

using namespace edgemem;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kQueues = 17;

std::uint32_t value_of(std::size_t i) { return 0x0c000000u + static_cast<std::uint32_t>(i); }

/// One run: `queues` writers (1: every write on one queue), kQueues parts; the call under test runs
/// armed with `k` (0: counting). Returns the fault points the call passed.
std::uint64_t run_once(std::size_t queues, std::uint64_t k) {
  CAPTURE(queues);
  CAPTURE(k);
  emt::Fixture f;
  const std::size_t align = f.ctx.base_align();
  const std::size_t part = (64 * 1024 + align - 1) / align * align, total = kQueues * part;
  auto root = Buffer::create(f.ctx, total);
  CHECK_OK(root);
  if (!root) return 0;
  std::vector<Queue> qs, readers;
  std::vector<emt::Gate> gates;
  std::vector<emt::Gate*> gate_ptrs;
  for (std::size_t i = 0; i < queues; ++i) qs.push_back(emt::new_queue(f.ctx));
  // Zeros from queue 0, then a blocking read there: every command of it has completed, the table
  // starts empty and queue 0 is the first to use the root, so its entries get no event until another
  // queue must wait for them (then a marker: a fault point too).
  const auto zero = emt::words(total, 0);
  CHECK_OK(qs[0].write(*root, 0, zero.data(), total));
  std::uint32_t word = 0;
  CHECK_OK(qs[0].read(*root, 0, &word, 4));
  for (auto& q : qs) {
    auto g = emt::Gate::hold(q);
    if (g) gates.push_back(std::move(*g));
  }
  for (auto& g : gates) gate_ptrs.push_back(&g);
  for (std::size_t i = 0; i < kQueues; ++i) readers.push_back(emt::new_queue(f.ctx));
  const bool gated = !gates.empty();
  std::vector<std::vector<std::uint32_t>> data, got;
  for (std::size_t i = 0; i < kQueues; ++i) {
    data.push_back(emt::words(part, value_of(i)));
    got.push_back(emt::words(part, 0xdeadbeefu));
  }
  // 16 held writes to parts 0..15 (on queues 0..15, or all on queue 0). The call under test: with 17
  // queues the 17th write (part 16), with one queue a read of the whole root on another queue (then
  // part 16 is never written).
  std::vector<Result<Event>> writes;
  for (std::size_t i = 0; i + 1 < kQueues; ++i)
    writes.push_back(qs[queues == 1 ? 0 : i].write_async(*root, i * part, data[i].data(), part));
  std::vector<std::uint32_t> whole(total / 4, 0xdeadbeefu);
  Result<Event> under_test = fail(Errc::released, "not enqueued");
  std::vector<Result<void>> reads(kQueues);
  std::unique_ptr<char[]> early(new char[kQueues + 1]());  // returned / completed while the gates were closed
  std::uint64_t points = 0;
  {
    emt::DelayedOpen watchdog(gate_ptrs, 200ms);
    fault::arm(k);
    if (queues == 1) under_test = f.q.read_async(*root, 0, whole.data(), total);
    else under_test = qs[kQueues - 1].write_async(*root, (kQueues - 1) * part, data[kQueues - 1].data(), part);
    fault::disarm();
    points = fault::count();
    // One blocking reader per part, each on a queue and thread of its own (blocking: not recorded, so
    // they cannot fill the table themselves): one whose write's edge was dropped returns at once.
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < kQueues; ++i)
      threads.emplace_back([&, i] {
        reads[i] = readers[i].read(*root, i * part, got[i].data(), part);
        early[i] = !watchdog.opened();
      });
    if (queues == 1 && under_test && gated) {
      std::this_thread::sleep_for(50ms);  // room for the whole-root read to complete if it does not wait
      auto done = under_test->is_complete();
      early[kQueues] = done && *done && !watchdog.opened();
    }
    for (auto& t : threads) t.join();
    watchdog.open_and_wait();
  }
  const fault::Injected inj = fault::last();
  const std::string call = k != 0 ? inj.call : "(none)";
  CAPTURE(call);
  for (auto& w : writes) {
    CHECK_OK(w);
    if (w) CHECK_OK(w->wait());
  }
  if (k == 0) CHECK_OK(under_test);
  if (!under_test) CHECK_MESSAGE(under_test.error().code == inj.code, "the call failed with " << emt::describe(under_test));
  else CHECK_OK(under_test->wait());
  for (auto& r : reads) CHECK_OK(r);
  // Part 16 has a held write only when the 17th write is the call under test and it succeeded.
  const bool last_written = queues != 1 && static_cast<bool>(under_test);
  std::size_t n_early = 0, first_early = kQueues + 1;
  for (std::size_t i = 0; i <= kQueues; ++i)
    if (early[i] && gated && (i != kQueues - 1 || last_written)) {
      ++n_early;
      if (first_early > kQueues) first_early = i;
    }
  CHECK_MESSAGE(n_early == 0, "reader #" << first_early << " (" << n_early << " in all; #" << kQueues
                              << ": the whole-root read) returned while the write it must follow was held: an edge "
                              << "was dropped with " << call << " failed");
  std::size_t wrong_parts = 0, first_wrong = kQueues;
  for (std::size_t i = 0; i < kQueues; ++i) {
    // Part 16: the 17th write's (a failed call changes nothing: zeros), never written with one queue.
    const bool last = i == kQueues - 1;
    const std::uint32_t want = !last ? value_of(i) : last_written ? value_of(i) : 0u;
    std::size_t bad = emt::wrong_words(got[i], want);
    if (queues == 1 && under_test)
      for (std::size_t w = i * part / 4; w < (i + 1) * part / 4; ++w) bad += whole[w] != want;
    if (bad != 0 && first_wrong == kQueues) first_wrong = i;
    wrong_parts += bad != 0;
  }
  CHECK_MESSAGE(wrong_parts == 0, wrong_parts << " of " << kQueues << " ranges read on other queues are not what "
                                  "was written (the first: #" << first_wrong << "), with " << call << " failed");
  for (auto& q : qs) CHECK_OK(q.finish());
  return points;
}

void every_fault_point(std::size_t queues) {
  const std::uint64_t n = run_once(queues, 0);
  {
    emt::Fixture f;
    if (!emt::gates_supported(f.q)) {
      MESSAGE("no gates on this backend: the ungated scenario was checked once");
      return;
    }
  }
  MESSAGE(n << " fault points in the call under test");
  CHECK(n > 0);
  for (std::uint64_t k = 1; k <= n; ++k) run_once(queues, k);
}

}  // namespace

TEST_CASE("ordering fault: the 17th queue's write on a full table keeps the order or fails") {
  every_fault_point(kQueues);
}

TEST_CASE("ordering fault: a reader on a table full of one queue's held writes keeps the order or fails") {
  every_fault_point(1);
}
