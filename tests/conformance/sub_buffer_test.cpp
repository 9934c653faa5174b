// Sub-buffers: views, origins resolved against the root, alignment, ranges, and lifetime.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "test_helpers.hpp"

using namespace edgemem;

TEST_CASE("Buffer::sub: a view whose writes are visible through the parent and vice versa") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer root = f.filled(8 * A, data, Storage::device, MemFlags::read_only);
  ENSURE(root.valid());
  auto s = root.sub(A, 2 * A);
  REQUIRE_OK(s);
  CHECK(s->valid());
  CHECK(s->is_sub());
  CHECK(s->size() == 2 * A);
  CHECK(s->origin() == A);
  CHECK(s->storage() == Storage::device);
  CHECK(s->flags() == MemFlags::read_only);
  CHECK(s->shares_root_with(root));
  CHECK(root.shares_root_with(*s));
  CHECK(s->is_host_accessible() == root.is_host_accessible());
  CHECK(f.snapshot(*s) == emt::Bytes(data.begin() + A, data.begin() + 3 * A));

  // Sub write -> parent.
  const emt::Bytes upd = emt::random_bytes(A + 3);
  CHECK_OK(f.q.write(*s, 5, upd.data(), upd.size()));
  std::copy(upd.begin(), upd.end(), data.begin() + A + 5);
  CHECK(f.snapshot(root) == data);
  // Parent write -> sub.
  const emt::Bytes upd2 = emt::random_bytes(2 * A);
  CHECK_OK(f.q.write(root, A / 2, upd2.data(), upd2.size()));
  std::copy(upd2.begin(), upd2.end(), data.begin() + A / 2);
  CHECK(f.snapshot(*s) == emt::Bytes(data.begin() + A, data.begin() + 3 * A));
  CHECK(f.snapshot(root) == data);

  // Whole-buffer and tail subs are allowed.
  auto whole = root.sub(0, root.size());
  CHECK_OK(whole);
  if (whole) CHECK(f.snapshot(*whole) == data);
  auto tail = root.sub(7 * A, A);
  CHECK_OK(tail);
  if (tail) CHECK(f.snapshot(*tail) == emt::Bytes(data.begin() + 7 * A, data.end()));
  // Another root does not share.
  auto other = Buffer::like(root);
  REQUIRE_OK(other);
  CHECK_FALSE(s->shares_root_with(*other));
  Buffer empty;
  CHECK_FALSE(s->shares_root_with(empty));
  CHECK_FALSE(empty.shares_root_with(*s));
}

TEST_CASE("Buffer::sub of a sub resolves its origin against the root") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer root = f.filled(8 * A, data);
  ENSURE(root.valid());
  auto mid = root.sub(2 * A, 4 * A);
  REQUIRE_OK(mid);
  auto inner = mid->sub(A, 2 * A);  // aligned relative offset and aligned absolute origin 3A
  REQUIRE_OK(inner);
  CHECK(inner->origin() == 3 * A);
  CHECK(inner->size() == 2 * A);
  CHECK(inner->is_sub());
  CHECK(inner->shares_root_with(root));
  CHECK(f.snapshot(*inner) == emt::Bytes(data.begin() + 3 * A, data.begin() + 5 * A));
  const emt::Bytes upd = emt::random_bytes(2 * A);
  CHECK_OK(f.q.write(*inner, 0, upd.data(), upd.size()));
  std::copy(upd.begin(), upd.end(), data.begin() + 3 * A);
  CHECK(f.snapshot(root) == data);
  CHECK(f.snapshot(*mid) == emt::Bytes(data.begin() + 2 * A, data.begin() + 6 * A));

  // The range is checked against the sub, not the root.
  CHECK_ERRC(mid->sub(3 * A, 2 * A), Errc::out_of_range);
  CHECK_ERRC(inner->sub(0, 2 * A + 1), Errc::out_of_range);
  CHECK(f.snapshot(root) == data);
}

