#!/usr/bin/env bash
# Differential fuzzing for CI (tests/fuzz): builds the libFuzzer target with clang++ (libFuzzer +
# ASan + UBSan, host and OpenCL builds of edgemem plus a plain-memory model in one process), fuzzes
# for FUZZ_SECONDS (default 60) starting from a temporary copy of tests/fuzz/corpus (the repository
# is never modified), prints executions per second and corpus sizes, then replays the committed
# corpus and every input the run added. Exits non-zero on any finding: the report (the operation
# sequence and the first difference) is printed and the input is kept as
# $FUZZ_BUILD_DIR/fuzz-artifacts/crash-*; copy it to tests/fuzz/corpus/regress-<what>.bin once fixed.
#   scripts/fuzz_ci.sh                       (FUZZ_SECONDS=600 scripts/fuzz_ci.sh for a longer run)
# Needs: clang (libFuzzer and the sanitizer runtimes: libclang-rt-14-dev on Debian 12), meson, ninja,
# OpenCL headers, ICD loader and PoCL for the OpenCL side (without them: host against the model only).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${FUZZ_BUILD_DIR:-build-test-fuzz}
SECS=${FUZZ_SECONDS:-60}
CXX_FUZZ=${FUZZ_CXX:-clang++}

log() { printf '\n== %s\n' "$*"; }

log "fuzz: configure $BUILD ($CXX_FUZZ, -Dfuzz=enabled, ASan+UBSan)"
rm -rf "$BUILD"
CXX=$CXX_FUZZ meson setup "$BUILD" -Dfuzz=enabled -Dwerror=true -Db_sanitize=address,undefined \
  -Db_lundef=false -Dexamples=disabled -Dbench=disabled >"$BUILD.configure.log" 2>&1 \
  || { cat "$BUILD.configure.log"; exit 1; }
ninja -C "$BUILD" tests/fuzz/edgemem_fuzz tests/fuzz/edgemem_fuzz_replay tests/fuzz/edgemem_fuzz_peer \
  tests/fuzz/edgemem_fuzz_peer_replay >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/edgemem-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$BUILD/fuzz-artifacts"
cp tests/fuzz/corpus/* "$work/corpus/"
seeds=$(ls tests/fuzz/corpus | wc -l)
seed_bytes=$(cat tests/fuzz/corpus/* | wc -c)

export EDGEMEM_FUZZ_REQUIRE_ALL=1  # an OpenCL build that cannot open PoCL fails here, never fuzzes host only
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:intercept_tls_get_addr=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

log "fuzz: $SECS s from $seeds committed inputs ($seed_bytes bytes)"
status=0
"$BUILD/tests/fuzz/edgemem_fuzz" -max_total_time="$SECS" -timeout=30 -print_final_stats=1 \
  -artifact_prefix="$BUILD/fuzz-artifacts/" "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?
grep -E '^edgemem_fuzz: targets' "$work/fuzz.log" || true
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log")
added=$(sed -n 's/^stat::new_units_added: *//p' "$work/fuzz.log")
cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$work/fuzz.log" | tail -1 || true)
echo "fuzzing time: ${SECS} s; executions: ${runs:-?}; executions per second: ${rate:-?}"
echo "corpus: $seeds committed inputs -> $(ls "$work/corpus" | wc -l) after the run (${added:-?} new); ${cov:-}"
if [ "$status" -ne 0 ]; then
  log "fuzz: FINDING (exit status $status)"
  grep -n -A200 -E 'MISMATCH|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$work/fuzz.log" | head -150
  ls -l "$BUILD/fuzz-artifacts/" || true
  exit 1
fi

log "fuzz: replay the committed corpus and the run's inputs"
"$BUILD/tests/fuzz/edgemem_fuzz_replay" tests/fuzz/corpus
"$BUILD/tests/fuzz/edgemem_fuzz_replay" "$work/corpus"

# The hostile-peer target (tests/fuzz/peer_driver.cpp): socket messages with fds, IPC descriptors and a
# ring's control block written by a peer, against the host build (ASan + UBSan); fds counted per input.
PEER_SECS=${FUZZ_PEER_SECONDS:-30}
mkdir -p "$work/peer_corpus"
cp tests/fuzz/peer_corpus/* "$work/peer_corpus/"
log "fuzz: hostile peer, $PEER_SECS s from $(ls tests/fuzz/peer_corpus | wc -l) committed inputs"
status=0
"$BUILD/tests/fuzz/edgemem_fuzz_peer" -max_total_time="$PEER_SECS" -timeout=30 -print_final_stats=1 \
  -artifact_prefix="$BUILD/fuzz-artifacts/peer-" "$work/peer_corpus" >"$work/peer.log" 2>&1 || status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/peer.log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/peer.log")
cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$work/peer.log" | tail -1 || true)
echo "executions: ${runs:-?}; executions per second: ${rate:-?}; corpus -> $(ls "$work/peer_corpus" | wc -l); ${cov:-}"
if [ "$status" -ne 0 ]; then
  log "fuzz: hostile peer FINDING (exit status $status)"
  grep -n -A60 -E 'edgemem_fuzz_peer:|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$work/peer.log" | head -100
  ls -l "$BUILD/fuzz-artifacts/" || true
  exit 1
fi
"$BUILD/tests/fuzz/edgemem_fuzz_peer_replay" tests/fuzz/peer_corpus
"$BUILD/tests/fuzz/edgemem_fuzz_peer_replay" "$work/peer_corpus"
log "fuzz: no finding"
