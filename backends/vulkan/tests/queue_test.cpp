// The Vulkan backend's queues and events (issue #32, step 2), on lavapipe in CI: more Queues than the
// device has VkQueues, markers and their events across Queues, finish, events outliving their Queue,
// threads, and the held submissions that keep a gated Queue from stalling the others that share its
// VkQueue (lavapipe has one).
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include <edgemem/edgemem.hpp>

#include "support/gate.hpp"

using namespace edgemem;

namespace {

/// Polls `e` for up to `ms` milliseconds; true once complete.
bool completes_within(const Event& e, int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  do {
    auto done = e.is_complete();
    REQUIRE(done.has_value());
    if (*done) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  } while (std::chrono::steady_clock::now() < until);
  return false;
}

}  // namespace

TEST_CASE("vulkan: 64 Queues (more than any device's VkQueues) finish, and their markers complete") {
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  std::vector<Queue> queues;
  for (int i = 0; i < 64; ++i) {
    auto q = Queue::create(*ctx);
    REQUIRE(q.has_value());
    queues.push_back(std::move(*q));
  }
  std::vector<Event> events;
  for (Queue& q : queues) {
    auto e = q.marker();
    REQUIRE(e.has_value());
    events.push_back(std::move(*e));
  }
  for (Queue& q : queues) REQUIRE(q.finish().has_value());
  for (Event& e : events) {
    auto done = e.is_complete();
    REQUIRE(done.has_value());
    CHECK(*done);  // the queue finished after it
  }
  // Queues released and made again reuse their records: still correct.
  queues.clear();
  for (int round = 0; round < 3; ++round) {
    auto q = Queue::create(*ctx);
    REQUIRE(q.has_value());
    auto e = q->marker();
    REQUIRE(e.has_value());
    REQUIRE(e->wait().has_value());
  }
}

TEST_CASE("vulkan: an event outlives its Queue, and a marker waits for another Queue's events") {
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  Event kept;
  {
    auto q = Queue::create(*ctx);
    REQUIRE(q.has_value());
    auto e = q->marker();
    REQUIRE(e.has_value());
    kept = std::move(*e);
  }
  REQUIRE(kept.wait().has_value());
  auto a = Queue::create(*ctx);
  auto b = Queue::create(*ctx);
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  auto ea = a->marker();
  REQUIRE(ea.has_value());
  const Event waits[] = {std::move(*ea), std::move(kept)};
  auto eb = b->marker(waits);
  REQUIRE(eb.has_value());
  REQUIRE(eb->wait().has_value());
  CHECK(*waits[0].is_complete());
}

TEST_CASE("vulkan: a gated Queue holds its own commands and those that wait for it, not the others") {
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  auto a = Queue::create(*ctx);
  auto b = Queue::create(*ctx);
  auto c = Queue::create(*ctx);
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  REQUIRE(c.has_value());
  auto gate = emt::Gate::hold(*a);
  REQUIRE(gate.has_value());
  auto on_a = a->marker();
  REQUIRE(on_a.has_value());
  const Event after_a[] = {std::move(*on_a)};
  auto on_c = c->marker(after_a);  // waits for A's marker
  REQUIRE(on_c.has_value());
  // B shares A's VkQueue on lavapipe: its commands run, blocking ones return.
  auto on_b = b->marker();
  REQUIRE(on_b.has_value());
  CHECK(completes_within(*on_b, 5000));
  REQUIRE(b->finish().has_value());
  CHECK_FALSE(*after_a[0].is_complete());
  CHECK_FALSE(*on_c->is_complete());
  // Opened from another thread while this one waits on C, which waits on A.
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    gate->open();
  });
  REQUIRE(on_c->wait().has_value());
  opener.join();
  CHECK(*after_a[0].is_complete());
  REQUIRE(a->finish().has_value());
}

TEST_CASE("vulkan: threads on one Queue and on their own, markers and finishes") {
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  auto shared = Queue::create(*ctx);
  REQUIRE(shared.has_value());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      auto own = Queue::create(*ctx);
      if (!own) {
        ++failures;
        return;
      }
      for (int i = 0; i < 200; ++i) {
        auto e = shared->marker();
        auto f = own->marker();
        if (!e || !f) {
          ++failures;
          continue;
        }
        const Event both[] = {std::move(*e), std::move(*f)};
        auto g = (i % 2 == 0 ? *own : *shared).marker(both);
        if (!g || !g->wait() || !*both[0].is_complete() || !*both[1].is_complete()) ++failures;
        if (i % 50 == 0 && !own->finish()) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failures.load() == 0);
  REQUIRE(shared->finish().has_value());
}
