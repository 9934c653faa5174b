// Your own Vulkan compute dispatches on edgemem buffers' native() ranges inside edgemem's ordering
// across queues (issue #32's interop tests): the `add` shader (shaders/add.comp, compiled by glslc at
// build time) recorded with the raw API, submitted with vulkan_queue_submit between
// Queue::begin_native and end_native; two queues (three in the gated case), frames of
// EDGEMEM_TEST_FRAME_MIB MiB (default 16), EDGEMEM_TEST_ROUNDS rounds (default 8), pool blocks at
// their offsets. Each round reads stale bytes, or has its bytes overwritten, if a dispatch ran beside
// another queue's command: the other command is enqueued without waiting. The gated case holds queue
// A behind a host-controlled gate, so that B's begin_native and dispatch are held in B's order: a
// dispatch that overtook them would add before A's write and be lost.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "raw_compute.hpp"
#include "support/gate.hpp"

using namespace edgemem;

namespace {

std::size_t frame_bytes() { return emt::test_frame_bytes(16); }
int rounds() { return emt::test_rounds(8); }

}  // namespace

TEST_CASE_FIXTURE(emt::Fixture, "vulkan interop: a dispatch on queue B after begin_native sees queue A's async write; A's read after end_native sees the dispatch") {
  const std::size_t bytes = frame_bytes(), words = bytes / 4;
  Queue qb = emt::another_queue(ctx);
  emt::RawAdd add(ctx);
  auto frame = Buffer::create(ctx, bytes);
  REQUIRE_OK(frame);
  auto mem = frame->native();
  REQUIRE_OK(mem);
  std::vector<std::uint32_t> src(words), seen(words);
  for (int r = 0; r < rounds(); ++r) {
    CAPTURE(r);
    const std::uint32_t value = 0x1000u * static_cast<std::uint32_t>(r + 1);
    std::fill(src.begin(), src.end(), value);
    auto written = q.write_async(*frame, 0, src.data(), bytes);  // queue A, not waited for
    REQUIRE_OK(written);
    REQUIRE_OK(qb.begin_native(*frame, Access::write));
    for (std::uint32_t pass = 1; pass <= 4; ++pass) add.enqueue(qb.native(), *mem, pass);  // +10 in all
    REQUIRE_OK(qb.end_native(*frame, Access::write));
    REQUIRE_OK(q.read(*frame, 0, seen.data(), bytes));  // queue A: after all four dispatches
    CHECK(emt::wrong_words(seen, value + 10) == 0);
  }
  add.finish();
}

TEST_CASE_FIXTURE(emt::Fixture, "vulkan interop: with queue A held behind a gate, B's dispatch waits in B's order and C's read waits for it") {
  const std::size_t bytes = frame_bytes(), words = bytes / 4;
  Queue qb = emt::another_queue(ctx), qc = emt::another_queue(ctx);
  if (!emt::gates_supported(q)) EMT_SKIP("no gate on this device");
  emt::RawAdd add(ctx);
  auto frame = Buffer::create(ctx, bytes);
  REQUIRE_OK(frame);
  auto mem = frame->native();
  REQUIRE_OK(mem);
  std::vector<std::uint32_t> src(words), seen(words, 0);
  for (int r = 0; r < rounds(); ++r) {
    CAPTURE(r);
    const std::uint32_t value = 0x2000u * static_cast<std::uint32_t>(r + 1);
    std::fill(src.begin(), src.end(), value);
    auto gate = emt::Gate::hold(q);
    REQUIRE_OK(gate);
    auto written = q.write_async(*frame, 0, src.data(), bytes);  // held until the gate opens
    REQUIRE_OK(written);
    REQUIRE_OK(qb.begin_native(*frame, Access::write));  // B's later commands wait for A's write
    add.enqueue(qb.native(), *mem, 7);
    REQUIRE_OK(qb.end_native(*frame, Access::write));
    auto read = qc.read_async(*frame, 0, seen.data(), bytes);  // C: after B's dispatch
    REQUIRE_OK(read);
    auto done = read->is_complete();
    REQUIRE_OK(done);
    CHECK_FALSE(*done);  // nothing can have run: everything waits for the gate
    gate->open();
    REQUIRE_OK(read->wait());
    CHECK(emt::wrong_words(seen, value + 7) == 0);  // value alone: the dispatch ran before A's write
    REQUIRE_OK(written->wait());
  }
  add.finish();
}

TEST_CASE_FIXTURE(emt::Fixture, "vulkan interop: a pool block released after end_native carries the dispatch to its next owner") {
  const std::size_t bytes = frame_bytes(), words = bytes / 4;
  Queue qb = emt::another_queue(ctx);
  emt::RawAdd add(ctx);
  FixedPool<3> pool;
  REQUIRE_OK(pool.init(ctx, q, bytes));
  auto first = pool.acquire(), second = pool.acquire();  // kept: the block used below is at an offset
  REQUIRE_OK(first);
  REQUIRE_OK(second);
  std::vector<std::uint32_t> host(words), seen(words);
  bool at_offset = false;
  for (int r = 0; r < rounds(); ++r) {
    CAPTURE(r);
    {
      auto block = pool.acquire();  // consumer, queue B: dispatches on the block, then it goes back
      REQUIRE_OK(block);
      auto mem = block->buffer().native();
      REQUIRE_OK(mem);
      at_offset = at_offset || mem->offset != 0;
      REQUIRE_OK(qb.begin_native(block->buffer(), Access::write));
      for (int pass = 0; pass < 4; ++pass) add.enqueue(qb.native(), *mem, 3);
      REQUIRE_OK(qb.end_native(block->buffer(), Access::write));
      REQUIRE_OK(block->release());  // at once, dispatches still queued
    }
    auto next = pool.acquire();  // producer, queue A: the same block, written while B may still run
    REQUIRE_OK(next);
    const std::uint32_t value = 0xA000u + static_cast<std::uint32_t>(r);
    std::fill(host.begin(), host.end(), value);
    REQUIRE_OK(q.write(next->buffer(), 0, host.data(), bytes));
    add.finish();  // B done: had a dispatch run after A's write, words changed
    REQUIRE_OK(q.read(next->buffer(), 0, seen.data(), bytes));
    CHECK(emt::wrong_words(seen, value) == 0);
  }
  CHECK(at_offset);  // descriptors bound at a view's offset within its pool's VkBuffer
}

TEST_CASE_FIXTURE(emt::Fixture, "vulkan interop: vulkan_queue_submit refuses what is not a Queue's or not a command buffer") {
  const NativeQueue none{};
  CHECK_ERRC(vulkan_queue_submit(none, nullptr), Errc::released);
  CHECK_ERRC(vulkan_queue_submit(q.native(), nullptr), Errc::invalid_argument);
}
