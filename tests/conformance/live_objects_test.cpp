// The live-object counters themselves (only meaningful with -Dlive_counters=true): each kind goes up
// on creation and back down on release, and pool acquire/release creates nothing.
#include <cstdint>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {
/// `now - before`, field by field.
LiveObjects delta(const LiveObjects& now, const LiveObjects& before) {
  return LiveObjects{now.contexts - before.contexts, now.queues - before.queues,     now.buffers - before.buffers,
                     now.sub_buffers - before.sub_buffers, now.mappings - before.mappings, now.events - before.events};
}
}  // namespace

TEST_CASE("live_objects: every kind counts creation and release") {
  if (!live_objects_enabled) {
    CHECK(live_objects().total() == 0);
    return;
  }
  const LiveObjects start = live_objects();
  {
    emt::Fixture f;
    LiveObjects d = delta(live_objects(), start);
    CHECK(d.contexts == 1);
    CHECK(d.queues == 1);
    auto b = Buffer::create(f.ctx, 4 * f.align());
    REQUIRE_OK(b);
    auto s = b->sub(f.align(), f.align());
    REQUIRE_OK(s);
    d = delta(live_objects(), start);
    CHECK(d.buffers == 1);
    CHECK(d.sub_buffers == 1);
    {
      auto m = f.q.map(*b, Access::read);
      REQUIRE_OK(m);
      CHECK(delta(live_objects(), start).mappings == 1);
    }
    CHECK(delta(live_objects(), start).mappings == 0);
    const std::uint8_t pat = 7;
    auto e = f.q.fill_async(*s, 0, f.align(), &pat, 1);
    REQUIRE_OK(e);
    CHECK(delta(live_objects(), start).events == 1);
    CHECK_OK(e->wait());
    CHECK_OK(e->release());
    CHECK_OK(e->release());  // idempotent: counted once
    CHECK(delta(live_objects(), start).events == 0);
    CHECK_OK(b->release());  // the sub-buffer keeps the root alive
    CHECK(delta(live_objects(), start).buffers == 1);
    CHECK_OK(s->release());
    d = delta(live_objects(), start);
    CHECK(d.buffers == 0);
    CHECK(d.sub_buffers == 0);

    FixedPool<4> pool;
    auto init = pool.init(f.ctx, f.q, f.align());
    REQUIRE_OK(init);
    d = delta(live_objects(), start);
    CHECK(d.buffers == 1);      // the pool's allocation
    CHECK(d.sub_buffers == 4);  // its blocks, made once
    auto blk = pool.acquire();
    REQUIRE_OK(blk);
    CHECK(delta(live_objects(), start).sub_buffers == 4);  // acquiring creates nothing
  }
  const LiveObjects end = live_objects();
  CHECK(end.total() == start.total());
}
