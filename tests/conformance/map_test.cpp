// Queue::map and Mapping<T>: data access, typed views, guards, moves, and the map errors.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "test_helpers.hpp"

using namespace edgemem;

TEST_CASE("map read: the mapping shows the contents; Mapping accessors") {
  emt::Fixture f;
  for (Storage s : {Storage::device, Storage::host, Storage::shared}) {
    CAPTURE(static_cast<int>(s));
    emt::Bytes data;
    Buffer b = f.filled(3 * f.align() + 40, data, s);
    ENSURE(b.valid());
    auto m = f.q.map(b, Access::read);
    REQUIRE_OK(m);
    CHECK(m->mapped());
    CHECK(m->access() == Access::read);
    CHECK(m->size_bytes() == b.size());
    CHECK(m->size() == b.size());
    REQUIRE(m->data() != nullptr);
    CHECK(m->end() - m->begin() == static_cast<std::ptrdiff_t>(b.size()));
    CHECK(m->span().size() == b.size());
    CHECK(m->span().data() == m->data());
    CHECK(std::memcmp(m->data(), data.data(), data.size()) == 0);
    CHECK(static_cast<unsigned char>((*m)[5]) == data[5]);
    auto part = f.q.map<unsigned char>(b, Access::read, 17, 100);  // a second, overlapping read map
    REQUIRE_OK(part);
    CHECK(emt::Bytes(part->begin(), part->end()) == emt::Bytes(data.begin() + 17, data.begin() + 117));
    CHECK_OK(part->unmap());
    CHECK_FALSE(part->mapped());
    CHECK(part->data() == nullptr);
    CHECK(part->size() == 0);
    CHECK(part->size_bytes() == 0);
  }
}

TEST_CASE("map write: changes reach the buffer on unmap (explicit or by the guard)") {
  emt::Fixture f;
  for (Storage s : {Storage::device, Storage::host, Storage::shared}) {
    CAPTURE(static_cast<int>(s));
    emt::Bytes data;
    Buffer b = f.filled(2048, data, s);
    ENSURE(b.valid());
    {
      auto m = f.q.map<unsigned char>(b, Access::write, 100, 500);
      REQUIRE_OK(m);
      CHECK(m->access() == Access::write);
      // A write mapping shows the current contents too.
      CHECK(emt::Bytes(m->begin(), m->end()) == emt::Bytes(data.begin() + 100, data.begin() + 600));
      for (std::size_t i = 0; i < m->size(); i += 3) (*m)[i] = static_cast<unsigned char>(~(*m)[i]);
      for (std::size_t i = 0; i < 500; i += 3) data[100 + i] = static_cast<unsigned char>(~data[100 + i]);
      CHECK_OK(m->unmap());
    }
    CHECK(f.snapshot(b) == data);
    const emt::Bytes upd = emt::random_bytes(256);
    {
      auto m = f.q.map<unsigned char>(b, Access::write, 1024, 256);
      REQUIRE_OK(m);
      std::memcpy(m->data(), upd.data(), upd.size());
    }  // the guard unmaps
    std::copy(upd.begin(), upd.end(), data.begin() + 1024);
    emt::Bytes back(2048);
    CHECK_OK(f.q.read(b, 0, back.data(), back.size()));
    CHECK(back == data);
  }
}

TEST_CASE("map write_discard: writing the whole range then reading it back") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer b = f.filled(4096, data, Storage::device);
  ENSURE(b.valid());
  const emt::Bytes upd = emt::random_bytes(1024);
  {
    auto m = f.q.map<unsigned char>(b, Access::write_discard, 2048, 1024);
    REQUIRE_OK(m);
    CHECK(m->access() == Access::write_discard);
    CHECK(m->size() == 1024);
    std::memcpy(m->data(), upd.data(), upd.size());
    CHECK_OK(m->unmap());
  }
  std::copy(upd.begin(), upd.end(), data.begin() + 2048);
  CHECK(f.snapshot(b) == data);  // bytes outside the discarded range are kept
  auto whole = f.q.map<std::uint32_t>(b, Access::write_discard);
  REQUIRE_OK(whole);
  for (std::size_t i = 0; i < whole->size(); ++i) (*whole)[i] = static_cast<std::uint32_t>(i * 2654435761u + 1);
  CHECK_OK(whole->unmap());
  std::vector<std::uint32_t> back(1024);
  CHECK_OK(f.q.read(b, 0, back.data(), 4096));
  bool same = true;
  for (std::size_t i = 0; i < back.size(); ++i) same = same && back[i] == static_cast<std::uint32_t>(i * 2654435761u + 1);
  CHECK(same);
}

