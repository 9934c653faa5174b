// Bad inputs to FixedPool, FrameRing and Heap: bad sizes, exhaustion, fragmentation, foreign and
// moved-from frames, release while blocks are out.
#include <cstdint>
#include <string>
#include <vector>

#include "bad_input/catalogue.hpp"

using namespace edgemem;
using emt::bad::Scene;

namespace {

/// Pool statistics without failed_acquires (which a refused acquire is documented to count).
std::string without_failures(PoolStats st) {
  st.failed_acquires = 0;
  return Scene::describe(st);
}

/// Writes random bytes into every held block, then records each block in `s`.
void fill_and_watch(emt::Fixture& f, Scene& s, std::vector<PooledBuffer>& held) {
  for (PooledBuffer& b : held) {
    const emt::Bytes data = emt::random_bytes(b.size());
    CHECK_OK(f.q.write(b, 0, data.data(), data.size()));
    s.watch(b.buffer());
  }
}

/// Acquires `n` blocks of `pool` into `held`, fills them with random bytes and watches them and the
/// pool; false (with a failed check) when an acquire fails.
template <class Pool>
bool acquire_and_watch(emt::Fixture& f, Scene& s, Pool& pool, int n, std::vector<PooledBuffer>& held) {
  for (int i = 0; i < n; ++i) {
    auto b = pool.acquire();
    CHECK_OK(b);
    if (!b) return false;
    held.push_back(std::move(*b));
  }
  fill_and_watch(f, s, held);
  s.watch(pool);
  return true;
}

}  // namespace

// ---- FixedPool ------------------------------------------------------------------------------------

BAD_INPUT("FixedPool::acquire: before init") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FixedPool<4> pool;
  s.watch(pool);
  s.expect(Errc::released, [&] { return pool.acquire(); });
  s.expect(Errc::released, [&] { return pool.acquire_for(std::chrono::milliseconds(1)); });
}

BAD_INPUT("FixedPool::acquire: every block out (pool exhaustion)") {
  emt::Fixture f;
  Scene s(f);
  FixedPool<3> pool;
  REQUIRE_OK_DO(pool.init(f.ctx, f.q, 256));
  std::vector<PooledBuffer> held;
  for (int i = 0; i < 3; ++i) {
    auto b = pool.acquire();
    REQUIRE_OK(b);
    held.push_back(std::move(*b));
  }
  fill_and_watch(f, s, held);
  s.watch("pool stats but failures", [&] { return without_failures(pool.stats()); });
  const std::size_t failed = pool.stats().failed_acquires;
  s.expect(Errc::exhausted, [&] { return pool.acquire(); });
  CHECK(pool.stats().failed_acquires == failed + 1);
  s.expect(Errc::exhausted, [&] { return pool.acquire_for(std::chrono::milliseconds(2)); });
  CHECK(pool.stats().failed_acquires == failed + 2);
}

BAD_INPUT("FixedPool::init: block size zero or count zero") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FixedPool<> pool;
  s.watch(pool);
  s.expect(Errc::invalid_argument, [&] { return pool.init(f.ctx, f.q, 0, 4); });
  s.expect(Errc::invalid_argument, [&] { return pool.init(f.ctx, f.q, 64, 0); });
}

BAD_INPUT("FixedPool::init: count over the compile-time capacity") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FixedPool<4> pool;
  s.watch(pool);
  s.expect(Errc::out_of_range, [&] { return pool.init(f.ctx, f.q, 64, 5); });
}

BAD_INPUT("FixedPool::init: total bytes past the device's max allocation") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FixedPool<> pool;
  s.watch(pool);
  const std::size_t max = f.ctx.info().max_alloc_bytes;
  const std::size_t block = 1024 * f.align();
  s.expect(Errc::out_of_range, [&] { return pool.init(f.ctx, f.q, block, max / block + 1); });
}

BAD_INPUT("FixedPool::init: block size * count overflows SIZE_MAX") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FixedPool<> pool;
  s.watch(pool);
  s.expect(Errc::out_of_range, [&] { return pool.init(f.ctx, f.q, SIZE_MAX / 4, 8); });
  s.expect(Errc::out_of_range, [&] { return pool.init(f.ctx, f.q, SIZE_MAX - 1, 1); });
}

BAD_INPUT("FixedPool<>::init: count past the 32-bit block index") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FixedPool<> pool;
  s.watch(pool);
  s.expect(Errc::out_of_range, [&] { return pool.init(f.ctx, f.q, 1, std::size_t{UINT32_MAX}); });
}

