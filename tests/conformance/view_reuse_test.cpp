// Views made and dropped by the hundred per frame, from several threads: a root keeps its dead views'
// storage (and the native sub-objects they had) for the next views. Whatever storage a view reuses, it is that
// view: its bytes, its access, its native sub-object; nothing of an earlier view leaks into it.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// Each of `threads` threads, on its own queue, makes `rounds` rounds of `batch` views of its own
/// slice of `root` (more than a root keeps), asks every third one its native sub-object where the
/// device has them, writes a pattern of (thread, round, view) through each, reads it back through the
/// root, and drops them. Returns the mismatches seen.
int churn(emt::Fixture& f, const Buffer& root, int threads, int rounds, int batch) {
  const std::size_t A = f.align();
  std::atomic<int> bad{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      auto q = Queue::create(f.ctx);
      if (!q) {
        ++bad;
        return;
      }
      std::vector<Buffer> views;
      views.reserve(static_cast<std::size_t>(batch));
      for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < batch; ++i) {
          const std::size_t at = (static_cast<std::size_t>(t) * batch + i) * A;
          auto v = root.sub(at, A, i % 5 == 4 ? MemFlags::write_only : MemFlags::read_write);
          if (!v || v->origin() != at || v->size() != A) {
            ++bad;
            continue;
          }
          if (i % 3 == 0 && !root.is_svm()) {
            auto n = v->native();
            if (!n) ++bad;
          }
          const std::vector<std::uint32_t> words(A / sizeof(std::uint32_t),
                                                 static_cast<std::uint32_t>(t << 24 | r << 12 | i));
          if (!q->write(*v, 0, words.data(), A)) ++bad;
          views.push_back(std::move(*v));
        }
        for (int i = 0; i < batch; i += 7) {
          const std::size_t at = (static_cast<std::size_t>(t) * batch + i) * A;
          std::uint32_t got[2] = {};
          if (!q->read(root, at + A - sizeof got, got, sizeof got)) ++bad;
          const std::uint32_t want = static_cast<std::uint32_t>(t << 24 | r << 12 | i);
          if (got[0] != want || got[1] != want) ++bad;
        }
        views.clear();
      }
      if (!q->finish()) ++bad;
    });
  }
  for (auto& th : pool) th.join();
  return bad.load();
}

}  // namespace

TEST_CASE("views: two threads make and drop 300 views a round of one root, some with native(); each is its own") {
  emt::Fixture f;
  const int threads = 2, batch = 300, rounds = 20;
  auto root = Buffer::create(f.ctx, static_cast<std::size_t>(threads) * batch * f.align());
  REQUIRE_OK(root);
  CHECK(churn(f, *root, threads, rounds, batch) == 0);
  // The root goes with what it kept; a new root's views start afresh.
  *root = Buffer{};
  auto again = Buffer::create(f.ctx, static_cast<std::size_t>(threads) * batch * f.align());
  REQUIRE_OK(again);
  CHECK(churn(f, *again, threads, 2, batch) == 0);
}

TEST_CASE("views: a view over kept storage has its own bytes, access and native sub-object") {
  emt::Fixture f;
  const std::size_t A = f.align();
  auto root = Buffer::create(f.ctx, 4 * A);
  REQUIRE_OK(root);
  {
    auto v = root->sub(A, A);
    REQUIRE_OK(v);
    CHECK_OK(v->native());  // the root keeps this sub-object for the next view of these bytes
  }
  // Other bytes, other access: what the view says, whatever storage it reuses.
  auto w = root->sub(2 * A, 2 * A, MemFlags::read_only);
  REQUIRE_OK(w);
  CHECK(w->origin() == 2 * A);
  CHECK(w->size() == 2 * A);
  CHECK(w->flags() == MemFlags::read_only);
  auto wn = w->native();
  CHECK_OK(wn);
  // The same bytes and access again: a view of them, writable.
  auto v = root->sub(A, A);
  REQUIRE_OK(v);
  CHECK(v->origin() == A);
  CHECK(v->flags() == MemFlags::read_write);
  const std::vector<unsigned char> bytes(A, 7);
  CHECK_OK(f.q.write(*v, 0, bytes.data(), A));
  std::vector<unsigned char> back(A);
  CHECK_OK(f.q.read(*root, A, back.data(), A));
  CHECK(back == bytes);
  auto n = v->native();
  CHECK_OK(n);
  if (n && wn) CHECK(*n != *wn);
}
