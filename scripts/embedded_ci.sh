#!/usr/bin/env bash
# The embedded toolchain stage of CI (issue 5). Each step builds from a fresh build-emb-* directory
# with -Dwerror=true and exits non-zero on the first failure:
#   1. cross suites: the registry's driverless backend for aarch64 and armhf (cross/*.ini), every meson
#      test under qemu-user
#   2. each backend's own embedded checks (backend_embedded_<name> in backends/<name>/ci.sh, where it
#      has them: e.g. a backend cross-compiled and linked for aarch64 against its arm64 libraries)
#   3. tests/consumer: edgemem as a Meson subproject (static, driverless backend), native and aarch64
#      under qemu;
#      the subproject builds only libedgemem.a and registers no test; no meson.build sets global arguments
#   4. meson install to a temporary prefix; a one-file consumer built with plain g++ and
#      `pkg-config --cflags --libs --static edgemem`, then run
#   5. -Dexpected=std (std::expected, C++23, g++; OpenCL backend on PoCL when found): the whole suite
#   6. bench/footprint.sh: text/data/bss for aarch64 and armhf (fails over 36 KiB of edgemem text on aarch64; the goal is 32 KiB, missed since #29)
#   7. nm: no libedgemem.a built above references __cxa_throw, __cxa_begin_catch, __gxx_personality_v0
#      (or other exception runtime entry points) or typeinfo (_ZTI*, _ZTS*); a control object with
#      exceptions and RTTI must trip the same check
#   scripts/embedded_ci.sh                 run every step (scripts/edgemem.sh test calls it)
#   scripts/embedded_ci.sh enable-arm64    add the arm64 architecture to dpkg/apt (used by edgemem.sh setup)
# Needs (scripts/edgemem.sh setup installs them): g++-aarch64-linux-gnu g++-arm-linux-gnueabihf
# qemu-user ocl-icd-opencl-dev:arm64, plus the native toolchain, libexpected-dev, doctest-dev, opencl-c-headers.
set -euo pipefail
cd "$(dirname "$0")/.."

JOBS=${EMB_JOBS:-2}
A64=cross/aarch64-linux-gnu.ini
ARMHF=cross/arm-linux-gnueabihf.ini
QEMU_A64=(qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib)
# shellcheck source=scripts/registry.sh
. scripts/registry.sh
DRIVERLESS=$(registry_driverless)
# libedgemem.a of every build above, for the nm step: "build-dir:nm-tool" (a backend's step adds its own).
NM_BUILDS=(build-emb-install:nm build-emb-std:nm build-emb-cross-aarch64:aarch64-linux-gnu-nm
           build-emb-cross-armhf:arm-linux-gnueabihf-nm build-emb-footprint-aarch64:aarch64-linux-gnu-nm
           build-emb-footprint-armhf:arm-linux-gnueabihf-nm)
for b in $(registry_names); do
  # shellcheck source=/dev/null
  . "backends/$b/ci.sh"  # its backend_embedded_<name>, where it has one (PACKAGES is edgemem.sh's)
done
# Tests and examples are compiled without -g, test programs at -O0 (the library keeps -O2): the cross
# suites build several times as fast and test the same library code.
FAST=(-Dwerror=true -Ddebug=false -Dbench=disabled -Dtests_optimized=false)
LOGS=build-emb-logs  # configure/build/test logs (build*/ is git-ignored)

log() { printf '\n== embedded: %s\n' "$*"; }
die() { printf 'embedded: FAILED: %s\n' "$*" >&2; exit 1; }

# enable-arm64: multiarch arm64 for ocl-icd-opencl-dev:arm64. Debian's mirrors carry arm64; Ubuntu's
# archive.ubuntu.com does not (apt skips it with a notice), so on Ubuntu arm64 comes from
# ports.ubuntu.com, restricted to arm64.
enable_arm64() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  dpkg --print-foreign-architectures | grep -qx arm64 && return 0
  $sudo dpkg --add-architecture arm64
  # shellcheck disable=SC1091
  . /etc/os-release
  if [ "${ID:-}" = ubuntu ]; then
    local c=${VERSION_CODENAME:?}
    printf 'deb [arch=arm64] http://ports.ubuntu.com/ubuntu-ports %s main universe\n' "$c" "$c-updates" "$c-security" |
      $sudo tee /etc/apt/sources.list.d/edgemem-arm64-ports.list >/dev/null
  fi
}

