// Capabilities (DeviceInfo::caps): what a device lacks is refused with Errc::unsupported before
// anything changes, and what it has works, on every backend. The host backend's set is configurable
// (EDGEMEM_HOST_CAPS, -Dhost_caps_env=true), so CI runs these cases twice: with everything (meson test conformance) and with
// every optional capability off (meson test conformance_lacking_caps). Each case checks whichever
// path the device takes, so it runs unchanged on PoCL and the H100.
#include <cstdlib>
#include <cstring>

#include "test_helpers.hpp"

using edgemem::Buffer;
using edgemem::Errc;
using edgemem::MemFlags;
using edgemem::Storage;

TEST_CASE_FIXTURE(emt::Fixture, "capabilities: the set is consistent") {
  const edgemem::Capabilities& caps = ctx.info().caps;
  const std::size_t p = caps.max_fill_pattern_bytes;
  CHECK(p <= 128);
  CHECK((p & (p - 1)) == 0);
  CHECK((!caps.image_from_buffer || caps.images));
  CHECK((!caps.image_from_sub_buffer || caps.images));
  CHECK((!caps.svm_fine_buffer || caps.svm_coarse));
  CHECK((!caps.svm_fine_system || caps.svm_fine_buffer));
  CHECK((!caps.read_only_caller_memory_in_place || caps.caller_memory_in_place));
  MESSAGE("caps: images=" << caps.images << " image_from_buffer=" << caps.image_from_buffer
                          << " image_from_sub_buffer=" << caps.image_from_sub_buffer
                          << " svm=" << caps.svm_coarse << caps.svm_fine_buffer << caps.svm_fine_system
                          << " fill<=" << p << " external=" << caps.external_memory << " unified="
                          << caps.unified_memory << " migration=" << caps.migration
                          << " host_access_flags=" << caps.host_access_flags << " in_place=" << caps.caller_memory_in_place
                          << caps.read_only_caller_memory_in_place);
}

TEST_CASE_FIXTURE(emt::Fixture, "capabilities: a fill pattern wider than the device's widest is unsupported, the buffer unchanged") {
  const std::size_t widest = ctx.info().caps.max_fill_pattern_bytes;
  emt::Bytes contents;
  Buffer buf = filled(1024, contents);
  ENSURE(buf.valid());
  unsigned char pattern[128];
  for (std::size_t i = 0; i < sizeof pattern; ++i) pattern[i] = static_cast<unsigned char>(0xA0 + i);
  for (std::size_t p = 1; p <= 128; p *= 2) {
    CAPTURE(p);
    if (p > widest) {
      CHECK_ERRC(q.fill(buf, 0, 256, pattern, p), Errc::unsupported);
      CHECK_ERRC(emt::settle(q.fill_async(buf, 0, 256, pattern, p)), Errc::unsupported);
      CHECK(snapshot(buf) == contents);
      continue;
    }
    CHECK_OK(q.fill(buf, 0, 256, pattern, p));
    for (std::size_t i = 0; i < 256; ++i) contents[i] = pattern[i % p];
    CHECK(snapshot(buf) == contents);
  }
}

TEST_CASE_FIXTURE(emt::Fixture, "capabilities: migration without the capability is unsupported; with it the contents stay") {
  emt::Bytes contents;
  Buffer buf = filled(4096, contents);
  ENSURE(buf.valid());
  auto sub = buf.sub(align(), align());
  REQUIRE_OK(sub);
  for (auto to : {edgemem::Migration::to_host, edgemem::Migration::to_device}) {
    if (!ctx.info().caps.migration) {
      CHECK_ERRC(q.migrate(buf, to), Errc::unsupported);
      CHECK_ERRC(q.migrate(*sub, to), Errc::unsupported);
      CHECK_ERRC(emt::settle(q.migrate_async(buf, to)), Errc::unsupported);
      CHECK(!ctx.info().caps.sub_buffer_migration);  // implies migration
    } else {
      CHECK_OK(q.migrate(buf, to));
      CHECK_OK(q.migrate(*sub, to));  // moved (caps.sub_buffer_migration), else an ordering point
      CHECK_OK(emt::settle(q.migrate_async(buf, to)));
      CHECK_OK(emt::settle(q.migrate_async(*sub, to)));
    }
    CHECK(snapshot(buf) == contents);
  }
}

TEST_CASE_FIXTURE(emt::Fixture, "capabilities: host-access flags without the capability are unsupported at creation") {
  const unsigned char data[64] = {1, 2, 3};
  for (MemFlags f : {MemFlags::host_read_only, MemFlags::host_write_only, MemFlags::host_no_access}) {
    CAPTURE(static_cast<unsigned>(f));
    auto created = Buffer::create(ctx, 64, Storage::device, f);
    auto copied = Buffer::from_host(ctx, data, sizeof data, Storage::device, f | MemFlags::read_only);
    if (ctx.info().caps.host_access_flags) {
      CHECK_OK(created);
      CHECK_OK(copied);
    } else {
      CHECK_ERRC(created, Errc::unsupported);
      CHECK_ERRC(copied, Errc::unsupported);
    }
  }
  CHECK_OK(Buffer::create(ctx, 64, Storage::device, MemFlags::read_only));  // device flags need no capability
}

TEST_CASE_FIXTURE(emt::Fixture, "capabilities: is_host_accessible follows unified memory for device storage") {
  auto dev = Buffer::create(ctx, 256, Storage::device);
  auto shared = Buffer::create(ctx, 256, Storage::shared);
  REQUIRE_OK(dev);
  REQUIRE_OK(shared);
  CHECK(dev->is_host_accessible() == ctx.info().caps.unified_memory);
  CHECK(shared->is_host_accessible());
}
