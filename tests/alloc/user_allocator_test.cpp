// allocator=user: edgemem takes all its memory from two callbacks installed by the application;
// without them every allocating call returns out_of_host_memory.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>

#include <edgemem/edgemem.hpp>

using namespace edgemem;

namespace {

struct Firmware {  // what a firmware heap would count
  std::size_t allocs = 0, frees = 0, live_bytes = 0;
};
Firmware g_fw;

void* fw_allocate(std::size_t bytes, std::size_t align, void* user) noexcept {
  auto* fw = static_cast<Firmware*>(user);
  const std::size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align < sizeof(void*) ? sizeof(void*) : align, rounded);
  if (p != nullptr) {
    ++fw->allocs;
    fw->live_bytes += bytes;
  }
  return p;
}

void fw_deallocate(void* p, std::size_t bytes, std::size_t, void* user) noexcept {
  auto* fw = static_cast<Firmware*>(user);
  ++fw->frees;
  fw->live_bytes -= bytes;
  std::free(p);
}

}  // namespace

TEST_CASE("allocator=user: nothing installed means out_of_host_memory") {
  REQUIRE(EDGEMEM_ALLOCATOR_USER == 1);
  UserAllocator::install(nullptr, nullptr, nullptr);
  const AllocatorStats before = UserAllocator::stats();
  auto ctx = Context::create();
  REQUIRE_FALSE(ctx.has_value());
  CHECK(ctx.error().code == Errc::out_of_host_memory);
  CHECK(UserAllocator::allocate(64, 16) == nullptr);
  CHECK(UserAllocator::stats().failures > before.failures);
  UserAllocator::install(&fw_allocate, &fw_deallocate, &g_fw);
}

TEST_CASE("allocator=user: every byte edgemem uses comes from the callbacks and goes back") {
  UserAllocator::install(&fw_allocate, &fw_deallocate, &g_fw);
  const Firmware start = g_fw;
  {
    auto ctx = Context::create();
    REQUIRE(ctx.has_value());
    auto q = Queue::create(*ctx);
    REQUIRE(q.has_value());
    FixedPool<> pool;
    REQUIRE(pool.init(*ctx, *q, 256, 4).has_value());
    CHECK(g_fw.allocs > start.allocs);
    const std::size_t after_init = g_fw.allocs;
    for (int i = 0; i < 100; ++i) {
      auto b = pool.acquire();
      REQUIRE(b.has_value());
      const std::uint32_t w = 0xC0FFEEu + static_cast<std::uint32_t>(i);
      std::uint32_t back = 0;
      CHECK(q->write(*b, 0, &w, sizeof w).has_value());
      CHECK(q->read(*b, 0, &back, sizeof back).has_value());
      CHECK(back == w);
    }
    CHECK(g_fw.allocs == after_init);  // the steady state allocates nothing
    CHECK(UserAllocator::stats().allocations > 0);
  }
  CHECK(g_fw.allocs - start.allocs == g_fw.frees - start.frees);
  CHECK(g_fw.live_bytes == start.live_bytes);
  CHECK(UserAllocator::stats().in_use_bytes == 0);
}

int main(int argc, char** argv) {
  UserAllocator::install(&fw_allocate, &fw_deallocate, &g_fw);  // before any other edgemem call
  return doctest::Context(argc, argv).run();
}
