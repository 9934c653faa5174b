#!/bin/bash
# Copies what scripts/gpu_ordering_run.sh needs from build-gpu-ocl and build-gpu-cu (see there; either may
# be missing), with the #29/#30 programs (IPC, hostile peer, interop, CUDA context, fuzz replay), into DIR (default .device/ordering, git-ignored), with libOpenCL.so.1 for the OpenCL side.
set -e
cd "$(dirname "$0")/.."
DIR=${1:-.device/ordering}
OCL=${OCL_BUILD:-build-gpu-ocl} CU=${CU_BUILD:-build-gpu-cu}
rm -rf "$DIR" && mkdir -p "$DIR"
cp scripts/gpu_ordering_run.sh "$DIR/" && cp -r backends/opencl/tests/driver_bugs/nvidia "$DIR/fuzz-h100"
stage() {
  local from=$1 to=$DIR/$2
  [ -d "$from" ] || return 0
  mkdir -p "$to"
  for f in tests/edgemem_conformance tests/ordering/edgemem_ordering_lifetime tests/stress/edgemem_ordering_schedule \
           tests/stress/edgemem_stress tests/alloc/edgemem_pool_steady_state backends/opencl/bench/opencl_overhead backends/opencl/bench/peers/peers \
           backends/cuda/bench/cuda_overhead tests/ipc/edgemem_ipc tests/ipc/edgemem_ipc_hostile backends/opencl/tests/edgemem_interop \
           backends/opencl/tests/cuda_opaque_fd_test backends/cuda/tests/edgemem_cuda_context tests/fuzz/edgemem_fuzz_replay; do
    [ -f "$from/$f" ] && cp "$from/$f" "$to/"
  done
  strip "$to"/* 2>/dev/null || true
  cp -L /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 "$to/"
}
stage "$OCL" ocl
stage "$CU" cuda
# The benches from builds without live counters (their atomics are not what users run), when there:
# build-gpu-bench (OpenCL) and build-gpu-cubench (CUDA), configured as above with -Dlive_counters=false.
for pair in "${BENCH_OCL:-build-gpu-bench}:ocl" "${BENCH_CU:-build-gpu-cubench}:cuda"; do
  from=${pair%%:*} to=$DIR/${pair##*:}
  for f in backends/opencl/bench/opencl_overhead backends/opencl/bench/opencl_split backends/opencl/bench/peers/peers backends/cuda/bench/cuda_overhead; do
    [ -f "$from/$f" ] && [ -d "$to" ] && cp "$from/$f" "$to/" && strip "$to/$(basename $f)" && echo "bench $f from $from"
  done
done
# The fuzz replay built with the H100's base alignment (backends/opencl/tests/driver_bugs/nvidia/README.md), when there.
[ -f "${FUZZ512:-build-gpu-512}/tests/fuzz/edgemem_fuzz_replay" ] && [ -d "$DIR/ocl" ] &&
  cp "${FUZZ512:-build-gpu-512}/tests/fuzz/edgemem_fuzz_replay" "$DIR/ocl/edgemem_fuzz_replay" && echo "fuzz replay (512)"
du -sh "$DIR"