BAD_INPUT("FixedPool::init: already initialised") {
  emt::Fixture f;
  Scene s(f);
  FixedPool<2> pool;
  REQUIRE_OK_DO(pool.init(f.ctx, f.q, 256));
  std::vector<PooledBuffer> held;
  const bool acquired = acquire_and_watch(f, s, pool, 1, held);
  ENSURE(acquired);
  s.expect(Errc::invalid_argument, [&] { return pool.init(f.ctx, f.q, 512, 2); });
  CHECK(pool.owns(held[0]));
}

BAD_INPUT("FixedPool::init: bad flag combination or Storage value") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FixedPool<2> pool;
  s.watch(pool);
  s.expect(Errc::invalid_argument,
           [&] { return pool.init(f.ctx, f.q, 256, 2, Storage::device, MemFlags::read_only | MemFlags::write_only); });
  s.expect(Errc::invalid_argument, [&] { return pool.init(f.ctx, f.q, 256, 2, static_cast<Storage>(3)); });
}

BAD_INPUT("FixedPool::init: released queue or context") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FixedPool<2> pool;
  s.watch(pool);
  Queue dead_q;
  Context dead_ctx;
  s.expect(Errc::released, [&] { return pool.init(f.ctx, dead_q, 256); });
  s.expect(Errc::released, [&] { return pool.init(dead_ctx, f.q, 256); });
}

BAD_INPUT("FixedPool::release: a block is still out") {
  emt::Fixture f;
  Scene s(f);
  FixedPool<2> pool;
  REQUIRE_OK_DO(pool.init(f.ctx, f.q, 256));
  std::vector<PooledBuffer> held;
  const bool acquired = acquire_and_watch(f, s, pool, 1, held);
  ENSURE(acquired);
  s.expect(Errc::busy, [&] { return pool.release(); });
  CHECK(pool.owns(held[0]));
}

// ---- FrameRing ------------------------------------------------------------------------------------

BAD_INPUT("FrameRing::init: unknown Overflow value") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FrameRing<2> ring;
  s.watch(ring);
  s.expect(Errc::invalid_argument, [&] { return ring.init(f.ctx, f.q, 256, static_cast<Overflow>(7)); });
  CHECK_ERRC(ring.acquire(), Errc::released);
}

BAD_INPUT("FrameRing::publish: frame of another ring or of a plain pool") {
  emt::Fixture f;
  Scene s(f);
  FrameRing<2> ring, other;
  FixedPool<1> pool;
  REQUIRE_OK_DO(ring.init(f.ctx, f.q, 256));
  REQUIRE_OK_DO(other.init(f.ctx, f.q, 256));
  REQUIRE_OK_DO(pool.init(f.ctx, f.q, 256));
  auto foreign = other.acquire();
  auto block = pool.acquire();
  REQUIRE_OK(foreign);
  REQUIRE_OK(block);
  std::vector<PooledBuffer> held;
  held.push_back(std::move(*foreign));
  held.push_back(std::move(*block));
  fill_and_watch(f, s, held);
  s.watch(ring);
  s.watch(other);
  s.watch(pool);
  s.expect(Errc::invalid_argument, [&] { return ring.publish(std::move(held[0])); });
  s.expect(Errc::invalid_argument, [&] { return ring.publish(std::move(held[1])); });
  CHECK(held[0].valid());  // moved from only on success
  CHECK(held[1].valid());
}

BAD_INPUT("FrameRing::publish: moved-from (empty) frame") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FrameRing<2> ring;
  REQUIRE_OK_DO(ring.init(f.ctx, f.q, 256));
  auto fr = ring.acquire();
  REQUIRE_OK(fr);
  PooledBuffer kept = std::move(*fr);
  s.watch(kept.buffer());
  s.watch(ring);
  s.expect(Errc::released, [&] { return ring.publish(std::move(*fr)); });
  s.expect(Errc::released, [&] { return ring.publish(PooledBuffer{}); });
}

BAD_INPUT("FrameRing::publish: frame still mapped") {
  emt::Fixture f;
  Scene s(f);
  FrameRing<2> ring;
  REQUIRE_OK_DO(ring.init(f.ctx, f.q, 256));
  auto fr = ring.acquire();
  REQUIRE_OK(fr);
  auto m = f.q.map<unsigned char>(*fr, Access::read);
  REQUIRE_OK(m);
  s.watch(fr->buffer());
  s.watch(ring);
  s.expect(Errc::busy, [&] { return ring.publish(std::move(*fr)); });
  CHECK(fr->valid());
  CHECK(m->mapped());
}

BAD_INPUT("FrameRing::take: nothing published") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FrameRing<2> ring;
  REQUIRE_OK_DO(ring.init(f.ctx, f.q, 256));
  s.watch(ring);
  s.expect(Errc::exhausted, [&] { return ring.take(); });
  s.expect(Errc::exhausted, [&] { return ring.take_for(std::chrono::milliseconds(2)); });
}

