// The mapping rules of mapping.hpp: conflicting maps and transfers return busy, release of a mapped
// handle returns busy, and a handle holds at most EDGEMEM_MAX_MAPPINGS_PER_BUFFER mappings.
#include <cstdint>
#include <cstring>
#include <vector>

#include "test_helpers.hpp"

using namespace edgemem;

TEST_CASE("map vs map: overlapping ranges coexist only when both are read") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer b = f.filled(4 * A, data);
  ENSURE(b.valid());
  {
    auto w = f.q.map(b, Access::write, 0, 2 * A);
    REQUIRE_OK(w);
    CHECK_ERRC(f.q.map(b, Access::write, A, 2 * A), Errc::busy);
    CHECK_ERRC(f.q.map(b, Access::write_discard, 2 * A - 1, 1), Errc::busy);
    CHECK_ERRC(f.q.map(b, Access::read, 0, 1), Errc::busy);
    CHECK_ERRC(f.q.map(b, Access::read), Errc::busy);
    auto adjacent = f.q.map(b, Access::write, 2 * A, 2 * A);  // touching, not overlapping
    CHECK_OK(adjacent);
    CHECK(w->mapped());
  }
  {
    auto r = f.q.map(b, Access::read, A, A);
    REQUIRE_OK(r);
    CHECK_ERRC(f.q.map(b, Access::write, 0, A + 1), Errc::busy);
    CHECK_ERRC(f.q.map(b, Access::write_discard), Errc::busy);
    auto w = f.q.map(b, Access::write, 2 * A, A);  // disjoint from the read mapping
    CHECK_OK(w);
    if (w) CHECK_OK(w->unmap());
    auto r2 = f.q.map(b, Access::read);  // read + read: allowed
    CHECK_OK(r2);
    CHECK_ERRC(f.q.map(b, Access::write, 2 * A, A), Errc::busy);  // now under the whole-buffer read map
  }
  {
    auto d = f.q.map(b, Access::write_discard, 3 * A, A);
    REQUIRE_OK(d);
    CHECK_ERRC(f.q.map(b, Access::read, 3 * A, 1), Errc::busy);
    std::memcpy(d->data(), data.data() + 3 * A, A);  // write the whole range back as it was
  }
  // Conflicts are per root: across sub-buffers and the root, and across queues.
  auto s1 = b.sub(0, 2 * A);
  auto s2 = b.sub(A, 2 * A);
  REQUIRE_OK(s1);
  REQUIRE_OK(s2);
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  {
    auto w = f.q.map(*s2, Access::write, 0, A);  // root [A, 2A)
    REQUIRE_OK(w);
    CHECK_ERRC(f.q.map(*s1, Access::read, A, 1), Errc::busy);
    CHECK_ERRC(q2->map(b, Access::read, 0, 2 * A), Errc::busy);
    CHECK_ERRC(q2->map(*s2, Access::write, A - 1, 2), Errc::busy);
    auto ok = q2->map(*s1, Access::write, 0, A);  // root [0, A)
    CHECK_OK(ok);
  }
  // All released: a whole-buffer write map works again.
  auto all = f.q.map(b, Access::write);
  CHECK_OK(all);
  if (all) CHECK_OK(all->unmap());
  CHECK(f.snapshot(b) == data);
}

