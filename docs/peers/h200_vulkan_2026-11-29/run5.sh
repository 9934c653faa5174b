#!/bin/bash
# 2026-11-29 (fifth session), 37cbc7b: memory blocks (sub-allocation), host-side fast paths, vulkan_overhead.
cd "$(dirname "$0")"
for f in ../gl/*.deb; do dpkg -x "$f" /; done; ldconfig
mkdir -p /tmp/vl && dpkg -x ../vl/*.deb /tmp/vl
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export VK_LAYER_PATH=/tmp/vl/usr/share/vulkan/explicit_layer.d
VLLIB=/tmp/vl/usr/lib/x86_64-linux-gnu
mkdir -p "$OUT"
run() {  # NAME LIMIT CMD...
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  timeout $limit "$@" > "$OUT/$name.log" 2>&1; local rc=$?
  echo "== $name rc=$rc $((SECONDS - t0))s: $(grep -E 'test cases|assertions|goals:' "$OUT/$name.log" | tr '\n' ' ')"
  echo "   validation errors: $(grep -c 'Validation Error' "$OUT/$name.log")"
  grep -E "ERROR|CRASHED" "$OUT/$name.log" | head -5
}
VL="LD_LIBRARY_PATH=$VLLIB:$PWD/lib VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./edgemem-info | head -8
run vk_memory_vl 120 env $VL EDGEMEM_VULKAN_MAX_ALLOCATIONS=16 ./edgemem_vulkan_memory
run vk_memory_nc 120 env EDGEMEM_VULKAN_MAX_ALLOCATIONS=16 EDGEMEM_VULKAN_NONCOHERENT=1 ./edgemem_vulkan_memory
run vk_bench_vl 120 env $VL ./vulkan_overhead --quick
run vk_bench 200 ./vulkan_overhead
run vk_interop_vl 60 env $VL ./edgemem_vulkan_interop
run vk_queue_vl 60 env $VL ./edgemem_vulkan_queue
run cu_bench 120 ../cu/cuda_overhead --quick
run vk_conformance 300 ./edgemem_conformance
grep -E "^case=" "$OUT/vk_bench.log" | awk '{print $1, $(NF-2), $(NF-1), $NF}'
