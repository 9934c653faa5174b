// Bad inputs to device selection, Context/Queue creation, Buffer creation and sub-buffers.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bad_input/catalogue.hpp"

using namespace edgemem;
using emt::bad::Scene;

namespace {

/// Sets EDGEMEM_DEVICE for its lifetime and restores the previous value (or its absence) after.
struct DeviceEnv {
  explicit DeviceEnv(const char* value) {
    const char* old = std::getenv("EDGEMEM_DEVICE");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("EDGEMEM_DEVICE", value, 1);
  }
  ~DeviceEnv() {
    if (had_) setenv("EDGEMEM_DEVICE", old_.c_str(), 1);
    else unsetenv("EDGEMEM_DEVICE");
  }
  DeviceEnv(const DeviceEnv&) = delete;
  DeviceEnv& operator=(const DeviceEnv&) = delete;

 private:
  bool had_ = false;
  std::string old_;
};

/// A selector that ignores EDGEMEM_DEVICE.
DeviceSelector pick(DeviceType type, int platform, int device) { return DeviceSelector{type, platform, device, true}; }

/// The context's DeviceInfo as text, so a case can watch it.
std::string info_text(const Context& ctx) {
  const DeviceInfo& i = ctx.info();
  return std::string(i.name) + "|" + i.version + "|" + i.backend + "|" + std::to_string(i.max_alloc_bytes) + "|" +
         std::to_string(i.base_align_bytes) + "|" + std::to_string(i.global_mem_bytes);
}

/// A scene watching one random buffer and the fixture's context properties.
void watch_context(Scene& s, emt::Fixture& f) {
  s.make(4 * f.align());
  s.watch("context info", [&f] { return info_text(f.ctx); });
}

}  // namespace

// ---- device selection, Context, Queue ----------------------------------------------------------

BAD_INPUT("Context::create: platform index out of range") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [] { return Context::create(pick(DeviceType::any, 999, -1)); });
}

BAD_INPUT("Context::create: device index out of range") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [] { return Context::create(pick(DeviceType::any, 0, 999)); });
}

BAD_INPUT("Context::create: index below -1") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [] { return Context::create(pick(DeviceType::any, -2, -1)); });
  s.expect(Errc::invalid_argument, [] { return Context::create(pick(DeviceType::any, -1, -7)); });
}

BAD_INPUT("Context::create: unknown DeviceType value") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [] { return Context::create(pick(static_cast<DeviceType>(42), -1, -1)); });
}

BAD_INPUT("Context::create: no device of the requested type") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  // Neither the host backend nor PoCL has an accelerator device.
  auto probe = Context::create(pick(DeviceType::accelerator, -1, -1));
  if (probe) {
    MESSAGE("this machine has an accelerator device; case not applicable");
    return;
  }
  s.expect(Errc::unsupported, [] { return Context::create(pick(DeviceType::accelerator, -1, -1)); });
}

BAD_INPUT("Context::create: malformed EDGEMEM_DEVICE") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  for (const char* spec : {"x", "0:", ":0", "0:1:2", "-1:0", "0:99999999999"}) {
    CAPTURE(spec);
    DeviceEnv env(spec);
    s.expect(Errc::invalid_argument, [] { return Context::create(); });
  }
  DeviceEnv env("1:x");  // ignore_environment skips the variable entirely
  auto ok = Context::create(DeviceSelector{DeviceType::any, -1, -1, true});
  CHECK_OK(ok);
}

BAD_INPUT("Context::create: EDGEMEM_DEVICE names a platform that does not exist") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  DeviceEnv env("999:0");
  s.expect(Errc::invalid_argument, [] { return Context::create(); });
}

BAD_INPUT("Context::adopt: null native handles") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [] { return Context::adopt(NativeContext{}); });
}

BAD_INPUT("Queue::create: released context") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  Context dead;
  s.expect(Errc::released, [&] { return Queue::create(dead); });
}

BAD_INPUT("Queue::adopt: null native queue") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [&] { return Queue::adopt(f.ctx, NativeQueue{}); });
}

// ---- Buffer creation ------------------------------------------------------------------------------

BAD_INPUT("Buffer::create: zero bytes") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [&] { return Buffer::create(f.ctx, 0); });
}

BAD_INPUT("Buffer::create: one byte past the device's max allocation") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  const std::size_t max = f.ctx.info().max_alloc_bytes;
  ENSURE(max > 0);
  ENSURE(max < SIZE_MAX);
  s.expect(Errc::out_of_range, [&] { return Buffer::create(f.ctx, max + 1); });
  s.expect(Errc::out_of_range, [&] { return Buffer::create(f.ctx, max + 1, Storage::shared); });
}

BAD_INPUT("Buffer::create: SIZE_MAX bytes") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::out_of_range, [&] { return Buffer::create(f.ctx, SIZE_MAX, Storage::host); });
}

BAD_INPUT("Buffer::create: read_only together with write_only") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument,
           [&] { return Buffer::create(f.ctx, 64, Storage::device, MemFlags::read_only | MemFlags::write_only); });
}