TEST_CASE("transfers vs open mappings: busy exactly when the documented rule says so") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data, other_data;
  Buffer b = f.filled(8 * A, data);
  Buffer other = f.filled(8 * A, other_data);
  ENSURE(b.valid());
  ENSURE(other.valid());
  const emt::Bytes src = emt::random_bytes(8 * A);
  emt::Bytes dst(8 * A, 0x5c);
  const std::uint32_t pat = 0xa1b2c3d4u;
  const Rect rect_in{{{0, 2, 0}, A, 0}, {}, {16, 2, 1}};  // buffer rows [2A, 2A+16), [3A, 3A+16)
  const CopyRect copy_rect_in{{}, {{0, 2, 0}, A, 0}, {16, 2, 1}};

  for (Access access : {Access::read, Access::write, Access::write_discard}) {
    CAPTURE(static_cast<int>(access));
    const bool reads_conflict = access != Access::read;
    auto m = f.q.map<unsigned char>(b, access, 2 * A, 2 * A);  // root [2A, 4A)
    REQUIRE_OK(m);
    if (access == Access::write_discard) std::memcpy(m->data(), data.data() + 2 * A, 2 * A);

    // Writes into the mapped range are busy for every access.
    CHECK_ERRC(f.q.write(b, 3 * A, src.data(), 16), Errc::busy);
    CHECK_ERRC(f.q.write_async(b, A, src.data(), A + 1), Errc::busy);
    CHECK_ERRC(f.q.fill(b, 2 * A, 4, &pat, 4), Errc::busy);
    CHECK_ERRC(f.q.fill_async(b, 0, 8 * A, &pat, 4), Errc::busy);
    CHECK_ERRC(f.q.copy(other, b, 0, 4 * A - 1, 1), Errc::busy);
    CHECK_ERRC(f.q.copy_async(other, b, 0, 2 * A, A), Errc::busy);
    CHECK_ERRC(f.q.write_rect(b, rect_in, src.data(), src.size()), Errc::busy);
    CHECK_ERRC(f.q.write_rect_async(b, rect_in, src.data(), src.size()), Errc::busy);
    CHECK_ERRC(f.q.copy_rect(other, b, copy_rect_in), Errc::busy);
    CHECK_ERRC(f.q.copy_rect_async(other, b, copy_rect_in), Errc::busy);
    CHECK_ERRC(f.q.migrate(b, Migration::to_host), Errc::busy);
    CHECK_ERRC(f.q.migrate_async(b, Migration::to_device), Errc::busy);
    // A rect whose rows skip the mapped bytes but whose bounding range covers them: busy.
    const Rect around{{{0, 0, 0}, 6 * A, 0}, {}, {A, 2, 1}};  // rows [0, A) and [6A, 7A)
    CHECK_ERRC(f.q.write_rect(b, around, src.data(), src.size()), Errc::busy);
    // Through a sub-buffer of the same root.
    auto sub = b.sub(A, 2 * A);  // root [A, 3A)
    REQUIRE_OK(sub);
    CHECK_ERRC(f.q.write(*sub, A, src.data(), 1), Errc::busy);
    CHECK_ERRC(f.q.migrate(*sub, Migration::to_host), Errc::busy);

    // Reads of the mapped range are busy only against write/write_discard mappings.
    if (reads_conflict) {
      CHECK_ERRC(f.q.read(b, 2 * A, dst.data(), 1), Errc::busy);
      CHECK_ERRC(f.q.read_async(b, 0, dst.data(), 8 * A), Errc::busy);
      CHECK_ERRC(f.q.read_rect(b, rect_in, dst.data(), dst.size()), Errc::busy);
      CHECK_ERRC(f.q.read_rect_async(b, rect_in, dst.data(), dst.size()), Errc::busy);
      CHECK_ERRC(f.q.copy(b, other, 3 * A, 0, A), Errc::busy);
      CHECK_ERRC(f.q.copy_rect_async(b, other, CopyRect{rect_in.buffer, {}, rect_in.region}), Errc::busy);
      CHECK_ERRC(f.q.read(*sub, A, dst.data(), 1), Errc::busy);
      CHECK(dst == emt::Bytes(8 * A, 0x5c));
    } else {
      CHECK_OK(f.q.read(b, 2 * A, dst.data(), 2 * A));
      CHECK(emt::Bytes(dst.begin(), dst.begin() + 2 * A) == emt::Bytes(data.begin() + 2 * A, data.begin() + 4 * A));
      CHECK_OK(emt::settle(f.q.read_rect_async(b, rect_in, dst.data(), dst.size())));
      CHECK_OK(f.q.copy(b, other, 3 * A, 0, A));
      std::copy(data.begin() + 3 * A, data.begin() + 4 * A, other_data.begin());
      CHECK_OK(f.q.copy_rect(b, other, CopyRect{rect_in.buffer, {}, rect_in.region}));
      for (std::size_t r = 0; r < 2; ++r)
        std::copy(data.begin() + (2 + r) * A, data.begin() + (2 + r) * A + 16, other_data.begin() + r * 16);
    }
    // Outside the mapped range everything works.
    CHECK_OK(f.q.write(b, 0, src.data(), 2 * A));
    std::copy(src.begin(), src.begin() + 2 * A, data.begin());
    CHECK_OK(f.q.fill(b, 4 * A, 4 * A, &pat, 4));
    for (std::size_t i = 0; i < 4 * A; ++i) std::memcpy(&data[4 * A + i], reinterpret_cast<const unsigned char*>(&pat) + i % 4, 1);
    CHECK_OK(f.q.read(b, 0, dst.data(), 2 * A));
    CHECK_OK(f.q.copy(b, b, 0, 5 * A, A));
    std::copy(data.begin(), data.begin() + A, data.begin() + 5 * A);
    std::fill(dst.begin(), dst.end(), 0x5c);

    // The mapped bytes were not touched by any refused call.
    CHECK(std::memcmp(m->data(), data.data() + 2 * A, 2 * A) == 0);
    CHECK_OK(m->unmap());
    CHECK(f.snapshot(b) == data);
    CHECK(f.snapshot(other) == other_data);
    // Unmapped: the refused calls work now.
    CHECK_OK(f.q.migrate(b, Migration::to_host));
    CHECK_OK(f.q.write(b, 3 * A, src.data(), 16));
    std::copy(src.begin(), src.begin() + 16, data.begin() + 3 * A);
    CHECK(f.snapshot(b) == data);
  }
}

