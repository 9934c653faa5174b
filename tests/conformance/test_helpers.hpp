// Shared helpers of the conformance suite: a Context + Queue fixture, random contents, and
// assertion macros for Results. Only the public API is used, so the same sources run on every backend.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <edgemem/edgemem.hpp>

namespace emt {

using Bytes = std::vector<unsigned char>;

/// Concurrent mappings one buffer handle can hold (from <edgemem/config.hpp>).
inline constexpr std::size_t kMaxMaps = EDGEMEM_MAX_MAPPINGS_PER_BUFFER;

/// Test cases that ended early because this machine lacks what they need (EMT_SKIP); main.cpp's
/// listener names each in its summary, so a skip is never counted as a pass unseen.
inline int g_run_time_skips = 0;

/// Ends the current test case as skipped (at run time: doctest has no such state), saying `why`.
#define EMT_SKIP(why)                     \
  do {                                    \
    MESSAGE("skipped: " << why);          \
    ++emt::g_run_time_skips;              \
    return;                               \
  } while (0)

/// "ok" or "<errc>: <message>" for any Result.
template <class R>
std::string describe(const R& r) {
  if (r) return "ok";
  return std::string(edgemem::to_string(r.error().code)) + ": " + r.error().message;
}

/// Frame size of the two-queue tests in bytes: EDGEMEM_TEST_FRAME_MIB MiB, else `default_mib` MiB.
inline std::size_t test_frame_bytes(long default_mib) {
  const char* env = std::getenv("EDGEMEM_TEST_FRAME_MIB");
  const long mib = env != nullptr ? std::atol(env) : default_mib;
  return static_cast<std::size_t>(mib > 0 ? mib : default_mib) << 20;
}

/// Rounds of the two-queue tests: EDGEMEM_TEST_ROUNDS, else `default_rounds`.
inline int test_rounds(int default_rounds) {
  const char* env = std::getenv("EDGEMEM_TEST_ROUNDS");
  const int n = env != nullptr ? std::atoi(env) : default_rounds;
  return n > 0 ? n : default_rounds;
}

/// Another Queue of `ctx` (the test stops when it cannot be made).
inline edgemem::Queue another_queue(const edgemem::Context& ctx) {
  auto q = edgemem::Queue::create(ctx);
  REQUIRE_MESSAGE(static_cast<bool>(q), "Queue::create -> " << describe(q));
  return std::move(*q);
}

/// How many of the 32-bit words `v` are not `value`.
inline std::size_t wrong_words(const std::vector<std::uint32_t>& v, std::uint32_t value) {
  std::size_t n = 0;
  for (std::uint32_t w : v) n += w != value;
  return n;
}

/// `n` random bytes, mostly non-zero (a zero only where the generator draws one of 1/64 values).
inline Bytes random_bytes(std::size_t n) {
  static std::uint32_t seed = 0x5eed1234u;
  std::mt19937 gen(seed++);
  std::uniform_int_distribution<int> dist(0, 255 * 64);
  Bytes out(n);
  for (auto& b : out) {
    const int v = dist(gen);
    b = static_cast<unsigned char>(v < 64 ? 0 : 1 + v % 255);
  }
  return out;
}

}  // namespace emt

