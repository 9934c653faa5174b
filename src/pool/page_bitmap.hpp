// The heap's page bitmap (Heap: one bit per page, 1 = used, over words its book holds): first-fit
// runs, marking, the largest free run. Free functions over the words, so the heap's lock guards them
// and tests/core/page_bitmap_test.cpp checks them without a device.
#pragma once
#include <cstddef>
#include <cstdint>

namespace edgemem::detail::page_bitmap {

/// Words for `pages` pages.
constexpr std::size_t words_for(std::size_t pages) noexcept { return (pages + 63) / 64; }

/// True when page `p` is used.
inline bool used(const std::uint64_t* words, std::size_t p) noexcept { return (words[p / 64] >> (p % 64)) & 1u; }

/// Marks pages [first, first + pages) used or free.
inline void mark(std::uint64_t* words, std::size_t first, std::size_t pages, bool now_used) noexcept {
  for (std::size_t p = first; p < first + pages; ++p) {
    const std::uint64_t bit = std::uint64_t{1} << (p % 64);
    if (now_used) words[p / 64] |= bit;
    else words[p / 64] &= ~bit;
  }
}

/// The first page of the lowest run of `pages` free pages among `count` (SIZE_MAX when there is
/// none; `pages` > 0). Skips whole words of used pages.
inline std::size_t first_fit(const std::uint64_t* words, std::size_t count, std::size_t pages) noexcept {
  std::size_t run = 0;
  for (std::size_t p = 0; p < count; ++p) {
    if (run == 0 && p % 64 == 0 && p + 64 <= count && words[p / 64] == ~std::uint64_t{0}) {
      p += 63;  // a full word of used pages
      continue;
    }
    run = used(words, p) ? 0 : run + 1;
    if (run == pages) return p + 1 - pages;
  }
  return SIZE_MAX;
}

/// The longest run of free pages among `count`.
inline std::size_t largest_free_run(const std::uint64_t* words, std::size_t count) noexcept {
  std::size_t best = 0, run = 0;
  for (std::size_t p = 0; p < count; ++p) {
    run = used(words, p) ? 0 : run + 1;
    if (run > best) best = run;
  }
  return best;
}

}  // namespace edgemem::detail::page_bitmap
