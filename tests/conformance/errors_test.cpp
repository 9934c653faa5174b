// The error model: to_string, Error fields, propagation helpers, and the documented check order
// of queue.hpp (released, invalid_argument, out_of_range, misaligned, overlap, host access, busy,
// wait list).
#include <cstring>
#include <string>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

const Errc kAll[] = {Errc::invalid_argument, Errc::out_of_range, Errc::misaligned, Errc::overlap,
                     Errc::exhausted, Errc::out_of_device_memory, Errc::out_of_host_memory,
                     Errc::unsupported, Errc::busy, Errc::released, Errc::backend_failure, Errc::access_denied};

Result<int> half_of_even(int v) {
  if (v % 2 != 0) return fail(Errc::invalid_argument, "odd", 7);
  return v / 2;
}

Result<int> quarter(int v) {
  EDGEMEM_TRY_ASSIGN(int h, half_of_even(v));
  EDGEMEM_TRY_ASSIGN(const int q, half_of_even(h));
  return q;
}

Result<void> check_even(int v) {
  EDGEMEM_TRY(half_of_even(v));
  return {};
}

}  // namespace

TEST_CASE("to_string names every Errc by its enumerator name") {
  const char* names[] = {"invalid_argument", "out_of_range", "misaligned", "overlap", "exhausted",
                         "out_of_device_memory", "out_of_host_memory", "unsupported", "busy", "released",
                         "backend_failure", "access_denied"};
  static_assert(sizeof names / sizeof names[0] == sizeof kAll / sizeof kAll[0]);
  for (std::size_t i = 0; i < sizeof kAll / sizeof kAll[0]; ++i) {
    CAPTURE(i);
    const char* s = to_string(kAll[i]);
    REQUIRE(s != nullptr);
    CHECK(std::string(s) == names[i]);
    CHECK(to_string(kAll[i]) == s);  // a static string: the same pointer every time
  }
  CHECK(static_cast<int>(Errc::invalid_argument) == 1);
  // Values outside the enumeration still give a static, non-null string.
  const char* unknown = to_string(static_cast<Errc>(0));
  REQUIRE(unknown != nullptr);
  CHECK(std::strlen(unknown) > 0);
  REQUIRE(to_string(static_cast<Errc>(200)) != nullptr);
}

TEST_CASE("Error fields: edgemem-detected errors have native 0 and a static message") {
  Error def{Errc::busy};
  CHECK(def.code == Errc::busy);
  CHECK(def.native == 0);
  REQUIRE(def.message != nullptr);
  CHECK(std::string(def.message).empty());

  emt::Fixture f;
  auto r = Buffer::create(f.ctx, 0);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::invalid_argument);
  CHECK(r.error().native == 0);
  REQUIRE(r.error().message != nullptr);
  CHECK(std::strlen(r.error().message) > 0);
  auto sub = Buffer{}.sub(0, 1);
  REQUIRE_FALSE(sub);
  CHECK(sub.error().code == Errc::released);
  CHECK(sub.error().native == 0);
  CHECK(std::strlen(sub.error().message) > 0);
  // Two calls failing the same way give the same static message.
  auto r2 = Buffer::create(f.ctx, 0);
  REQUIRE_FALSE(r2);
  CHECK(r2.error().message == r.error().message);
}

TEST_CASE("fail(), EDGEMEM_TRY and EDGEMEM_TRY_ASSIGN propagate errors unchanged") {
  Result<int> f1 = fail(Errc::overlap, "msg", -5);  // through Result: tl::unexpected and std::unexpected differ
  REQUIRE_FALSE(f1);
  CHECK(f1.error().code == Errc::overlap);
  CHECK(f1.error().native == -5);
  CHECK(std::string(f1.error().message) == "msg");
  Result<int> as_result = fail(f1.error());
  REQUIRE_FALSE(as_result);
  CHECK(as_result.error().code == Errc::overlap);

  auto ok = quarter(12);
  REQUIRE_OK(ok);
  CHECK(*ok == 3);
  auto bad = quarter(6);  // 6 -> 3 -> odd
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == Errc::invalid_argument);
  CHECK(bad.error().native == 7);
  CHECK(std::string(bad.error().message) == "odd");
  CHECK_OK(check_even(4));
  CHECK_ERRC(check_even(5), Errc::invalid_argument);
}

