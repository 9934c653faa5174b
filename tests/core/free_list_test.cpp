// detail::IndexFreeList (src/pool/pool_core.hpp), the free list under every pool (free blocks) and heap (free
// node slots), tested on its own, without a device: every index handed out once, none twice, O(1)
// take and give back in LIFO order, the `taken` mark, and an empty list.
#include <cstdint>
#include <iterator>
#include <set>
#include <vector>

#include <doctest/doctest.h>
#include "pool/pool_core.hpp"

using edgemem::detail::IndexFreeList;

TEST_CASE("free list: every index 0..count-1 once, in order, then none; nothing changes on an empty take") {
  for (std::size_t count : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, std::size_t{1000}}) {
    CAPTURE(count);
    std::vector<std::uint32_t> links(count, 12345u);
    IndexFreeList list;
    list.reset(links.data(), count);
    CHECK(list.links() == links.data());
    CHECK(list.out() == 0);
    for (std::uint32_t i = 0; i < count; ++i) {
      CHECK_FALSE(list.is_out(i));
      std::uint32_t got = IndexFreeList::none;
      REQUIRE(list.take(got));
      CHECK(got == i);
      CHECK(list.is_out(i));
      CHECK(list.out() == i + 1);
    }
    std::uint32_t untouched = 777;
    CHECK_FALSE(list.take(untouched));
    CHECK(untouched == 777);
    CHECK(list.out() == count);
  }
}

TEST_CASE("free list: give_back is LIFO, an index given back is free again, out() follows") {
  std::uint32_t links[8];
  IndexFreeList list;
  list.reset(links, 8);
  std::uint32_t a = 0, b = 0, c = 0;
  REQUIRE(list.take(a));
  REQUIRE(list.take(b));
  REQUIRE(list.take(c));
  list.give_back(b);
  CHECK_FALSE(list.is_out(b));
  CHECK(list.is_out(a));
  CHECK(list.out() == 2);
  list.give_back(a);
  std::uint32_t got = 0;
  REQUIRE(list.take(got));
  CHECK(got == a);  // the last given back comes first
  REQUIRE(list.take(got));
  CHECK(got == b);
  REQUIRE(list.take(got));
  CHECK(got == 3);  // then the never-taken ones, in order
}

TEST_CASE("free list: a random schedule of takes and gives never hands out an index twice") {
  constexpr std::size_t kCount = 97;
  std::vector<std::uint32_t> links(kCount);
  IndexFreeList list;
  list.reset(links.data(), kCount);
  std::set<std::uint32_t> out;
  std::uint64_t state = 0x9e3779b97f4a7c15u;
  for (int step = 0; step < 100000; ++step) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    const bool take = out.empty() || (out.size() < kCount && (state >> 33) % 3 != 0);
    if (take) {
      std::uint32_t got = IndexFreeList::none;
      REQUIRE(list.take(got));
      REQUIRE(got < kCount);
      REQUIRE(out.insert(got).second);  // never one that is out
    } else {
      auto it = out.begin();
      std::advance(it, static_cast<long>((state >> 17) % out.size()));
      list.give_back(*it);
      out.erase(it);
    }
    REQUIRE(list.out() == out.size());
  }
  for (std::uint32_t i = 0; i < kCount; ++i) CHECK(list.is_out(i) == (out.count(i) == 1));
}

TEST_CASE("free list: a list of no indices has none to take") {
  IndexFreeList list;
  std::uint32_t got = 5;
  CHECK_FALSE(list.take(got));  // before reset()
  list.reset(nullptr, 0);
  CHECK_FALSE(list.take(got));
  CHECK(got == 5);
  CHECK(list.out() == 0);
}
