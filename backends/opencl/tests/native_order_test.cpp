// Raw OpenCL commands on native() handles inside edgemem's ordering across queues, through
// Queue::begin_native / end_native: the camera pattern with your own kernels, two queues, frames of
// EDGEMEM_TEST_FRAME_MIB MiB (default 16), EDGEMEM_TEST_ROUNDS rounds (default 8). Each round would
// read stale or torn bytes (or have its bytes overwritten) if the raw command ran beside the other
// queue's: the producer's command is enqueued without waiting and is still running when the raw one
// is enqueued.

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "raw_kernel.hpp"

using namespace edgemem;

namespace {

std::size_t frame_bytes() { return emt::test_frame_bytes(16); }
int rounds() { return emt::test_rounds(8); }
const char* kSource = "kernel void add(global uint* a, uint v) { size_t i = get_global_id(0); a[i] += v; }\n";

/// `add` built with the raw C API; enqueue() does not wait.
struct AddKernel {
  emt::RawKernel k;
  explicit AddKernel(const Context& ctx) : k(ctx, kSource, "add") {}
  void enqueue(cl_command_queue q, cl_mem mem, std::size_t words, cl_uint v) {
    k.arg(0, mem);
    k.arg(1, v);
    k.enqueue(q, words);
  }
};


}  // namespace

TEST_CASE_FIXTURE(emt::Fixture, "native order: a raw read on queue B after begin_native sees queue A's async write") {
  const std::size_t bytes = frame_bytes();
  Queue qb = emt::another_queue(ctx);
  auto frame = Buffer::create(ctx, bytes);
  REQUIRE_OK(frame);
  auto mem = frame->native();
  REQUIRE_OK(mem);
  std::vector<std::uint32_t> src(bytes / 4), seen(bytes / 4);
  for (int r = 0; r < rounds(); ++r) {
    CAPTURE(r);
    const std::uint32_t value = 0x1000u + static_cast<std::uint32_t>(r);
    std::fill(src.begin(), src.end(), value);
    auto written = q.write_async(*frame, 0, src.data(), bytes);  // queue A, not waited for
    REQUIRE_OK(written);
    REQUIRE_OK(qb.begin_native(*frame, Access::read));
    REQUIRE(clEnqueueReadBuffer(qb.native(), *mem, CL_FALSE, 0, bytes, seen.data(), 0, nullptr, nullptr) == CL_SUCCESS);
    REQUIRE_OK(qb.end_native(*frame, Access::read));
    REQUIRE(clFinish(qb.native()) == CL_SUCCESS);
    CHECK(emt::wrong_words(seen, value) == 0);
    REQUIRE_OK(written->wait());
  }
  REQUIRE_OK(q.finish());
}

TEST_CASE_FIXTURE(emt::Fixture, "native order: a raw kernel on queue B after end_native is ahead of queue A's read and write") {
  const std::size_t bytes = frame_bytes(), words = bytes / 4;
  Queue qb = emt::another_queue(ctx);
  AddKernel add(ctx);
  auto frame = Buffer::create(ctx, bytes);
  REQUIRE_OK(frame);
  auto mem = frame->native();
  REQUIRE_OK(mem);
  std::vector<std::uint32_t> host(words, 0), seen(words);
  REQUIRE_OK(q.write(*frame, 0, host.data(), bytes));
  std::uint32_t expect = 0;
  for (int r = 0; r < rounds(); ++r) {
    CAPTURE(r);
    // B: several kernel passes (long enough to be running when A's command comes), then recorded.
    REQUIRE_OK(qb.begin_native(*frame, Access::write));
    for (std::uint32_t pass = 1; pass <= 4; ++pass) add.enqueue(qb.native(), *mem, words, pass);
    REQUIRE_OK(qb.end_native(*frame, Access::write));
    expect += 10;
    // A reads: it must wait for all four passes.
    REQUIRE_OK(q.read(*frame, 0, seen.data(), bytes));
    CHECK(emt::wrong_words(seen, expect) == 0);
    // B adds again; A then overwrites: the kernel must not add on top of A's bytes.
    REQUIRE_OK(qb.begin_native(*frame, Access::write));
    add.enqueue(qb.native(), *mem, words, 1000);
    REQUIRE_OK(qb.end_native(*frame, Access::write));
    expect = 7u * static_cast<std::uint32_t>(r + 1);
    std::fill(host.begin(), host.end(), expect);
    REQUIRE_OK(q.write(*frame, 0, host.data(), bytes));
    REQUIRE_OK(q.read(*frame, 0, seen.data(), bytes));
    CHECK(emt::wrong_words(seen, expect) == 0);
  }
  REQUIRE(clFinish(qb.native()) == CL_SUCCESS);
}

TEST_CASE_FIXTURE(emt::Fixture, "native order: a pool block released after end_native carries the raw kernel to its next owner") {
  const std::size_t bytes = frame_bytes(), words = bytes / 4;
  Queue qb = emt::another_queue(ctx);
  AddKernel add(ctx);
  FixedPool<1> pool;
  REQUIRE_OK(pool.init(ctx, q, bytes));
  std::vector<std::uint32_t> host(words), seen(words);
  for (int r = 0; r < rounds(); ++r) {
    CAPTURE(r);
    {
      auto block = pool.acquire();  // consumer, queue B: raw kernels on the block, then it goes back
      REQUIRE_OK(block);
      auto mem = block->buffer().native();
      REQUIRE_OK(mem);
      REQUIRE_OK(qb.begin_native(block->buffer(), Access::write));
      for (int pass = 0; pass < 4; ++pass) add.enqueue(qb.native(), *mem, words, 3);
      REQUIRE_OK(qb.end_native(block->buffer(), Access::write));
      REQUIRE_OK(block->release());  // at once, kernels still running
    }
    auto next = pool.acquire();  // producer, queue A: the same block, written while B may still run
    REQUIRE_OK(next);
    const std::uint32_t value = 0xA000u + static_cast<std::uint32_t>(r);
    std::fill(host.begin(), host.end(), value);
    REQUIRE_OK(q.write(next->buffer(), 0, host.data(), bytes));
    REQUIRE(clFinish(qb.native()) == CL_SUCCESS);  // B done: had it run after A's write, words changed
    REQUIRE_OK(q.read(next->buffer(), 0, seen.data(), bytes));
    CHECK(emt::wrong_words(seen, value) == 0);
  }
}
