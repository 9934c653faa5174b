// Context and Queue: creation, device properties, selection errors, lifetime and moves.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

bool is_power_of_two(std::size_t v) { return v != 0 && (v & (v - 1)) == 0; }

/// Sets EDGEMEM_DEVICE for its lifetime and restores the previous value afterwards.
class ScopedDeviceEnv {
 public:
  explicit ScopedDeviceEnv(const char* value) {
    const char* old = std::getenv("EDGEMEM_DEVICE");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("EDGEMEM_DEVICE", value, 1);
  }
  ~ScopedDeviceEnv() {
    if (had_) setenv("EDGEMEM_DEVICE", old_.c_str(), 1);
    else unsetenv("EDGEMEM_DEVICE");
  }
  ScopedDeviceEnv(const ScopedDeviceEnv&) = delete;
  ScopedDeviceEnv& operator=(const ScopedDeviceEnv&) = delete;

 private:
  bool had_ = false;
  std::string old_;
};

}  // namespace

TEST_CASE("Context::create opens the device and reports its properties") {
  auto c = Context::create();
  REQUIRE_OK(c);
  const Context& ctx = *c;
  CHECK(ctx.valid());
  const DeviceInfo& info = ctx.info();
  CHECK(info.name[0] != '\0');
  CHECK(std::strlen(info.name) < sizeof info.name);
  CHECK(std::strlen(info.version) < sizeof info.version);
  CHECK(info.driver[0] != '\0');
  CHECK(std::strlen(info.driver) < sizeof info.driver);
  REQUIRE(info.backend != nullptr);
  CHECK(std::string(info.backend) == EDGEMEM_BACKEND_NAME);
  CHECK(info.max_alloc_bytes > 0);
  CHECK(info.global_mem_bytes > 0);
  CHECK(is_power_of_two(info.base_align_bytes));
  CHECK(ctx.base_align() == info.base_align_bytes);
  CHECK(info.version_major >= 1);
  CHECK((info.version_major > 1 || info.version_minor >= 1));
  MESSAGE("device: " << info.name << " (" << std::string(info.backend) << ", " << info.version << "), base_align "
                     << info.base_align_bytes << " B, max_alloc " << info.max_alloc_bytes << " B, unified "
                     << info.caps.unified_memory);
}

TEST_CASE("Context::create picks a device by type and by explicit index 0") {
  DeviceSelector any;
  any.ignore_environment = true;
  CHECK_OK(Context::create(any));

  DeviceSelector first = any;
  first.platform_index = 0;
  first.device_index = 0;
  // Platform 0 device 0 exists on every backend the suite runs on.
  CHECK_OK(Context::create(first));
}

TEST_CASE("Context::create: invalid_argument for an index past the last platform or device") {
  DeviceSelector sel;
  sel.ignore_environment = true;
  sel.platform_index = 100000;
  CHECK_ERRC(Context::create(sel), Errc::invalid_argument);

  sel.platform_index = 0;
  sel.device_index = 100000;
  CHECK_ERRC(Context::create(sel), Errc::invalid_argument);
}

TEST_CASE("Context::create: invalid_argument for a malformed EDGEMEM_DEVICE, and ignore_environment skips it") {
  const char* bad[] = {"garbage", "0", "0:", ":0", "0:1:2", "-1:0", "0:x"};
  for (const char* value : bad) {
    CAPTURE(value);
    ScopedDeviceEnv env(value);
    CHECK_ERRC(Context::create(), Errc::invalid_argument);
    DeviceSelector sel;
    sel.ignore_environment = true;
    CHECK_OK(Context::create(sel));
  }
  {
    ScopedDeviceEnv env("100000:0");  // well-formed, but no such platform
    CHECK_ERRC(Context::create(), Errc::invalid_argument);
  }
}

TEST_CASE("Context::create: unsupported for a device type the system lacks") {
  // No backend the suite runs on (host, PoCL, an NVIDIA GPU) exposes an accelerator device.
  DeviceSelector sel;
  sel.type = DeviceType::accelerator;
  sel.ignore_environment = true;
  CHECK_ERRC(Context::create(sel), Errc::unsupported);
}

