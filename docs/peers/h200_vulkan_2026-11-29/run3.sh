#!/bin/bash
# 2026-11-29 (fourth session): Vulkan interop + async reads, begin_native async on every backend.
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
  echo "== $name rc=$rc $((SECONDS - t0))s: $(grep -E 'test cases|assertions' "$OUT/$name.log" | tr '\n' ' ')"
  echo "   validation errors: $(grep -c 'Validation Error' "$OUT/$name.log")"
  grep -E "ERROR|CRASHED" "$OUT/$name.log" | head -5
}
VL="LD_LIBRARY_PATH=$VLLIB:$PWD/lib VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation"
./edgemem-info | head -8
run vk_interop_vl 60 env $VL ./edgemem_vulkan_interop
run vk_interop_64mib 90 env EDGEMEM_TEST_FRAME_MIB=64 ./edgemem_vulkan_interop
run vk_queue_vl 60 env $VL ./edgemem_vulkan_queue
run vk_ordering_vl 90 env $VL ./edgemem_ordering_lifetime
run vk_conformance 300 ./edgemem_conformance
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
run ocl_interop 60 env OCL_ICD_VENDORS=/tmp/icd LD_LIBRARY_PATH=../ocl ../ocl/edgemem_interop
run ocl_native 60 env OCL_ICD_VENDORS=/tmp/icd LD_LIBRARY_PATH=../ocl ../ocl/edgemem_conformance -tc="*native*,*marker*,*wait list*"
run cu_native 60 ../cu/edgemem_conformance -tc="*native*,*marker*,*wait list*"
