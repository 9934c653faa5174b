// libFuzzer entry point of the differential fuzzer (built with -Dfuzz=enabled, clang only).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "driver.hpp"

// libFuzzer does not install its crash handler over one installed before it (the OpenCL runtime's),
// so abort() in the driver's report would end the run without saving the input; ASan's handler
// (installed first) reports it and lets libFuzzer write crash-<sha1>. Overridable with ASAN_OPTIONS.
extern "C" const char* __asan_default_options() { return "handle_abort=1:handle_sigill=1"; }

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