# configure DIR [meson args...]: a fresh build directory; prints the configure log on failure.
configure() {
  local dir=$1; shift
  rm -rf "$dir"
  meson setup "$dir" "$@" >"$LOGS/$dir.configure.log" 2>&1 || { cat "$LOGS/$dir.configure.log"; die "configure $dir"; }
}

build() { ninja -C "$1" -j "$JOBS" "${@:2}" >"$LOGS/$1.build.log" 2>&1 || { tail -50 "$LOGS/$1.build.log"; die "build $1"; }; }

run_tests() {
  meson test -C "$1" --no-rebuild --print-errorlogs --num-processes "$JOBS" >"$LOGS/$1.test.log" 2>&1 ||
    { cat "$LOGS/$1.test.log"; die "meson test -C $1"; }
  grep -E '^ *[0-9]+/[0-9]+ ' "$LOGS/$1.test.log" | sed 's/^/  /'
}

# nm_clean NM LIB: true when LIB references no exception runtime and defines/uses no typeinfo.
EH_RTTI='(__cxa_throw|__cxa_rethrow|__cxa_begin_catch|__cxa_end_catch|__cxa_allocate_exception|__gxx_personality_v0|_ZTI[A-Za-z0-9_]*|_ZTS[A-Za-z0-9_]*)$'
nm_clean() {
  local hits
  hits=$("$1" -A "$2" 2>/dev/null | grep -E " $EH_RTTI" || true)
  if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | head -20 >&2
    return 1
  fi
}

step_cross_suites() {
  local t ini
  for t in aarch64 armhf; do
    ini=$A64
    [ "$t" = armhf ] && ini=$ARMHF
    log "1. cross suite $t ($ini, $DRIVERLESS backend, tests under qemu-user)"
    configure "build-emb-cross-$t" --cross-file "$ini" -Dmemory_backend="$DRIVERLESS" "${FAST[@]}"
    build "build-emb-cross-$t"
    run_tests "build-emb-cross-$t"
  done
}

step_backends() {
  local b ran=0
  for b in $(registry_names); do
    if declare -F "backend_embedded_$b" >/dev/null; then
      "backend_embedded_$b"
      ran=1
    fi
  done
  [ "$ran" = 1 ] || echo "  (no backend has embedded checks of its own)"
}

# consumer DIR [meson args...]: tests/consumer with edgemem as its subproject.
consumer() {
  local dir=$1; shift
  configure "$dir" tests/consumer -Dedgemem_backend="$DRIVERLESS" "$@"
  build "$dir"
  run_tests "$dir"
  grep -h 'consumer: ok' "$dir/meson-logs/testlog.txt" | sed 's/^/  /'
  local targets tests
  targets=$(meson introspect --targets "$dir" | python3 -c \
    'import json,sys; print(" ".join(sorted(t["name"] for t in json.load(sys.stdin))))')
  tests=$(meson introspect --tests "$dir" | python3 -c \
    'import json,sys; print(" ".join(sorted(t["name"] for t in json.load(sys.stdin))))')
  [ "$targets" = "consumer edgemem" ] || die "$dir: targets '$targets' (edgemem as a subproject must build only its library)"
  [ "$tests" = "consumer" ] || die "$dir: tests '$tests' (edgemem as a subproject must register none)"
}

step_consumer() {
  log "3. tests/consumer: edgemem as a static Meson subproject, native and aarch64 (qemu)"
  local global
  global=$(git ls-files -- 'meson.build' '*/meson.build' | xargs grep -n 'add_global_\(link_\)\?arguments' || true)
  [ -z "$global" ] || die "edgemem sets global arguments: $global"
  consumer build-emb-consumer-native
  consumer build-emb-consumer-aarch64 --cross-file "$A64"
  echo "  subproject builds: targets 'consumer edgemem', tests 'consumer'; no add_global_*arguments"
}