TEST_CASE("typed mappings: element count, alignment, const views, sub-buffers") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer root = f.filled(4 * A, data);
  ENSURE(root.valid());
  {
    auto m = f.q.map<std::uint32_t>(root, Access::read, 8, 64);
    REQUIRE_OK(m);
    CHECK(m->size() == 16);
    CHECK(m->size_bytes() == 64);
    std::uint32_t expect = 0;
    std::memcpy(&expect, &data[8 + 4 * 3], 4);
    CHECK((*m)[3] == expect);
  }
  {
    auto m = f.q.map<const std::uint8_t>(root, Access::read);
    REQUIRE_OK(m);
    CHECK(m->size() == root.size());
    std::uint64_t sum = 0, ref = 0;
    for (std::uint8_t v : *m) sum += v;
    for (unsigned char v : data) ref += v;
    CHECK(sum == ref);
  }
  {
    auto m = f.q.map<double>(root, Access::read, 2 * A, 8 * sizeof(double));
    REQUIRE_OK(m);
    CHECK(m->size() == 8);
    CHECK(reinterpret_cast<std::uintptr_t>(m->data()) % alignof(double) == 0);
  }
  // Through a sub: offsets are relative to the sub; writes reach the root.
  auto sub = root.sub(A, 2 * A);
  REQUIRE_OK(sub);
  {
    auto m = f.q.map<std::uint16_t>(*sub, Access::write, 16, 32);
    REQUIRE_OK(m);
    CHECK(std::memcmp(m->data(), &data[A + 16], 32) == 0);
    for (auto& v : *m) v = static_cast<std::uint16_t>(v ^ 0xffffu);
  }
  for (std::size_t i = 0; i < 32; ++i) data[A + 16 + i] = static_cast<unsigned char>(~data[A + 16 + i]);
  CHECK(f.snapshot(root) == data);
}

TEST_CASE("map: documented errors change nothing and leak no mapping slot") {
  emt::Fixture f;
  emt::OtherContext other(256);
  emt::Bytes data;
  Buffer b = f.filled(1024, data);
  ENSURE(b.valid());
  Queue no_queue;
  Buffer no_buffer;
  for (Access a : {Access::read, Access::write, Access::write_discard}) {
    CAPTURE(static_cast<int>(a));
    CHECK_ERRC(no_queue.map(b, a, 0, 16), Errc::released);
    CHECK_ERRC(no_queue.map(b, a), Errc::released);
    CHECK_ERRC(f.q.map(no_buffer, a, 0, 16), Errc::released);
    CHECK_ERRC(f.q.map(no_buffer, a), Errc::released);
    CHECK_ERRC(f.q.map(b, a, 0, 0), Errc::invalid_argument);
    CHECK_ERRC(f.q.map(other.buf, a, 0, 16), Errc::invalid_argument);
    CHECK_ERRC(f.q.map(other.buf, a), Errc::invalid_argument);
    CHECK_ERRC(f.q.map(b, a, 0, 1025), Errc::out_of_range);
    CHECK_ERRC(f.q.map(b, a, 1024, 1), Errc::out_of_range);
    CHECK_ERRC(f.q.map(b, a, 1, SIZE_MAX), Errc::out_of_range);
    CHECK_ERRC(f.q.map(b, a, SIZE_MAX, 1), Errc::out_of_range);
    // Mapping<T> element rules.
    CHECK_ERRC(f.q.map<std::uint32_t>(b, a, 2, 8), Errc::misaligned);   // offset not a multiple of alignof
    CHECK_ERRC(f.q.map<std::uint32_t>(b, a, 0, 6), Errc::misaligned);   // size not a multiple of sizeof
    CHECK_ERRC(f.q.map<std::uint32_t>(b, a, 4, 1), Errc::misaligned);
    CHECK_ERRC(f.q.map<std::uint16_t>(b, a, 1, 2), Errc::misaligned);
    if (alignof(std::uint64_t) > 1) CHECK_ERRC(f.q.map<std::uint64_t>(b, a, alignof(std::uint64_t) / 2, 8), Errc::misaligned);
    CHECK_ERRC(f.q.map<std::uint64_t>(b, a, 0, 12), Errc::misaligned);
    // Order: zero size before misalignment, range before misalignment.
    CHECK_ERRC(f.q.map<std::uint32_t>(b, a, 2, 0), Errc::invalid_argument);
    CHECK_ERRC(f.q.map<std::uint32_t>(b, a, 2, 1023), Errc::out_of_range);
  }
  CHECK_ERRC(f.q.map(b, static_cast<Access>(7), 0, 16), Errc::invalid_argument);
  // No slot was taken by any failed call: the handle still holds the full number of mappings.
  std::vector<Mapping<std::byte>> maps;
  for (std::size_t i = 0; i < emt::kMaxMaps; ++i) {
    auto m = f.q.map(b, Access::read, 0, 16);
    CHECK_OK(m);
    if (m) maps.push_back(std::move(*m));
  }
  CHECK(maps.size() == emt::kMaxMaps);
  maps.clear();
  CHECK(f.snapshot(b) == data);
  CHECK(b.size() == 1024);
  CHECK(other.unchanged());
}

