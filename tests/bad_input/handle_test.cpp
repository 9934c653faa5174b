// Bad handles: objects of another Context, released and moved-from Buffers, Queues, PooledBuffers.
#include <cstdint>
#include <vector>

#include "bad_input/catalogue.hpp"

using namespace edgemem;
using emt::bad::Scene;

namespace {
constexpr std::size_t kBytes = 512;
}  // namespace

// ---- foreign handles ------------------------------------------------------------------------------

BAD_INPUT("Queue::write: buffer of another context") {
  emt::Fixture f;
  Scene s(f);
  s.make(kBytes);
  emt::OtherContext other(kBytes);
  s.watch(other.buf, other.q);
  const emt::Bytes src = emt::random_bytes(16);
  s.expect(Errc::invalid_argument, [&] { return f.q.write(other.buf, 0, src.data(), 16); });
  s.expect(Errc::invalid_argument, [&] { return f.q.write_async(other.buf, 0, src.data(), 16); });
}

BAD_INPUT("Queue::copy: source or destination of another context") {
  emt::Fixture f;
  Scene s(f);
  Buffer& mine = s.make(kBytes);
  emt::OtherContext other(kBytes);
  s.watch(other.buf, other.q);
  s.expect(Errc::invalid_argument, [&] { return f.q.copy(other.buf, mine, 0, 0, 16); });
  s.expect(Errc::invalid_argument, [&] { return f.q.copy(mine, other.buf, 0, 0, 16); });
  s.expect(Errc::invalid_argument, [&] { return other.q.copy(mine, other.buf, 0, 0, 16); });
}

BAD_INPUT("Queue::map and read_rect: buffer of another context") {
  emt::Fixture f;
  Scene s(f);
  s.make(kBytes);
  emt::OtherContext other(kBytes);
  s.watch(other.buf, other.q);
  emt::Bytes host(kBytes, 0xEE);
  Rect r;
  r.region = Extent3{16, 2, 1};
  s.expect(Errc::invalid_argument, [&] { return f.q.map(other.buf, Access::read); });
  s.expect(Errc::invalid_argument, [&] { return f.q.read_rect(other.buf, r, host.data(), host.size()); });
  CHECK(host == emt::Bytes(kBytes, 0xEE));
}

BAD_INPUT("wait list: an event of another context") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  emt::OtherContext other(kBytes);
  s.watch(other.buf, other.q);
  const std::uint8_t pat = 1;
  auto foreign = other.q.fill_async(other.buf, 0, 16, &pat, 1);
  REQUIRE_OK(foreign);
  CHECK_OK(foreign->wait());
  // The fill changed other.buf: record its new contents.
  Scene s2(f);
  s2.watch(b);
  s2.watch(other.buf, other.q);
  std::vector<Event> waits;
  waits.push_back(std::move(*foreign));
  const emt::Bytes src = emt::random_bytes(16);
  s2.expect(Errc::invalid_argument, [&] { return f.q.write_async(b, 0, src.data(), 16, waits); });
  s2.expect(Errc::invalid_argument, [&] { return f.q.migrate_async(b, Migration::to_device, waits); });
  CHECK(waits[0].valid());
}

BAD_INPUT("Queue::marker and barrier: an event of another context in the wait list") {
  emt::Fixture f;
  Scene s(f);
  s.make(kBytes);
  emt::OtherContext other(kBytes);
  const std::uint8_t pat = 1;
  auto foreign = other.q.fill_async(other.buf, 0, 16, &pat, 1);
  REQUIRE_OK(foreign);
  CHECK_OK(foreign->wait());
  s.watch(other.buf, other.q);  // after the fill
  std::vector<Event> waits = f.events(35);
  ENSURE(waits.size() == 35);
  s.expect(Errc::invalid_argument, [&] { return f.q.marker(*foreign); });
  waits[34] = std::move(*foreign);  // past the first 32
  s.expect(Errc::invalid_argument, [&] { return f.q.barrier(waits); });
  s.expect(Errc::invalid_argument, [&] { return other.q.marker(WaitList(waits.data(), 2)); });
  CHECK(waits[34].valid());
}

BAD_INPUT("Heap::create_buffer_from_host: queue of another context") {
  emt::Fixture f;
  Scene s(f);
  s.make(kBytes);
  Heap heap;
  REQUIRE_OK_DO(heap.init(f.ctx, f.q, f.align(), 8));
  s.watch(heap);
  emt::OtherContext other(kBytes);
  s.watch(other.buf, other.q);
  const emt::Bytes src = emt::random_bytes(f.align());
  s.expect(Errc::invalid_argument, [&] { return heap.create_buffer_from_host(other.q, src.data(), src.size()); });
}