step_pkgconfig() {
  log "4. meson install + pkg-config consumer (plain g++)"
  local prefix=$PWD/build-emb-install/prefix
  configure build-emb-install -Dmemory_backend="$DRIVERLESS" -Dtests=disabled -Dexamples=disabled "${FAST[@]}" \
    --prefix="$prefix"
  build build-emb-install
  meson install -C build-emb-install --quiet >"$LOGS/build-emb-install.install.log" 2>&1 ||
    { cat "$LOGS/build-emb-install.install.log"; die "meson install"; }
  local pcdir lib
  pcdir=$(dirname "$(find "$prefix" -name edgemem.pc)")
  lib=$(find "$prefix" -name libedgemem.a)
  [ -n "$lib" ] || die "libedgemem.a was not installed"
  for h in edgemem.hpp config.hpp result.hpp fixed_pool.hpp native.hpp; do
    [ -f "$prefix/include/edgemem/$h" ] || die "header edgemem/$h was not installed"
  done
  # The backend contract and the backends' primitives (src/contract, backends/<name>) stay private.
  [ ! -e "$prefix/include/edgemem/backend" ] || die "edgemem/backend/ was installed (backend primitives are private)"
  local flags
  flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs --static edgemem)
  echo "  pkg-config --cflags --libs --static edgemem: $flags"
  # shellcheck disable=SC2086
  g++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -fno-exceptions -fno-rtti -O2 tests/consumer/main.cpp $flags \
    -o build-emb-install/pc_consumer || die "pkg-config consumer does not build"
  local out
  out=$(build-emb-install/pc_consumer) || die "pkg-config consumer failed: $out"
  echo "  $out"
}

step_nm() {
  log "7. nm: no exception runtime or typeinfo in libedgemem.a"
  local ctl=build-emb-install/eh_control
  mkdir -p "$ctl"
  printf 'struct A { virtual ~A(); }; A::~A() {}\nint f(int x) { if (x) throw x; try { return x; } catch (...) { return 1; } }\n' \
    >"$ctl/control.cpp"
  g++ -c -fexceptions -frtti "$ctl/control.cpp" -o "$ctl/control.o" && ar rcs "$ctl/libcontrol.a" "$ctl/control.o"
  ! nm_clean nm "$ctl/libcontrol.a" 2>/dev/null || die "the nm check does not see a control library's exceptions and RTTI"
  local spec lib tool
  for spec in "${NM_BUILDS[@]}"; do
    lib=${spec%%:*}/libedgemem.a
    tool=${spec##*:}
    [ -f "$lib" ] || die "$lib missing (its step did not run)"
    nm_clean "$tool" "$lib" || die "$lib references the exception runtime or typeinfo (above)"
    echo "  clean: $lib ($("$tool" "$lib" 2>/dev/null | grep -c ' [TtWw] ') code symbols)"
  done
}

step_std_expected() {
  log "5. -Dexpected=std (std::expected, C++23, g++): whole suite"
  # Meson 1.0 (Debian 12) has no cpp_std=c++23; newer Meson takes -Dcpp_std=c++23 instead of the two options.
  configure build-emb-std -Dexpected=std -Dcpp_std=none -Dcpp_args=-std=c++23 "${FAST[@]}"
  grep -q 'expected *: std::expected' "$LOGS/build-emb-std.configure.log" || die "build-emb-std does not use std::expected"
  build build-emb-std
  run_tests build-emb-std
}

step_footprint() {
  log "6. footprint (bench/footprint.sh)"
  rm -rf build-emb-footprint-aarch64 build-emb-footprint-armhf
  local out
  out=$(bench/footprint.sh) || { echo "$out"; die "bench/footprint.sh"; }
  while IFS= read -r line; do echo "  $line"; done <<<"$out"
}

main() {
  local t0=$SECONDS s
  mkdir -p "$LOGS"
  for s in cross_suites backends consumer pkgconfig std_expected footprint nm; do
    local t=$SECONDS
    "step_$s"
    echo "  ($s: $((SECONDS - t)) s)"
  done
  log "all embedded checks passed in $((SECONDS - t0)) s"
}

case "${1:-}" in
  "") main ;;
  enable-arm64) enable_arm64 ;;
  *) echo "usage: $0 [enable-arm64]" >&2; exit 2 ;;
esac