TEST_CASE("map: host access flags") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer ro = f.filled(256, data, Storage::device, MemFlags::host_read_only);
  ENSURE(ro.valid());
  CHECK_ERRC(f.q.map(ro, Access::write), Errc::access_denied);
  CHECK_ERRC(f.q.map(ro, Access::write_discard, 0, 64), Errc::access_denied);
  {
    auto m = f.q.map<unsigned char>(ro, Access::read);
    REQUIRE_OK(m);
    CHECK(emt::Bytes(m->begin(), m->end()) == data);
  }
  Buffer wo = f.filled(256, data, Storage::shared, MemFlags::host_write_only);
  ENSURE(wo.valid());
  CHECK_ERRC(f.q.map(wo, Access::read), Errc::access_denied);
  const emt::Bytes upd = emt::random_bytes(64);
  {
    auto m = f.q.map<unsigned char>(wo, Access::write_discard, 64, 64);
    REQUIRE_OK(m);
    std::memcpy(m->data(), upd.data(), 64);
  }
  {
    auto m = f.q.map<unsigned char>(wo, Access::write, 0, 64);
    CHECK_OK(m);
  }
  std::copy(upd.begin(), upd.end(), data.begin() + 64);
  CHECK(f.snapshot(wo) == data);
  Buffer na = f.filled(256, data, Storage::device, MemFlags::host_no_access);
  ENSURE(na.valid());
  for (Access a : {Access::read, Access::write, Access::write_discard}) CHECK_ERRC(f.q.map(na, a), Errc::access_denied);
  CHECK(f.snapshot(na) == data);
  // Order: misalignment is reported before host access flags.
  CHECK_ERRC(f.q.map<std::uint32_t>(na, Access::read, 2, 4), Errc::misaligned);
}

namespace {
/// True when q.map<T>(b, access) compiles for a `B` buffer argument.
template <class T, class B, class = void>
struct can_map : std::false_type {};
template <class T, class B>
struct can_map<T, B, std::void_t<decltype(std::declval<Queue&>().map<T>(std::declval<B>(), Access::read))>>
    : std::true_type {};
static_assert(can_map<const float, const Buffer&>::value, "const Buffer& maps as Mapping<const T>");
static_assert(!can_map<float, const Buffer&>::value, "a const Buffer& never maps as a Mapping<T> of non-const T");
static_assert(can_map<float, Buffer&>::value && can_map<const float, Buffer&>::value);
static_assert(can_map<const float, const PooledBuffer&>::value && !can_map<float, const PooledBuffer&>::value);
static_assert(std::is_same_v<decltype(std::declval<Queue&>().map(std::declval<const Buffer&>(), Access::read)),
                             Result<Mapping<const std::byte>>>,
              "a const Buffer maps as const bytes by default");
}  // namespace