TEST_CASE("Context::create: one selection rule on every backend for selectors that name no device") {
  // The rule (device.hpp): unsupported when no device of the type exists on any platform, whatever the
  // indices; else invalid_argument for an index that names nothing. Whether a type exists is probed
  // with {type, -1, -1}. On the host backend and on PoCL (one platform, one CPU device) gpu and
  // accelerator are absent, so the first three answer unsupported and the last three invalid_argument;
  // on an NVIDIA-only system {gpu, 1, 0} and {gpu, -1, 3} answer invalid_argument. The selectors name
  // no device on any system with at most 3 platforms and at most 5 devices of a type per platform.
  auto exists = [](DeviceType type) {
    DeviceSelector probe;
    probe.type = type;
    probe.ignore_environment = true;
    auto c = Context::create(probe);
    if (!c) CHECK_MESSAGE(c.error().code == Errc::unsupported, "probe -> " << emt::describe(c));
    return static_cast<bool>(c);
  };
  CHECK(exists(DeviceType::any));
  struct Case {
    DeviceType type;
    int platform, device;
  };
  const Case cases[] = {{DeviceType::gpu, 1, 0},  {DeviceType::accelerator, 7, -1}, {DeviceType::gpu, -1, 3},
                        {DeviceType::cpu, 0, 5},  {DeviceType::cpu, 3, 0},          {DeviceType::any, 0, 9}};
  for (const Case& c : cases) {
    CAPTURE(static_cast<int>(c.type));
    CAPTURE(c.platform);
    CAPTURE(c.device);
    DeviceSelector sel;
    sel.type = c.type;
    sel.platform_index = c.platform;
    sel.device_index = c.device;
    sel.ignore_environment = true;
    CHECK_ERRC(Context::create(sel), exists(c.type) ? Errc::invalid_argument : Errc::unsupported);
  }
  // EDGEMEM_DEVICE goes through the same rule: an absent type stays unsupported, a present one with
  // an index past the end is invalid_argument.
  ScopedDeviceEnv env("0:9");
  for (const DeviceType type : {DeviceType::gpu, DeviceType::cpu, DeviceType::accelerator, DeviceType::any}) {
    CAPTURE(static_cast<int>(type));
    DeviceSelector sel;
    sel.type = type;
    const bool present = [&] {
      DeviceSelector probe;
      probe.type = type;
      probe.ignore_environment = true;
      return static_cast<bool>(Context::create(probe));
    }();
    CHECK_ERRC(Context::create(sel), present ? Errc::invalid_argument : Errc::unsupported);
  }
}

TEST_CASE("Context::census counts what the selection rule opens, on every backend alike") {
  CHECK_ERRC(Context::census(static_cast<DeviceType>(99)), Errc::invalid_argument);
  ScopedDeviceEnv env("0:9");  // plays no part in the census
  for (const DeviceType type : {DeviceType::any, DeviceType::gpu, DeviceType::cpu, DeviceType::accelerator}) {
    CAPTURE(static_cast<int>(type));
    auto census = Context::census(type);
    REQUIRE_MESSAGE(census, emt::describe(census));
    REQUIRE(census->platforms <= DeviceCensus::max_platforms);
    unsigned total = 0;
    for (unsigned p = 0; p < census->platforms; ++p) {
      CAPTURE(p);
      total += census->devices[p];
      DeviceSelector sel;
      sel.type = type;
      sel.platform_index = static_cast<int>(p);
      sel.ignore_environment = true;
      for (unsigned d = 0; d < census->devices[p]; ++d) {  // each counted device opens
        CAPTURE(d);
        sel.device_index = static_cast<int>(d);
        auto c = Context::create(sel);
        CHECK_MESSAGE(c, emt::describe(c));
      }
      sel.device_index = static_cast<int>(census->devices[p]);  // one past the last names none
      if (census->devices[p] != 0) CHECK_ERRC(Context::create(sel), Errc::invalid_argument);
    }
    DeviceSelector any;
    any.type = type;
    any.ignore_environment = true;
    if (total == 0) CHECK_ERRC(Context::create(any), Errc::unsupported);
    else CHECK(Context::create(any));
  }
}

TEST_CASE("Context: released and moved-from contexts") {
  auto c = Context::create();
  REQUIRE_OK(c);
  Context a = std::move(*c);
  CHECK_FALSE(c->valid());
  CHECK(c->base_align() == 0);
  CHECK(c->info().max_alloc_bytes == 0);
  CHECK(a.valid());
  const std::size_t align = a.base_align();

  Context b;
  CHECK_FALSE(b.valid());
  b = std::move(a);
  CHECK(b.valid());
  CHECK_FALSE(a.valid());
  CHECK(b.base_align() == align);
  emt::move_assign(b, b);  // self-move keeps the context
  CHECK(b.valid());
  CHECK(b.base_align() == align);

  CHECK_OK(b.release());
  CHECK_FALSE(b.valid());
  CHECK_OK(b.release());  // idempotent
  const DeviceInfo& info = b.info();
  CHECK(info.name[0] == '\0');
  CHECK(info.max_alloc_bytes == 0);
  CHECK(info.global_mem_bytes == 0);
  CHECK(info.base_align_bytes == 0);
  CHECK(b.base_align() == 0);
  CHECK(info.version_major == 0);

  CHECK_ERRC(Queue::create(b), Errc::released);
  CHECK_ERRC(Buffer::create(b, 64), Errc::released);
  unsigned char data[16] = {1, 2, 3};
  CHECK_ERRC(Buffer::from_host(b, data, sizeof data), Errc::released);
  CHECK_ERRC(Buffer::from_host(b, nullptr, sizeof data), Errc::released);  // released is checked first
  CHECK_ERRC(Buffer::wrap(b, data, sizeof data), Errc::released);
  CHECK_ERRC(Buffer::wrap(b, nullptr, 0), Errc::released);
  Context never;
  CHECK_ERRC(Queue::create(never), Errc::released);
}

