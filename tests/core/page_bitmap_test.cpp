// The heap's page bitmap (src/pool/page_bitmap.hpp) on its own, without a device: first-fit runs
// against a plain model over random allocate/free schedules (page counts around word boundaries), the
// largest free run, and the full-word skip.
#include <cstdint>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "pool/page_bitmap.hpp"

namespace pb = edgemem::detail::page_bitmap;

namespace {

/// The model: one bool per page.
std::size_t model_first_fit(const std::vector<bool>& used, std::size_t pages) {
  std::size_t run = 0;
  for (std::size_t p = 0; p < used.size(); ++p) {
    run = used[p] ? 0 : run + 1;
    if (run == pages) return p + 1 - pages;
  }
  return SIZE_MAX;
}

std::size_t model_largest(const std::vector<bool>& used) {
  std::size_t best = 0, run = 0;
  for (bool u : used) {
    run = u ? 0 : run + 1;
    best = run > best ? run : best;
  }
  return best;
}

}  // namespace

TEST_CASE("page bitmap: first fit, marks and the largest run agree with a model over random schedules") {
  std::mt19937 rng(31);
  for (std::size_t count : {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{127},
                            std::size_t{128}, std::size_t{200}, std::size_t{1000}}) {
    CAPTURE(count);
    std::vector<std::uint64_t> words(pb::words_for(count), 0);
    std::vector<bool> model(count, false);
    struct Run {
      std::size_t first, pages;
    };
    std::vector<Run> live;
    for (int step = 0; step < 4000; ++step) {
      const bool allocate = live.empty() || rng() % 3 != 0;
      if (allocate) {
        const std::size_t pages = 1 + rng() % (count < 80 ? count : 80);
        const std::size_t got = pb::first_fit(words.data(), count, pages);
        REQUIRE(got == model_first_fit(model, pages));
        if (got == SIZE_MAX) continue;
        for (std::size_t p = got; p < got + pages; ++p) REQUIRE_FALSE(pb::used(words.data(), p));
        pb::mark(words.data(), got, pages, true);
        for (std::size_t p = got; p < got + pages; ++p) model[p] = true;
        live.push_back({got, pages});
      } else {
        const std::size_t i = rng() % live.size();
        pb::mark(words.data(), live[i].first, live[i].pages, false);
        for (std::size_t p = live[i].first; p < live[i].first + live[i].pages; ++p) model[p] = false;
        live[i] = live.back();
        live.pop_back();
      }
      REQUIRE(pb::largest_free_run(words.data(), count) == model_largest(model));
      if (step % 50 == 0)
        for (std::size_t p = 0; p < count; ++p) REQUIRE(pb::used(words.data(), p) == model[p]);
    }
  }
}

TEST_CASE("page bitmap: whole used words are skipped, a run may cross a word, none past the last page") {
  std::vector<std::uint64_t> words(pb::words_for(130), 0);
  pb::mark(words.data(), 0, 64, true);  // word 0 full
  CHECK(pb::first_fit(words.data(), 130, 1) == 64);
  pb::mark(words.data(), 64, 60, true);  // pages 64..123 used: 124..129 free (6 pages, across words 1 and 2)
  CHECK(pb::first_fit(words.data(), 130, 6) == 124);
  CHECK(pb::first_fit(words.data(), 130, 7) == SIZE_MAX);  // the bits past page 129 are not pages
  CHECK(pb::largest_free_run(words.data(), 130) == 6);
  pb::mark(words.data(), 0, 130, true);
  CHECK(pb::first_fit(words.data(), 130, 1) == SIZE_MAX);
  CHECK(pb::largest_free_run(words.data(), 130) == 0);
  pb::mark(words.data(), 0, 130, false);
  CHECK(pb::first_fit(words.data(), 130, 130) == 0);
  CHECK(pb::largest_free_run(words.data(), 130) == 130);
}
