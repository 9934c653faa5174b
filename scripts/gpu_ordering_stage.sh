#!/bin/bash
# Copies what scripts/gpu_ordering_run.sh and scripts/gpu_registry_run.sh need into DIR (default
# .device/ordering, git-ignored): for each backend NAME built in BUILD (GPU_BUILDS="NAME=BUILD ...",
# builds configured as gpu_ordering_run.sh says), the common test programs below and what
# backends/NAME/gpu_stage.txt lists, into DIR/<its dir>; the benches from builds without live counters
# (GPU_BENCH_BUILDS="NAME=BUILD ...", optional); FUZZ512=BUILD: the fuzz replay built with the H100's
# base alignment, where a backend's list says. A backend without a gpu_stage.txt, or a BUILD that is
# missing, is skipped.
set -e
cd "$(dirname "$0")/.."
DIR=${1:-.device/ordering}
rm -rf "$DIR" && mkdir -p "$DIR"
cp scripts/gpu_ordering_run.sh "$DIR/"
COMMON=(tests/edgemem_conformance tests/ordering/edgemem_ordering_lifetime tests/stress/edgemem_ordering_schedule
        tests/stress/edgemem_stress tests/alloc/edgemem_pool_steady_state tests/ipc/edgemem_ipc
        tests/ipc/edgemem_ipc_hostile tests/fuzz/edgemem_fuzz_replay tools/edgemem_info/edgemem-info)
# entries NAME KEY: the values of KEY in backends/NAME/gpu_stage.txt.
entries() { sed -n "s/^$2 //p" "backends/$1/gpu_stage.txt"; }
for pair in ${GPU_BUILDS:-}; do
  name=${pair%%=*} from=${pair#*=}
  [ -f "backends/$name/gpu_stage.txt" ] && [ -d "$from" ] || { echo "skip $pair"; continue; }
  to=$DIR/$(entries "$name" dir)
  mkdir -p "$to"
  for f in "${COMMON[@]}" $(entries "$name" program); do
    [ -f "$from/$f" ] && cp "$from/$f" "$to/"
  done
  strip "$to"/* 2>/dev/null || true
  for l in $(entries "$name" lib); do cp -L "$l" "$to/"; done
  entries "$name" copy | while read -r src dst; do cp -r "$src" "$DIR/$dst"; done
  f=$(entries "$name" fuzz512)
  if [ -n "$f" ] && [ -n "${FUZZ512:-}" ] && [ -f "$FUZZ512/$f" ]; then
    cp "$FUZZ512/$f" "$to/" && echo "fuzz replay (512) into $to"
  fi
done
for pair in ${GPU_BENCH_BUILDS:-}; do
  name=${pair%%=*} from=${pair#*=}
  [ -f "backends/$name/gpu_stage.txt" ] || continue
  to=$DIR/$(entries "$name" dir)
  for f in $(entries "$name" bench); do
    [ -f "$from/$f" ] && [ -d "$to" ] && cp "$from/$f" "$to/" && strip "$to/$(basename "$f")" && echo "bench $f from $from"
  done
done
du -sh "$DIR"
