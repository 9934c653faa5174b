// Bad states: use after release and after a move on every kind of handle, and that a failed call
// leaves every object (contents, properties, mappings, slots) exactly as it was.
#include <cstdint>
#include <cstring>
#include <vector>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// Every Buffer accessor reports the documented released values; every use returns released.
void check_released_buffer(emt::Fixture& f, Buffer& dead, Buffer& live) {
  CHECK_FALSE(dead.valid());
  CHECK(dead.size() == 0);
  CHECK(dead.origin() == 0);
  CHECK_FALSE(dead.is_sub());
  CHECK(dead.storage() == Storage::device);
  CHECK(dead.flags() == MemFlags::read_write);
  CHECK_FALSE(dead.is_host_accessible());
  CHECK_FALSE(dead.shares_root_with(dead));
  CHECK_FALSE(dead.shares_root_with(live));
  CHECK_OK(dead.release());
  CHECK_ERRC(dead.sub(0, 1), Errc::released);
  CHECK_ERRC(Buffer::like(dead), Errc::released);
  unsigned char bytes[64] = {9};
  const unsigned char pat = 1;
  const Rect r{{}, {}, {8, 2, 1}};
  const CopyRect cr{{}, {}, {8, 2, 1}};
  CHECK_ERRC(f.q.write(dead, 0, bytes, 8), Errc::released);
  CHECK_ERRC(f.q.write_async(dead, 0, bytes, 8), Errc::released);
  CHECK_ERRC(f.q.read(dead, 0, bytes, 8), Errc::released);
  CHECK_ERRC(f.q.read_async(dead, 0, bytes, 8), Errc::released);
  CHECK_ERRC(f.q.fill(dead, 0, 8, &pat, 1), Errc::released);
  CHECK_ERRC(f.q.fill_async(dead, 0, 8, &pat, 1), Errc::released);
  CHECK_ERRC(f.q.copy(dead, live, 0, 0, 8), Errc::released);
  CHECK_ERRC(f.q.copy_async(live, dead, 0, 0, 8), Errc::released);
  CHECK_ERRC(f.q.write_rect(dead, r, bytes, sizeof bytes), Errc::released);
  CHECK_ERRC(f.q.write_rect_async(dead, r, bytes, sizeof bytes), Errc::released);
  CHECK_ERRC(f.q.read_rect(dead, r, bytes, sizeof bytes), Errc::released);
  CHECK_ERRC(f.q.read_rect_async(dead, r, bytes, sizeof bytes), Errc::released);
  CHECK_ERRC(f.q.copy_rect(dead, live, cr), Errc::released);
  CHECK_ERRC(f.q.copy_rect_async(live, dead, cr), Errc::released);
  CHECK_ERRC(f.q.migrate(dead, Migration::to_host), Errc::released);
  CHECK_ERRC(f.q.migrate_async(dead, Migration::to_device), Errc::released);
  CHECK_ERRC(f.q.map(dead, Access::read), Errc::released);
  CHECK_ERRC(f.q.map(dead, Access::write, 0, 8), Errc::released);
  CHECK(bytes[0] == 9);
}

}  // namespace

TEST_CASE("Buffer: released and moved-from handles") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer live = f.filled(256, data);
  ENSURE(live.valid());

  Buffer never;
  check_released_buffer(f, never, live);

  auto made = Buffer::create(f.ctx, 128);
  REQUIRE_OK(made);
  CHECK_OK(made->release());
  check_released_buffer(f, *made, live);

  Buffer moved = std::move(live);  // move construction
  CHECK(moved.valid());
  CHECK(moved.size() == 256);
  check_released_buffer(f, live, moved);
  CHECK(f.snapshot(moved) == data);

  Buffer target;
  target = std::move(moved);  // move assignment into an empty handle
  check_released_buffer(f, moved, target);
  CHECK(f.snapshot(target) == data);
  emt::move_assign(target, target);  // self-move keeps the buffer
  CHECK(target.valid());
  CHECK(f.snapshot(target) == data);

  // Move-assigning over a live buffer drops it; a sub-buffer of it keeps its memory alive.
  emt::Bytes other_data;
  Buffer other = f.filled(4 * f.align(), other_data);
  ENSURE(other.valid());
  auto sub = other.sub(f.align(), f.align());
  REQUIRE_OK(sub);
  other = std::move(target);
  CHECK(other.size() == 256);
  CHECK(f.snapshot(other) == data);
  CHECK(f.snapshot(*sub) == emt::Bytes(other_data.begin() + f.align(), other_data.begin() + 2 * f.align()));
  CHECK_FALSE(sub->shares_root_with(other));
}