BAD_INPUT("FrameRing::acquire: no free frame with Overflow::refuse") {
  emt::Fixture f;
  Scene s(f);
  FrameRing<2> ring;
  REQUIRE_OK_DO(ring.init(f.ctx, f.q, 256, Overflow::refuse));
  std::vector<PooledBuffer> held;
  for (int i = 0; i < 2; ++i) {
    auto fr = ring.acquire();
    REQUIRE_OK(fr);
    held.push_back(std::move(*fr));
  }
  fill_and_watch(f, s, held);
  const RingStats before = ring.stats();
  s.expect(Errc::exhausted, [&] { return ring.acquire(); });
  RingStats after = ring.stats();
  CHECK(after.refused == before.refused + 1);
  after.refused = before.refused;
  after.pool.failed_acquires = before.pool.failed_acquires;
  CHECK(Scene::describe(after) == Scene::describe(before));
}

BAD_INPUT("FrameRing::release: the producer still holds a frame") {
  emt::Fixture f;
  Scene s(f);
  FrameRing<3> ring;
  REQUIRE_OK_DO(ring.init(f.ctx, f.q, 256));
  auto a = ring.acquire();
  auto b = ring.acquire();
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  std::vector<PooledBuffer> held;
  held.push_back(std::move(*a));
  fill_and_watch(f, s, held);
  REQUIRE_OK_DO(ring.publish(std::move(*b)));  // one unconsumed frame must survive too
  s.watch(ring);
  s.expect(Errc::busy, [&] { return ring.release(); });
  CHECK(ring.stats().pending == 1);
}

BAD_INPUT("FrameRing::release: the producer still holds a sub-buffer of a published frame") {
  emt::Fixture f;
  Scene s(f);
  FrameRing<2> ring;
  REQUIRE_OK_DO(ring.init(f.ctx, f.q, 256));
  auto fr = ring.acquire();
  REQUIRE_OK(fr);
  const emt::Bytes contents = emt::random_bytes(fr->size());
  REQUIRE_OK_DO(f.q.write(*fr, 0, contents.data(), contents.size()));
  auto strip = fr->sub(0, f.align());  // a strip of a ring frame
  REQUIRE_OK(strip);
  s.watch(*strip);
  REQUIRE_OK_DO(ring.publish(std::move(*fr)));
  s.watch(ring);
  s.expect(Errc::busy, [&] { return ring.release(); });
  CHECK(ring.stats().pending == 1);
  auto taken = ring.take();  // the unconsumed frame is still there, with its contents
  REQUIRE_OK(taken);
  CHECK(f.snapshot(*taken) == contents);
}

// ---- Heap -----------------------------------------------------------------------------------------

BAD_INPUT("Heap::init: page size not a multiple of the base alignment") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  ENSURE(f.align() > 1);
  Heap heap;
  s.watch(heap);
  s.expect(Errc::misaligned, [&] { return heap.init(f.ctx, f.q, f.align() + f.align() / 2, 4); });
}

BAD_INPUT("Heap::init: page size * page count overflows or passes the device maximum") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  Heap heap;
  s.watch(heap);
  const std::size_t A = f.align();
  s.expect(Errc::out_of_range, [&] { return heap.init(f.ctx, f.q, A, SIZE_MAX / A + 1); });
  s.expect(Errc::out_of_range, [&] { return heap.init(f.ctx, f.q, A, f.ctx.info().max_alloc_bytes / A + 1); });
}

BAD_INPUT("Heap::create_buffer: before init") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  Heap heap;
  s.watch(heap);
  s.expect(Errc::released, [&] { return heap.create_buffer(64); });
}

BAD_INPUT("Heap::create_buffer: zero bytes") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  Heap heap;
  REQUIRE_OK_DO(heap.init(f.ctx, f.q, f.align(), 8));
  s.watch(heap);
  s.expect(Errc::invalid_argument, [&] { return heap.create_buffer(0); });
}

BAD_INPUT("Heap::create_buffer: larger than the whole heap") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  Heap heap;
  REQUIRE_OK_DO(heap.init(f.ctx, f.q, f.align(), 8));
  s.watch(heap);
  s.expect(Errc::out_of_range, [&] { return heap.create_buffer(8 * f.align() + 1); });
  s.expect(Errc::out_of_range, [&] { return heap.create_buffer(SIZE_MAX); });
}

