#!/bin/bash
# The CUDA backend's H100 run (docs/backends/cuda.md, results in docs/results/cuda.md), on the GPU machine, with the binaries of build-cu-dev
# (and build-cu-fault) copied with libspng.so.0 and libOpenCL.so.1 into DIR/cuda, tests/fuzz/corpus into DIR/corpus,
# tests/demo/check_camera_demo.py into DIR; run as DIR/cuda_gpu_run.sh with $OUT set to an output folder: info, context test, conformance (whole, twice), two-queue
# at 16 and 64 MiB x 20 rounds, stress, fault injection, fuzz corpus replay, demo + its numpy check, bench, CuPy's pool.
D="$(cd "$(dirname "$0")" && pwd)"
C=$D/cuda
export LD_LIBRARY_PATH=$C
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
cd $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv > gpu.txt 2>&1; cat gpu.txt
$C/edgemem-info > info.txt 2>&1
echo "== cuda_context"; timeout 60 $C/edgemem_cuda_context 2>&1 | tail -2
for i in 1 2; do echo "== conformance $i"; ( timeout 300 $C/edgemem_conformance > conformance$i.txt 2>&1; echo rc $? >> conformance$i.txt ); tail -5 conformance$i.txt; done
for m in 16 64; do echo "== two queue $m MiB x20"; EDGEMEM_TEST_FRAME_MIB=$m EDGEMEM_TEST_ROUNDS=20 timeout 200 $C/edgemem_conformance -tc='*two queue*' > twoq$m.txt 2>&1; echo rc $? >> twoq$m.txt; tail -4 twoq$m.txt; done
echo "== stress"; timeout 200 $C/edgemem_stress > stress.txt 2>&1; echo rc $? >> stress.txt; tail -4 stress.txt
echo "== fault"; ( timeout 300 $C/edgemem_fault > fault.txt 2>&1; echo rc $? >> fault.txt ); tail -22 fault.txt
if [ -x $C/edgemem_fuzz_replay ]; then echo "== fuzz replay"; ( OCL_ICD_VENDORS=/nonexistent timeout 300 $C/edgemem_fuzz_replay $D/corpus > fuzz.txt 2>&1; echo rc $? >> fuzz.txt ); tail -8 fuzz.txt; fi
echo "== demo"; ( timeout 200 python3 $D/check_camera_demo.py $C/camera_demo > check_demo.txt 2>&1; echo rc $? >> check_demo.txt ); tail -4 check_demo.txt
mkdir -p demo_buf; ( timeout 120 $C/camera_demo --frames 300 --out demo_buf > demo_buf.txt 2>&1; echo rc $? >> demo_buf.txt ); tail -4 demo_buf.txt
echo "== bench"; ( timeout 240 $C/cuda_overhead > bench.txt 2>&1; echo rc $? >> bench.txt ); grep -E "^case=alloc|goals|rc" bench.txt
echo "== cupy"; timeout 60 python3 - <<'PY' 2>&1 | tail -3 | tee cupy.txt
import time
try:
    import cupy
except Exception as e:
    print("cupy not importable:", e); raise SystemExit
pool = cupy.cuda.MemoryPool()
n = 1 << 20
keep = [pool.malloc(n) for _ in range(16)]
ts = []
for _ in range(20000):
    t0 = time.perf_counter_ns(); p = pool.malloc(n); del p; ts.append(time.perf_counter_ns() - t0)
ts.sort(); print("cupy MemoryPool malloc+free 1 MiB (warmed): p50_ns=%d p99_ns=%d (Python, cupy %s)" % (ts[len(ts)//2], ts[len(ts)*99//100], cupy.__version__))
PY