TEST_CASE("check order: released before invalid_argument before out_of_range") {
  emt::Fixture f;
  emt::OtherContext other(64);
  emt::Bytes data;
  Buffer b = f.filled(256, data);
  ENSURE(b.valid());
  Queue no_queue;
  Buffer none;
  const unsigned char pattern[4] = {1, 2, 3, 4};
  // released beats everything else.
  CHECK_ERRC(no_queue.write(none, SIZE_MAX, nullptr, 0), Errc::released);
  CHECK_ERRC(no_queue.write(other.buf, 0, data.data(), 16), Errc::released);
  CHECK_ERRC(f.q.read(none, SIZE_MAX, nullptr, 0), Errc::released);
  CHECK_ERRC(f.q.fill(none, 1, 3, nullptr, 3), Errc::released);
  CHECK_ERRC(f.q.copy(none, b, 0, 0, 0), Errc::released);
  CHECK_ERRC(f.q.copy(b, none, SIZE_MAX, 0, 1), Errc::released);
  CHECK_ERRC(f.q.map(none, Access::write, 0, 0), Errc::released);
  CHECK_ERRC(f.q.write_rect(none, Rect{{}, {}, {0, 0, 0}}, nullptr, 0), Errc::released);
  // invalid_argument (null, zero, other context) beats ranges.
  CHECK_ERRC(f.q.write(b, SIZE_MAX, nullptr, 1), Errc::invalid_argument);
  CHECK_ERRC(f.q.read(b, 300, nullptr, 1), Errc::invalid_argument);
  CHECK_ERRC(f.q.write(b, 300, data.data(), 0), Errc::invalid_argument);
  CHECK_ERRC(f.q.write(other.buf, 1000, data.data(), 16), Errc::invalid_argument);
  CHECK_ERRC(f.q.copy(b, other.buf, 1000, 0, 16), Errc::invalid_argument);
  CHECK_ERRC(f.q.fill(b, 1000, 4, pattern, 3), Errc::invalid_argument);  // bad pattern size beats range
  CHECK_ERRC(f.q.copy(b, b, 300, 0, 0), Errc::invalid_argument);
  CHECK(f.snapshot(b) == data);
  CHECK(other.unchanged());
}

TEST_CASE("check order: out_of_range, misaligned, overlap, host access, busy") {
  emt::Fixture f;
  emt::Bytes data, rodata;
  Buffer b = f.filled(256, data);
  Buffer ro = f.filled(256, rodata, Storage::device, MemFlags::host_read_only);
  ENSURE(b.valid());
  ENSURE(ro.valid());
  const unsigned char pattern[4] = {1, 2, 3, 4};
  const emt::Bytes src = emt::random_bytes(256);
  // out_of_range beats misaligned, host access and busy.
  CHECK_ERRC(f.q.fill(ro, 2, 256, pattern, 4), Errc::out_of_range);
  CHECK_ERRC(f.q.write(ro, 1, src.data(), 256), Errc::out_of_range);
  // misaligned beats host access.
  CHECK_ERRC(f.q.fill(ro, 2, 8, pattern, 4), Errc::misaligned);
  {
    auto m = f.q.map(b, Access::write, 0, 64);
    REQUIRE_OK(m);
    auto mro = f.q.map(ro, Access::read, 0, 64);
    REQUIRE_OK(mro);
    // out_of_range and misaligned beat busy.
    CHECK_ERRC(f.q.write(b, 0, src.data(), 257), Errc::out_of_range);
    CHECK_ERRC(f.q.fill(b, 2, 8, pattern, 4), Errc::misaligned);
    // overlap beats busy.
    CHECK_ERRC(f.q.copy(b, b, 0, 8, 16), Errc::overlap);
    CHECK_ERRC(f.q.copy_rect(b, b, CopyRect{{}, {{8, 0, 0}, 0, 0}, {16, 1, 1}}), Errc::overlap);
    // host access beats busy.
    CHECK_ERRC(f.q.write(ro, 0, src.data(), 16), Errc::access_denied);
    CHECK_ERRC(f.q.fill(ro, 0, 16, pattern, 4), Errc::access_denied);
    CHECK_ERRC(f.q.map(ro, Access::write, 0, 16), Errc::access_denied);
    // busy beats the wait list.
    Event dead;
    CHECK_ERRC(f.q.write_async(b, 0, src.data(), 16, dead), Errc::busy);
    emt::Bytes sink(16, 0x33);
    CHECK_ERRC(f.q.read_async(b, 0, sink.data(), 16, dead), Errc::busy);
    CHECK(sink == emt::Bytes(16, 0x33));
  }
  CHECK(f.snapshot(b) == data);
  CHECK(f.snapshot(ro) == rodata);
}
