// The static arena allocator: alignment, reuse, coalescing, exhaustion, and how exhaustion
// surfaces through the public API (Errc::out_of_host_memory).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <edgemem/edgemem.hpp>

using namespace edgemem;
using A = StaticArenaAllocator;

namespace {
bool aligned(void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }
}  // namespace

TEST_CASE("static arena: honours every power-of-two alignment up to 64 KiB") {
  const AllocatorStats start = A::stats();
  std::vector<void*> blocks;
  for (std::size_t align = 1; align <= 65536; align *= 2) {
    void* p = A::allocate(100, align);
    REQUIRE(p != nullptr);
    CHECK(aligned(p, align));
    std::memset(p, 0xAB, 100);
    blocks.push_back(p);
  }
  for (void* p : blocks) A::deallocate(p, 100, 1);
  CHECK(A::stats().in_use_bytes == start.in_use_bytes);
  CHECK(A::stats().allocations == start.allocations);
}

TEST_CASE("static arena: freed neighbours coalesce so a large block fits again") {
  const AllocatorStats start = A::stats();
  const std::size_t cap = start.capacity_bytes;
  REQUIRE(cap == (EDGEMEM_STATIC_ARENA_BYTES / 16) * 16);
  const std::size_t chunk = cap / 8;
  void* p[6];
  for (auto& x : p) {
    x = A::allocate(chunk, 16);
    REQUIRE(x != nullptr);
  }
  // Free in an order that needs both forward and backward merging.
  A::deallocate(p[1], chunk, 16);
  A::deallocate(p[3], chunk, 16);
  A::deallocate(p[2], chunk, 16);
  void* big = A::allocate(3 * chunk, 16);
  CHECK(big != nullptr);
  A::deallocate(big, 3 * chunk, 16);
  for (int i : {0, 4, 5}) A::deallocate(p[i], chunk, 16);
  void* all = A::allocate(cap - 4096, 16);
  CHECK(all != nullptr);
  A::deallocate(all, 0, 16);
  CHECK(A::stats().in_use_bytes == start.in_use_bytes);
}

TEST_CASE("static arena: exhaustion returns null and counts a failure; zero bytes is refused") {
  const AllocatorStats start = A::stats();
  CHECK(A::allocate(start.capacity_bytes + 1, 16) == nullptr);
  CHECK(A::allocate(0, 16) == nullptr);
  CHECK(A::allocate(64, 3) == nullptr);  // not a power of two
  CHECK(A::stats().failures == start.failures + 3);
  CHECK(A::stats().in_use_bytes == start.in_use_bytes);
}

TEST_CASE("static arena exhaustion reaches users as Errc::out_of_host_memory and changes nothing") {
  auto ctx = Context::create();
  REQUIRE(ctx);
  auto q = Queue::create(*ctx);
  REQUIRE(q);
  auto keep = Buffer::create(*ctx, 4096);
  REQUIRE(keep);
  unsigned char data[4096];
  for (std::size_t i = 0; i < sizeof data; ++i) data[i] = static_cast<unsigned char>(i ^ 0x5A);
  REQUIRE(q->write(*keep, 0, data, sizeof data));

  // max_alloc_bytes is the arena size; the arena also holds bookkeeping, so this cannot fit.
  const std::size_t too_big = ctx->info().max_alloc_bytes;
  CHECK(too_big == EDGEMEM_STATIC_ARENA_BYTES);
  const AllocatorStats before = A::stats();
  auto r = Buffer::create(*ctx, too_big);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::out_of_host_memory);
  CHECK(A::stats().in_use_bytes == before.in_use_bytes);

  unsigned char back[4096] = {};
  REQUIRE(q->read(*keep, 0, back, sizeof back));
  CHECK(std::memcmp(back, data, sizeof data) == 0);
}
