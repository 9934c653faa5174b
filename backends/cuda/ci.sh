# The CUDA backend's CI configuration, sourced by scripts/edgemem.sh (its helper build_and_test_suites).
# The toolkit is not a Debian package here: CI's machine has it in /usr/local/cuda.
cuda_toolkit_present() {
  [ -f "${CUDA_PATH:-/usr/local/cuda}/include/cuda.h" ] || command -v nvcc >/dev/null 2>&1
}

# Everything (library, conformance suite, bench, demo) built with -Werror against the toolkit's cuda.h.
# The driver is loaded at run time: without it (CI) only the suite 'cuda' runs, which checks that
# Context::create answers unsupported naming libcuda.so.1; with an NVIDIA driver every suite runs. CI
# has the toolkit and must build it; elsewhere a machine without it is told so and goes on.
backend_ci_cuda() {
  if ! cuda_toolkit_present && [ "${CI:-}" != true ]; then
    log "build-test-cuda NOT RUN: no CUDA toolkit here (cuda.h under \$CUDA_PATH or /usr/local/cuda, or nvcc on the PATH); CI builds it"
    return 0
  fi
  local suites=cuda
  # (grep without -q: under pipefail, grep -q quitting early would fail ldconfig with SIGPIPE)
  if ldconfig -p 2>/dev/null | grep 'libcuda\.so\.1 ' >/dev/null; then suites=""; fi
  build_and_test_suites build-test-cuda "$suites" -Dmemory_backend=cuda -Dlive_counters=true \
    -Dtests_optimized=false
}
