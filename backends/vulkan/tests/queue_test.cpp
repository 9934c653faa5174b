// The Vulkan backend's queues and events (issue #32, step 2), on lavapipe in CI: more Queues than the
// device has VkQueues, markers and their events across Queues, finish, events outliving their Queue,
// threads, and the held submissions that keep a gated Queue from stalling the others that share its
// VkQueue (lavapipe has one); a Queue's commands allocate nothing after the Queue is made, however far
// the host runs ahead of the device, and a gated Queue's held commands never make the host wait.
#include <dlfcn.h>

#include <vulkan/vulkan.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include <edgemem/edgemem.hpp>

#include "support/gate.hpp"

using namespace edgemem;

namespace {

/// `name` of `device`, through the loader opened at run time (as the backend opens it); null without one.
template <class Fn>
Fn device_fn(VkDevice device, const char* name) {
  static const auto proc = [] {
    void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    return lib != nullptr ? reinterpret_cast<PFN_vkGetDeviceProcAddr>(dlsym(lib, "vkGetDeviceProcAddr")) : nullptr;
  }();
  return proc != nullptr ? reinterpret_cast<Fn>(proc(device, name)) : nullptr;
}

/// A submission of the caller's own on q's VkQueue (no commands) that waits for value 1 of a timeline
/// semaphore the host signals later: the device runs nothing submitted after it to that VkQueue until
/// then (the interop case of native.hpp: the caller holds NativeQueue::submit_lock around its submit).
class DeviceStall {
 public:
  explicit DeviceStall(const NativeQueue& n) : device_(reinterpret_cast<VkDevice>(n.device)) {
    auto create = device_fn<PFN_vkCreateSemaphore>(device_, "vkCreateSemaphore");
    auto submit = device_fn<PFN_vkQueueSubmit>(device_, "vkQueueSubmit");
    const bool loaded = create != nullptr && submit != nullptr;
    REQUIRE(loaded);
    VkSemaphoreTypeCreateInfo type{};
    type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    info.pNext = &type;
    REQUIRE(create(device_, &info, nullptr, &semaphore_) == VK_SUCCESS);
    const std::uint64_t one = 1;
    VkTimelineSemaphoreSubmitInfo timeline{};
    timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    timeline.waitSemaphoreValueCount = 1;
    timeline.pWaitSemaphoreValues = &one;
    const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo submit_info{};
    submit_info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit_info.pNext = &timeline;
    submit_info.waitSemaphoreCount = 1;
    submit_info.pWaitSemaphores = &semaphore_;
    submit_info.pWaitDstStageMask = &stage;
    n.submit_lock->lock();
    const VkResult submitted = submit(reinterpret_cast<VkQueue>(n.queue), 1, &submit_info, VK_NULL_HANDLE);
    n.submit_lock->unlock();
    REQUIRE(submitted == VK_SUCCESS);
  }
  DeviceStall(const DeviceStall&) = delete;
  DeviceStall& operator=(const DeviceStall&) = delete;
  ~DeviceStall() {
    release();
    auto wait_idle = device_fn<PFN_vkDeviceWaitIdle>(device_, "vkDeviceWaitIdle");
    auto destroy = device_fn<PFN_vkDestroySemaphore>(device_, "vkDestroySemaphore");
    if (wait_idle != nullptr) (void)wait_idle(device_);  // the submit that waits for it has run
    if (destroy != nullptr) destroy(device_, semaphore_, nullptr);
  }
  /// Lets the device run on (signals value 1 from the host; once).
  void release() {
    if (released_.exchange(true)) return;
    auto signal = device_fn<PFN_vkSignalSemaphore>(device_, "vkSignalSemaphore");
    VkSemaphoreSignalInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
    info.semaphore = semaphore_;
    info.value = 1;
    if (signal != nullptr) (void)signal(device_, &info);
  }

