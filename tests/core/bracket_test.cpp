// Issue #29, to settle (a): cl_khr_external_memory acquires memory for one command-queue, so the
// bracket (src/core/external_bracket.hpp) counts holds per queue. Run over a recording backend that
// logs every acquire, release and command with its queue; no device with external memory is needed
// (PoCL has none, the host backend no external group). Before the fix the holds were one count per
// import: a mapping on queue A made a command on queue B skip its acquire ("command B" with no
// "acquire B" before it), and the last hold to go released on whatever queue it was (begin_native
// on B then unmap on A released on B, never on A). Each sequence below fails that way on the old
// count and passes with the per-queue one.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "conformance/test_helpers.hpp"
#include "core/external_bracket.hpp"

using namespace edgemem;
using detail::Backend;

namespace {

std::string g_log;  // what the recording backend was asked, in order: "acquire A. command B. ..."
std::mutex g_log_lock;  // notes come from two threads in the window test

/// A host-controlled gate the next external_release waits at (the window test): armed, the release
/// says it has entered and waits until opened.
struct Gate {
  std::mutex lock;
  std::condition_variable changed;
  bool armed = false, entered = false, open = false;
  void pass() {
    std::unique_lock<std::mutex> l(lock);
    if (!armed) return;
    armed = false;
    entered = true;
    changed.notify_all();
    changed.wait(l, [&] { return open; });
  }
};
Gate g_gate;

/// The native queue standing for queue `name` ('A', 'B', ...): its bytes all `name` (a pointer on
/// OpenCL and host, a struct on CUDA); only its bytes are ever read.
Backend::NativeQueue queue(char name) {
  Backend::NativeQueue q{};
  std::memset(static_cast<void*>(&q), name, sizeof q);
  return q;
}
char name_of(const Backend::NativeQueue& q) {
  char name = 0;
  std::memcpy(&name, static_cast<const void*>(&q), 1);
  return name;
}

void note(const char* what, Backend::NativeQueue q) {
  std::lock_guard<std::mutex> lock(g_log_lock);
  g_log += what;
  g_log += ' ';
  g_log += name_of(q);
  g_log += ". ";
}

/// The built backend's native types with an external group that records instead of calling a driver.
struct Recording {
  using NativeQueue = Backend::NativeQueue;
  using NativeMem = Backend::NativeMem;
  using NativeEvent = Backend::NativeEvent;
  using CommandEvents = Backend::CommandEvents;
  static constexpr unsigned groups = contract::group_device | contract::group_buffer | contract::group_external;
  static Result<void> external_acquire(NativeQueue q, const NativeMem&, const CommandEvents& s) noexcept {
    note("acquire", q);
    if (s.out != nullptr) *s.out = NativeEvent{};
    return {};
  }
  static Result<void> external_release(NativeQueue q, const NativeMem&, const CommandEvents& s) noexcept {
    g_gate.pass();
    note("release", q);
    if (s.out != nullptr) *s.out = NativeEvent{};
    return {};
  }
  static void event_release(NativeEvent) noexcept {}
  static Result<void> event_wait(NativeEvent) noexcept { return {}; }
  static Result<void> queue_finish(NativeQueue) noexcept { return {}; }
};

/// An import the driver made (bracketed), as a root node with its record.
struct Import {
  detail::ExternalRef ext;
  detail::RootNode root;
  /// `id` makes the native object differ from other imports' (it is compared, never used).
  explicit Import(unsigned char id = 1) {
    ext.bracketed = true;
    root.external = &ext;
    std::memset(static_cast<void*>(&root.native), id, sizeof root.native);
  }
  ~Import() { root.external = nullptr; }
};

/// A command of queue `name` on the import (and on `second`, when given), through run_bracketed.
Result<void> command(Import& m, char name, Import* second = nullptr) {
  const Backend::CommandEvents s{};
  return detail::run_bracketed<Recording>(queue(name), static_cast<std::uint64_t>(name), &m.root,
                                          second != nullptr ? &second->root : nullptr, s,
                                          [&](const Backend::CommandEvents&) -> Result<void> {
                                            note("command", queue(name));
                                            return {};
                                          });
}

/// A map of queue `name` on the import, through map_bracketed.
Result<int> map(Import& m, char name) {
  const Backend::CommandEvents s{};
  return detail::map_bracketed<Recording>(queue(name), static_cast<std::uint64_t>(name), &m.root, s,
                                          [&](const Backend::CommandEvents&) -> Result<int> {
                                            note("map", queue(name));
                                            return 0;
                                          });
}

/// The unmap of a map of queue `name`, through unmap_bracketed.
Result<void> unmap(Import& m, char name) {
  const Backend::CommandEvents s{};
  return detail::unmap_bracketed<Recording>(queue(name), static_cast<std::uint64_t>(name), &m.root, s,
                                            [&](const Backend::CommandEvents&) -> Result<void> {
                                              note("unmap", queue(name));
                                              return {};
                                            });
}

/// Passes `count` holds of queue `from` to queue `to`, releasing on `from` (what last_of_group does):
/// true when `from` gave its last hold and released.
bool pass(Import& m, char from, char to, unsigned count) {
  auto passed = detail::pass_queue_holds(&m.ext, static_cast<std::uint64_t>(from), static_cast<std::uint64_t>(to), count,
                                         [&] { return detail::release_external<Recording>(queue(from), m.root.native, nullptr); });
  return passed && *passed;
}

}  // namespace

