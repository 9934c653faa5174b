/// Issue #28, cases 2 and 4: what the ordering table keeps must outlive nothing it points at.
///  - Case 2: an Svm whose last handle goes while a write into it is still held behind a gate must be
///    freed only after that write (no use-after-free: ASan in CI; without ASan a new allocation that
///    reuses the memory would get the old write's bytes, which is checked). Also when a blocking call
///    of another thread on the same queue returned meanwhile (the case 1 bug erases the write's entry
///    and the Svm is then freed at once).
///  - Case 4: a queue adopted with AdoptMode::borrow whose handle is dropped and whose native queue is
///    then released: later commands of other queues on the memory it wrote, and the free of an Svm it
///    wrote, must not use the released native queue (today: a marker on it; a crash on PoCL).
/// Its own program (tests/ordering), as a use-after-free here can take the whole process down. The
/// blocking-call case comes first: in a fresh process PoCL's SVM allocation is mmap'ed, so a free
/// under the held write unmaps it and the write faults even without ASan (later, glibc may serve it
/// from the heap and the stray write can go unseen without ASan).
/// Host backend: no gates and no adopt; the ungated sequences run and adopt's answer is reported.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "conformance/ordering_helpers.hpp"

using namespace edgemem;
using namespace std::chrono_literals;

namespace {

constexpr std::uint32_t kOld = 0x0800aa00u, kFresh = 0x0900bb00u, kFill = 0x0a00cc00u, kNext = 0x0b00dd00u;

/// After an allocation that may have been freed too early: a new Svm of `bytes` filled with kNext on
/// `c` (it may reuse the memory), then `gate` opens (at the latest 500 ms after the call began: a
/// driver may order the new allocation's write after the held one when it reuses the memory), then the
/// new Svm must still hold kNext.
void next_allocation_keeps_its_bytes(emt::Fixture& f, Queue& c, std::size_t bytes, SvmGrain g, emt::Gate* gate) {
  std::vector<emt::Gate*> gates;
  if (gate != nullptr) gates.push_back(gate);
  emt::DelayedOpen watchdog(gates, 500ms);
  auto next = Svm::create(f.ctx, bytes, g);
  CHECK_OK(next);
  const auto next_words = emt::words(bytes, kNext);
  if (next) {
    CHECK_OK(c.write(*next, 0, next_words.data(), bytes));
    CHECK_OK(c.finish());
  }
  watchdog.open_and_wait();
  if (!next) return;
  CHECK_OK(f.q.finish());
  std::vector<std::uint32_t> got(bytes / 4);
  CHECK_OK(c.read(*next, 0, got.data(), bytes));
  CHECK_MESSAGE(emt::wrong_words(got, kNext) == 0,
                emt::wrong_words(got, kNext) << " of " << got.size() << " words of a new Svm changed after the gate "
                << "opened: the held write landed in freed memory the new allocation reused");
}

}  // namespace

