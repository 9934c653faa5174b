// The bad-input catalogue: every case is a doctest TEST_CASE named "bad_input: <api>: <input>",
// registered by BAD_INPUT so a test can count the distinct cases (catalogue.cpp). A case builds its
// objects, records them in a Scene, and makes the bad call through Scene::expect, which asserts
// the exact Errc and then that nothing changed: no edgemem object was created or released
// (live_objects(), when counted), the allocator policy holds the same allocations, and every
// recorded buffer still has its size, origin, flags and contents (re-read and compared), every
// recorded pool, ring and heap its statistics. Only the public API is used, so the catalogue runs
// unchanged on every backend.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "conformance/test_helpers.hpp"

namespace emt::bad {

/// Adds one catalogue entry at static initialisation (see BAD_INPUT).
struct Registration {
  Registration(const char* name, const char* file);
};

/// Names of every registered case, in registration order.
const std::vector<std::string>& catalogue();

/// Field-by-field equality of the statistics structs (they have no operator==).
bool same(const edgemem::PoolStats& a, const edgemem::PoolStats& b);
bool same(const edgemem::RingStats& a, const edgemem::RingStats& b);
bool same(const edgemem::LiveObjects& a, const edgemem::LiveObjects& b);

/// What a case watches, and the check that none of it changed across the bad call.
class Scene {
 public:
  explicit Scene(emt::Fixture& f) : f_(f) {}

  /// A new buffer of `n` random bytes (from_host), owned by the scene and recorded. Invalid (and a
  /// failed check) on error.
  edgemem::Buffer& make(std::size_t n, edgemem::Storage storage = edgemem::Storage::device,
                       edgemem::MemFlags flags = edgemem::MemFlags::read_write);
  /// A Buffer::wrap over all of `host` (its bytes as they are), owned by the scene and recorded.
  edgemem::Buffer& make_wrapped(std::vector<unsigned char>& host);
  /// As make(), but not recorded (for a buffer a case maps for writing: reading it would be refused).
  edgemem::Buffer& make_unwatched(std::size_t n);
  /// Records `b` (its properties now, its contents read through the fixture's queue now).
  void watch(const edgemem::Buffer& b);
  /// Records `b` read through `q` (a buffer of another context).
  void watch(const edgemem::Buffer& b, edgemem::Queue& q);
  /// Records any extra state as a function returning a string; it must return the same afterwards.
  void watch(std::string what, std::function<std::string()> state);
  /// Records a pool's statistics.
  template <std::size_t N, class S>
  void watch(const edgemem::FixedPool<N, S>& pool) {
    watch("FixedPool stats", [&pool] { return describe(pool.stats()); });
  }
  /// Records a ring's statistics.
  template <std::size_t K>
  void watch(const edgemem::FrameRing<K>& ring) {
    watch("FrameRing stats", [&ring] { return describe(ring.stats()); });
  }
  /// Records a heap's page accounting.
  void watch(const edgemem::Heap& heap);

  /// Runs the bad call `call` (returning any Result): checks it fails with exactly `errc`, then that
  /// no object was created or released, the allocator holds the same allocations, and every recorded
  /// buffer and state is unchanged.
  template <class Call>
  void expect(edgemem::Errc errc, Call&& call) {
    arm();
    {
      auto r = call();
      CHECK_ERRC(r, errc);
    }
    verify();
  }

  /// Snapshots the counters that expect() compares (called by expect()).
  void arm();
  /// Checks the counters and every recorded object against their recorded state (called by expect()).
  void verify();

  static std::string describe(const edgemem::PoolStats& s);
  static std::string describe(const edgemem::RingStats& s);

 private:
  struct Watched {
    const edgemem::Buffer* buf;
    edgemem::Queue* q;
    std::size_t size, origin;
    edgemem::MemFlags flags;
    edgemem::Storage storage;
    Bytes contents;
  };
  Bytes read(const edgemem::Buffer& b, edgemem::Queue* q);
  emt::Fixture& f_;
  std::vector<Watched> bufs_;
  std::deque<edgemem::Buffer> owned_;
  std::vector<std::pair<std::string, std::function<std::string()>>> states_;
  std::vector<std::string> state_values_;
  edgemem::LiveObjects live_{};
  edgemem::AllocatorStats alloc_{};
};

}  // namespace emt::bad

#define EMT_BAD_CONCAT_INNER_(a, b) a##b
#define EMT_BAD_CONCAT_(a, b) EMT_BAD_CONCAT_INNER_(a, b)

/// Declares one catalogue case: a doctest TEST_CASE named "bad_input: " name, counted by catalogue().
#define BAD_INPUT(name)                                                                                   \
  static const ::emt::bad::Registration EMT_BAD_CONCAT_(emt_bad_registration_, __LINE__){name, __FILE__}; \
  TEST_CASE("bad_input: " name)

/// As REQUIRE_OK for a call whose Result is not kept (evaluates `expr` once).
#define REQUIRE_OK_DO(expr)   \
  do {                        \
    auto emt_do_ = (expr);    \
    REQUIRE_OK(emt_do_);      \
  } while (false)