TEST_CASE("map: a const Buffer& maps for reading as Mapping<const T>; a write access is invalid_argument") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer b = f.filled(256, data, Storage::shared);
  ENSURE(b.valid());
  const Buffer& cb = b;
  {
    auto whole = f.q.map(cb, Access::read);  // Mapping<const std::byte>
    REQUIRE_OK(whole);
    CHECK(whole->size() == 256);
    CHECK(std::memcmp(whole->data(), data.data(), 256) == 0);
    auto part = f.q.map<const std::uint32_t>(cb, Access::read, 64, 32);  // read mappings may overlap
    REQUIRE_OK(part);
    CHECK(part->size() == 8);
    CHECK(std::memcmp(part->data(), data.data() + 64, 32) == 0);
    // Still readable while mapped for reading, through the same const handle.
    emt::Bytes sink(32);
    CHECK_OK(f.q.read(cb, 64, sink.data(), 32));
    CHECK(std::memcmp(sink.data(), data.data() + 64, 32) == 0);
  }
  CHECK_ERRC(f.q.map<const std::uint32_t>(cb, Access::write, 0, 64), Errc::invalid_argument);
  CHECK_ERRC(f.q.map(cb, Access::write_discard), Errc::invalid_argument);
  // The access check comes before ranges and alignment (it is the access value that is wrong).
  CHECK_ERRC(f.q.map<const std::uint32_t>(cb, Access::write, 2, SIZE_MAX), Errc::invalid_argument);
  // Ranges, alignment, host flags and released handles answer as for a non-const Buffer.
  CHECK_ERRC(f.q.map<const std::uint32_t>(cb, Access::read, 2, 4), Errc::misaligned);
  CHECK_ERRC(f.q.map(cb, Access::read, 200, 64), Errc::out_of_range);
  const Buffer none;
  CHECK_ERRC(f.q.map(none, Access::read), Errc::released);
  CHECK(f.snapshot(b) == data);

  // A const PooledBuffer maps the same way.
  FixedPool<1> pool;
  auto init = pool.init(f.ctx, f.q, 64);
  REQUIRE_OK(init);
  auto block = pool.acquire();
  REQUIRE_OK(block);
  const PooledBuffer& cblock = *block;
  auto m = f.q.map<const std::uint8_t>(cblock, Access::read);
  REQUIRE_OK(m);
  CHECK(m->size() == pool.block_bytes());
  for (std::uint8_t v : *m) CHECK(v == 0);  // pool blocks are zero-filled at init()
  CHECK_ERRC(f.q.map<const std::uint8_t>(cblock, Access::write), Errc::invalid_argument);
}

TEST_CASE("Mapping: unmap twice, moved-from and default guards report released") {
  emt::Fixture f;
  emt::Bytes data;
  Buffer b = f.filled(512, data);
  ENSURE(b.valid());
  auto m = f.q.map<unsigned char>(b, Access::write, 0, 128);
  REQUIRE_OK(m);
  CHECK_OK(m->unmap());
  CHECK_ERRC(m->unmap(), Errc::released);
  CHECK_FALSE(m->mapped());

  Mapping<int> empty;
  CHECK_FALSE(empty.mapped());
  CHECK(empty.data() == nullptr);
  CHECK(empty.size() == 0);
  CHECK_ERRC(empty.unmap(), Errc::released);

  auto m2 = f.q.map<unsigned char>(b, Access::write, 0, 128);
  REQUIRE_OK(m2);
  Mapping<unsigned char> taken = std::move(*m2);
  CHECK_FALSE(m2->mapped());
  CHECK(m2->data() == nullptr);
  CHECK(m2->size() == 0);
  CHECK_ERRC(m2->unmap(), Errc::released);
  CHECK(taken.mapped());
  CHECK(taken.size() == 128);
  CHECK(taken.access() == Access::write);
  taken[0] = static_cast<unsigned char>(data[0] ^ 0x80u);
  data[0] = taken[0];

  // Move-assigning over a live guard unmaps it first: its range is free again afterwards.
  auto m3 = f.q.map<unsigned char>(b, Access::write, 256, 128);
  REQUIRE_OK(m3);
  taken = std::move(*m3);
  CHECK(taken.mapped());
  CHECK(taken.size() == 128);
  auto again = f.q.map<unsigned char>(b, Access::write, 0, 128);
  CHECK_OK(again);
  if (again) CHECK(static_cast<unsigned char>((*again)[0]) == data[0]);
  emt::move_assign(taken, taken);  // self-move keeps the mapping
  CHECK(taken.mapped());
  CHECK_OK(taken.unmap());
  if (again) CHECK_OK(again->unmap());
  CHECK(f.snapshot(b) == data);
}

TEST_CASE("Mapping outlives the buffer handle and the queue handle it was made through") {
  emt::Fixture f;
  const std::size_t A = f.align();
  emt::Bytes data;
  Buffer root = f.filled(2 * A, data);
  ENSURE(root.valid());
  auto keep = root.sub(0, 2 * A);  // a second view of the same memory to check the result
  REQUIRE_OK(keep);
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  auto m = q2->map<unsigned char>(root, Access::write, 0, A);
  REQUIRE_OK(m);
  auto replacement = Buffer::create(f.ctx, 64);
  REQUIRE_OK(replacement);
  root = std::move(*replacement);  // drops the mapped handle (allowed by operator=)
  CHECK(root.size() == 64);
  CHECK_OK(q2->release());         // the mapping still unmaps on its queue
  CHECK_FALSE(q2->valid());
  const emt::Bytes upd = emt::random_bytes(A);
  std::memcpy(m->data(), upd.data(), A);
  CHECK_OK(m->unmap());
  std::copy(upd.begin(), upd.end(), data.begin());
  CHECK(f.snapshot(*keep) == data);
}