TEST_CASE("bracket: a mapping on queue A does not acquire the memory for a command on queue B") {
  Import m;
  g_log.clear();
  CHECK_OK(map(m, 'A'));
  CHECK(g_log == "acquire A. map A. ");
  g_log.clear();
  CHECK_OK(command(m, 'B'));  // before the fix: "command B. " (B used memory it never acquired)
  CHECK(g_log == "acquire B. command B. release B. ");
  g_log.clear();
  CHECK_OK(command(m, 'A'));  // A holds it: not bracketed again
  CHECK(g_log == "command A. ");
  g_log.clear();
  CHECK_OK(unmap(m, 'A'));
  CHECK(g_log == "unmap A. release A. ");
  g_log.clear();
  CHECK_OK(command(m, 'A'));
  CHECK(g_log == "acquire A. command A. release A. ");
}

TEST_CASE("bracket: each queue's last hold releases on that queue, whichever goes first") {
  Import m;
  g_log.clear();
  CHECK_OK(map(m, 'A'));
  auto held = detail::hold_import<Recording>(queue('B'), 'B', &m.root, nullptr, 0);  // begin_native on B
  REQUIRE_OK(held);
  CHECK(*held);  // B acquired on its own (before the fix: false, nothing enqueued on B)
  CHECK(g_log == "acquire A. map A. acquire B. ");
  g_log.clear();
  CHECK_OK(unmap(m, 'A'));  // before the fix: no release (B's hold still counted), A left acquired
  CHECK(g_log == "unmap A. release A. ");
  g_log.clear();
  auto again = detail::hold_import<Recording>(queue('B'), 'B', &m.root, nullptr, 0);  // nested on B
  REQUIRE_OK(again);
  CHECK_FALSE(*again);
  CHECK_OK(detail::unhold_import<Recording>(queue('B'), 'B', &m.root, nullptr));
  CHECK(g_log.empty());
  CHECK_OK(detail::unhold_import<Recording>(queue('B'), 'B', &m.root, nullptr));  // end_native on B
  CHECK(g_log == "release B. ");
  g_log.clear();
  // An end on a queue that holds nothing releases nothing anywhere.
  CHECK_OK(detail::unhold_import<Recording>(queue('C'), 'C', &m.root, nullptr));
  CHECK(g_log.empty());
}

TEST_CASE("bracket: a command on two imports held by other queues acquires both on its own queue") {
  Import a(1), b(2);
  g_log.clear();
  CHECK_OK(map(a, 'A'));
  CHECK_OK(map(b, 'B'));
  g_log.clear();
  CHECK_OK(command(a, 'C', &b));
  CHECK(g_log == "acquire C. acquire C. command C. release C. release C. ");
  g_log.clear();
  CHECK_OK(unmap(a, 'A'));
  CHECK_OK(unmap(b, 'B'));
  CHECK(g_log == "unmap A. release A. unmap B. release B. ");
}

TEST_CASE("bracket: an import held on max_hold_queues queues refuses another queue's map and command (exhausted) and changes nothing") {
  Import m;
  constexpr unsigned n = detail::ExternalRef::max_hold_queues;
  for (unsigned i = 0; i < n; ++i) CHECK_OK(map(m, static_cast<char>('A' + i)));
  g_log.clear();
  CHECK_ERRC(map(m, 'Z'), Errc::exhausted);
  CHECK(g_log.empty());
  CHECK_ERRC(detail::hold_import<Recording>(queue('Z'), 'Z', &m.root, nullptr, 0), Errc::exhausted);
  // A command of another queue is refused too (without a hold of its own its acquire and release could
  // not be ordered against another thread's first hold on that queue), and a queue that holds the
  // memory still runs its commands.
  CHECK_ERRC(command(m, 'Z'), Errc::exhausted);
  CHECK(g_log.empty());
  CHECK_OK(command(m, 'A'));
  CHECK(g_log == "command A. ");
  // With a second import the queue can hold, that hold is undone and the command does not run.
  Import other(2);
  g_log.clear();
  CHECK_ERRC(command(other, 'Z', &m), Errc::exhausted);
  CHECK(g_log == "acquire Z. release Z. ");
  CHECK(detail::queue_holds(&other.ext, 'Z') == 0);
  g_log.clear();
  for (unsigned i = 0; i < n; ++i) CHECK_OK(unmap(m, static_cast<char>('A' + i)));
  CHECK(g_log.size() == n * std::string("unmap A. release A. ").size());
  g_log.clear();
  CHECK_OK(map(m, 'Z'));  // room again
  CHECK(g_log == "acquire Z. map Z. ");
  CHECK_OK(unmap(m, 'Z'));
}

