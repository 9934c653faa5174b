#!/bin/bash
cd "$(dirname "$0")"
for f in ../gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p "$OUT"
t0=$SECONDS; timeout 480 ./edgemem_conformance -d > "$OUT/conformance.log" 2>&1; echo "conformance rc=$? $((SECONDS-t0))s"
grep -E "test cases|assertions" "$OUT/conformance.log"
grep -E "TEST CASE|ERROR|values|logged|CRASHED" "$OUT/conformance.log" > "$OUT/failures.txt"
sort -t' ' -k1 -rn <(grep -E "^[0-9.]+ s: " "$OUT/conformance.log" | sed 's/ s: /|/' | awk -F'|' '{print $1" "$2}') | head -8
timeout 60 ./edgemem_fuzz_peer_replay peer_corpus > "$OUT/peer.log" 2>&1; echo "peer rc=$?"; tail -2 "$OUT/peer.log"
