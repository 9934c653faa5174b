// Event: completion, release, moves; wait lists: 32, 33 and 200 events accepted (past 32 they are
// folded into markers), a released event refused, for every async command; a refused command changes
// nothing; a command waits for every event of a long list, wherever it stands.
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "test_helpers.hpp"

using namespace edgemem;

TEST_CASE("Event: wait and is_complete on a live event") {
  emt::Fixture f;
  auto b = Buffer::create(f.ctx, 4096);
  REQUIRE_OK(b);
  const emt::Bytes src = emt::random_bytes(4096);
  auto e = f.q.write_async(*b, 0, src.data(), src.size());
  REQUIRE_OK(e);
  CHECK(e->valid());
  auto c0 = e->is_complete();  // may be false or true before wait, but never an error
  CHECK_OK(c0);
  CHECK_OK(e->wait());
  CHECK_OK(e->wait());  // waiting twice is fine
  auto c = e->is_complete();
  REQUIRE_OK(c);
  CHECK(*c);
  CHECK(e->valid());
  CHECK(f.snapshot(*b) == src);
}

TEST_CASE("Event: released, moved-from and default events report released; release is idempotent") {
  emt::Fixture f;
  Event none;
  CHECK_FALSE(none.valid());
  CHECK_ERRC(none.wait(), Errc::released);
  CHECK_ERRC(none.is_complete(), Errc::released);
  CHECK_OK(none.release());

  auto evs = f.events(3);
  ENSURE(evs.size() == 3);
  CHECK_OK(evs[0].release());
  CHECK_FALSE(evs[0].valid());
  CHECK_ERRC(evs[0].wait(), Errc::released);
  CHECK_ERRC(evs[0].is_complete(), Errc::released);
  CHECK_OK(evs[0].release());

  Event taken = std::move(evs[1]);
  CHECK(taken.valid());
  CHECK_FALSE(evs[1].valid());
  CHECK_ERRC(evs[1].wait(), Errc::released);
  CHECK_ERRC(evs[1].is_complete(), Errc::released);
  CHECK_OK(taken.wait());

  taken = std::move(evs[2]);  // releases the previous event, takes the new one
  CHECK(taken.valid());
  CHECK_FALSE(evs[2].valid());
  CHECK_OK(taken.wait());
  emt::move_assign(taken, taken);
  CHECK(taken.valid());
  CHECK_OK(taken.wait());
  taken = Event{};
  CHECK_FALSE(taken.valid());
  CHECK_ERRC(taken.wait(), Errc::released);
}

TEST_CASE("Event: dropping events of pending commands does not cancel them") {
  emt::Fixture f;
  auto b = Buffer::create(f.ctx, 1 << 16);
  REQUIRE_OK(b);
  const emt::Bytes src = emt::random_bytes(1 << 16);
  {
    auto e = f.q.write_async(*b, 0, src.data(), src.size());
    CHECK_OK(e);
  }  // event destroyed before anyone waited for it
  CHECK_OK(f.q.finish());
  CHECK(f.snapshot(*b) == src);
}

namespace {

/// Every async command of the Queue, on buffers prepared so each one succeeds with an empty wait list.
struct AsyncCommands {
  emt::Fixture& f;
  Buffer a, b;
  emt::Bytes da, db, host;
  emt::Bytes sink;

  explicit AsyncCommands(emt::Fixture& fx) : f(fx) {
    a = f.filled(1024, da);
    b = f.filled(1024, db);
    host = emt::random_bytes(1024);
    sink = emt::Bytes(1024, 0x42);
  }

  std::vector<std::pair<const char*, std::function<Result<Event>(WaitList)>>> all() {
    const Rect rect{{{8, 1, 0}, 64, 0}, {}, {16, 4, 1}};
    const CopyRect crect{{{8, 1, 0}, 64, 0}, {{0, 2, 0}, 32, 0}, {16, 4, 1}};
    static const std::uint16_t pattern = 0x7e81;
    return {
        {"write_async", [this](WaitList w) { return f.q.write_async(a, 16, host.data(), 64, w); }},
        {"read_async", [this](WaitList w) { return f.q.read_async(a, 16, sink.data(), 64, w); }},
        {"fill_async", [this](WaitList w) { return f.q.fill_async(a, 16, 64, &pattern, 2, w); }},
        {"copy_async", [this](WaitList w) { return f.q.copy_async(a, b, 0, 512, 64, w); }},
        {"write_rect_async", [this, rect](WaitList w) { return f.q.write_rect_async(a, rect, host.data(), 64, w); }},
        {"read_rect_async", [this, rect](WaitList w) { return f.q.read_rect_async(a, rect, sink.data(), 64, w); }},
        {"copy_rect_async", [this, crect](WaitList w) { return f.q.copy_rect_async(a, b, crect, w); }},
        {"migrate_async", [this](WaitList w) { return f.q.migrate_async(a, Migration::to_host, w); }},
    };
  }
};

}  // namespace

