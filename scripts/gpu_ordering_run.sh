#!/bin/bash
# The ordering model's GPU run (issue #28; docs/ordering.md), OpenCL and CUDA on one NVIDIA machine.
# Build here (static C++ runtime, release, live counters), for each backend:
#   meson setup build-gpu-ocl -Dmemory_backend=opencl -Dbuildtype=release -Dlive_counters=true \
#     '-Dcpp_link_args=-static-libstdc++ -static-libgcc'   (and build-gpu-cu with -Dmemory_backend=cuda)
# then copy the test and bench binaries into DIR/ocl and DIR/cuda with libOpenCL.so.1 (scripts/gpu_ordering_stage.sh
# does it: GPU_BUILDS="opencl=build-gpu-ocl cuda=build-gpu-cu" [GPU_BENCH_BUILDS=...] scripts/gpu_ordering_stage.sh), and run DIR/gpu_ordering_run.sh on the GPU machine with $OUT set: the
# conformance suite (whole), its ordering cases at 16 and 64 MiB frames x 5 runs, the two-queue cases at
# 16 and 64 MiB, the ordering lifetime and schedule programs, stress, the steady-state allocation test,
# and the overhead benches (opencl_overhead, peers' frame pipeline; cuda_overhead).
D="$(cd "$(dirname "$0")" && pwd)"
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
cd "$OUT" || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee gpu.txt
for b in ${BACKENDS:-ocl cuda}; do
  C=$D/$b
  [ -d "$C" ] || continue
  export LD_LIBRARY_PATH=$C
  log=$b.txt
  {
    echo "=== $b"
    echo "== blocking-call cases, 16 MiB"; EDGEMEM_TEST_FRAME_MIB=16 timeout 60 $C/edgemem_conformance -tc="*blocking call*" > $b-blocking.log 2>&1; echo "rc $?"; tail -3 $b-blocking.log
    echo "== conformance"; timeout ${CONF_T:-300} $C/edgemem_conformance > $b-conformance.log 2>&1; echo "rc $?"; tail -4 $b-conformance.log
    for m in 16 64; do
      echo "== ordering cases, $m MiB frames, ${RUNS:-5} runs"
      for i in $(seq ${RUNS:-5}); do EDGEMEM_TEST_FRAME_MIB=$m timeout 120 $C/edgemem_conformance -tc='ordering*' 2>&1 | grep -E "test cases|FAIL|ERROR" ; done
      echo "== two queue, $m MiB x 20 rounds"
      EDGEMEM_TEST_FRAME_MIB=$m EDGEMEM_TEST_ROUNDS=20 timeout 200 $C/edgemem_conformance -tc='*two queue*,*two queues*' 2>&1 | grep -E "test cases|FAIL|ERROR"
    done
    echo "== peers and interop (#29, #30)"
    for p in edgemem_cuda_context edgemem_ipc edgemem_ipc_hostile edgemem_interop cuda_opaque_fd_test; do
      [ -x $C/$p ] || continue
      timeout 200 $C/$p > $b-$p.log 2>&1; echo "$p rc $? $(grep -E "test cases" $b-$p.log | tail -1)"; grep -E "ERROR|FAIL|skip" $b-$p.log | head -5
    done
    if [ "$b" = ocl ] && [ -x $C/edgemem_fuzz_replay ]; then
      for f in $D/fuzz-h100/*.bin; do EDGEMEM_FUZZ_TRACE=1 timeout 60 $C/edgemem_fuzz_replay $f > $b-fuzz-h100.log 2>&1; echo "fuzz replay $(basename $f) rc $?"; tail -12 $b-fuzz-h100.log; done
    fi
    for p in edgemem_ordering_lifetime edgemem_ordering_schedule edgemem_stress edgemem_pool_steady_state; do
      [ -x $C/$p ] || continue
      echo "== $p"; EDGEMEM_TEST_FRAME_MIB=16 timeout 300 $C/$p -s 2>&1 | grep -E "test cases|FAIL|ERROR|allocations|seed" | tail -8
    done
    if [ -x $C/opencl_overhead ]; then
      echo "== opencl_overhead x2"; for i in 1 2; do timeout 200 $C/opencl_overhead 2>&1 | grep -E "^case=write|^case=map|goals"; done
      echo "== peers frame"; timeout 200 $C/peers --only frame 2>&1 | grep -E "frame_pipeline|goals"
      [ -x $C/opencl_split ] && { echo "== opencl_split"; timeout 100 $C/opencl_split | tail -6; }
    fi
    if [ -x $C/cuda_overhead ]; then
      echo "== cuda_overhead"; timeout 240 $C/cuda_overhead 2>&1 | grep -E "^case=|goals"
    fi
  } > $log 2>&1
  cat $log
done
# Optional: DIR/ocl-base holds the same tests built against the code before the model (the commit the
# tests branched from), to show which cases fail there on this GPU.
if [ -d "$D/ocl-base" ]; then
  export LD_LIBRARY_PATH=$D/ocl-base
  {
    echo "=== ocl-base (code before the ordering model, same tests)"
    for m in 16 64; do
      echo "== ordering cases, $m MiB, 3 runs"
      for i in 1 2 3; do EDGEMEM_TEST_FRAME_MIB=$m timeout 120 $D/ocl-base/edgemem_conformance -tc='ordering*' 2>&1 | grep -E "test cases|ERROR: CHECK|are not" | cut -c1-300 | head -6; done
    done
    echo "== lifetime"; timeout 120 $D/ocl-base/edgemem_ordering_lifetime 2>&1 | grep -E "test cases|ERROR|Segmentation|signal" | head -6; echo "rc ${PIPESTATUS[0]}"
  } > ocl-base.txt 2>&1
  cat ocl-base.txt
fi