TEST_CASE("Queue: every call on a released or moved-from queue returns released") {
  emt::Fixture f;
  emt::Bytes data, data2;
  Buffer b = f.filled(256, data);
  Buffer b2 = f.filled(256, data2);
  ENSURE(b.valid());
  ENSURE(b2.valid());
  Queue owner = std::move(f.q);
  for (int which = 0; which < 2; ++which) {
    CAPTURE(which);
    Queue& dead = f.q;  // which 0: moved-from; which 1: released
    if (which == 1) {
      dead = std::move(owner);
      CHECK_OK(dead.release());
    }
    CHECK_FALSE(dead.valid());
    unsigned char bytes[64] = {9};
    const unsigned char pat = 1;
    const Rect r{{}, {}, {8, 2, 1}};
    const CopyRect cr{{}, {}, {8, 2, 1}};
    CHECK_ERRC(dead.finish(), Errc::released);
    CHECK_ERRC(dead.write(b, 0, bytes, 8), Errc::released);
    CHECK_ERRC(dead.write_async(b, 0, bytes, 8), Errc::released);
    CHECK_ERRC(dead.read(b, 0, bytes, 8), Errc::released);
    CHECK_ERRC(dead.read_async(b, 0, bytes, 8), Errc::released);
    CHECK_ERRC(dead.fill(b, 0, 8, &pat, 1), Errc::released);
    CHECK_ERRC(dead.fill_async(b, 0, 8, &pat, 1), Errc::released);
    CHECK_ERRC(dead.copy(b, b2, 0, 0, 8), Errc::released);
    CHECK_ERRC(dead.copy_async(b, b2, 0, 0, 8), Errc::released);
    CHECK_ERRC(dead.write_rect(b, r, bytes, sizeof bytes), Errc::released);
    CHECK_ERRC(dead.write_rect_async(b, r, bytes, sizeof bytes), Errc::released);
    CHECK_ERRC(dead.read_rect(b, r, bytes, sizeof bytes), Errc::released);
    CHECK_ERRC(dead.read_rect_async(b, r, bytes, sizeof bytes), Errc::released);
    CHECK_ERRC(dead.copy_rect(b, b2, cr), Errc::released);
    CHECK_ERRC(dead.copy_rect_async(b, b2, cr), Errc::released);
    CHECK_ERRC(dead.migrate(b, Migration::to_host), Errc::released);
    CHECK_ERRC(dead.migrate_async(b, Migration::to_device), Errc::released);
    CHECK_ERRC(dead.map(b, Access::read), Errc::released);
    CHECK_ERRC(dead.map<std::uint32_t>(b, Access::write, 0, 8), Errc::released);
    CHECK_OK(dead.release());
    CHECK(bytes[0] == 9);
  }
  // The buffers are untouched and usable on a new queue.
  auto q = Queue::create(f.ctx);
  REQUIRE_OK(q);
  f.q = std::move(*q);
  CHECK(f.snapshot(b) == data);
  CHECK(f.snapshot(b2) == data2);
}

TEST_CASE("a failed call leaves contents, properties, mappings and slots unchanged") {
  emt::Fixture f;
  emt::OtherContext other(256);
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer root = f.filled(4 * A, data, Storage::shared);
  ENSURE(root.valid());
  auto sub = root.sub(A, 2 * A);
  REQUIRE_OK(sub);
  auto m = f.q.map<unsigned char>(*sub, Access::write, 0, A);  // root [A, 2A)
  REQUIRE_OK(m);
  const emt::Bytes src = emt::random_bytes(4 * A);
  emt::Bytes sink(4 * A, 0x21);
  const std::uint64_t pat = 0x0102030405060708ull;
  std::vector<Event> long_list = f.events(33);
  if (long_list.size() == 33) CHECK_OK(long_list[32].release());  // a long list with a released event
  Event dead;

  // One failing call per documented Errc that a transfer, map or sub can return.
  if (A > 1) CHECK_ERRC(root.sub(A / 2, A), Errc::misaligned);
  CHECK_ERRC(root.sub(1, SIZE_MAX), Errc::out_of_range);
  CHECK_ERRC(sub->sub(0, 0), Errc::invalid_argument);
  CHECK_ERRC(f.q.write(root, 0, nullptr, 8), Errc::invalid_argument);
  CHECK_ERRC(f.q.write(other.buf, 0, src.data(), 8), Errc::invalid_argument);
  CHECK_ERRC(f.q.write(root, 1, src.data(), SIZE_MAX), Errc::out_of_range);
  CHECK_ERRC(f.q.fill(root, 4, 16, &pat, 8), Errc::misaligned);
  CHECK_ERRC(f.q.copy(root, *sub, 0, 0, A + 1), Errc::overlap);
  CHECK_ERRC(f.q.write(*sub, 0, src.data(), 1), Errc::busy);
  CHECK_ERRC(f.q.read(root, A, sink.data(), 1), Errc::busy);
  CHECK_ERRC(f.q.write_async(root, 3 * A, src.data(), A, long_list), Errc::released);
  CHECK_ERRC(f.q.write_async(root, 3 * A, src.data(), A, dead), Errc::released);
  CHECK_ERRC(f.q.map(root, Access::read, A, 1), Errc::busy);
  CHECK_ERRC(f.q.map<std::uint32_t>(root, Access::read, 2, 4), Errc::misaligned);
  CHECK_ERRC(sub->release(), Errc::busy);
  CHECK(sink == emt::Bytes(4 * A, 0x21));

  // Properties unchanged.
  CHECK(root.valid());
  CHECK(root.size() == 4 * A);
  CHECK(root.origin() == 0);
  CHECK(root.storage() == Storage::shared);
  CHECK(sub->valid());
  CHECK(sub->is_sub());
  CHECK(sub->size() == 2 * A);
  CHECK(sub->origin() == A);
  // The mapping is intact and still holds the contents.
  CHECK(m->mapped());
  CHECK(m->size() == A);
  CHECK(std::memcmp(m->data(), data.data() + A, A) == 0);
  // Slots: the sub still has exactly kMaxMaps - 1 free.
  std::vector<Mapping<unsigned char>> more;
  for (std::size_t i = 1; i < emt::kMaxMaps; ++i) {
    auto extra = f.q.map<unsigned char>(*sub, Access::read, A, 8);
    CHECK_OK(extra);
    if (extra) more.push_back(std::move(*extra));
  }
  CHECK_ERRC(f.q.map(*sub, Access::read, A, 8), Errc::exhausted);
  more.clear();
  CHECK_OK(m->unmap());
  CHECK(f.snapshot(root) == data);
  CHECK(other.unchanged());
}
