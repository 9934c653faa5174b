// libFuzzer entry point of the differential fuzzer (built with -Dfuzz=enabled, clang only).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "driver.hpp"

// PoCL loads libLLVM, whose crash handlers replace any SIGABRT/SIGILL handler, and libFuzzer never
// installs its own over an existing one: abort() in the driver's report would end the run without
// saving the input. So ASan handles those signals and keeps others from replacing its handlers;
// its report then lets libFuzzer write crash-<sha1>. ASAN_OPTIONS still overrides these defaults.
extern "C" const char* __asan_default_options() {
  return "handle_abort=1:handle_sigill=1:allow_user_segv_handler=0";
}

// PoCL 3.1 leaks 4 bytes (calloc inside libpocl) per image1d_buffer image, even through the raw API
// (backends/opencl/tests/driver_bugs/pocl/raw_leak_image1d_buffer.c); libFuzzer's leak check would stop at the first 1D-buffer
// image. Leaks inside the driver library are not edgemem's: edgemem's own allocations are counted
// by the allocator policy and checked after every input (Target::end()).
extern "C" const char* __lsan_default_suppressions() { return "leak:libpocl.so\n"; }

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
