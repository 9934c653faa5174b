// Re-assigning Results: a retry loop keeps one Result<T> and assigns each attempt's Result to it, for
// every move-only handle edgemem returns in a Result (Context, Queue, Buffer, Event, Mapping<T>,
// Mapping<const T>, PooledBuffer) and for Result<void>, Result<bool> and Result<NativeMem>. Every
// transition (error -> error, error -> value, value -> value, value -> error) runs, and each value is
// checked after its assignment. It compiles with tl-expected 1.0 and exceptions off (where a plain
// tl::expected cannot be move-assigned for a move-only T) and with std::expected.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// Every handle a Result carries moves without throwing, and its Result is move-assignable.
template <class T>
constexpr bool moves_cleanly() {
  return std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T> &&
         !std::is_copy_constructible_v<T> && std::is_move_assignable_v<Result<T>> &&
         std::is_nothrow_move_assignable_v<Result<T>>;
}
static_assert(moves_cleanly<Context>());
static_assert(moves_cleanly<Queue>());
static_assert(moves_cleanly<Buffer>());
static_assert(moves_cleanly<Event>());
static_assert(moves_cleanly<Mapping<std::uint32_t>>());
static_assert(moves_cleanly<Mapping<const std::uint32_t>>());
static_assert(moves_cleanly<PooledBuffer>());

/// Runs attempts 0 .. n-1 into one Result: the first initialises it, every later one is assigned to
/// it; `check(i, r)` runs after each.
template <class T, class Attempt, class Check>
void retry(int n, Attempt&& attempt, Check&& check) {
  Result<T> r = attempt(0);
  check(0, r);
  for (int i = 1; i < n; ++i) {
    r = attempt(i);
    check(i, r);
  }
}

/// Attempt i of a loop of six fails when `fails[i]`: error, error, value, value, error, value.
constexpr bool kFails[6] = {true, true, false, false, true, false};

}  // namespace

TEST_CASE("Result re-assignment in a retry loop: Context, Queue") {
  emt::Fixture f;
  const DeviceSelector bad{static_cast<DeviceType>(77)};
  retry<Context>(
      6, [&](int i) { return Context::create(kFails[i] ? bad : DeviceSelector{}); },
      [&](int i, const Result<Context>& r) {
        CAPTURE(i);
        if (kFails[i]) {
          CHECK_ERRC(r, Errc::invalid_argument);
        } else {
          REQUIRE_OK(r);
          CHECK(r->valid());
          CHECK(r->base_align() == f.align());
        }
      });

  Context gone;
  retry<Queue>(
      6, [&](int i) { return Queue::create(kFails[i] ? gone : f.ctx); },
      [&](int i, Result<Queue>& r) {
        CAPTURE(i);
        if (kFails[i]) {
          CHECK_ERRC(r, Errc::released);
        } else {
          REQUIRE_OK(r);
          CHECK(r->valid());
          CHECK_OK(r->finish());
        }
      });
}

TEST_CASE("Result re-assignment in a retry loop: Buffer, Event, Result<void>, Result<bool>, Result<NativeMem>") {
  emt::Fixture f;
  const std::size_t sizes[6] = {0, SIZE_MAX, 64, 128, 0, 256};
  std::vector<emt::Bytes> written(6);
  retry<Buffer>(
      6, [&](int i) { return Buffer::create(f.ctx, sizes[i]); },
      [&](int i, Result<Buffer>& r) {
        CAPTURE(i);
        if (sizes[i] == 0) {
          CHECK_ERRC(r, Errc::invalid_argument);
        } else if (sizes[i] == SIZE_MAX) {
          CHECK_ERRC(r, Errc::out_of_range);
        } else {
          REQUIRE_OK(r);
          CHECK(r->size() == sizes[i]);
          written[i] = emt::random_bytes(sizes[i]);
          CHECK_OK(f.q.write(*r, 0, written[i].data(), sizes[i]));
          CHECK(f.snapshot(*r) == written[i]);
        }
      });

  auto target = Buffer::create(f.ctx, 6 * 16);
  REQUIRE_OK(target);
  const emt::Bytes src = emt::random_bytes(6 * 16);
  retry<Event>(
      6,
      [&](int i) {
        return f.q.write_async(*target, static_cast<std::size_t>(i) * 16, kFails[i] ? nullptr : src.data() + i * 16,
                               16);
      },
      [&](int i, Result<Event>& r) {
        CAPTURE(i);
        if (kFails[i]) {
          CHECK_ERRC(r, Errc::invalid_argument);
        } else {
          REQUIRE_OK(r);
          CHECK(r->valid());
          CHECK_OK(r->wait());
        }
      });
  const emt::Bytes after = f.snapshot(*target);
  ENSURE(after.size() == src.size());
  for (int i = 0; i < 6; ++i)
    if (!kFails[i]) CHECK(std::memcmp(after.data() + i * 16, src.data() + i * 16, 16) == 0);

  Queue gone;
  retry<void>(
      6, [&](int i) { return kFails[i] ? gone.finish() : f.q.finish(); },
      [&](int i, const Result<void>& r) {
        CAPTURE(i);
        if (kFails[i]) CHECK_ERRC(r, Errc::released);
        else CHECK_OK(r);
      });

  auto done = f.q.write_async(*target, 0, src.data(), 16);
  REQUIRE_OK(done);
  CHECK_OK(done->wait());
  const Event dead;
  retry<bool>(
      6, [&](int i) { return kFails[i] ? dead.is_complete() : done->is_complete(); },
      [&](int i, const Result<bool>& r) {
        CAPTURE(i);
        if (kFails[i]) {
          CHECK_ERRC(r, Errc::released);
        } else {
          REQUIRE_OK(r);
          CHECK(*r);
        }
      });

  const Buffer none;
  retry<NativeMem>(
      6, [&](int i) { return kFails[i] ? none.native() : target->native(); },
      [&](int i, const Result<NativeMem>& r) {
        CAPTURE(i);
        if (kFails[i]) {
          CHECK_ERRC(r, Errc::released);
        } else {
          REQUIRE_OK(r);
          CHECK(*r != NativeMem{});
        }
      });
}

