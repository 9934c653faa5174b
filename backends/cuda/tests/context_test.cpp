// The CUDA backend's start, on either kind of machine: without the NVIDIA driver (CI, a board without
// a GPU) Context::create and Context::census answer unsupported with a message naming libcuda.so.1,
// and nothing is left behind; with it, the device opens on the CUDA backend and reports its facts.
// Which case applies is decided here by loading libcuda.so.1 the way the backend does.
#include <dlfcn.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <edgemem/edgemem.hpp>

namespace {

bool driver_present() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return false;
  dlclose(lib);
  return true;
}

}  // namespace

TEST_CASE("cuda: Context::create without the driver is unsupported and names libcuda.so.1; with it, the device opens") {
  REQUIRE(std::string(EDGEMEM_BACKEND_NAME) == "cuda");
  auto ctx = edgemem::Context::create();
  auto census = edgemem::Context::census(edgemem::DeviceType::gpu);
  if (!driver_present()) {
    REQUIRE_FALSE(ctx.has_value());
    CHECK(ctx.error().code == edgemem::Errc::unsupported);
    CHECK(std::strstr(ctx.error().message, "libcuda.so.1") != nullptr);
    REQUIRE_FALSE(census.has_value());
    CHECK(census.error().code == edgemem::Errc::unsupported);
    // Asking again gives the same answer (the failed load is remembered, not retried into a crash).
    auto again = edgemem::Context::create();
    REQUIRE_FALSE(again.has_value());
    CHECK(again.error().code == edgemem::Errc::unsupported);
    // Objects of a failed context are released handles, as on every backend.
    CHECK(edgemem::Queue::create(edgemem::Context{}).error().code == edgemem::Errc::released);
    CHECK(edgemem::Buffer::create(edgemem::Context{}, 64).error().code == edgemem::Errc::released);
    CHECK(edgemem::live_objects().contexts == 0);
    return;
  }
  REQUIRE(census.has_value());
  CHECK(census->platforms == 1);
  if (census->devices[0] == 0) {  // a driver without a device (a container without the GPU)
    REQUIRE_FALSE(ctx.has_value());
    CHECK(ctx.error().code == edgemem::Errc::unsupported);
    return;
  }
  REQUIRE(ctx.has_value());
  const edgemem::DeviceInfo& info = ctx->info();
  CHECK(std::string(info.backend) == "cuda");
  CHECK(info.global_mem_bytes > 0);
  CHECK(info.max_alloc_bytes > 0);
  CHECK(info.base_align_bytes == 256);
  CHECK(info.caps.max_fill_pattern_bytes == 128);
  CHECK_FALSE(info.caps.images);
  CHECK_FALSE(info.caps.svm_coarse);
  CHECK(std::strstr(info.version, "CUDA") != nullptr);
  CHECK(edgemem::Context::census(edgemem::DeviceType::cpu)->devices[0] == 0);
}

// Issue #30, item 10: Queue::adopt took the pseudo-streams CU_STREAM_LEGACY (0x1) and
// CU_STREAM_PER_THREAD (0x2) as ordinary queues; over the per-thread stream two threads' commands on
// one Queue were not ordered. They are refused as stream 0 is. Needs the driver (a context).
TEST_CASE("cuda: Queue::adopt refuses stream 0 and the pseudo-streams") {
  auto ctx = edgemem::Context::create();
  if (!ctx) return;  // no driver or no device: the case above checks that answer
  for (std::uintptr_t pseudo : {std::uintptr_t{0}, std::uintptr_t{1}, std::uintptr_t{2}}) {
    CAPTURE(pseudo);
    edgemem::NativeQueue n;
    n.stream = reinterpret_cast<decltype(n.stream)>(pseudo);
    n.context = ctx->native().context;
    auto q = edgemem::Queue::adopt(*ctx, n, edgemem::AdoptMode::borrow);
    REQUIRE_FALSE(q.has_value());
    CHECK(q.error().code == edgemem::Errc::invalid_argument);
  }
  CHECK(edgemem::live_objects().queues == 0);
}

