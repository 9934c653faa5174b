#!/usr/bin/env bash
# Footprint of edgemem in a minimal firmware-like app (bench/footprint/app_edgemem.cpp: context,
# queue, FixedPool, map, write, read) against the same app over plain malloc (app_malloc.cpp).
# For each target: builds libedgemem.a (the registry's driverless backend) with -Os -ffunction-sections -fdata-sections,
# links both apps with -Os -Wl,--gc-sections (libc and libstdc++ shared, as on an embedded Linux
# board), runs both under qemu-user (their checksums must agree) and prints
#   target=<t> text_bytes=<n> data_bytes=<n> bss_bytes=<n> edgemem_text_bytes=<n>
# (text/data/bss: Berkeley `size` of the edgemem app; edgemem_text_bytes: its text minus the malloc
# app's). Exits non-zero if a build or run fails, or aarch64 exceeds FOOTPRINT_MAX_TEXT (36864: the 32 KiB goal was broken by issue #29's hardening, 34,214 bytes; issue #35 is to win it back).
#   bench/footprint.sh [--top N] [aarch64] [armhf]     (default: both; --top lists the N largest
#                                                      symbols the app keeps from edgemem)
# Needs: g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user meson ninja-build.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/registry.sh
. scripts/registry.sh
backend=$(registry_driverless)

top=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --top) top=$2; shift 2 ;;
    aarch64|armhf) targets+=("$1"); shift ;;
    *) echo "usage: $0 [--top N] [aarch64] [armhf]" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(aarch64 armhf)
max_text=${FOOTPRINT_MAX_TEXT:-36864}
flags=(-std=c++17 -Os -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -DNDEBUG
       -Wall -Wextra -Wpedantic -Werror)

status=0
for t in "${targets[@]}"; do
  case "$t" in
    aarch64) triple=aarch64-linux-gnu; qemu='qemu-aarch64' ;;
    armhf) triple=arm-linux-gnueabihf; qemu='qemu-arm' ;;
  esac
  build=build-emb-footprint-$t
  log=build-emb-logs/footprint-$t.log  # build*/ is git-ignored
  mkdir -p build-emb-logs
  if [ ! -f "$build/build.ninja" ]; then
    rm -rf "$build"
    meson setup "$build" --cross-file "cross/$triple.ini" -Dmemory_backend="$backend" -Doptimization=s \
      -Ddebug=false -Db_ndebug=true "-Dcpp_args=['-ffunction-sections','-fdata-sections']" \
      -Dtests=disabled -Dexamples=disabled -Dbench=disabled -Dwerror=true >"$log" 2>&1 ||
      { cat "$log"; exit 1; }
  fi
  ninja -C "$build" libedgemem.a >>"$log" 2>&1 || { cat "$log"; exit 1; }
  # Compile flags exactly as a consumer gets them (include dirs, EDGEMEM_DEP_* configuration).
  cflags=$(PKG_CONFIG_LIBDIR="$build/meson-uninstalled" pkg-config --cflags edgemem-uninstalled)
  # shellcheck disable=SC2086
  "$triple-g++" "${flags[@]}" $cflags bench/footprint/app_edgemem.cpp "$build/libedgemem.a" \
    -Wl,--gc-sections -o "$build/app_edgemem"
  "$triple-g++" "${flags[@]}" bench/footprint/app_malloc.cpp -Wl,--gc-sections -o "$build/app_malloc"

  run() { "$qemu" -L "/usr/$triple" -E "LD_LIBRARY_PATH=/usr/$triple/lib" "$1"; }
  got_e=$(run "$build/app_edgemem" | awk '{print $3}')
  got_m=$(run "$build/app_malloc" | awk '{print $3}')
  if [ -z "$got_e" ] || [ "$got_e" != "$got_m" ]; then
    echo "footprint: $t: checksums differ (edgemem '$got_e', malloc '$got_m')" >&2
    status=1
  fi

  read -r text data bss _ < <("$triple-size" "$build/app_edgemem" | tail -1)
  read -r text_m _ < <("$triple-size" "$build/app_malloc" | tail -1)
  echo "target=$t text_bytes=$text data_bytes=$data bss_bytes=$bss edgemem_text_bytes=$((text - text_m))"
  if [ "$t" = aarch64 ] && [ $((text - text_m)) -gt "$max_text" ]; then
    echo "footprint: aarch64: edgemem adds $((text - text_m)) bytes of text, over $max_text" >&2
    status=1
  fi
  if [ "$top" -gt 0 ]; then
    "$triple-nm" --size-sort -r -C "$build/app_edgemem" | grep ' [tTrRwW] ' | head -n "$top" |
      while read -r size _ name; do printf '  %6d %s\n' "$((16#$size))" "$name"; done || true
  fi
done
exit $status