TEST_CASE("Context: objects keep the device open after the context handle is released") {
  auto c = Context::create();
  REQUIRE_OK(c);
  auto q = Queue::create(*c);
  REQUIRE_OK(q);
  emt::Bytes data = emt::random_bytes(256);
  auto b = Buffer::from_host(*c, data.data(), data.size());
  REQUIRE_OK(b);
  CHECK_OK(c->release());
  CHECK_FALSE(c->valid());

  emt::Bytes more = emt::random_bytes(128);
  CHECK_OK(q->write(*b, 64, more.data(), more.size()));
  std::copy(more.begin(), more.end(), data.begin() + 64);
  emt::Bytes back(data.size());
  CHECK_OK(q->read(*b, 0, back.data(), back.size()));
  CHECK(back == data);
  auto like = Buffer::like(*b);  // still has the context through the buffer
  CHECK_OK(like);
  CHECK_OK(q->finish());
}

TEST_CASE("Queue: create, finish, move, release") {
  emt::Fixture f;
  CHECK(f.q.valid());
  CHECK_OK(f.q.finish());

  Queue moved = std::move(f.q);
  CHECK(moved.valid());
  CHECK_FALSE(f.q.valid());
  CHECK_ERRC(f.q.finish(), Errc::released);

  emt::move_assign(moved, moved);
  CHECK(moved.valid());
  CHECK_OK(moved.finish());

  auto other = Queue::create(f.ctx);
  REQUIRE_OK(other);
  f.q = std::move(*other);  // into a moved-from handle
  CHECK(f.q.valid());
  moved = std::move(f.q);  // releases the first queue, takes the second
  CHECK(moved.valid());
  CHECK_FALSE(f.q.valid());

  CHECK_OK(moved.release());
  CHECK_FALSE(moved.valid());
  CHECK_OK(moved.release());  // idempotent
  CHECK_ERRC(moved.finish(), Errc::released);

  Queue empty;
  CHECK_FALSE(empty.valid());
  CHECK_ERRC(empty.finish(), Errc::released);
}

TEST_CASE("Queue: two queues on one context see each other's finished work") {
  emt::Fixture f;
  auto q2 = Queue::create(f.ctx);
  REQUIRE_OK(q2);
  emt::Bytes data;
  Buffer b = f.filled(512, data);
  ENSURE(b.valid());
  emt::Bytes more = emt::random_bytes(512);
  CHECK_OK(f.q.write(b, 0, more.data(), more.size()));
  CHECK_OK(f.q.finish());
  emt::Bytes back(512);
  CHECK_OK(q2->read(b, 0, back.data(), back.size()));
  CHECK(back == more);
}

TEST_CASE_FIXTURE(emt::Fixture, "adopt: null handles are invalid_argument; native handles of this context are adopted or unsupported") {
  using edgemem::Buffer;
  using edgemem::Context;
  using edgemem::Queue;
  CHECK_ERRC(Context::adopt({}), edgemem::Errc::invalid_argument);
  CHECK_ERRC(Queue::adopt(ctx, {}), edgemem::Errc::invalid_argument);
  CHECK_ERRC(Buffer::adopt(ctx, {}), edgemem::Errc::invalid_argument);
  CHECK_ERRC(Buffer::adopt(Context{}, {}), edgemem::Errc::released);
  CHECK_ERRC(Queue::adopt(Context{}, {}), edgemem::Errc::released);

  auto data = emt::random_bytes(512);
  auto buf = Buffer::from_host(ctx, data.data(), data.size());
  REQUIRE_OK(buf);
  auto c2 = Context::adopt(ctx.native());
  auto q2 = Queue::adopt(ctx, q.native());
  auto buf_native = buf->native();
  REQUIRE_OK(buf_native);
  auto b2 = Buffer::adopt(ctx, *buf_native);
  if (!c2 && c2.error().code == edgemem::Errc::unsupported) {  // a backend with no objects made elsewhere (host)
    CHECK_ERRC(q2, edgemem::Errc::unsupported);
    CHECK_ERRC(q2, edgemem::Errc::unsupported);
    CHECK_ERRC(b2, edgemem::Errc::unsupported);
    return;
  }
  REQUIRE_OK(c2);
  REQUIRE_OK(q2);
  REQUIRE_OK(b2);
  CHECK(std::string(c2->info().name) == ctx.info().name);
  CHECK(b2->size() == buf->size());
  std::vector<unsigned char> back(data.size());
  REQUIRE_OK(q2->read(*b2, 0, back.data(), back.size()));
  CHECK(back == data);
  // Both handles stay usable after the other goes.
  b2 = Buffer{};
  q2 = Queue{};
  REQUIRE_OK(q.read(*buf, 0, back.data(), back.size()));
  CHECK(back == data);
}