TEST_CASE("ordering lifetime: an Svm whose held write outlived another thread's blocking call is freed after it") {
  emt::Fixture f;
  SvmGrain g{};
  if (!emt::first_svm_grain(f.ctx, g)) {
    MESSAGE("not applicable: the device has no SVM");
    return;
  }
  Queue c = emt::new_queue(f.ctx);
  ENSURE(c.valid());
  const std::size_t bytes = emt::ordering_frame_bytes(f.ctx);
  const bool can_fill = f.ctx.info().caps.max_fill_pattern_bytes >= 4;
  const auto old_words = emt::words(bytes, kOld), fresh = emt::words(bytes, kFresh);
  Result<Event> written = fail(Errc::released, "not enqueued");
  Result<void> t1_result;
  std::atomic<bool> returned{false};
  bool reached = false;
  std::thread t1;
  Result<emt::Gate> g1 = fail(Errc::released, "not held"), g2 = fail(Errc::released, "not held");
  {
    auto s = Svm::create(f.ctx, 2 * bytes, g);
    REQUIRE_OK(s);
    auto x = s->sub(0, bytes);
    auto y = s->sub(bytes, bytes);
    REQUIRE_OK(x);
    REQUIRE_OK(y);
    REQUIRE_OK(f.q.write(*s, 0, old_words.data(), bytes));
    REQUIRE_OK(f.q.write(*s, bytes, old_words.data(), bytes));
    REQUIRE_OK(f.q.finish());
    g1 = emt::Gate::hold(f.q);
    t1 = std::thread([&] {  // T1: a blocking call on Q (on Y), behind G1
      t1_result = can_fill ? f.q.fill(*y, 0, bytes, &kFill, 4) : f.q.write(*y, 0, old_words.data(), bytes);
      returned = true;
    });
    if (g1) std::this_thread::sleep_for(50ms);
    g2 = emt::Gate::hold(f.q);
    written = f.q.write_async(*x, 0, fresh.data(), bytes);  // behind G2
    if (g1) g1->open();
    reached = g1 && g2 && emt::wait_until([&] { return returned.load(); }, 300ms);
    if (!reached && g2) g2->open();  // T1 waits for the whole queue here: let it return
    t1.join();
  }  // every handle of the Svm goes
  next_allocation_keeps_its_bytes(f, c, bytes, g, g2 ? &*g2 : nullptr);
  CHECK_OK(t1_result);
  CHECK_OK(written);
  if (written) CHECK_OK(written->wait());
  CHECK(f.ctx.unreported_errors().count == 0);
  if (!g1) MESSAGE("no gates on this backend (" << emt::describe(g1) << "): the ungated sequence was checked");
  else if (!reached) MESSAGE("not reachable here: the blocking call did not return before the later write ran");
}

TEST_CASE("ordering lifetime: an Svm dropped with a held write into it is freed after the write") {
  emt::Fixture f;
  SvmGrain g{};
  if (!emt::first_svm_grain(f.ctx, g)) {
    MESSAGE("not applicable: the device has no SVM");
    return;
  }
  Queue c = emt::new_queue(f.ctx);
  ENSURE(c.valid());
  const std::size_t bytes = emt::ordering_frame_bytes(f.ctx);
  const auto fresh = emt::words(bytes, kFresh);
  auto gate = emt::Gate::hold(f.q);
  Result<Event> written = fail(Errc::released, "not enqueued");
  {
    auto s = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(s);
    written = f.q.write_async(*s, 0, fresh.data(), bytes);  // held (when gated)
  }  // the last handle goes
  next_allocation_keeps_its_bytes(f, c, bytes, g, gate ? &*gate : nullptr);
  CHECK_OK(written);
  if (written) CHECK_OK(written->wait());
  CHECK(f.ctx.unreported_errors().count == 0);
  if (!gate) MESSAGE("no gates on this backend (" << emt::describe(gate) << "): the ungated sequence was checked");
}

namespace {

/// A queue adopted with AdoptMode::borrow; false (reported) where adopt is unsupported.
bool borrowed(emt::Fixture& f, NativeQueue& native, Queue& adopted) {
  auto made = emt::make_native_queue(f.ctx);
  if (!made) {
    CHECK_MESSAGE(made.error().code == Errc::unsupported, "make_native_queue -> " << emt::describe(made));
    MESSAGE("not applicable: " << emt::describe(made));
    return false;
  }
  native = *made;
  auto q = Queue::adopt(f.ctx, native, AdoptMode::borrow);
  CHECK_MESSAGE(static_cast<bool>(q), "Queue::adopt(borrow) -> " << emt::describe(q));
  if (!q) {
    emt::destroy_native_queue(native);
    return false;
  }
  adopted = std::move(*q);
  return true;
}

}  // namespace