TEST_CASE("cuda: a borrowed context alone keeps its event records for reuse: async commands allocate nothing") {
  edgemem::NativeContext n;
  {
    auto made = edgemem::Context::create();
    if (!made) return;  // no driver or no device: the first case checks that answer
    n = made->native();
  }
  // The caller's own reference keeps the primary context while the only edgemem context is borrowed.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib != nullptr);
  using Retain = int (*)(decltype(n.context)*, int);
  using Release = int (*)(int);
  auto retain = reinterpret_cast<Retain>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
  auto release = reinterpret_cast<Release>(dlsym(lib, "cuDevicePrimaryCtxRelease_v2"));
  REQUIRE((retain != nullptr && release != nullptr));
  decltype(n.context) primary = nullptr;
  REQUIRE(retain(&primary, n.device) == 0);
  {
    auto c = edgemem::Context::adopt(n, edgemem::AdoptMode::borrow);
    REQUIRE(c.has_value());
    auto q1 = edgemem::Queue::create(*c);
    auto q2 = edgemem::Queue::create(*c);
    auto b = edgemem::Buffer::create(*c, 64);
    REQUIRE(q1.has_value());
    REQUIRE(q2.has_value());
    REQUIRE(b.has_value());
    int failures = 0;
    auto rounds = [&](int count) {
      for (int i = 0; i < count; ++i) {
        const std::uint32_t word = static_cast<std::uint32_t>(i) * 7u;
        std::uint32_t back = ~word;
        auto w = q1->write_async(*b, 0, &word, sizeof word);
        auto r = q2->read_async(*b, 0, &back, sizeof back);
        if (!w || !r || !r->wait() || back != word) ++failures;
      }
    };
    rounds(50);
    const auto before = edgemem::DefaultAllocator::stats().total_allocations;
    rounds(500);
    CHECK(failures == 0);
    CHECK(edgemem::DefaultAllocator::stats().total_allocations - before == 0);
  }
  CHECK(release(n.device) == 0);
  dlclose(lib);
  CHECK(edgemem::live_objects().contexts == 0);
}

// Issue #30, items 6, 9 and 11: CUDA-only paths of the conformance cases (wrap_alias_test.cpp), with
// the driver's own answers. Need the driver (a context).
namespace {

std::vector<unsigned char> read_all(edgemem::Queue& q, const edgemem::Buffer& b) {
  std::vector<unsigned char> out(b.size());
  REQUIRE(q.read(b, 0, out.data(), out.size()).has_value());
  return out;
}

}  // namespace

TEST_CASE("cuda: fills of an adopted pointer at an odd address (cuMemsetD16/D32 refuse it)") {
  auto ctx = edgemem::Context::create();
  if (!ctx) return;
  auto q = edgemem::Queue::create(*ctx);
  REQUIRE(q.has_value());
  auto owner = edgemem::Buffer::create(*ctx, 8192);
  REQUIRE(owner.has_value());
  auto native = owner->native();
  REQUIRE(native.has_value());
  edgemem::NativeMem n;
  n.device_ptr = native->device_ptr + 1;
  n.bytes = 4096;
  auto odd = edgemem::Buffer::adopt(*ctx, n, edgemem::AdoptMode::borrow);
  REQUIRE(odd.has_value());
  for (std::size_t size : {2u, 4u, 8u, 16u, 128u}) {
    CAPTURE(size);
    std::vector<unsigned char> pattern(size);
    for (std::size_t i = 0; i < size; ++i) pattern[i] = static_cast<unsigned char>(size * 31 + i * 7 + 1);
    REQUIRE(q->fill(*odd, 0, 4096, pattern.data(), size).has_value());
    const auto got = read_all(*q, *odd);
    bool same = true;
    for (std::size_t i = 0; i < got.size(); ++i) same = same && got[i] == pattern[i % size];
    CHECK(same);
  }
}