TEST_CASE("a read mapping sharing a longer one's native map keeps all its bytes mapped until it unmaps") {
  // Read maps on one queue inside an open read map share its native map (one native unmap, by the
  // last). While the shorter one is open after the longer one unmapped, the native map still covers
  // the longer range: writes there are refused until the last member unmaps. Buffers and SVM alike.
  emt::Fixture f;
  const std::size_t bytes = 64 * 1024;
  std::vector<Buffer> memories;
  auto buf = Buffer::create(f.ctx, bytes);
  REQUIRE_OK(buf);
  memories.push_back(std::move(*buf));
  if (f.ctx.info().caps.svm_coarse) {
    auto svm = Svm::create(f.ctx, bytes);
    REQUIRE_OK(svm);
    memories.push_back(std::move(*svm));
  }
  const std::uint32_t word = 0x5a5a5a5au;
  for (Buffer& m : memories) {
    CAPTURE(m.is_svm());
    auto longer = f.q.map<const std::byte>(static_cast<const Buffer&>(m), Access::read, 0, bytes);
    REQUIRE_OK(longer);
    auto shorter = f.q.map<const std::byte>(static_cast<const Buffer&>(m), Access::read, 0, 64);
    REQUIRE_OK(shorter);
    CHECK_ERRC(f.q.write(m, bytes / 2, &word, 4), Errc::busy);
    CHECK_OK(longer->unmap());
    CHECK_ERRC(f.q.write(m, bytes / 2, &word, 4), Errc::busy);  // still natively mapped, through `shorter`
    CHECK_ERRC(f.q.map(m, Access::write, bytes / 2, 4), Errc::busy);
    std::uint32_t seen = 0;
    CHECK_OK(f.q.read(m, bytes / 2, &seen, 4));  // reads coexist with read mappings
    CHECK_OK(shorter->unmap());
    CHECK_OK(f.q.write(m, bytes / 2, &word, 4));
  }
}

