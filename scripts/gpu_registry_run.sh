#!/bin/bash
# Issue #31's GPU run: the registry-built OpenCL and CUDA programs on the NVIDIA machine, staged by
# scripts/gpu_ordering_stage.sh into .device/ordering (docs/peers/h200_run_2026-11-28f.txt: the builds).
# Usage on the GPU machine, with $OUT set: scripts/gpu_registry_run.sh tests|bench
R="$(cd "$(dirname "$0")/.." && pwd)"
D=$R/.device/ordering
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
cd "$OUT" || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee gpu.txt
part=${1:-tests}
if [ "$part" = tests ]; then
  export LD_LIBRARY_PATH=$D/ocl
  echo "== ocl edgemem-info caps"; $D/ocl/edgemem-info --no-profile 2>&1 | grep -iE "migration|unified|backend" | head
  echo "== ocl conformance"; timeout 300 $D/ocl/edgemem_conformance > ocl-conformance.log 2>&1; echo "rc $?"; tail -4 ocl-conformance.log
  echo "== ocl migrate cases"; timeout 60 $D/ocl/edgemem_conformance -tc='capabilities: migration*,migrate*,a sub-buffer whose native*' 2>&1 | tail -3
  echo "== ocl interop"; timeout 200 $D/ocl/edgemem_interop > ocl-interop.log 2>&1; echo "rc $?"; tail -3 ocl-interop.log
  echo "== ocl pool_steady_state"; timeout 120 $D/ocl/edgemem_pool_steady_state 2>&1 | grep -E "MESSAGE|over|test cases" | head -4
  echo "== ocl fuzz replay (no external seeds)"; mkdir -p corpus && cp "$R"/tests/fuzz/corpus/*.bin corpus/ 2>/dev/null; rm -f corpus/seed-external-*; ls corpus | wc -l
  timeout 200 $D/ocl/edgemem_fuzz_replay corpus 2>&1 | tail -2
  export LD_LIBRARY_PATH=$D/cuda
  echo "== cuda context"; timeout 60 $D/cuda/edgemem_cuda_context 2>&1 | tail -2
  echo "== cuda conformance"; timeout 300 $D/cuda/edgemem_conformance > cuda-conformance.log 2>&1; echo "rc $?"; tail -4 cuda-conformance.log
  echo "== cuda fuzz replay (whole corpus; no OpenCL platform: cuda and the host copy)"
  OCL_ICD_VENDORS=/nonexistent timeout 200 $D/cuda/edgemem_fuzz_replay "$R"/tests/fuzz/corpus 2>&1 | tail -2
  echo "== cuda pool_steady_state"; timeout 120 $D/cuda/edgemem_pool_steady_state 2>&1 | grep -E "MESSAGE|over|test cases" | head -4
else
  export LD_LIBRARY_PATH=$D/ocl
  for i in 1 2 3; do
    for b in opencl_overhead_base opencl_overhead; do
      echo "== $b run $i"; timeout 150 $D/ocl/$b 2>&1 | grep -E "sub_buffer|pool_block|write_4B_async"
    done
  done
fi
