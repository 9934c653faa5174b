#!/usr/bin/env bash
# edgemem's one entry point for a fresh Debian/Ubuntu machine.
#   scripts/edgemem.sh demo   install what is missing, build the default configuration, run the demo
#   scripts/edgemem.sh test   install what is missing, build every configuration CI checks, run every suite
#   scripts/edgemem.sh setup  only install what is missing
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

# The registry's backends (backends/meson.build's backend_names line), in its order. Each folder's
# ci.sh (sourced) adds its Debian packages to PACKAGES and defines backend_ci_<name>, its CI
# configurations, run by `test` through the helpers below.
# shellcheck source=scripts/registry.sh
. scripts/registry.sh
mapfile -t BACKENDS < <(registry_names)
[ ${#BACKENDS[@]} -gt 0 ] || { echo "edgemem.sh: no backend_names line in backends/meson.build" >&2; exit 1; }
PACKAGES=(meson ninja-build pkg-config cmake g++ clang python3
          libexpected-dev doctest-dev
          g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user
          libspng-dev libboost-dev python3-numpy python3-matplotlib
          libdlpack-dev python3-dev)
for b in "${BACKENDS[@]}"; do
  # shellcheck source=/dev/null
  . "backends/$b/ci.sh"
done

# Each step's line says when it started (minutes:seconds since the command began), so a CI log shows
# where its minutes go.
log() { printf '\n== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

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

# count_results LOG: adds a meson test log's Ok and Fail counts to the totals.
count_results() {
  local ok fail
  ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$1")
  fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$1")
  TOTAL_OK=$((TOTAL_OK + ${ok:-0}))
  TOTAL_FAIL=$((TOTAL_FAIL + ${fail:-0}))
}

# build_and_test DIR [meson options...]: configure with -Werror, build everything, run every suite.
build_and_test() {
  local dir=$1; shift
  log "configuration $dir: $*"
  configure "$dir" -Dwerror=true "$@"
  ninja -C "$dir" >/dev/null
  meson test -C "$dir" --print-errorlogs --num-processes 2 | tee "$dir.test.log"
  count_results "$dir.test.log"
}

# build_and_test_suites DIR "SUITES" [meson options...]: as build_and_test, only those meson suites
# (space-separated; empty: every suite).
build_and_test_suites() {
  local dir=$1 suites=$2 args=()
  shift 2
  log "configuration $dir: $* (suites: ${suites:-all})"
  configure "$dir" -Dwerror=true "$@"
  ninja -C "$dir" >/dev/null
  for s in $suites; do args+=(--suite "$s"); done
  meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 "${args[@]}" | tee "$dir.test.log"
  count_results "$dir.test.log"
}

# threads_tsan NAME [meson options...]: ThreadSanitizer over the thread tests only (meson suite
# 'threads': tests/stress and the conformance suite's thread tests), in build-test-tsan-NAME.
threads_tsan() {
  local dir=build-test-tsan-$1; shift
  log "configuration $dir: ThreadSanitizer, meson test --suite threads"
  CXX=clang++ configure "$dir" -Dwerror=true -Dlive_counters=true -Db_sanitize=thread -Db_lundef=false \
    -Dexamples=disabled -Dbench=disabled "$@"
  ninja -C "$dir" tests/stress/edgemem_stress tests/stress/edgemem_thread_tests >/dev/null
  TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 meson test -C "$dir" --no-rebuild --suite threads \
    --print-errorlogs | tee "$dir.test.log"
  count_results "$dir.test.log"
}
TOTAL_OK=0
TOTAL_FAIL=0

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
  # The registry's checks first (seconds): no backend named outside backends/, the README's map true.
  python3 scripts/check_backend_names.py
  python3 scripts/check_docs.py
  # Every backend's configurations (backends/<name>/ci.sh). -Dlive_counters=true everywhere: every
  # conformance test case must end with no live edgemem object.
  for b in "${BACKENDS[@]}"; do
    "backend_ci_$b"
  done
  # Differential fuzzing, every fuzz-copy backend against the others and a model (tests/fuzz): 60 s,
  # then the corpus replayed.
  log "differential fuzzing (scripts/fuzz_ci.sh)"
  ./scripts/fuzz_ci.sh
  TOTAL_OK=$((TOTAL_OK + 1))
  # Embedded toolchain: aarch64/armhf cross suites under qemu, OpenCL cross link, subproject and
  # pkg-config consumers, nm check, -Dexpected=std suite, footprint.
  log "embedded toolchain (scripts/embedded_ci.sh)"
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
