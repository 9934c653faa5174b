// Queue::begin_native / end_native (your own commands on native() handles inside edgemem's ordering
// across queues): the same answers on every backend for bad input, and a failed call changes nothing.
// That native commands between them are ordered behind, and ahead of, other queues' commands is proved
// with raw commands in each backend's interop tests (backends/opencl/tests/native_order_test.cpp,
// backends/vulkan/tests/interop_test.cpp); here, that begin_native never waits on the host.
#include <atomic>
#include <chrono>
#include <thread>

#include "conformance/test_helpers.hpp"
#include "support/gate.hpp"

using namespace edgemem;

TEST_CASE_FIXTURE(emt::Fixture, "begin_native / end_native: released handles, other contexts and unknown Access are refused") {
  auto buf = Buffer::create(ctx, 4096);
  REQUIRE_OK(buf);
  for (const Access a : {Access::read, Access::write, Access::write_discard}) {
    CHECK_OK(q.begin_native(*buf, a));
    CHECK_OK(q.end_native(*buf, a));
  }
  const auto bad = static_cast<Access>(7);
  CHECK_ERRC(q.begin_native(*buf, bad), Errc::invalid_argument);
  CHECK_ERRC(q.end_native(*buf, bad), Errc::invalid_argument);

  Buffer released;
  CHECK_ERRC(q.begin_native(released, Access::read), Errc::released);
  CHECK_ERRC(q.end_native(released, Access::read), Errc::released);
  Queue no_queue;
  CHECK_ERRC(no_queue.begin_native(*buf, Access::read), Errc::released);
  CHECK_ERRC(no_queue.end_native(*buf, Access::read), Errc::released);

  auto other = Context::create();
  REQUIRE_OK(other);
  auto foreign = Buffer::create(*other, 4096);
  REQUIRE_OK(foreign);
  CHECK_ERRC(q.begin_native(*foreign, Access::write), Errc::invalid_argument);
  CHECK_ERRC(q.end_native(*foreign, Access::write), Errc::invalid_argument);

  // A sub-buffer and a pool block are memory objects like any other.
  auto sub = buf->sub(ctx.base_align(), ctx.base_align());
  REQUIRE_OK(sub);
  CHECK_OK(q.begin_native(*sub, Access::write));
  CHECK_OK(q.end_native(*sub, Access::write));
  FixedPool<2> pool;
  REQUIRE_OK(pool.init(ctx, q, 4096));
  auto block = pool.acquire();
  REQUIRE_OK(block);
  CHECK_OK(q.begin_native(block->buffer(), Access::read));
  CHECK_OK(q.end_native(block->buffer(), Access::read));
  CHECK_OK(q.finish());
}

TEST_CASE_FIXTURE(emt::Fixture, "begin_native: busy where an open mapping conflicts, as for a transfer; the mapping stays") {
  auto buf = Buffer::create(ctx, 8192);
  REQUIRE_OK(buf);
  {
    auto m = q.map<std::uint8_t>(*buf, Access::read, 0, 4096);
    REQUIRE_OK(m);
    CHECK_OK(q.begin_native(*buf, Access::read));  // readers share
    CHECK_ERRC(q.begin_native(*buf, Access::write), Errc::busy);
    CHECK_ERRC(q.begin_native(*buf, Access::write_discard), Errc::busy);
    CHECK_OK(q.end_native(*buf, Access::read));
    CHECK(m->size() == 4096);
  }
  {
    auto m = q.map<std::uint8_t>(*buf, Access::write, 4096, 4096);
    REQUIRE_OK(m);
    CHECK_ERRC(q.begin_native(*buf, Access::read), Errc::busy);
    CHECK_ERRC(q.begin_native(*buf, Access::write), Errc::busy);
    // A view that does not reach the mapped bytes is free.
    auto low = buf->sub(0, 4096);
    REQUIRE_OK(low);
    CHECK_OK(q.begin_native(*low, Access::write));
    CHECK_OK(q.end_native(*low, Access::write));
    (*m)[0] = 5;
    CHECK_OK(m->unmap());
  }
  std::uint8_t byte = 0;
  REQUIRE_OK(q.read(*buf, 4096, &byte, 1));
  CHECK(byte == 5);
}

TEST_CASE_FIXTURE(emt::Fixture, "begin_native / end_native on images: the same rules over the image's memory") {
  if (!ctx.info().caps.images) return;  // no image to make; the Buffer cases above cover the rule
  auto img = Image::create(ctx, ImageDesc::shape(1, 16, 16, 4, ChannelType::unorm_int8));
  REQUIRE_OK(img);
  CHECK_OK(q.begin_native(*img, Access::write));
  CHECK_OK(q.end_native(*img, Access::write));
  Image none;
  CHECK_ERRC(q.begin_native(none, Access::read), Errc::released);
  CHECK_ERRC(q.end_native(none, Access::read), Errc::released);
  auto m = q.map_image(*img, Access::write);
  REQUIRE_OK(m);
  CHECK_ERRC(q.begin_native(*img, Access::read), Errc::busy);
  CHECK_OK(m->unmap());
  CHECK_OK(q.begin_native(*img, Access::read));
}

TEST_CASE_FIXTURE(emt::Fixture, "begin_native returns at once while the other queue's command it orders behind is held; that queue's later commands wait") {
  using namespace std::chrono_literals;
  auto qb = Queue::create(ctx);
  REQUIRE_OK(qb);
  const std::size_t bytes = 1 << 20;
  auto frame = Buffer::create(ctx, bytes);
  REQUIRE_OK(frame);
  const emt::Bytes src = emt::random_bytes(bytes);
  auto gate = emt::Gate::hold(q);  // host backend: unsupported (its commands complete at enqueue)
  if (!gate) CHECK(gate.error().code == Errc::unsupported);
  auto written = q.write_async(*frame, 0, src.data(), bytes);  // held behind the gate, where there is one
  REQUIRE_OK(written);
  std::atomic<bool> returned{false};
  Result<void> begun;
  std::thread t([&] {
    begun = qb->begin_native(*frame, Access::write);
    returned = true;
  });
  const bool at_once = emt::wait_until([&] { return returned.load(); }, 5000ms);
  CHECK_MESSAGE(at_once, "begin_native waited on the host for a command held behind a gate");
  auto later = qb->marker();  // behind begin_native's marker, so behind the held write
  if (gate && at_once) {
    REQUIRE(later.has_value());
    auto done = later->is_complete();
    CHECK((done.has_value() && !*done));
  }
  if (gate) gate->open();
  t.join();
  CHECK_OK(begun);
  CHECK_OK(qb->end_native(*frame, Access::write));
  REQUIRE_OK(later);
  CHECK_OK(later->wait());
  auto w = written->is_complete();
  CHECK((w.has_value() && *w));  // later's completion implies the write's
  CHECK_OK(q.finish());
  CHECK_OK(qb->finish());
}
