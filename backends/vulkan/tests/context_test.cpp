// The Vulkan backend's start (issue #32, step 1): with a Vulkan driver (lavapipe in CI) the census
// counts the qualifying devices and Context::create opens one, reporting its facts; Context::adopt
// takes a VkDevice made elsewhere (both modes); without a driver (run with
// EDGEMEM_TEST_EXPECT_NO_VULKAN=1 and VK_DRIVER_FILES pointing nowhere) Context::create and the census
// answer unsupported, naming what is missing, and nothing is left behind.
#include <cstdlib>
#include <cstring>
#include <string>

#include <doctest/doctest.h>

#include <edgemem/edgemem.hpp>

namespace {

bool expect_no_driver() {
  const char* v = std::getenv("EDGEMEM_TEST_EXPECT_NO_VULKAN");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace

TEST_CASE("vulkan: without a driver Context::create and the census are unsupported, and say why") {
  REQUIRE(std::string(EDGEMEM_BACKEND_NAME) == "vulkan");
  if (!expect_no_driver()) return;
  auto census = edgemem::Context::census(edgemem::DeviceType::any);
  REQUIRE_FALSE(census.has_value());
  CHECK(census.error().code == edgemem::Errc::unsupported);
  CHECK(std::strstr(census.error().message, "Vulkan backend") != nullptr);
  auto ctx = edgemem::Context::create();
  REQUIRE_FALSE(ctx.has_value());
  CHECK(ctx.error().code == edgemem::Errc::unsupported);
  auto again = edgemem::Context::create();  // the failed load is remembered, not retried into a crash
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error().code == edgemem::Errc::unsupported);
  CHECK(edgemem::live_objects().contexts == 0);
}

TEST_CASE("vulkan: the census counts the devices Context::create opens, with their facts") {
  if (expect_no_driver()) return;
  auto any = edgemem::Context::census(edgemem::DeviceType::any);
  REQUIRE(any.has_value());
  REQUIRE(any->platforms == 1);
  auto cpu = edgemem::Context::census(edgemem::DeviceType::cpu);
  auto gpu = edgemem::Context::census(edgemem::DeviceType::gpu);
  REQUIRE(cpu.has_value());
  REQUIRE(gpu.has_value());
  CHECK(cpu->devices[0] + gpu->devices[0] <= any->devices[0]);
  REQUIRE(any->devices[0] >= 1);  // CI and the development machine have lavapipe
  auto ctx = edgemem::Context::create();
  REQUIRE(ctx.has_value());
  const edgemem::DeviceInfo& info = ctx->info();
  CHECK(std::string(info.backend) == "vulkan");
  CHECK(std::strncmp(info.version, "Vulkan 1.", 9) == 0);
  CHECK((info.version_major > 1 || info.version_minor >= 2));
  CHECK(info.name[0] != '\0');
  CHECK(info.driver[0] != '\0');
  CHECK(info.global_mem_bytes > 0);
  CHECK(info.max_alloc_bytes > 0);
  CHECK(info.base_align_bytes >= 256);
  CHECK((info.base_align_bytes & (info.base_align_bytes - 1)) == 0);
  CHECK(info.has_uuid);
  CHECK(info.caps.max_fill_pattern_bytes == 128);
  CHECK_FALSE(info.caps.images);
  CHECK_FALSE(info.caps.svm_coarse);
  const edgemem::NativeContext n = ctx->native();
  CHECK(n.instance != nullptr);
  CHECK(n.physical != nullptr);
  CHECK(n.device != nullptr);
  CHECK(n.queue_count >= 1);
  CHECK(n.queue_count <= 8);
  CHECK((n.features & edgemem::vulkan_timeline_semaphore) != 0);
  if (cpu->devices[0] > 0) {  // lavapipe: a CPU device, memory shared with the host
    edgemem::DeviceSelector sel;
    sel.type = edgemem::DeviceType::cpu;
    auto on_cpu = edgemem::Context::create(sel);
    REQUIRE(on_cpu.has_value());
    CHECK(on_cpu->info().caps.unified_memory);
  }
  edgemem::DeviceSelector past;
  past.platform_index = 0;
  past.device_index = static_cast<int>(any->devices[0]);
  past.ignore_environment = true;
  CHECK(edgemem::Context::create(past).error().code == edgemem::Errc::invalid_argument);
}

TEST_CASE("vulkan: a VkDevice made elsewhere is adopted, retained or borrowed, and outlives edgemem's use") {
  if (expect_no_driver()) return;
  auto maker = edgemem::Context::create();
  REQUIRE(maker.has_value());
  const edgemem::NativeContext n = maker->native();
  for (auto mode : {edgemem::AdoptMode::retain, edgemem::AdoptMode::borrow}) {
    for (int round = 0; round < 3; ++round) {
      auto adopted = edgemem::Context::adopt(n, mode);
      REQUIRE(adopted.has_value());
      CHECK(adopted->native().device == n.device);
      CHECK(std::strcmp(adopted->info().name, maker->info().name) == 0);
      CHECK(adopted->info().global_mem_bytes == maker->info().global_mem_bytes);
    }
  }
  // Bad input: a clear Errc, nothing changed.
  edgemem::NativeContext no_device = n;
  no_device.device = nullptr;
  CHECK(edgemem::Context::adopt(no_device, edgemem::AdoptMode::retain).error().code == edgemem::Errc::invalid_argument);
  edgemem::NativeContext no_timeline = n;
  no_timeline.features = 0;
  CHECK(edgemem::Context::adopt(no_timeline, edgemem::AdoptMode::borrow).error().code ==
        edgemem::Errc::invalid_argument);
  edgemem::NativeContext no_queues = n;
  no_queues.queue_count = 0;
  CHECK(edgemem::Context::adopt(no_queues, edgemem::AdoptMode::retain).error().code == edgemem::Errc::invalid_argument);
  // The maker's device still works for it: another adopt after all of the above.
  CHECK(edgemem::Context::adopt(n, edgemem::AdoptMode::retain).has_value());
}