TEST_CASE("Buffer::sub: invalid_argument, out_of_range (overflow included), misaligned") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer root = f.filled(4 * A, data);
  ENSURE(root.valid());
  CHECK_ERRC(root.sub(0, 0), Errc::invalid_argument);
  CHECK_ERRC(root.sub(A, 0), Errc::invalid_argument);
  CHECK_ERRC(root.sub(8 * A + 1, 0), Errc::invalid_argument);  // zero size is reported before the range
  CHECK_ERRC(root.sub(0, 4 * A + 1), Errc::out_of_range);
  CHECK_ERRC(root.sub(4 * A, 1), Errc::out_of_range);
  CHECK_ERRC(root.sub(3 * A, 2 * A), Errc::out_of_range);
  CHECK_ERRC(root.sub(1, SIZE_MAX), Errc::out_of_range);
  CHECK_ERRC(root.sub(SIZE_MAX, 1), Errc::out_of_range);
  CHECK_ERRC(root.sub(SIZE_MAX - A + 1, 2 * A), Errc::out_of_range);
  CHECK_ERRC(root.sub(A / 2 + 1, SIZE_MAX), Errc::out_of_range);  // range before alignment
  if (A > 1) {
    CHECK_ERRC(root.sub(A / 2, A), Errc::misaligned);
    CHECK_ERRC(root.sub(1, A), Errc::misaligned);
    CHECK_ERRC(root.sub(A + A / 2, 1), Errc::misaligned);
    auto mid = root.sub(A, 2 * A);
    REQUIRE_OK(mid);
    // The relative offset A/2 is inside the sub, but the root origin 1.5 A is not aligned.
    CHECK_ERRC(mid->sub(A / 2, A), Errc::misaligned);
    CHECK_ERRC(mid->sub(A / 2, 0), Errc::invalid_argument);
    // Relative offset A of a sub at A: absolute 2A, aligned.
    auto ok = mid->sub(A, A);
    CHECK_OK(ok);
    if (ok) CHECK(ok->origin() == 2 * A);
    CHECK(mid->size() == 2 * A);
    CHECK(mid->origin() == A);
  } else {
    MESSAGE("base_align is 1 byte: every origin is aligned, misaligned sub-buffers cannot occur");
  }
  // Nothing changed.
  CHECK(root.valid());
  CHECK(root.size() == 4 * A);
  CHECK(f.snapshot(root) == data);
}

TEST_CASE("Buffer::sub: released for a released or moved-from buffer") {
  emt::Fixture f;
  Buffer empty;
  CHECK_ERRC(empty.sub(0, 1), Errc::released);
  CHECK_ERRC(empty.sub(0, 0), Errc::released);  // released is checked first
  auto b = Buffer::create(f.ctx, 4 * f.align());
  REQUIRE_OK(b);
  Buffer moved = std::move(*b);
  CHECK_ERRC(b->sub(0, f.align()), Errc::released);
  CHECK_OK(moved.release());
  CHECK_ERRC(moved.sub(0, f.align()), Errc::released);
}

TEST_CASE("Buffer lifetime: a sub-buffer keeps the root's memory alive after the parent is released") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer root = f.filled(4 * A, data);
  ENSURE(root.valid());
  auto s = root.sub(A, 2 * A);
  REQUIRE_OK(s);
  CHECK_OK(root.release());  // allowed: the sub holds a reference
  CHECK_FALSE(root.valid());
  CHECK(root.size() == 0);
  CHECK(s->valid());
  CHECK(s->size() == 2 * A);
  CHECK(s->origin() == A);
  emt::Bytes expect(data.begin() + A, data.begin() + 3 * A);
  CHECK(f.snapshot(*s) == expect);
  const emt::Bytes upd = emt::random_bytes(2 * A);
  CHECK_OK(f.q.write(*s, 0, upd.data(), upd.size()));
  CHECK(f.snapshot(*s) == upd);
  {
    auto m = f.q.map<unsigned char>(*s, Access::write, 0, A);
    REQUIRE_OK(m);
    CHECK(emt::Bytes(m->begin(), m->end()) == emt::Bytes(upd.begin(), upd.begin() + A));
  }
  auto l = Buffer::like(*s);
  CHECK_OK(l);
}

