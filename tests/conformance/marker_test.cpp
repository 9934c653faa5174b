// Queue::marker, Queue::barrier and wait_all: ordering across two queues through a marker's event,
// a marker's own wait list ordering its queue's later commands, long wait lists, and the errors.
//
// The ordering tests move bytes through host memory `h` that edgemem does not track: queue 1 reads a
// buffer into `h`, queue 2 writes `h` into another buffer. Nothing but the marker orders the two, so
// the second buffer holds the first one's bytes only if the marker did its job.
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

constexpr std::size_t kBytes = 1 << 20;

/// Two queues on the fixture's context, a source buffer and a destination buffer of kBytes.
struct TwoQueues {
  emt::Fixture& f;
  Queue q2;
  Buffer src, dst;
  explicit TwoQueues(emt::Fixture& fx) : f(fx) {
    auto q = Queue::create(f.ctx);
    CHECK_MESSAGE(static_cast<bool>(q), "Queue::create -> " << emt::describe(q));
    if (q) q2 = std::move(*q);
    auto s = Buffer::create(f.ctx, kBytes);
    auto d = Buffer::create(f.ctx, kBytes);
    CHECK_MESSAGE(static_cast<bool>(s && d), "Buffer::create failed");
    if (s) src = std::move(*s);
    if (d) dst = std::move(*d);
  }
  bool ready() const { return q2.valid() && src.valid() && dst.valid(); }

