#!/usr/bin/env bash
# edgemem's one entry point for a fresh Debian/Ubuntu machine.
#   scripts/edgemem.sh demo   install what is missing, build the default configuration, run the demo
#   scripts/edgemem.sh test   install what is missing, build every configuration CI checks, run every suite
#   scripts/edgemem.sh setup  only install what is missing
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(meson ninja-build pkg-config cmake g++ clang python3
          libexpected-dev doctest-dev opencl-c-headers ocl-icd-opencl-dev pocl-opencl-icd
          g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user ocl-icd-opencl-dev:arm64
          libspng-dev opencl-clhpp-headers libboost-dev python3-numpy python3-matplotlib
          libdlpack-dev python3-dev)

log() { printf '\n== %s\n' "$*"; }

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# The sanitizer and libFuzzer runtimes of the default clang: libclang-rt-<major>-dev where the
# distribution splits them out (Debian 12: clang 14 -> libclang-rt-14-dev); nothing where
# libclang-common-<major>-dev still carries them (Ubuntu 22.04).
clang_rt_package() {
  local major
  major=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n1)
  [ -n "$major" ] && apt-cache show "libclang-rt-$major-dev" >/dev/null 2>&1 && echo "libclang-rt-$major-dev"
  return 0
}

apt_install() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  log "installing: $*"
  if [ "$APT_UPDATED" -eq 0 ]; then
    ./scripts/embedded_ci.sh enable-arm64  # multiarch arm64 (ocl-icd-opencl-dev:arm64), before apt-get update
    $sudo apt-get update -qq
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}
APT_UPDATED=0

setup() {
  local missing=() rt
  for p in "${PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
  rt=$(clang_rt_package)
  if [ -n "$rt" ] && ! installed "$rt"; then apt_install "$rt"; fi
}

# configure DIR [meson options...]: a fresh build dir each time, so a stale one never hides a failure.
configure() {
  local dir=$1; shift
  rm -rf "$dir"
  meson setup "$dir" "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
  sed -n '/^  edgemem$/,/^$/p' "$dir.configure.log"
}

build_and_test() {
  local dir=$1; shift
  log "configuration $dir: $*"
  configure "$dir" -Dwerror=true "$@"
  ninja -C "$dir" >/dev/null
  meson test -C "$dir" --print-errorlogs --num-processes 2 | tee "$dir.test.log"
  local ok fail
  ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$dir.test.log")
  fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$dir.test.log")
  TOTAL_OK=$((TOTAL_OK + ${ok:-0}))
  TOTAL_FAIL=$((TOTAL_FAIL + ${fail:-0}))
}
TOTAL_OK=0
TOTAL_FAIL=0

# True when the CUDA toolkit's headers are here (what -Dmemory_backend=cuda needs to build).
cuda_toolkit_present() {
  [ -f "${CUDA_PATH:-/usr/local/cuda}/include/cuda.h" ] || command -v nvcc >/dev/null 2>&1
}

# The demo: examples/camera_demo (options: --frames N --width W --height H --device I --out DIR
# --no-images), release build, PNGs into build/ unless --out says otherwise.
demo() {
  setup
  configure build -Dbuildtype=release
  if ! grep -q "Run-time dependency spng found: YES" build.configure.log; then
    echo "edgemem.sh demo: libspng was not found (Debian: libspng-dev), so examples/camera_demo is not built" >&2
    return 1
  fi
  ninja -C build examples/camera_demo >build.ninja.log 2>&1 || { cat build.ninja.log; return 1; }
  ./build/examples/camera_demo --out build "$@"
}