TEST_CASE("Buffer lifetime: nested subs outlive their parents, in any release order") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer inner;
  {
    Buffer root = f.filled(8 * A, data);
    ENSURE(root.valid());
    auto mid = root.sub(2 * A, 4 * A);
    REQUIRE_OK(mid);
    auto in = mid->sub(A, A);
    REQUIRE_OK(in);
    inner = std::move(*in);
    // root and mid die here (mid first, then root).
  }
  CHECK(inner.valid());
  CHECK(inner.origin() == 3 * A);
  CHECK(f.snapshot(inner) == emt::Bytes(data.begin() + 3 * A, data.begin() + 4 * A));

  // A deep chain released from the leaf end first, and from the root end first.
  for (int order = 0; order < 2; ++order) {
    CAPTURE(order);
    auto r = Buffer::create(f.ctx, 2 * A);
    REQUIRE_OK(r);
    std::vector<Buffer> chain;
    chain.push_back(std::move(*r));
    for (int i = 0; i < 200; ++i) {
      auto next = chain.back().sub(0, 2 * A);
      REQUIRE_OK(next);
      chain.push_back(std::move(*next));
    }
    const emt::Bytes bytes = emt::random_bytes(2 * A);
    CHECK_OK(f.q.write(chain.front(), 0, bytes.data(), bytes.size()));
    CHECK(f.snapshot(chain.back()) == bytes);
    if (order == 0) {
      for (std::size_t i = chain.size(); i-- > 1;) CHECK_OK(chain[i].release());
      CHECK(f.snapshot(chain.front()) == bytes);
    } else {
      for (std::size_t i = 0; i + 1 < chain.size(); ++i) CHECK_OK(chain[i].release());
      CHECK(f.snapshot(chain.back()) == bytes);
    }
  }
}

TEST_CASE("Buffer::sub of host, shared and wrapped buffers") {
  emt::Fixture f;
  const std::size_t A = f.align();
  for (Storage st : {Storage::host, Storage::shared}) {
    CAPTURE(static_cast<int>(st));
    emt::Bytes data;
    Buffer root = f.filled(4 * A, data, st);
    ENSURE(root.valid());
    auto s = root.sub(2 * A, A);
    REQUIRE_OK(s);
    CHECK(s->storage() == st);
    CHECK(s->is_host_accessible());
    const emt::Bytes upd = emt::random_bytes(A);
    CHECK_OK(f.q.write(*s, 0, upd.data(), upd.size()));
    std::copy(upd.begin(), upd.end(), data.begin() + 2 * A);
    CHECK(f.snapshot(root) == data);
  }
  const std::size_t n = 4 * (A > 4096 ? A : 4096);
  auto* mem = static_cast<unsigned char*>(std::aligned_alloc(4096, n));
  ENSURE(mem != nullptr);
  const emt::Bytes init = emt::random_bytes(n);
  std::memcpy(mem, init.data(), n);
  {
    auto w = Buffer::wrap(f.ctx, mem, n);
    REQUIRE_OK(w);
    auto s = w->sub(n / 2, n / 4);
    REQUIRE_OK(s);
    CHECK(s->storage() == Storage::host);
    CHECK(s->is_host_accessible());
    const emt::Bytes upd = emt::random_bytes(n / 4);
    CHECK_OK(f.q.write(*s, 0, upd.data(), upd.size()));
    auto m = f.q.map<unsigned char>(*w, Access::read);
    REQUIRE_OK(m);
    CHECK(std::memcmp(m->data() + n / 2, upd.data(), upd.size()) == 0);
    CHECK(std::memcmp(mem + n / 2, upd.data(), upd.size()) == 0);
    CHECK(std::memcmp(mem, init.data(), n / 2) == 0);
  }
  std::free(mem);
}

TEST_CASE("Buffer::sub inherits host access flags") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer root = f.filled(2 * A, data, Storage::device, MemFlags::host_read_only);
  ENSURE(root.valid());
  auto s = root.sub(A, A);
  REQUIRE_OK(s);
  CHECK(s->flags() == MemFlags::host_read_only);
  const emt::Bytes upd = emt::random_bytes(A);
  CHECK_ERRC(f.q.write(*s, 0, upd.data(), upd.size()), Errc::access_denied);
  CHECK(f.snapshot(root) == data);
}