TEST_CASE("wait lists: any length accepted (32, 33, 200 events), a released event refused") {
  emt::Fixture f;
  AsyncCommands cmds(f);
  ENSURE(cmds.a.valid());
  ENSURE(cmds.b.valid());
  std::vector<Event> waits = f.events(200);
  ENSURE(waits.size() == 200);
  const emt::Bytes sink_before = cmds.sink;
  for (auto& command : cmds.all()) {
    const char* name = command.first;
    auto& run = command.second;
    CAPTURE(name);
    // A released event anywhere in a long list is refused before anything is enqueued.
    Event kept = std::move(waits[150]);
    CHECK_ERRC(run(WaitList(waits)), Errc::released);
    waits[150] = std::move(kept);
    Event released_list[2];
    released_list[0] = std::move(f.events(1).front());
    CHECK_ERRC(run(released_list), Errc::released);           // second entry is a default (released) event
    std::swap(released_list[0], released_list[1]);
    CHECK_ERRC(run(released_list), Errc::released);           // first entry released
    Event moved_from = std::move(released_list[1]);
    CHECK_ERRC(run(released_list[1]), Errc::released);        // single moved-from event
    // Nothing ran: the buffers and the host sink are as they were.
    CHECK(f.snapshot(cmds.a) == cmds.da);
    CHECK(f.snapshot(cmds.b) == cmds.db);
    CHECK(cmds.sink == sink_before);
    // The same command with 200, 33, 32, 1 and 0 events works.
    auto e200 = run(WaitList(waits));
    REQUIRE_OK(e200);
    CHECK_OK(e200->wait());
    auto e33 = run(WaitList(waits.data(), 33));
    REQUIRE_OK(e33);
    CHECK_OK(e33->wait());
    auto e32 = run(WaitList(waits.data(), 32));
    CHECK_OK(e32);
    auto e1 = run(moved_from);
    CHECK_OK(e1);
    auto e0 = run({});
    REQUIRE_OK(e0);
    CHECK_OK(e0->wait());
    // Restore the buffers for the next command.
    CHECK_OK(f.q.write(cmds.a, 0, cmds.da.data(), cmds.da.size()));
    CHECK_OK(f.q.write(cmds.b, 0, cmds.db.data(), cmds.db.size()));
    cmds.sink = sink_before;
  }
}

TEST_CASE("wait lists: errors of the command itself come before wait-list errors") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer b = f.filled(256, data);
  ENSURE(b.valid());
  std::vector<Event> waits = f.events(33);
  ENSURE(waits.size() == 33);
  Event dead;
  const emt::Bytes src = emt::random_bytes(256);
  CHECK_ERRC(f.q.write_async(b, 1, src.data(), 256, waits), Errc::out_of_range);
  CHECK_ERRC(f.q.write_async(b, 0, nullptr, 16, dead), Errc::invalid_argument);
  Buffer none;
  CHECK_ERRC(f.q.write_async(none, 0, src.data(), 16, waits), Errc::released);
  {
    auto m = f.q.map(b, Access::read, 0, 16);
    REQUIRE_OK(m);
    CHECK_ERRC(f.q.write_async(b, 0, src.data(), 16, dead), Errc::busy);
    CHECK_ERRC(f.q.fill_async(b, 0, 16, src.data(), 16, waits), Errc::busy);
  }
  CHECK(f.snapshot(b) == data);
}

TEST_CASE("wait lists of 33 and 200 events: the command waits for each of them, wherever it stands") {
  // q2 writes host memory `h` into `out`, waiting for a list in which one event is q1's read of `src`
  // into `h`. Nothing else orders the two: `h` is host memory, and `out` is not `src`. So `out` holds
  // `src`'s bytes only if q2's write waited for that one event.
  emt::Fixture f;
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  const std::size_t n = 1 << 20;
  emt::Bytes data;
  Buffer src = f.filled(n, data);
  ENSURE(src.valid());
  auto out = Buffer::create(f.ctx, n);
  REQUIRE_OK(out);
  for (std::size_t count : {33u, 200u}) {
    for (std::size_t at : {std::size_t{0}, std::size_t{31}, std::size_t{32}, count / 2, count - 1}) {
      CAPTURE(count);
      CAPTURE(at);
      std::vector<Event> waits = f.events(count);
      ENSURE(waits.size() == count);
      const std::uint32_t pattern = 0x5a5a5a5au + static_cast<std::uint32_t>(at);
      emt::Bytes h(n, 0);
      auto fill = f.q.fill_async(src, 0, n, &pattern, 4);  // keeps q1 busy before the read
      REQUIRE_OK(fill);
      auto read = f.q.read_async(src, 0, h.data(), n);
      REQUIRE_OK(read);
      waits[at] = std::move(*read);
      auto write = q2->write_async(*out, 0, h.data(), n, WaitList(waits));
      REQUIRE_OK(write);
      CHECK_OK(write->wait());
      emt::Bytes expect(n);
      for (std::size_t i = 0; i < n; i += 4) std::memcpy(expect.data() + i, &pattern, 4);
      emt::Bytes got(n, 0);
      CHECK_OK(q2->read(*out, 0, got.data(), n));
      CHECK(got == expect);
      CHECK_OK(f.q.finish());
    }
  }
  CHECK_OK(q2->finish());
}

TEST_CASE("wait lists: events from another queue of the same context order commands") {
  emt::Fixture f;
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  const std::size_t n = 1 << 16;
  auto a = Buffer::create(f.ctx, n);
  auto b = Buffer::create(f.ctx, n);
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  const emt::Bytes src = emt::random_bytes(n);
  emt::Bytes dst(n, 0);
  auto w = f.q.write_async(*a, 0, src.data(), n);
  REQUIRE_OK(w);
  auto c = q2->copy_async(*a, *b, 0, 0, n, *w);
  REQUIRE_OK(c);
  auto r = f.q.read_async(*b, 0, dst.data(), n, *c);
  REQUIRE_OK(r);
  CHECK_OK(r->wait());
  CHECK(dst == src);
  CHECK_OK(q2->finish());
}