TEST_CASE("Buffer::release of a mapped handle: busy, and the buffer keeps working") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer b = f.filled(2 * A, data);
  ENSURE(b.valid());
  auto m = f.q.map<unsigned char>(b, Access::write, 0, A);
  REQUIRE_OK(m);
  CHECK_ERRC(b.release(), Errc::busy);
  CHECK(b.valid());
  CHECK(b.size() == 2 * A);
  CHECK(m->mapped());
  const emt::Bytes upd = emt::random_bytes(A);
  std::memcpy(m->data(), upd.data(), A);
  CHECK_OK(f.q.write(b, A, upd.data(), A));  // outside the mapping
  CHECK_ERRC(b.release(), Errc::busy);
  CHECK_OK(m->unmap());
  std::copy(upd.begin(), upd.end(), data.begin());
  std::copy(upd.begin(), upd.end(), data.begin() + A);
  CHECK(f.snapshot(b) == data);
  CHECK_OK(b.release());
  CHECK_FALSE(b.valid());

  // Only the handle the mapping was made through refuses: the root may go while a sub is mapped.
  emt::Bytes d2;
  Buffer root = f.filled(2 * A, d2);
  ENSURE(root.valid());
  auto sub = root.sub(A, A);
  REQUIRE_OK(sub);
  auto ms = f.q.map<unsigned char>(*sub, Access::read);
  REQUIRE_OK(ms);
  CHECK_ERRC(sub->release(), Errc::busy);
  CHECK_OK(root.release());
  CHECK(emt::Bytes(ms->begin(), ms->end()) == emt::Bytes(d2.begin() + A, d2.end()));
  CHECK_OK(ms->unmap());
  CHECK_OK(sub->release());
}

TEST_CASE("mapping slots: a handle holds EDGEMEM_MAX_MAPPINGS_PER_BUFFER mappings, then exhausted") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer b = f.filled(4 * A, data);
  ENSURE(b.valid());
  CHECK(emt::kMaxMaps >= 1);
  std::vector<Mapping<unsigned char>> maps;
  for (std::size_t i = 0; i < emt::kMaxMaps; ++i) {
    CAPTURE(i);
    auto m = f.q.map<unsigned char>(b, Access::read, i % 4, 8);
    CHECK_OK(m);
    if (m) maps.push_back(std::move(*m));
  }
  ENSURE(maps.size() == emt::kMaxMaps);
  CHECK_ERRC(f.q.map(b, Access::read, 0, 8), Errc::exhausted);
  CHECK_ERRC(f.q.map(b, Access::write, 3 * A, A), Errc::exhausted);  // no conflict, still no slot
  CHECK_ERRC(f.q.map(b, Access::read), Errc::exhausted);
  // A conflict is reported before exhaustion.
  CHECK_ERRC(f.q.map(b, Access::write, 0, 8), Errc::busy);
  // Another handle of the same root has its own slots.
  auto view = b.sub(0, 4 * A);
  REQUIRE_OK(view);
  {
    auto m = f.q.map<unsigned char>(*view, Access::read, 0, 8);
    CHECK_OK(m);
    if (m) CHECK(emt::Bytes(m->begin(), m->end()) == emt::Bytes(data.begin(), data.begin() + 8));
  }
  // Every existing mapping still reads correctly.
  for (std::size_t i = 0; i < maps.size(); ++i)
    CHECK(emt::Bytes(maps[i].begin(), maps[i].end()) == emt::Bytes(data.begin() + i % 4, data.begin() + i % 4 + 8));
  // Freeing one slot makes room for exactly one more.
  CHECK_OK(maps.front().unmap());
  auto again = f.q.map<unsigned char>(b, Access::write, 3 * A, A);
  CHECK_OK(again);
  CHECK_ERRC(f.q.map(b, Access::read, 0, 8), Errc::exhausted);
  maps.clear();
  if (again) CHECK_OK(again->unmap());
  CHECK(f.snapshot(b) == data);
  CHECK_OK(b.release());
}