TEST_CASE("Result re-assignment in a retry loop: Mapping<T> and Mapping<const T>") {
  emt::Fixture f;
  constexpr std::size_t kSlice = 16;  // bytes per attempt: attempt i maps [i * 16, i * 16 + 16)
  emt::Bytes data;
  Buffer b = f.filled(6 * kSlice, data, Storage::shared);
  ENSURE(b.valid());

  // Write mappings of disjoint ranges (the next one is made while the previous is still open); a
  // failed attempt asks for a range past the end. The assignment unmaps the previous mapping.
  retry<Mapping<std::uint32_t>>(
      6,
      [&](int i) {
        const std::size_t offset = kFails[i] ? b.size() : static_cast<std::size_t>(i) * kSlice;
        return f.q.map<std::uint32_t>(b, Access::write, offset, kSlice);
      },
      [&](int i, Result<Mapping<std::uint32_t>>& r) {
        CAPTURE(i);
        if (kFails[i]) {
          CHECK_ERRC(r, Errc::out_of_range);
        } else {
          REQUIRE_OK(r);
          REQUIRE(r->size() == kSlice / 4);
          for (std::size_t k = 0; k < r->size(); ++k) (*r)[k] = 0xA5000000u + static_cast<std::uint32_t>(i * 16 + k);
        }
      });
  for (int i = 0; i < 6; ++i) {
    if (kFails[i]) continue;
    for (std::size_t k = 0; k < kSlice / 4; ++k) {
      const std::uint32_t v = 0xA5000000u + static_cast<std::uint32_t>(i * 16 + k);
      std::memcpy(data.data() + static_cast<std::size_t>(i) * kSlice + k * 4, &v, 4);
    }
  }
  CHECK(f.snapshot(b) == data);

  // Read mappings as const elements; a failed attempt is misaligned for uint32_t.
  retry<Mapping<const std::uint32_t>>(
      6,
      [&](int i) {
        const std::size_t offset = static_cast<std::size_t>(i) * kSlice + (kFails[i] ? 2 : 0);
        return f.q.map<const std::uint32_t>(b, Access::read, offset, 4);
      },
      [&](int i, Result<Mapping<const std::uint32_t>>& r) {
        CAPTURE(i);
        if (kFails[i]) {
          CHECK_ERRC(r, Errc::misaligned);
        } else {
          REQUIRE_OK(r);
          REQUIRE(r->size() == 1);
          CHECK(std::memcmp(r->data(), data.data() + static_cast<std::size_t>(i) * kSlice, 4) == 0);
        }
      });
}

TEST_CASE("Result re-assignment in a retry loop: PooledBuffer") {
  emt::Fixture f;
  FixedPool<1> pool;
  auto init = pool.init(f.ctx, f.q, f.align());
  REQUIRE_OK(init);
  // One block: while the Result holds it, the next acquire() is exhausted (the right-hand side runs
  // before the assignment returns the block); the one after succeeds again.
  const bool fails[6] = {false, true, false, true, false, true};
  retry<PooledBuffer>(
      6, [&](int) { return pool.acquire(); },
      [&](int i, Result<PooledBuffer>& r) {
        CAPTURE(i);
        if (fails[i]) {
          CHECK_ERRC(r, Errc::exhausted);
          CHECK(pool.stats().in_use == 0);
        } else {
          REQUIRE_OK(r);
          CHECK(r->valid());
          CHECK(r->size() == pool.block_bytes());
          CHECK(pool.owns(*r));
          CHECK(pool.stats().in_use == 1);
        }
      });
  CHECK(pool.stats().in_use == 0);
  CHECK(pool.stats().failed_acquires == 3);
}