  /// Queue 1 fills `src` with `pattern` and reads it into `h`, asynchronously, keeping no event.
  bool fill_then_read(std::uint32_t pattern, emt::Bytes& h) {
    auto fill = f.q.fill_async(src, 0, kBytes, &pattern, 4);
    auto read = f.q.read_async(src, 0, h.data(), kBytes);
    return fill && read;
  }
  /// `dst` now (read on queue 2) equals kBytes of `pattern`.
  bool dst_holds(std::uint32_t pattern) {
    emt::Bytes got(kBytes, 0);
    if (!q2.read(dst, 0, got.data(), kBytes)) return false;
    for (std::size_t i = 0; i < kBytes; i += 4)
      if (std::memcmp(got.data() + i, &pattern, 4) != 0) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("marker: its event, in another queue's wait list, orders that queue after every earlier command") {
  emt::Fixture f;
  TwoQueues t(f);
  ENSURE(t.ready());
  for (std::uint32_t round = 0; round < 4; ++round) {
    CAPTURE(round);
    const std::uint32_t pattern = 0x11223344u + round;
    emt::Bytes h(kBytes, 0);
    ENSURE(t.fill_then_read(pattern, h));
    auto m = round % 2 == 0 ? f.q.marker() : f.q.barrier();
    REQUIRE_OK(m);
    CHECK(m->valid());
    auto w = t.q2.write_async(t.dst, 0, h.data(), kBytes, *m);
    REQUIRE_OK(w);
    CHECK_OK(w->wait());
    auto done = m->is_complete();  // the write waited for the marker
    REQUIRE_OK(done);
    CHECK(*done);
    CHECK(t.dst_holds(pattern));
  }
}

TEST_CASE("marker and barrier: their wait list orders every later command of their own queue") {
  emt::Fixture f;
  TwoQueues t(f);
  ENSURE(t.ready());
  for (int use_barrier = 0; use_barrier < 2; ++use_barrier) {
    CAPTURE(use_barrier);
    const std::uint32_t pattern = 0x0a0b0c0du + static_cast<std::uint32_t>(use_barrier);
    emt::Bytes h(kBytes, 0);
    auto fill = f.q.fill_async(t.src, 0, kBytes, &pattern, 4);
    REQUIRE_OK(fill);
    auto read = f.q.read_async(t.src, 0, h.data(), kBytes);
    REQUIRE_OK(read);
    // Queue 2: a marker (or barrier) waiting for the read, then a write with no wait list at all.
    auto m = use_barrier ? t.q2.barrier(*read) : t.q2.marker(*read);
    REQUIRE_OK(m);
    auto w = t.q2.write_async(t.dst, 0, h.data(), kBytes);
    REQUIRE_OK(w);
    CHECK_OK(w->wait());
    CHECK(t.dst_holds(pattern));
    CHECK_OK(f.q.finish());
  }
}

TEST_CASE("marker: a wait list of 33 and of 200 events, the one that matters anywhere in it") {
  emt::Fixture f;
  TwoQueues t(f);
  ENSURE(t.ready());
  for (std::size_t count : {std::size_t{33}, std::size_t{200}}) {
    for (std::size_t at : {std::size_t{0}, std::size_t{32}, count - 1}) {
      CAPTURE(count);
      CAPTURE(at);
      std::vector<Event> waits = f.events(count);
      ENSURE(waits.size() == count);
      const std::uint32_t pattern = 0x77000000u + static_cast<std::uint32_t>(count + at);
      emt::Bytes h(kBytes, 0);
      auto fill = f.q.fill_async(t.src, 0, kBytes, &pattern, 4);
      REQUIRE_OK(fill);
      auto read = f.q.read_async(t.src, 0, h.data(), kBytes);
      REQUIRE_OK(read);
      waits[at] = std::move(*read);
      auto m = t.q2.marker(WaitList(waits));
      REQUIRE_OK(m);
      auto w = t.q2.write_async(t.dst, 0, h.data(), kBytes, *m);
      REQUIRE_OK(w);
      CHECK_OK(wait_all(WaitList(waits)));
      CHECK_OK(w->wait());
      CHECK(t.dst_holds(pattern));
    }
  }
}

TEST_CASE("marker and barrier: released queue, released event, event of another context") {
  emt::Fixture f;
  emt::OtherContext other(64);
  std::vector<Event> mine = f.events(2);
  ENSURE(mine.size() == 2);
  const std::uint8_t pat = 1;
  auto foreign = other.q.fill_async(other.buf, 0, 16, &pat, 1);
  REQUIRE_OK(foreign);

  Queue gone;
  CHECK_ERRC(gone.marker(), Errc::released);
  CHECK_ERRC(gone.barrier(mine), Errc::released);  // the queue is checked first
  Queue moved = std::move(f.q);
  CHECK_ERRC(f.q.marker(), Errc::released);
  f.q = std::move(moved);

  std::vector<Event> with_foreign;
  with_foreign.push_back(std::move(mine[0]));
  with_foreign.push_back(std::move(*foreign));
  CHECK_ERRC(f.q.marker(with_foreign), Errc::invalid_argument);
  CHECK_ERRC(f.q.barrier(with_foreign), Errc::invalid_argument);
  CHECK_ERRC(other.q.marker(with_foreign[0]), Errc::invalid_argument);  // mine, on the other context

  Event dead;
  CHECK_ERRC(f.q.marker(dead), Errc::released);
  CHECK_OK(mine[1].release());
  CHECK_ERRC(f.q.barrier(mine), Errc::released);
  std::vector<Event> long_list = f.events(40);
  ENSURE(long_list.size() == 40);
  CHECK_OK(long_list[39].release());
  CHECK_ERRC(f.q.marker(long_list), Errc::released);
  // None of the refused calls touched the events they were given.
  CHECK(with_foreign[0].valid());
  CHECK(with_foreign[1].valid());
  CHECK_OK(wait_all(with_foreign));  // wait_all takes events of any context

  // The same queue with valid lists works, and an empty marker completes once the queue has.
  auto m = f.q.marker(WaitList(long_list.data(), 39));
  REQUIRE_OK(m);
  CHECK_OK(f.q.finish());
  auto done = m->is_complete();
  REQUIRE_OK(done);
  CHECK(*done);
  auto empty = other.q.barrier();
  REQUIRE_OK(empty);
  CHECK_OK(empty->wait());
}

TEST_CASE("wait_all: empty list, many events, released or moved-from events") {
  emt::Fixture f;
  CHECK_OK(wait_all({}));
  std::vector<Event> evs = f.events(70);
  ENSURE(evs.size() == 70);
  CHECK_OK(wait_all(evs));
  for (const Event& e : evs) {
    auto done = e.is_complete();
    REQUIRE_OK(done);
    CHECK(*done);
  }
  Event taken = std::move(evs[69]);
  CHECK_ERRC(wait_all(evs), Errc::released);
  CHECK(taken.valid());
  CHECK_OK(wait_all(taken));
  CHECK_OK(evs[0].release());
  CHECK_ERRC(wait_all(WaitList(evs.data(), 1)), Errc::released);
  const Event none;
  CHECK_ERRC(wait_all(none), Errc::released);
}

TEST_CASE("marker: once another queue's marker that waited for an async read completes, the read's bytes are in host memory") {
  emt::Fixture f;
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  const std::size_t n = 1 << 20;
  emt::Bytes data;
  Buffer src = f.filled(n, data);
  ENSURE(src.valid());
  for (int how = 0; how < 3; ++how) {  // the marker's wait, a poll of it, a finish of its queue
    CAPTURE(how);
    emt::Bytes h(n, 0);
    auto read = f.q.read_async(src, 0, h.data(), n);
    REQUIRE_OK(read);
    auto m = q2->marker(*read);
    REQUIRE_OK(m);
    if (how == 0) {
      CHECK_OK(m->wait());
    } else if (how == 1) {
      for (;;) {
        auto done = m->is_complete();
        REQUIRE_OK(done);
        if (*done) break;
        std::this_thread::yield();
      }
    } else {
      CHECK_OK(q2->finish());
    }
    CHECK(h == data);  // the read's own event was never looked at
    CHECK_OK(read->wait());
    CHECK(h == data);  // and nothing writes it again
  }
}
