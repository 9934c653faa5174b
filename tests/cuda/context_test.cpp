// The CUDA backend's start, on either kind of machine: without the NVIDIA driver (CI, a board without
// a GPU) Context::create and Context::census answer unsupported with a message naming libcuda.so.1,
// and nothing is left behind; with it, the device opens on the CUDA backend and reports its facts.
// Which case applies is decided here by loading libcuda.so.1 the way the backend does.
#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string>

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