TEST_CASE("ordering lifetime: a borrowed queue's released native queue is not used by other queues' commands") {
  emt::Fixture f;
  NativeQueue native{};
  Queue adopted;
  if (!borrowed(f, native, adopted)) return;
  Queue c = emt::new_queue(f.ctx);
  ENSURE(c.valid());
  const std::size_t bytes = emt::ordering_frame_bytes(f.ctx);
  auto root = Buffer::create(f.ctx, 2 * bytes);
  REQUIRE_OK(root);
  auto x = root->sub(0, bytes);
  auto y = root->sub(bytes, bytes);
  REQUIRE_OK(x);
  REQUIRE_OK(y);
  const auto fresh = emt::words(bytes, kFresh);
  {
    auto e = adopted.write_async(*x, 0, fresh.data(), bytes);  // the only queue on the root so far
    REQUIRE_OK(e);
    CHECK_OK(e->wait());
  }
  CHECK_OK(adopted.release());  // the handle goes ...
  emt::destroy_native_queue(native);  // ... then its maker releases the native queue
  std::vector<std::uint32_t> got(bytes / 4);
  // Another queue's command on the root's memory (other bytes; OpenCL drivers may then let the
  // released queue go), then one that conflicts with the borrowed queue's write.
  CHECK_OK(c.read(*y, 0, got.data(), bytes));
  CHECK_OK(c.read(*x, 0, got.data(), bytes));
  CHECK(emt::wrong_words(got, kFresh) == 0);
  const auto next = emt::words(bytes, kNext);
  CHECK_OK(f.q.write(*x, 0, next.data(), bytes));
  CHECK_OK(c.read(*x, 0, got.data(), bytes));
  CHECK(emt::wrong_words(got, kNext) == 0);
  CHECK(f.ctx.unreported_errors().count == 0);
}

TEST_CASE("ordering lifetime: a held write on a borrowed queue released meanwhile still orders a reader") {
  emt::Fixture f;
  NativeQueue native{};
  Queue adopted;
  if (!borrowed(f, native, adopted)) return;
  Queue c = emt::new_queue(f.ctx);
  ENSURE(c.valid());
  const std::size_t bytes = emt::ordering_frame_bytes(f.ctx);
  auto buf = Buffer::create(f.ctx, bytes);
  REQUIRE_OK(buf);
  const auto old_words = emt::words(bytes, kOld), fresh = emt::words(bytes, kFresh);
  REQUIRE_OK(c.write(*buf, 0, old_words.data(), bytes));
  REQUIRE_OK(c.finish());
  Buffer fresh_src = emt::staged(f.ctx, fresh);  // the async write's bytes, copied in before the gate
  auto gate = emt::Gate::hold(adopted);
  auto written = adopted.copy_async(fresh_src, *buf, 0, 0, bytes);  // held (when gated)
  CHECK_OK(written);
  CHECK_OK(adopted.release());
  emt::destroy_native_queue(native);  // commands already enqueued still run (OpenCL, CUDA)
  std::vector<std::uint32_t> got(bytes / 4);
  Result<void> read;
  {
    std::vector<emt::Gate*> later;
    if (gate) later.push_back(&*gate);
    emt::DelayedOpen open_gate(later, 300ms);
    read = c.read(*buf, 0, got.data(), bytes);  // must wait for the held write
  }
  if (written) CHECK_OK(written->wait());
  CHECK_OK(read);
  CHECK_MESSAGE(emt::wrong_words(got, kFresh) == 0,
                emt::wrong_words(got, kFresh) << " of " << got.size() << " words read on another queue are not the "
                << "borrowed queue's held write");
  CHECK(f.ctx.unreported_errors().count == 0);
  if (!gate) MESSAGE("no gate: " << emt::describe(gate));
}

TEST_CASE("ordering lifetime: an Svm written on a borrowed queue, released since, is freed without it") {
  emt::Fixture f;
  SvmGrain g{};
  if (!emt::first_svm_grain(f.ctx, g)) {
    MESSAGE("not applicable: the device has no SVM");
    return;
  }
  NativeQueue native{};
  Queue adopted;
  if (!borrowed(f, native, adopted)) return;
  const std::size_t bytes = emt::ordering_frame_bytes(f.ctx);
  const auto fresh = emt::words(bytes, kFresh);
  {
    auto s = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(s);
    auto e = adopted.write_async(*s, 0, fresh.data(), bytes);
    REQUIRE_OK(e);
    CHECK_OK(e->wait());
    CHECK_OK(adopted.release());
    emt::destroy_native_queue(native);
  }  // the Svm's last handle: its free must not go to the released queue
  CHECK_OK(f.q.finish());
  CHECK(f.ctx.unreported_errors().count == 0);
  auto again = Svm::create(f.ctx, bytes, g);  // the context still works
  CHECK_OK(again);
}
