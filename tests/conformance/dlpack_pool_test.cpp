// Issue #29, to settle (b): a DLPack tensor of a SingleThread pool's block whose deleter runs on
// another thread (as NumPy's garbage collector may) returns the block without touching the pool's
// unlocked free list: onto a lock-free stack the pool's thread drains at its next acquire. The
// threads are held at known points: the deleter's thread runs first and signals with a relaxed flag,
// which orders nothing, so under ThreadSanitizer (meson test --suite threads) the old direct return
// to the free list is reported as a data race with the pool thread's acquire; the new return
// synchronizes through the stack and is not.
#include <edgemem/config.hpp>

#if EDGEMEM_HAS_DLPACK
#include <atomic>
#include <thread>

#include <edgemem/dlpack.hpp>

#include "test_helpers.hpp"

using namespace edgemem;

TEST_CASE("dlpack threads: a deleter on another thread gives a SingleThread pool's block back to the pool's thread") {
  emt::Fixture f;
  FixedPool<2, SingleThread> pool;
  auto made = pool.init_exportable(f.ctx, f.q, 256, 2);
  if (!f.ctx.info().caps.unified_memory) {
    CHECK_ERRC(made, Errc::unsupported);
    return;
  }
  REQUIRE_OK(made);
  auto block = pool.acquire();
  REQUIRE_OK(block);
  const std::int64_t shape[1] = {256};
  auto t = to_dlpack(*block, DLDataType{kDLUInt, 8, 1}, shape, 1);
  REQUIRE_OK(t);
  *block = PooledBuffer();
  CHECK(pool.stats().in_use == 1);  // the tensor holds it
  for (int round = 0; round < 2; ++round) {
    std::atomic<bool> deleted{false};
    DLManagedTensor* tensor = *t;
    std::thread consumer([&] {
      tensor->deleter(tensor);  // the block's last reference goes here, off the pool's thread
      deleted.store(true, std::memory_order_relaxed);
    });
    while (!deleted.load(std::memory_order_relaxed)) std::this_thread::yield();
    // The pool's thread, with nothing ordering it after the deleter but the pool itself.
    auto a = pool.acquire();
    auto b = pool.acquire();
    CHECK_OK(a);
    CHECK_OK(b);
    CHECK_ERRC(pool.acquire(), Errc::exhausted);
    CHECK(pool.stats().in_use == 2);
    consumer.join();
    *b = PooledBuffer();
    if (round == 0) {
      t = to_dlpack(*a, DLDataType{kDLUInt, 8, 1}, shape, 1);
      REQUIRE_OK(t);
    }
    *a = PooledBuffer();
  }
  CHECK(pool.stats().in_use == 0);
  CHECK_OK(pool.release());
}
#endif
