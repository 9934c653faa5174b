// The Vulkan backend's memory blocks (vk_block.hpp): buffers of up to 1 MiB share a few large
// VkDeviceMemory allocations, so an application with thousands of small buffers stays under the
// device's maxMemoryAllocationCount (4096 on some drivers). Run with EDGEMEM_VULKAN_MAX_ALLOCATIONS=16
// (tests/meson.build): 10,000 small buffers live at once must fit, each keeping its own bytes; larger
// buffers, which get memory of their own, meet the limit with out_of_device_memory and leave every
// other object as it was.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <doctest/doctest.h>

#include <edgemem/edgemem.hpp>

using namespace edgemem;

namespace {

/// The limit the test runs under (EDGEMEM_VULKAN_MAX_ALLOCATIONS; 0: not set).
unsigned long forced_limit() {
  const char* v = std::getenv("EDGEMEM_VULKAN_MAX_ALLOCATIONS");
  return v != nullptr ? std::strtoul(v, nullptr, 10) : 0;
}

/// 64 words of buffer `i`'s own pattern.
std::vector<std::uint32_t> pattern(std::uint32_t i, std::size_t words = 64) {
  std::vector<std::uint32_t> v(words);
  for (std::size_t w = 0; w < words; ++w) v[w] = i * 0x9E3779B9u + static_cast<std::uint32_t>(w);
  return v;
}

}  // namespace

TEST_CASE("vulkan memory: 10,000 small buffers live at once under a limit of 16 allocations keep their own bytes") {
  REQUIRE(forced_limit() == 16);
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  auto q = Queue::create(*ctx);
  REQUIRE(q.has_value());
  constexpr std::uint32_t kCount = 10000;
  std::vector<Buffer> buffers;
  buffers.reserve(kCount);
  for (std::uint32_t i = 0; i < kCount; ++i) {
    auto b = Buffer::create(*ctx, 256, i % 10 == 9 ? Storage::host : Storage::device);
    REQUIRE_MESSAGE(b.has_value(), "buffer ", i, ": ", b.error().message);
    const std::vector<std::uint32_t> p = pattern(i);
    REQUIRE(q->write(*b, 0, p.data(), 256).has_value());
    buffers.push_back(std::move(*b));
  }
  // They share memory: consecutive device buffers are ranges of one VkDeviceMemory, at distinct offsets.
  auto n0 = buffers[0].native(), n1 = buffers[1].native();
  REQUIRE(n0.has_value());
  REQUIRE(n1.has_value());
  CHECK(n0->root->memory == n1->root->memory);
  CHECK(n0->root->memory_offset != n1->root->memory_offset);
  CHECK(n0->root->block != nullptr);
  std::uint32_t wrong = 0;
  std::vector<std::uint32_t> got(64);
  for (std::uint32_t i = 0; i < kCount; ++i) {
    REQUIRE(q->read(buffers[i], 0, got.data(), 256).has_value());
    if (got != pattern(i)) ++wrong;
  }
  CHECK(wrong == 0);
  // Released in a scattered order, then made again into the holes.
  for (std::uint32_t i = 0; i < kCount; i += 3) REQUIRE(buffers[i].release().has_value());
  for (std::uint32_t i = 0; i < kCount; i += 3) {
    auto b = Buffer::create(*ctx, 200 + i % 56, Storage::device);
    REQUIRE(b.has_value());
    buffers[i] = std::move(*b);
    const std::vector<std::uint32_t> p = pattern(i + kCount, 50);
    REQUIRE(q->write(buffers[i], 0, p.data(), 200).has_value());
  }
  for (std::uint32_t i = 0; i < kCount; ++i) {
    REQUIRE(q->read(buffers[i], 0, got.data(), 200).has_value());
    const std::vector<std::uint32_t> want = pattern(i % 3 == 0 ? i + kCount : i, 50);
    if (std::memcmp(got.data(), want.data(), 200) != 0) ++wrong;
  }
  CHECK(wrong == 0);
}

TEST_CASE("vulkan memory: views, maps and pool blocks of buffers in a shared block reach only their own range") {
  REQUIRE(forced_limit() == 16);
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  auto q = Queue::create(*ctx);
  REQUIRE(q.has_value());
  const std::size_t align = ctx->base_align();
  auto left = Buffer::create(*ctx, 4 * align, Storage::device);
  auto mid = Buffer::create(*ctx, 4 * align, Storage::shared);
  auto right = Buffer::create(*ctx, 4 * align, Storage::device);
  REQUIRE(left.has_value());
  REQUIRE(mid.has_value());
  REQUIRE(right.has_value());
  const std::uint8_t b11 = 0x11, b22 = 0x22, b33 = 0x33;
  REQUIRE(q->fill(*left, 0, 4 * align, &b11, 1).has_value());
  REQUIRE(q->fill(*right, 0, 4 * align, &b33, 1).has_value());
  REQUIRE(q->fill(*mid, 0, 4 * align, &b22, 1).has_value());
  auto view = mid->sub(align, 2 * align);
  REQUIRE(view.has_value());
  {
    auto m = q->map<std::uint8_t>(*view, Access::write_discard);
    REQUIRE(m.has_value());
    std::memset(m->data(), 0x5A, 2 * align);
    REQUIRE(m->unmap().has_value());
  }
  REQUIRE(q->copy(*view, *right, 0, align, align).has_value());
  std::vector<std::uint8_t> l(4 * align), c(4 * align), r(4 * align);
  REQUIRE(q->read(*left, 0, l.data(), l.size()).has_value());
  REQUIRE(q->read(*mid, 0, c.data(), c.size()).has_value());
  REQUIRE(q->read(*right, 0, r.data(), r.size()).has_value());
  for (std::size_t i = 0; i < 4 * align; ++i) {
    REQUIRE(l[i] == 0x11);
    REQUIRE(c[i] == (i >= align && i < 3 * align ? 0x5A : 0x22));
    REQUIRE(r[i] == (i >= align && i < 2 * align ? 0x5A : 0x33));
  }
  // A pool of 64 KiB blocks is one root of 1 MiB, itself a range of a shared block.
  FixedPool<16> pool;
  REQUIRE(pool.init(*ctx, *q, 64 * 1024).has_value());
  std::vector<PooledBuffer> held;
  for (std::uint32_t i = 0; i < 16; ++i) {
    auto blk = pool.acquire();
    REQUIRE(blk.has_value());
    const std::vector<std::uint32_t> p = pattern(i);
    REQUIRE(q->write(blk->buffer(), 60 * 1024, p.data(), 256).has_value());
    held.push_back(std::move(*blk));
  }
  std::vector<std::uint32_t> got(64);
  for (std::uint32_t i = 0; i < 16; ++i) {
    REQUIRE(q->read(held[i].buffer(), 60 * 1024, got.data(), 256).has_value());
    CHECK(got == pattern(i));
  }
  held.clear();
  REQUIRE(pool.release().has_value());
}

