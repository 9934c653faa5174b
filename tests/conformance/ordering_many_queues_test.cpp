/// Issue #28, case 5: more queues than the ordering table's 16 entries must not block the host. N
/// queues (17 and 64), each held behind its own gate, each enqueue an async write (a copy from device
/// memory: nothing gated moves host memory, which CUDA may stage on the host) to a distinct range of
/// one root from a writer thread; a watchdog opens the gates after 2 s, setting a flag first. Every
/// write_async (the 17th and later included) must return before the flag is set: the table may not
/// wait on the host for a held command to make room. Then a read of the whole root on another queue,
/// enqueued while the gates are still closed, must not complete before they open and must see every
/// write. Without gates (host backend) the writes and the read are checked ungated.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "conformance/ordering_helpers.hpp"

using namespace edgemem;
using namespace std::chrono_literals;

namespace {

void many_queues_one_root(std::size_t n) {
  CAPTURE(n);
  emt::Fixture f;
  const std::size_t align = f.ctx.base_align();
  const std::size_t part = (64 * 1024 + align - 1) / align * align, total = n * part;
  auto root = Buffer::create(f.ctx, total);
  REQUIRE_OK(root);
  const auto zero = emt::words(total, 0);
  REQUIRE_OK(f.q.write(*root, 0, zero.data(), total));
  REQUIRE_OK(f.q.finish());
  std::vector<Queue> queues;
  std::vector<emt::Gate> gates;
  std::vector<Buffer> data;  // each queue's bytes, in device memory: no gated command moves host memory
  bool gated = true;
  for (std::size_t i = 0; i < n; ++i)  // every buffer made before the first gate holds a queue
    data.push_back(emt::staged(f.ctx, emt::words(part, 0x07000000u + static_cast<std::uint32_t>(i))));
  auto readback = Buffer::create(f.ctx, total);
  REQUIRE_OK(readback);
  // Every queue made before the first gate holds one: on CUDA (H200, driver 580) a cuStreamCreate while
  // 20 streams waited at a gate spun on the host (the 35th queue; whether the driver or the harness is
  // at fault is not proven yet: issue #28).
  for (std::size_t i = 0; i < n; ++i) {
    queues.push_back(emt::new_queue(f.ctx));
    ENSURE(queues.back().valid());
  }
  for (auto& q : queues) {
    auto g = emt::Gate::hold(q);
    if (g) gates.push_back(std::move(*g));
    else gated = false;
  }
  std::vector<emt::Gate*> gate_ptrs;
  for (auto& g : gates) gate_ptrs.push_back(&g);

  std::vector<Result<Event>> writes;
  writes.reserve(n);
  std::unique_ptr<char[]> returned_before_open(new char[n]());
  std::vector<std::uint32_t> got(total / 4);
  Result<Event> read = fail(Errc::released, "not enqueued");
  bool read_enqueued_while_closed = false, read_done_while_closed = false;
  {
    emt::DelayedOpen watchdog(gate_ptrs, 2000ms);
    std::thread writer([&] {
      for (std::size_t i = 0; i < n; ++i) {
        writes.push_back(queues[i].copy_async(data[i], *root, 0, i * part, part));
        returned_before_open[i] = !watchdog.opened();
      }
      read = f.q.copy_async(*root, *readback, 0, 0, total);  // waits for all n writes
      read_enqueued_while_closed = !watchdog.opened();
    });
    writer.join();
    if (gated && read_enqueued_while_closed && read) {
      std::this_thread::sleep_for(50ms);  // room for a read that does not wait to complete
      auto done = read->is_complete();
      read_done_while_closed = done && *done && !watchdog.opened();
    }
    watchdog.open_and_wait();
  }
  std::size_t late = 0, first_late = n;
  for (std::size_t i = 0; i < n; ++i)
    if (!returned_before_open[i]) {
      ++late;
      if (first_late == n) first_late = i;
    }
  CHECK_MESSAGE(late == 0, late << " of " << n << " write_async calls (the first: queue #" << first_late + 1
                                << ") returned only after the watchdog opened the gates: the host waited for a "
                                   "held command");
  for (std::size_t i = 0; i < writes.size(); ++i) {
    CHECK_OK(writes[i]);
    if (writes[i]) CHECK_OK(writes[i]->wait());
  }
  CHECK_OK(read);
  if (read) CHECK_OK(read->wait());
  CHECK_OK(f.q.read(*readback, 0, got.data(), total));
  CHECK_MESSAGE(!read_done_while_closed, "the read of the whole root on another queue completed while every write "
                                         "it must follow was still held behind its gate");
  std::size_t wrong_parts = 0, first_wrong = n;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t bad = 0;
    for (std::size_t w = i * part / 4; w < (i + 1) * part / 4; ++w) bad += got[w] != 0x07000000u + i;
    if (bad != 0) {
      ++wrong_parts;
      if (first_wrong == n) first_wrong = i;
    }
  }
  CHECK_MESSAGE(wrong_parts == 0, wrong_parts << " of " << n << " ranges read on another queue are not their "
                                  "queue's write (the first: queue #" << first_wrong + 1 << ")");
  if (!gated) MESSAGE("no gates on this backend: the ungated sequence was checked");
  for (auto& q : queues) CHECK_OK(q.finish());
}

}  // namespace

TEST_CASE("ordering: the 17th queue's async write on one root does not block the host (threads)") {
  many_queues_one_root(17);
}

TEST_CASE("ordering: 64 queues' async writes on one root do not block the host (threads)") {
  many_queues_one_root(64);
}