TEST_CASE("cuda: writes into a wrap of PROT_READ memory are access_denied and change nothing") {
  auto ctx = edgemem::Context::create();
  if (!ctx) return;
  auto q = edgemem::Queue::create(*ctx);
  REQUIRE(q.has_value());
  constexpr std::size_t kBytes = 65536;
  void* raw = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(raw != MAP_FAILED);
  std::memset(raw, 0x42, kBytes);
  REQUIRE(mprotect(raw, kBytes, PROT_READ) == 0);
  {
    auto w = edgemem::Buffer::wrap(*ctx, raw, kBytes);  // read_write flags: the pages still say no
    REQUIRE(w.has_value());
    auto view = w->sub(4096, 4096);
    REQUIRE(view.has_value());
    auto other = edgemem::Buffer::create(*ctx, kBytes);
    REQUIRE(other.has_value());
    const unsigned char byte = 1;
    for (edgemem::Buffer* b : {&*w, &*view}) {
      CHECK(q->write(*b, 0, &byte, 1).error().code == edgemem::Errc::access_denied);
      CHECK(q->fill(*b, 0, 4096, &byte, 1).error().code == edgemem::Errc::access_denied);
      CHECK(q->copy(*other, *b, 0, 0, 4096).error().code == edgemem::Errc::access_denied);
      CHECK(q->map<unsigned char>(*b, edgemem::Access::write).error().code == edgemem::Errc::access_denied);
      CHECK(q->map<unsigned char>(*b, edgemem::Access::write_discard).error().code == edgemem::Errc::access_denied);
    }
    CHECK(read_all(*q, *w) == std::vector<unsigned char>(kBytes, 0x42));
  }
  munmap(raw, kBytes);
}

TEST_CASE("cuda: migrating a view of managed memory prefetches the view's bytes") {
  auto ctx = edgemem::Context::create();
  if (!ctx) return;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib != nullptr);
  using RangeAttribute = int (*)(void*, std::size_t, int, unsigned long long, std::size_t);
  auto range_attribute = reinterpret_cast<RangeAttribute>(dlsym(lib, "cuMemRangeGetAttribute"));
  auto attribute = reinterpret_cast<int (*)(int*, int, int)>(dlsym(lib, "cuDeviceGetAttribute"));
  const bool found = range_attribute != nullptr && attribute != nullptr;
  REQUIRE(found);
  constexpr int kLastPrefetchLocation = 4;  // CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION
  auto q = edgemem::Queue::create(*ctx);
  REQUIRE(q.has_value());
  constexpr std::size_t kMiB = 1 << 20;
  auto managed = edgemem::Buffer::create(*ctx, 4 * kMiB, edgemem::Storage::shared);
  REQUIRE(managed.has_value());
  auto view = managed->sub(2 * kMiB, 2 * kMiB);
  REQUIRE(view.has_value());
  auto native = view->native();
  REQUIRE(native.has_value());
  REQUIRE(q->migrate(*view, edgemem::Migration::to_device).has_value());
  REQUIRE(q->finish().has_value());
  int where = -2;
  REQUIRE(range_attribute(&where, sizeof where, kLastPrefetchLocation, native->device_ptr, 2 * kMiB) == 0);
  int concurrent = 0;  // a device without concurrent managed access cannot prefetch (an ordering point)
  REQUIRE(attribute(&concurrent, 89, ctx->native().device) == 0);  // CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS
  if (concurrent != 0) CHECK(where == ctx->native().device);
  REQUIRE(q->migrate(*view, edgemem::Migration::to_host).has_value());
  REQUIRE(q->finish().has_value());
  REQUIRE(range_attribute(&where, sizeof where, kLastPrefetchLocation, native->device_ptr, 2 * kMiB) == 0);
  if (concurrent != 0) CHECK(where == -1);  // CU_DEVICE_CPU
  dlclose(lib);
}