TEST_CASE("vulkan memory: buffers of their own meet the allocation limit with out_of_device_memory, others untouched") {
  const unsigned long limit = forced_limit();
  REQUIRE(limit == 16);
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  auto q = Queue::create(*ctx);
  REQUIRE(q.has_value());
  auto small = Buffer::create(*ctx, 256, Storage::device);  // a block (one allocation)
  REQUIRE(small.has_value());
  const std::vector<std::uint32_t> p = pattern(7);
  REQUIRE(q->write(*small, 0, p.data(), 256).has_value());
  std::vector<std::uint32_t> got(64);
  REQUIRE(q->read(*small, 0, got.data(), 256).has_value());  // (staged where not host-visible: its block now)
  CHECK(got == p);
  std::vector<Buffer> big;
  Result<Buffer> refused = fail(Errc::invalid_argument, "not tried");
  for (unsigned long i = 0; i <= limit; ++i) {
    refused = Buffer::create(*ctx, 2u << 20, Storage::device);
    if (!refused) break;
    big.push_back(std::move(*refused));
  }
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == Errc::out_of_device_memory);
  CHECK(big.size() < limit);
  CHECK(big.size() + 3 >= limit);  // the device block, and staging blocks where writes stage
  got.assign(64, 0);
  REQUIRE(q->read(*small, 0, got.data(), 256).has_value());
  CHECK(got == p);
  // Small buffers still come from the block; one big buffer released makes room for another.
  auto more = Buffer::create(*ctx, 4096, Storage::device);
  CHECK(more.has_value());
  REQUIRE(big.back().release().has_value());
  big.pop_back();
  auto again = Buffer::create(*ctx, 2u << 20, Storage::device);
  CHECK(again.has_value());
}

TEST_CASE("vulkan memory: neighbours in one block written by two queues at once keep their own bytes") {
  REQUIRE(forced_limit() == 16);
  auto ctx = Context::create();
  REQUIRE(ctx.has_value());
  auto qa = Queue::create(*ctx);
  auto qb = Queue::create(*ctx);
  REQUIRE(qa.has_value());
  REQUIRE(qb.has_value());
  constexpr std::size_t kBytes = std::size_t{1} << 20;  // the largest buffer a block serves
  constexpr std::uint32_t kPairs = 8;                   // 16 MiB: half a block
  std::vector<Buffer> a, b;
  std::vector<std::vector<std::uint32_t>> pa, pb;
  for (std::uint32_t i = 0; i < kPairs; ++i) {
    auto x = Buffer::create(*ctx, kBytes, Storage::device);
    auto y = Buffer::create(*ctx, kBytes, Storage::device);
    REQUIRE(x.has_value());
    REQUIRE(y.has_value());
    a.push_back(std::move(*x));
    b.push_back(std::move(*y));
    pa.push_back(pattern(2 * i, kBytes / 4));
    pb.push_back(pattern(2 * i + 1, kBytes / 4));
  }
  auto na = a[0].native(), nb = b[0].native();
  REQUIRE(na.has_value());
  REQUIRE(nb.has_value());
  CHECK(na->root->memory == nb->root->memory);  // neighbours in one block
  std::vector<Event> done;
  for (std::uint32_t i = 0; i < kPairs; ++i) {  // interleaved: the two queues' commands run side by side
    auto ea = qa->write_async(a[i], 0, pa[i].data(), kBytes);
    auto eb = qb->write_async(b[i], 0, pb[i].data(), kBytes);
    REQUIRE(ea.has_value());
    REQUIRE(eb.has_value());
    done.push_back(std::move(*ea));
    done.push_back(std::move(*eb));
  }
  std::vector<std::uint32_t> got(kBytes / 4);
  for (std::uint32_t i = 0; i < kPairs; ++i) {  // each read on the other queue: ordered after the write by edgemem
    REQUIRE(qb->read(a[i], 0, got.data(), kBytes).has_value());
    CHECK(got == pa[i]);
    REQUIRE(qa->read(b[i], 0, got.data(), kBytes).has_value());
    CHECK(got == pb[i]);
  }
  for (Event& e : done) CHECK(*e.is_complete());
}