// The known gap of item (a): two native maps on queues A and B that return one address form one group
// (src/mapping.cpp); when A's mapping closes first its native map passes to B's, which unmaps both on
// B. Before the fix A's hold stayed (the memory acquired on A for good, A's commands never bracketed
// again) and B's count dropped twice for one hold. last_of_group now passes the holds with the maps
// (pass_queue_holds) and releases on A when A gave its last; this is that sequence.
TEST_CASE("bracket: native maps passed to another queue's mapping take their holds, one release per queue") {
  Import m;
  g_log.clear();
  CHECK_OK(map(m, 'A'));
  CHECK_OK(map(m, 'B'));
  CHECK_OK(map(m, 'B'));  // a second mapping on B, so B's count must come out exact
  CHECK(g_log == "acquire A. map A. acquire B. map B. map B. ");
  g_log.clear();
  REQUIRE(pass(m, 'A', 'B', 1));  // A's mapping closed: its last hold went to B, and A released
  CHECK(detail::queue_holds(&m.ext, 'A') == 0);
  CHECK(detail::queue_holds(&m.ext, 'B') == 3);
  CHECK_OK(command(m, 'A'));  // A holds nothing: its commands are bracketed again
  CHECK(g_log == "release A. acquire A. command A. release A. ");
  g_log.clear();
  CHECK_OK(unmap(m, 'B'));  // B's group closes: both native maps unmapped on B
  CHECK_OK(unmap(m, 'B'));
  CHECK(g_log == "unmap B. unmap B. ");  // B's other mapping still holds it
  CHECK_OK(unmap(m, 'B'));
  CHECK(g_log == "unmap B. unmap B. unmap B. release B. ");
  CHECK(detail::queue_holds(&m.ext, 'B') == 0);
}

TEST_CASE("bracket: holds pass only to a queue that holds the memory, and only what the giver has") {
  Import m;
  CHECK_OK(map(m, 'A'));
  CHECK_FALSE(pass(m, 'A', 'C', 1));  // C holds nothing: nothing passes
  CHECK_FALSE(pass(m, 'A', 'A', 1));  // the same queue: nothing to do
  CHECK_OK(map(m, 'B'));
  CHECK_FALSE(pass(m, 'A', 'B', 2));  // A has one
  CHECK(detail::queue_holds(&m.ext, 'A') == 1);
  CHECK(detail::queue_holds(&m.ext, 'B') == 1);
  g_log.clear();
  CHECK_OK(unmap(m, 'A'));
  CHECK_OK(unmap(m, 'B'));
  CHECK(g_log == "unmap A. release A. unmap B. release B. ");
}

// The window the review of 85c658a named: a queue's last hold was dropped under the holds' lock but its
// release enqueued after it, so another thread's map on that queue could take a "first" hold and
// acquire in between, and the late release then took the memory from under that map ("acquire A. map
// A. release A.": A's mapping left unacquired). The release now runs under the lock. Made
// deterministic with a gate: the unmap's release waits at it while a second thread maps on A; the
// map must come after the release.
TEST_CASE("bracket: a map on a queue whose last hold is being released acquires after that release") {
  Import m;
  CHECK_OK(map(m, 'A'));
  g_log.clear();
  {
    std::lock_guard<std::mutex> l(g_gate.lock);
    g_gate.armed = true;
    g_gate.entered = g_gate.open = false;
  }
  std::thread unmapper([&] { CHECK_OK(unmap(m, 'A')); });
  {
    std::unique_lock<std::mutex> l(g_gate.lock);
    g_gate.changed.wait(l, [] { return g_gate.entered; });
  }
  std::thread mapper([&] { CHECK_OK(map(m, 'A')); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // time for a map that does not wait to run
  {
    std::lock_guard<std::mutex> l(g_gate.lock);
    g_gate.open = true;
  }
  g_gate.changed.notify_all();
  unmapper.join();
  mapper.join();
  CHECK(g_log == "unmap A. release A. acquire A. map A. ");
  CHECK(detail::queue_holds(&m.ext, 'A') == 1);
  CHECK_OK(unmap(m, 'A'));
}