TEST_CASE("cuda: a context the caller made current is current again after every call (issue #30, item 11b)") {
  auto ctx = edgemem::Context::create();
  if (!ctx) return;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib != nullptr);
  using Ctx = void*;
  auto create = reinterpret_cast<int (*)(Ctx*, unsigned, int)>(dlsym(lib, "cuCtxCreate_v2"));
  auto destroy = reinterpret_cast<int (*)(Ctx)>(dlsym(lib, "cuCtxDestroy_v2"));
  auto get = reinterpret_cast<int (*)(Ctx*)>(dlsym(lib, "cuCtxGetCurrent"));
  auto set = reinterpret_cast<int (*)(Ctx)>(dlsym(lib, "cuCtxSetCurrent"));
  const bool found = create != nullptr && destroy != nullptr && get != nullptr && set != nullptr;
  REQUIRE(found);
  Ctx mine = nullptr;  // the caller's own context on the same device (made current by cuCtxCreate)
  REQUIRE(create(&mine, 0, ctx->native().device) == 0);
  struct Destroy {  // also when a REQUIRE below ends the case: later cases must not find it current
    Ctx c;
    int (*set)(Ctx);
    int (*destroy)(Ctx);
    ~Destroy() {
      (void)set(nullptr);
      (void)destroy(c);
    }
  } destroy_mine{mine, set, destroy};
  REQUIRE(mine != static_cast<Ctx>(ctx->native().context));
  auto current = [&] {
    Ctx c = nullptr;
    REQUIRE(get(&c) == 0);
    return c;
  };
  REQUIRE(current() == mine);
  {
    auto q = edgemem::Queue::create(*ctx);
    REQUIRE(q.has_value());
    CHECK(current() == mine);
    auto b = edgemem::Buffer::create(*ctx, 1 << 20);
    REQUIRE(b.has_value());
    CHECK(current() == mine);
    std::vector<unsigned char> data(1 << 20, 7), back(1 << 20);
    REQUIRE(q->write(*b, 0, data.data(), data.size()).has_value());  // pageable: still running on return
    CHECK(current() == mine);
    const unsigned char nine = 9;
    auto e = q->fill_async(*b, 0, 4096, &nine, 1);
    REQUIRE(e.has_value());
    CHECK(current() == mine);
    REQUIRE(e->wait().has_value());
    REQUIRE(q->read(*b, 0, back.data(), back.size()).has_value());
    CHECK(current() == mine);
    CHECK(back[0] == 9);
    CHECK(back[4096] == 7);
    {
      auto m = q->map<unsigned char>(*b, edgemem::Access::write, 0, 4096);
      REQUIRE(m.has_value());
      CHECK(current() == mine);
      (*m)[0] = 1;
      REQUIRE(m->unmap().has_value());
      CHECK(current() == mine);
    }
    auto host = edgemem::Buffer::create(*ctx, 4096, edgemem::Storage::host);
    REQUIRE(host.has_value());
    CHECK(current() == mine);
    {  // a map of device memory stages in edgemem's context, not the caller's
      auto m = q->map<unsigned char>(*b, edgemem::Access::read, 0, 4096);
      REQUIRE(m.has_value());
      CHECK(current() == mine);
      CHECK((*m)[0] == 1);
    }
    REQUIRE(q->finish().has_value());
    CHECK(current() == mine);
  }  // releases: the stream and the memory go in edgemem's context
  CHECK(current() == mine);
  // A thread with no current context keeps the device's primary context after a call, as the CUDA
  // runtime leaves it (nothing of the caller's to restore).
  REQUIRE(set(nullptr) == 0);
  {
    auto b = edgemem::Buffer::create(*ctx, 4096);
    REQUIRE(b.has_value());
  }
  CHECK(current() == static_cast<Ctx>(ctx->native().context));
  dlclose(lib);  // (libcuda stays loaded: the backend holds it; destroy_mine runs after)
}