BAD_INPUT("Heap::create_buffer: fragmented, no run of free pages long enough") {
  emt::Fixture f;
  Scene s(f);
  const std::size_t P = f.align();
  Heap heap;
  REQUIRE_OK_DO(heap.init(f.ctx, f.q, P, 8));
  std::vector<Buffer> pages;
  for (int i = 0; i < 8; ++i) {
    auto b = heap.create_buffer(P);
    REQUIRE_OK(b);
    pages.push_back(std::move(*b));
  }
  for (int i = 1; i < 8; i += 2) CHECK_OK(pages[i].release());  // free pages 1, 3, 5, 7
  for (int i = 0; i < 8; i += 2) {
    const emt::Bytes data = emt::random_bytes(P);
    CHECK_OK(f.q.write(pages[i], 0, data.data(), P));
    s.watch(pages[i]);
  }
  s.watch(heap);
  CHECK(heap.free_pages() == 4);
  CHECK(heap.largest_free_run() == 1);
  s.expect(Errc::exhausted, [&] { return heap.create_buffer(2 * P); });
  s.expect(Errc::exhausted, [&] { return heap.create_buffer(P + 1); });
  const emt::Bytes src = emt::random_bytes(3 * P);
  s.expect(Errc::exhausted, [&] { return heap.create_buffer_from_host(f.q, src.data(), src.size()); });
}

BAD_INPUT("Heap::create_buffer_from_host: null data") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  Heap heap;
  REQUIRE_OK_DO(heap.init(f.ctx, f.q, f.align(), 8));
  s.watch(heap);
  s.expect(Errc::invalid_argument, [&] { return heap.create_buffer_from_host(f.q, nullptr, 64); });
}

BAD_INPUT("Heap::create_buffer_like: released buffer") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  Heap heap;
  REQUIRE_OK_DO(heap.init(f.ctx, f.q, f.align(), 8));
  s.watch(heap);
  Buffer dead;
  s.expect(Errc::released, [&] { return heap.create_buffer_like(dead); });
}

BAD_INPUT("Heap::release: buffers still live") {
  emt::Fixture f;
  Scene s(f);
  Heap heap;
  REQUIRE_OK_DO(heap.init(f.ctx, f.q, f.align(), 8));
  const emt::Bytes data = emt::random_bytes(3 * f.align());
  auto b = heap.create_buffer_from_host(f.q, data.data(), data.size());
  REQUIRE_OK(b);
  s.watch(*b);
  s.watch(heap);
  s.expect(Errc::busy, [&] { return heap.release(); });
  CHECK(heap.page_count() == 8);
}

// ---- more use-after-release and flag cases ---------------------------------------------------------

BAD_INPUT("FixedPool::acquire and FrameRing::take: after release()") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FixedPool<2> pool;
  FrameRing<2> ring;
  REQUIRE_OK_DO(pool.init(f.ctx, f.q, 256));
  REQUIRE_OK_DO(ring.init(f.ctx, f.q, 256));
  CHECK_OK(pool.release());
  CHECK_OK(ring.release());
  s.watch(pool);
  s.watch(ring);
  s.expect(Errc::released, [&] { return pool.acquire(); });
  s.expect(Errc::released, [&] { return ring.take(); });
  s.expect(Errc::released, [&] { return ring.acquire(); });
}

BAD_INPUT("PooledBuffer::sub: past the block or misaligned") {
  emt::Fixture f;
  Scene s(f);
  FixedPool<2> pool;
  REQUIRE_OK_DO(pool.init(f.ctx, f.q, 2 * f.align()));
  std::vector<PooledBuffer> held;
  const bool acquired = acquire_and_watch(f, s, pool, 1, held);
  ENSURE(acquired);
  s.expect(Errc::out_of_range, [&] { return held[0].sub(f.align(), f.align() + 1); });
  if (f.align() > 1) s.expect(Errc::misaligned, [&] { return held[0].sub(1, 8); });
}

BAD_INPUT("Heap::init: already initialised") {
  emt::Fixture f;
  Scene s(f);
  Heap heap;
  REQUIRE_OK_DO(heap.init(f.ctx, f.q, f.align(), 8));
  const emt::Bytes data = emt::random_bytes(2 * f.align());
  auto b = heap.create_buffer_from_host(f.q, data.data(), data.size());
  REQUIRE_OK(b);
  s.watch(*b);
  s.watch(heap);
  s.expect(Errc::invalid_argument, [&] { return heap.init(f.ctx, f.q, 2 * f.align(), 4); });
}

BAD_INPUT("Heap::create_buffer_from_host: heap made host_read_only") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  Heap heap;
  REQUIRE_OK_DO(heap.init(f.ctx, f.q, f.align(), 8, Storage::device, MemFlags::host_read_only));
  s.watch(heap);
  const emt::Bytes data = emt::random_bytes(f.align());
  s.expect(Errc::access_denied, [&] { return heap.create_buffer_from_host(f.q, data.data(), data.size()); });
}