BAD_INPUT("FixedPool::init: queue of another context") {
  emt::Fixture f;
  Scene s(f);
  s.make(kBytes);
  emt::OtherContext other(kBytes);
  s.watch(other.buf, other.q);
  FixedPool<4> pool;
  s.watch(pool);
  s.expect(Errc::invalid_argument, [&] { return pool.init(f.ctx, other.q, 256); });
  CHECK_ERRC(pool.acquire(), Errc::released);  // still uninitialised
}

// ---- released and moved-from handles ------------------------------------------------------------

BAD_INPUT("Queue::write: released buffer (use after release)") {
  emt::Fixture f;
  Scene s(f);
  s.make(kBytes);
  emt::Bytes data;
  Buffer dead = f.filled(kBytes, data);
  CHECK_OK(dead.release());
  s.expect(Errc::released, [&] { return f.q.write(dead, 0, data.data(), 16); });
  s.expect(Errc::released, [&] { return f.q.map(dead, Access::read, 0, 16); });
}

BAD_INPUT("Queue::read and copy: moved-from buffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  emt::Bytes data;
  Buffer src = f.filled(kBytes, data);
  Buffer taken = std::move(src);
  s.watch(taken);
  emt::Bytes dst(16, 0xEE);
  s.expect(Errc::released, [&] { return f.q.read(src, 0, dst.data(), 16); });
  s.expect(Errc::released, [&] { return f.q.copy(src, b, 0, 0, 16); });
  s.expect(Errc::released, [&] { return f.q.copy_rect(b, src, CopyRect{{}, {}, {16, 1, 1}}); });
  CHECK(dst == emt::Bytes(16, 0xEE));
}

BAD_INPUT("Queue: moved-from queue") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  Queue taken = std::move(*q2);
  const std::uint32_t pat = 1;
  s.expect(Errc::released, [&] { return q2->fill(b, 0, 16, &pat, 4); });
  s.expect(Errc::released, [&] { return q2->finish(); });
  CHECK(taken.valid());
}

BAD_INPUT("Queue: released queue") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  CHECK_OK(q2->release());
  emt::Bytes dst(16, 0xEE);
  s.expect(Errc::released, [&] { return q2->read(b, 0, dst.data(), 16); });
  s.expect(Errc::released, [&] { return q2->map(b, Access::read); });
  CHECK(dst == emt::Bytes(16, 0xEE));
}

BAD_INPUT("Queue::copy: moved-from PooledBuffer") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  FixedPool<2> pool;
  REQUIRE_OK_DO(pool.init(f.ctx, f.q, kBytes));
  auto blk = pool.acquire();
  REQUIRE_OK(blk);
  PooledBuffer holder = std::move(*blk);
  s.watch(holder.buffer());
  s.watch(pool);
  s.expect(Errc::released, [&] { return f.q.copy(b, *blk, 0, 0, 16); });
  s.expect(Errc::released, [&] { return blk->sub(0, f.align()); });
  CHECK_FALSE(blk->valid());
  CHECK(holder.valid());
}

BAD_INPUT("Queue::begin_native and end_native: released queue or memory, memory of another context, unknown Access") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(kBytes);
  emt::OtherContext other(kBytes);
  s.watch(other.buf, other.q);
  Buffer released;
  Queue never;
  const auto unknown = static_cast<Access>(3);
  s.expect(Errc::released, [&] { return f.q.begin_native(released, Access::read); });
  s.expect(Errc::released, [&] { return f.q.end_native(released, Access::write); });
  s.expect(Errc::released, [&] { return never.begin_native(b, Access::read); });
  s.expect(Errc::released, [&] { return never.end_native(b, Access::read); });
  s.expect(Errc::invalid_argument, [&] { return f.q.begin_native(other.buf, Access::write); });
  s.expect(Errc::invalid_argument, [&] { return other.q.end_native(b, Access::write); });
  s.expect(Errc::invalid_argument, [&] { return f.q.begin_native(b, unknown); });
  s.expect(Errc::invalid_argument, [&] { return f.q.end_native(b, unknown); });
}

BAD_INPUT("Queue::begin_native: busy where an open mapping conflicts; the mapping stays open") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make_unwatched(kBytes);
  auto m = f.q.map<std::uint8_t>(b, Access::write, 0, 16);
  REQUIRE_OK(m);
  s.expect(Errc::busy, [&] { return f.q.begin_native(b, Access::read); });
  s.expect(Errc::busy, [&] { return f.q.begin_native(b, Access::write_discard); });
  CHECK(m->size() == 16);
  CHECK_OK(m->unmap());
}