BAD_INPUT("Buffer::create: two host-access flags") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [&] {
    return Buffer::create(f.ctx, 64, Storage::device, MemFlags::host_read_only | MemFlags::host_write_only);
  });
  s.expect(Errc::invalid_argument, [&] {
    return Buffer::create(f.ctx, 64, Storage::device, MemFlags::host_no_access | MemFlags::host_read_only);
  });
}

BAD_INPUT("Buffer::create: unknown MemFlags bits") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument,
           [&] { return Buffer::create(f.ctx, 64, Storage::device, static_cast<MemFlags>(1u << 7)); });
}

BAD_INPUT("Buffer::create: unknown Storage value") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [&] { return Buffer::create(f.ctx, 64, static_cast<Storage>(7)); });
}

BAD_INPUT("Buffer::create: released context") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  auto gone = Context::create();
  REQUIRE_OK(gone);
  CHECK_OK(gone->release());
  Context moved_from;
  {
    auto c = Context::create();
    REQUIRE_OK(c);
    moved_from = std::move(*c);  // *c is now moved-from
    s.expect(Errc::released, [&] { return Buffer::create(*c, 64); });
  }
  s.expect(Errc::released, [&] { return Buffer::create(*gone, 64); });
  s.expect(Errc::released, [&] { return Buffer::from_host(*gone, &s, 1); });
}

BAD_INPUT("Buffer::from_host: null host pointer") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [&] { return Buffer::from_host(f.ctx, nullptr, 64); });
}

BAD_INPUT("Buffer::from_host: size past the device maximum") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  const unsigned char small[16] = {};
  // The size is refused before a byte of `small` is read.
  s.expect(Errc::out_of_range, [&] { return Buffer::from_host(f.ctx, small, f.ctx.info().max_alloc_bytes + 1); });
}

BAD_INPUT("Buffer::wrap: null host pointer") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [&] { return Buffer::wrap(f.ctx, nullptr, 4096); });
}

BAD_INPUT("Buffer::wrap: zero bytes") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  emt::Bytes host = emt::random_bytes(64);
  const emt::Bytes before = host;
  s.expect(Errc::invalid_argument, [&] { return Buffer::wrap(f.ctx, host.data(), 0); });
  CHECK(host == before);
}

BAD_INPUT("Buffer::like: released buffer") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  Buffer dead;
  s.expect(Errc::released, [&] { return Buffer::like(dead); });
}

BAD_INPUT("Buffer::adopt: null native handle") {
  emt::Fixture f;
  Scene s(f);
  watch_context(s, f);
  s.expect(Errc::invalid_argument, [&] { return Buffer::adopt(f.ctx, NativeMem{}); });
}

// ---- sub-buffers ----------------------------------------------------------------------------------

BAD_INPUT("Buffer::sub: zero bytes") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(4 * f.align());
  s.expect(Errc::invalid_argument, [&] { return b.sub(0, 0); });
}

BAD_INPUT("Buffer::sub: offset + size past the end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(4 * f.align());
  s.expect(Errc::out_of_range, [&] { return b.sub(2 * f.align(), 2 * f.align() + 1); });
}

BAD_INPUT("Buffer::sub: offset at the end") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(4 * f.align());
  s.expect(Errc::out_of_range, [&] { return b.sub(4 * f.align(), 1); });
}

BAD_INPUT("Buffer::sub: offset + size overflows SIZE_MAX") {
  emt::Fixture f;
  Scene s(f);
  Buffer& b = s.make(4 * f.align());
  s.expect(Errc::out_of_range, [&] { return b.sub(f.align(), SIZE_MAX - f.align() + 1); });
  s.expect(Errc::out_of_range, [&] { return b.sub(SIZE_MAX - f.align() + 1, f.align()); });
}

BAD_INPUT("Buffer::sub: origin not a multiple of the base alignment") {
  emt::Fixture f;
  Scene s(f);
  ENSURE(f.align() > 1);
  Buffer& b = s.make(4 * f.align());
  s.expect(Errc::misaligned, [&] { return b.sub(1, f.align()); });
  s.expect(Errc::misaligned, [&] { return b.sub(f.align() + f.align() / 2, f.align()); });
}

BAD_INPUT("Buffer::sub: sub of a sub misaligned against the root") {
  emt::Fixture f;
  Scene s(f);
  ENSURE(f.align() > 1);
  Buffer& b = s.make(4 * f.align());
  auto mid = b.sub(f.align(), 2 * f.align());
  REQUIRE_OK(mid);
  s.watch(*mid);
  s.expect(Errc::misaligned, [&] { return mid->sub(f.align() / 2, f.align()); });
}

BAD_INPUT("Buffer::sub: released buffer") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  auto gone = Buffer::create(f.ctx, 4 * f.align());
  REQUIRE_OK(gone);
  CHECK_OK(gone->release());
  s.expect(Errc::released, [&] { return gone->sub(0, f.align()); });
}
