// Event: completion, release, moves; wait lists: 32 events accepted, 33 exhausted, a released
// event refused, for every async command; a refused command changes nothing.
#include <cstdint>
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

TEST_CASE("wait lists: up to 32 events accepted, 33 exhausted, a released event refused") {
  emt::Fixture f;
  AsyncCommands cmds(f);
  ENSURE(cmds.a.valid());
  ENSURE(cmds.b.valid());
  std::vector<Event> waits = f.events(33);
  ENSURE(waits.size() == 33);
  const emt::Bytes sink_before = cmds.sink;
  for (auto& command : cmds.all()) {
    const char* name = command.first;
    auto& run = command.second;
    CAPTURE(name);
    CHECK_ERRC(run(WaitList(waits.data(), 33)), Errc::exhausted);
    CHECK_ERRC(run(WaitList(waits)), Errc::exhausted);
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
    // The same command with 32, 1 and 0 events works.
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