test_all() {
  setup
  # -Dlive_counters=true everywhere: every conformance test case must end with no live edgemem object.
  build_and_test build-test-host -Dmemory_backend=host -Dlive_counters=true -Dhost_caps_env=true
  build_and_test build-test-host-static -Dmemory_backend=host -Dallocator=static -Dlive_counters=true
  if [ -d backends/opencl ]; then
    build_and_test build-test-opencl -Dmemory_backend=opencl -Dlive_counters=true
  fi
  # The CUDA backend: everything (library, conformance suite, bench, demo) built with -Werror against the
  # toolkit's cuda.h. The driver is loaded at run time: without it (CI) the suite 'cuda' checks that
  # Context::create answers unsupported naming libcuda.so.1; with an NVIDIA driver every suite runs.
  # CI has the toolkit and must build it; elsewhere a machine without it is told so and goes on.
  if cuda_toolkit_present || [ "${CI:-}" = true ]; then
    log "configuration build-test-cuda: -Dmemory_backend=cuda -Dlive_counters=true"
    configure build-test-cuda -Dwerror=true -Dmemory_backend=cuda -Dlive_counters=true
    ninja -C build-test-cuda >/dev/null
    local cuda_suite=(--suite cuda)
    if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then cuda_suite=(); fi
    meson test -C build-test-cuda --no-rebuild --print-errorlogs --num-processes 2 "${cuda_suite[@]}" | tee build-test-cuda.test.log
    TOTAL_OK=$((TOTAL_OK + $(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' build-test-cuda.test.log)))
  else
    log "build-test-cuda NOT RUN: no CUDA toolkit here (cuda.h under \$CUDA_PATH or /usr/local/cuda, or nvcc on the PATH); CI builds it"
  fi
  # clang++ and the user allocator policy (test programs install aligned_alloc callbacks).
  CXX=clang++ build_and_test build-test-clang-host-user -Dmemory_backend=host -Dallocator=user -Dlive_counters=true
  ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    CXX=clang++ build_and_test build-test-asan-host -Dmemory_backend=host -Dhost_caps_env=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dbuildtype=debug -Dlive_counters=true
  if [ -d backends/opencl ]; then
    # ASan+UBSan on PoCL with the user allocator policy, with a fresh kernel cache so PoCL's kernel compiler (LLVM, in-process) runs.
    # intercept_tls_get_addr=0: clang 14's __tls_get_addr interceptor misreads LLVM's dynamic TLS blocks
    # as pre-2.25 glibc ones and LeakSanitizer's tracer then segfaults at exit. fast_unwind_on_malloc=0:
    # PoCL/LLVM have no frame pointers; full stacks let tests/sanitizers/lsan.supp match their own leaks.
    rm -rf build-test-asan-opencl-user.pocl-cache && mkdir build-test-asan-opencl-user.pocl-cache
    POCL_CACHE_DIR="$PWD/build-test-asan-opencl-user.pocl-cache" \
    ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0:fast_unwind_on_malloc=0 \
    LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0" \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      CXX=clang++ build_and_test build-test-asan-opencl-user -Dmemory_backend=opencl -Dallocator=user \
      -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Dlive_counters=true -Dbench=disabled
  fi
  # ThreadSanitizer: the thread tests only (meson suite 'threads': tests/stress and the conformance
  # suite's thread tests), host backend, then PoCL (below).
  log "configuration build-test-tsan-host: ThreadSanitizer, meson test --suite threads"
  CXX=clang++ configure build-test-tsan-host -Dwerror=true -Dmemory_backend=host -Dlive_counters=true \
    -Db_sanitize=thread -Db_lundef=false -Dexamples=disabled -Dbench=disabled
  ninja -C build-test-tsan-host tests/stress/edgemem_stress tests/stress/edgemem_thread_tests >/dev/null
  TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 meson test -C build-test-tsan-host --no-rebuild --suite threads \
    --print-errorlogs | tee build-test-tsan-host.test.log
  TOTAL_OK=$((TOTAL_OK + $(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' build-test-tsan-host.test.log)))
  if [ -d backends/opencl ]; then
    # Again on PoCL, where the ordering table is live (the host backend keeps none): its records, folds
    # and forgets under the threads of the ordering tests. PoCL itself is not instrumented; its pthread
    # calls still order our accesses (TSan intercepts them in every library).
    log "configuration build-test-tsan-opencl: ThreadSanitizer, PoCL, meson test --suite threads"
    CXX=clang++ configure build-test-tsan-opencl -Dwerror=true -Dmemory_backend=opencl -Dlive_counters=true \
      -Db_sanitize=thread -Db_lundef=false -Dexamples=disabled -Dbench=disabled
    ninja -C build-test-tsan-opencl tests/stress/edgemem_stress tests/stress/edgemem_thread_tests >/dev/null
    TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 meson test -C build-test-tsan-opencl --no-rebuild --suite threads \
      --print-errorlogs | tee build-test-tsan-opencl.test.log
    TOTAL_OK=$((TOTAL_OK + $(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' build-test-tsan-opencl.test.log)))
  fi
  # Fault injection (tests/fault): each backend call and allocation of the scenarios fails in turn;
  # ASan/LSan watch the native side. The rest of the suite runs too, through the (disarmed) wrapper.
  ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    CXX=clang++ build_and_test build-test-fault-host -Dmemory_backend=host -Dfault_injection=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Dlive_counters=true \
    -Dexamples=disabled -Dbench=disabled
  if [ -d backends/opencl ]; then
    ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0:fast_unwind_on_malloc=0 \
    LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0" \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      CXX=clang++ build_and_test build-test-fault-opencl -Dmemory_backend=opencl -Dfault_injection=true \
      -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Dlive_counters=true \
      -Dexamples=disabled -Dbench=disabled
  fi
  # Differential fuzzing, host vs OpenCL vs model (tests/fuzz): 60 s, then the corpus replayed.
  ./scripts/fuzz_ci.sh
  TOTAL_OK=$((TOTAL_OK + 1))
  # Embedded toolchain: aarch64/armhf cross suites under qemu, OpenCL cross link, subproject and
  # pkg-config consumers, nm check, -Dexpected=std suite, footprint.
  ./scripts/embedded_ci.sh
  TOTAL_OK=$((TOTAL_OK + 1))
  log "all configurations passed"
  echo "$TOTAL_OK passed, $TOTAL_FAIL failed"
}

case "${1:-}" in
  setup) setup ;;
  demo) shift; demo "$@" ;;
  test) test_all ;;
  *) echo "usage: $0 demo|test|setup" >&2; exit 2 ;;
esac
