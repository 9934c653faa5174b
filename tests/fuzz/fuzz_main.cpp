// libFuzzer entry point of the differential fuzzer (built with -Dfuzz=enabled, clang only).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "driver.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (!fz::init_targets()) {
    std::fprintf(stderr, "edgemem_fuzz: a target could not start\n");
    std::abort();
  }
  std::fprintf(stderr, "edgemem_fuzz: targets %s\n", fz::target_names());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fz::run_input(data, size);
  return 0;
}
