#!/bin/bash
# 2026-11-29 (fourth session), 289de5d+: read-only caller memory on NVIDIA's Vulkan driver.
cd "$(dirname "$0")"
for f in ../gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p "$OUT"
echo "== probe"; ../probe/probe
t0=$SECONDS; timeout 400 ./edgemem_conformance > "$OUT/conformance.log" 2>&1; echo "== conformance rc=$? $((SECONDS-t0))s"
grep -E "test cases|assertions" "$OUT/conformance.log"
awk '/^TEST CASE:/{t=$0} /ERROR:/{if (t!=last) {print t; last=t}}' "$OUT/conformance.log"
./edgemem-info | grep -i "in place"