 private:
  VkDevice device_;
  VkSemaphore semaphore_ = VK_NULL_HANDLE;
  std::atomic<bool> released_{false};
};

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
  REQUIRE(on_b->wait().has_value());  // (were B held behind A, this would hang: the test's timeout fails it)
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

TEST_CASE("vulkan: a Queue far ahead of a stalled device allocates nothing; its commands run in order once it moves") {
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  auto q = Queue::create(*ctx);
  REQUIRE(q.has_value());
  auto buf = Buffer::create(*ctx, 256);
  REQUIRE(buf.has_value());
  std::uint32_t word = 0;
  REQUIRE(q->write(*buf, 0, &word, sizeof word).has_value());  // the root's first command
  REQUIRE(q->finish().has_value());
  const std::size_t before = DefaultAllocator::stats().total_allocations;
  constexpr std::uint32_t kWrites = 300;  // many times the commands a Queue keeps on the device at once
  std::atomic<std::uint32_t> issued{0};
  std::atomic<int> failures{0};
  {
    DeviceStall stall(q->native());
    // Lets the device move once this thread has issued as many commands as a Queue keeps on the device at
    // once (kRingDepth, vk.hpp: 32); the next one waits for the device instead of growing the Queue's
    // command buffers, until then.
    std::thread mover([&] {
      while (issued.load() < 32) std::this_thread::yield();
      stall.release();
    });
    for (std::uint32_t i = 1; i <= kWrites; ++i) {
      word = i;
      auto e = q->write_async(*buf, 0, &word, sizeof word);  // taken at enqueue
      if (!e) ++failures;
      issued.store(i);
    }
    mover.join();
    REQUIRE(q->finish().has_value());
  }
  CHECK(failures.load() == 0);
  CHECK(DefaultAllocator::stats().total_allocations == before);
  std::uint32_t back = 0;
  REQUIRE(q->read(*buf, 0, &back, sizeof back).has_value());
  CHECK(back == kWrites);  // the last write landed last
}

TEST_CASE("vulkan: a gated Queue takes any number of commands without the host waiting, and runs them once opened") {
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  auto q = Queue::create(*ctx);
  REQUIRE(q.has_value());
  auto buf = Buffer::create(*ctx, 256);
  REQUIRE(buf.has_value());
  auto gate = emt::Gate::hold(*q);
  REQUIRE(gate.has_value());
  Event last;
  for (std::uint32_t i = 1; i <= 300; ++i) {  // held, not submitted: none of them may wait for the device
    auto e = q->write_async(*buf, 0, &i, sizeof i);
    REQUIRE(e.has_value());
    last = std::move(*e);
  }
  CHECK_FALSE(*last.is_complete());
  gate->open();
  REQUIRE(last.wait().has_value());
  std::uint32_t back = 0;
  REQUIRE(q->read(*buf, 0, &back, sizeof back).has_value());
  CHECK(back == 300);
}

TEST_CASE("vulkan: memory released while a command uses it is freed by the Queue's finish, not by a later command") {
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  auto q = Queue::create(*ctx);
  REQUIRE(q.has_value());
  REQUIRE(q->finish().has_value());
  const std::vector<unsigned char> bytes(1 << 20, 0x5a);
  auto src = Buffer::from_host(*ctx, bytes.data(), bytes.size());
  REQUIRE(src.has_value());
  const AllocatorStats before = DefaultAllocator::stats();
  {
    auto buf = Buffer::create(*ctx, bytes.size());
    REQUIRE(buf.has_value());
    DeviceStall stall(q->native());
    // A copy (a write of host-visible memory the Queue has nothing before would be done by the host at once).
    auto e = q->copy_async(*src, *buf, 1, 1, bytes.size() - 1);
    REQUIRE(e.has_value());
    REQUIRE(buf->release().has_value());  // the device has not run the write: its memory is retired
    CHECK(DefaultAllocator::stats().allocations > before.allocations);
    stall.release();
    REQUIRE(q->finish().has_value());  // the write has run: nothing reaches the memory any more
    CHECK(*e->is_complete());
  }
  CHECK(DefaultAllocator::stats().allocations == before.allocations);
}