/// Checks that a Result failed with exactly `errc` (prints the actual code and message otherwise).
#define CHECK_ERRC(expr, errc)                                                               \
  do {                                                                                       \
    const auto& emt_r_ = (expr);                                                             \
    CHECK_MESSAGE(!emt_r_, #expr " succeeded, expected " << edgemem::to_string(errc));       \
    if (!emt_r_) {                                                                           \
      CHECK_MESSAGE(emt_r_.error().code == (errc), #expr " -> " << ::emt::describe(emt_r_)); \
      CHECK(emt_r_.error().message != nullptr);                                              \
    }                                                                                        \
  } while (false)

/// Checks that a Result expression succeeded (prints the error otherwise); continues either way.
#define CHECK_OK(expr)                                                                \
  do {                                                                                \
    const auto& emt_r_ = (expr);                                                      \
    CHECK_MESSAGE(static_cast<bool>(emt_r_), #expr " -> " << ::emt::describe(emt_r_)); \
  } while (false)

/// Checks that the named Result `r` succeeded; returns from the test (case or subcase) otherwise,
/// so `*r` is safe afterwards. Unlike REQUIRE it does not abort the whole run.
#define REQUIRE_OK(r)                                                              \
  do {                                                                             \
    CHECK_MESSAGE(static_cast<bool>(r), #r " -> " << ::emt::describe(r));          \
    if (!(r)) return;                                                              \
  } while (false)

/// Checks a condition; returns from the test when it is false. `cond` is evaluated twice (once for
/// doctest's decomposed message): no side effects in it.
#define ENSURE(cond)      \
  do {                    \
    CHECK(cond);          \
    if (!(cond)) return;  \
  } while (false)

namespace emt {

/// A context on the default device (EDGEMEM_DEVICE honoured) and an in-order queue on it.
struct Fixture {
  edgemem::Context ctx;
  edgemem::Queue q;

  Fixture() {
    auto c = edgemem::Context::create();
    REQUIRE_MESSAGE(static_cast<bool>(c), "Context::create -> " << describe(c));
    ctx = std::move(*c);
    auto qq = edgemem::Queue::create(ctx);
    REQUIRE_MESSAGE(static_cast<bool>(qq), "Queue::create -> " << describe(qq));
    q = std::move(*qq);
  }

  /// Base alignment in bytes (sub-buffer origins).
  std::size_t align() const { return ctx.base_align(); }

  /// A buffer of `n` random bytes (copied in with from_host); `contents` receives them.
  /// Invalid buffer (and a failed check) when creation fails.
  edgemem::Buffer filled(std::size_t n, Bytes& contents, edgemem::Storage storage = edgemem::Storage::device,
                         edgemem::MemFlags flags = edgemem::MemFlags::read_write) {
    contents = random_bytes(n);
    auto b = edgemem::Buffer::from_host(ctx, contents.data(), n, storage, flags);
    CHECK_MESSAGE(static_cast<bool>(b), "Buffer::from_host -> " << describe(b));
    return b ? std::move(*b) : edgemem::Buffer{};
  }

  /// The whole contents of `b`: q.read when the host may read it, else a copy into a scratch
  /// buffer that is then read. Empty when that fails (so comparisons with real contents fail).
  Bytes snapshot(const edgemem::Buffer& b) {
    Bytes out(b.size());
    if (out.empty()) return {};
    if (q.read(b, 0, out.data(), out.size())) return out;
    auto scratch = edgemem::Buffer::create(ctx, b.size());
    if (!scratch) return {};
    if (!q.copy(b, *scratch, 0, 0, b.size())) return {};
    if (!q.read(*scratch, 0, out.data(), out.size())) return {};
    return out;
  }

  /// `n` events of completed-or-pending fills of a small scratch buffer.
  std::vector<edgemem::Event> events(std::size_t n) {
    std::vector<edgemem::Event> out;
    if (!scratch_.valid()) {
      auto s = edgemem::Buffer::create(ctx, 64);
      if (s) scratch_ = std::move(*s);
    }
    const unsigned char pattern = 0x5a;
    for (std::size_t i = 0; i < n; ++i) {
      auto e = q.fill_async(scratch_, 0, 64, &pattern, 1);
      CHECK_MESSAGE(static_cast<bool>(e), "fill_async -> " << describe(e));
      if (e) out.push_back(std::move(*e));
    }
    return out;
  }

 private:
  edgemem::Buffer scratch_;
};

/// The async form's outcome as a Result<void>: its error, or the result of waiting for its event.
inline edgemem::Result<void> settle(edgemem::Result<edgemem::Event> r) {
  if (!r) return edgemem::fail(r.error());
  return r->wait();
}

/// A buffer of `n` random bytes on a second context (for wrong-context checks).
struct OtherContext {
  edgemem::Context ctx;
  edgemem::Queue q;
  edgemem::Buffer buf;
  Bytes contents;
  explicit OtherContext(std::size_t n) {
    auto c = edgemem::Context::create();
    REQUIRE_MESSAGE(static_cast<bool>(c), "second Context::create -> " << describe(c));
    ctx = std::move(*c);
    contents = random_bytes(n);
    auto b = edgemem::Buffer::from_host(ctx, contents.data(), n);
    REQUIRE_MESSAGE(static_cast<bool>(b), "Buffer::from_host on the second context -> " << describe(b));
    buf = std::move(*b);
    auto qq = edgemem::Queue::create(ctx);
    REQUIRE_MESSAGE(static_cast<bool>(qq), "Queue::create on the second context -> " << describe(qq));
    q = std::move(*qq);
  }
  /// True when the buffer still holds `contents`.
  bool unchanged() {
    Bytes out(contents.size());
    return q.read(buf, 0, out.data(), out.size()) && out == contents;
  }
};

/// False where caller memory (a wrap, an mmap or host-pointer import) is the device's own copy,
/// synchronised only at maps (caller memory's rule, external.hpp); true where it is the memory itself
/// (Capabilities::caller_memory_in_place).
inline bool wraps_in_place(const edgemem::Context& ctx) { return ctx.info().caps.caller_memory_in_place; }
/// True when the device uses caller memory the process may only read (PROT_READ pages) in place too.
inline bool read_only_wraps_in_place(const edgemem::Context& ctx) {
  return ctx.info().caps.read_only_caller_memory_in_place;
}

/// Calls a = std::move(b) through references, so the compiler cannot see a self-move.
template <class T>
void move_assign(T& a, T& b) {
  a = std::move(b);
}

}  // namespace emt
