#!/bin/bash
# Vulkan backend on the NVIDIA GPU (issue #32): the loader and GL dispatch libraries from .device/gl,
# the Khronos validation layer from .device/vl (unpacked into /tmp/vl), then every suite.
cd "$(dirname "$0")"
for f in ../gl/*.deb; do dpkg -x "$f" /; done; ldconfig
mkdir -p /tmp/vl && dpkg -x ../vl/*.deb /tmp/vl
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=/tmp/vl/usr/lib/x86_64-linux-gnu:$PWD/lib
export VK_LAYER_PATH=/tmp/vl/usr/share/vulkan/explicit_layer.d
mkdir -p "$OUT"
run() {  # NAME CMD...: the last lines of its output, its exit status, the whole log in $OUT
  local name=$1; shift
  local t0=$SECONDS
  timeout 200 "$@" > "$OUT/$name.log" 2>&1; local rc=$?
  echo "== $name rc=$rc $((SECONDS - t0))s: $(grep -E 'test cases|assertions|agree|passed|FAIL' "$OUT/$name.log" | tail -2 | tr '\n' ' ')"
  grep -c "Validation Error" "$OUT/$name.log" | sed "s/^/   validation errors: /"
}
./edgemem-info > "$OUT/info.txt" 2>&1; head -12 "$OUT/info.txt"
VL="VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation"
run vulkan_context env $VL ./edgemem_vulkan_context
run vulkan_queue env $VL ./edgemem_vulkan_queue
run vulkan_exit env $VL ./edgemem_vulkan_exit
run conformance_vl env $VL ./edgemem_conformance
run conformance ./edgemem_conformance
run ordering_lifetime env $VL ./edgemem_ordering_lifetime
run stress ./edgemem_stress
run steady ./edgemem_pool_steady_state
run ipc ./edgemem_ipc
run ipc_hostile ./edgemem_ipc_hostile
run fuzz_replay ./edgemem_fuzz_replay corpus
run fuzz_peer_replay ./edgemem_fuzz_peer_replay peer_corpus
[ -x ../cu/edgemem_cuda_context ] && run cuda_context ../cu/edgemem_cuda_context
true
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
run opencl_interop env OCL_ICD_VENDORS=/tmp/icd LD_LIBRARY_PATH=../ocl ../ocl/edgemem_interop
true
