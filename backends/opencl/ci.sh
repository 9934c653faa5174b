# The OpenCL backend's packages and CI configurations (on PoCL), sourced by scripts/edgemem.sh (its
# helpers: build_and_test, threads_tsan). ocl-icd-opencl-dev:arm64 is for scripts/embedded_ci.sh's
# aarch64 cross link; opencl-clhpp-headers for the peers benchmark (bench/peers).
PACKAGES+=(opencl-c-headers ocl-icd-opencl-dev pocl-opencl-icd ocl-icd-opencl-dev:arm64 opencl-clhpp-headers)

# PoCL under AddressSanitizer. intercept_tls_get_addr=0: clang 14's __tls_get_addr interceptor misreads
# LLVM's dynamic TLS blocks as pre-2.25 glibc ones and LeakSanitizer's tracer then segfaults at exit.
# fast_unwind_on_malloc=0: PoCL/LLVM have no frame pointers; full stacks let tests/sanitizers/lsan.supp
# match their own leaks.
opencl_asan_env() {
  ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0:fast_unwind_on_malloc=0 \
  LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0" \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$@"
}

backend_ci_opencl() {
  # Test programs at -O0 (-Dtests_optimized=false: a quarter of the compile time); build-test-host keeps them at -O2.
  build_and_test build-test-opencl -Dmemory_backend=opencl -Dlive_counters=true -Dtests_optimized=false
  # ASan+UBSan with the user allocator policy, with a fresh kernel cache so PoCL's kernel compiler
  # (LLVM, in-process) runs.
  rm -rf build-test-asan-opencl-user.pocl-cache && mkdir build-test-asan-opencl-user.pocl-cache
  POCL_CACHE_DIR="$PWD/build-test-asan-opencl-user.pocl-cache" CXX=clang++ \
    opencl_asan_env build_and_test build-test-asan-opencl-user -Dmemory_backend=opencl -Dallocator=user \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Dlive_counters=true -Dbench=disabled
  # ThreadSanitizer where the ordering table is live (the host backend keeps none): its records, folds
  # and forgets under the threads of the ordering tests. PoCL itself is not instrumented; its pthread
  # calls still order our accesses (TSan intercepts them in every library).
  threads_tsan opencl -Dmemory_backend=opencl
  # Fault injection, as on the host backend, with ASan/LSan watching the driver's side.
  CXX=clang++ opencl_asan_env build_and_test build-test-fault-opencl -Dmemory_backend=opencl -Dfault_injection=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Dlive_counters=true \
    -Dexamples=disabled -Dbench=disabled
}

# scripts/embedded_ci.sh's step 2 (its helpers: log, die, configure, build, FAST, A64, QEMU_A64,
# NM_BUILDS): the OpenCL backend cross-compiled and linked for aarch64 against the arm64 ICD loader
# (multiarch); its readme_example runs under qemu and must report that no platform is installed.
backend_embedded_opencl() {
  log "2. OpenCL backend for aarch64 against the arm64 ICD loader"
  [ -f /usr/lib/aarch64-linux-gnu/pkgconfig/OpenCL.pc ] ||
    die "no arm64 OpenCL loader: apt-get install ocl-icd-opencl-dev:arm64 (after scripts/embedded_ci.sh enable-arm64)"
  configure build-emb-cross-aarch64-opencl --cross-file "$A64" --cross-file cross/aarch64-linux-gnu-opencl.ini \
    -Dmemory_backend=opencl -Dtests=disabled "${FAST[@]}"
  build build-emb-cross-aarch64-opencl
  local exe=build-emb-cross-aarch64-opencl/examples/readme_example
  aarch64-linux-gnu-readelf -h "$exe" | grep -q 'Machine: *AArch64' || die "$exe is not an AArch64 executable"
  aarch64-linux-gnu-readelf -d "$exe" | grep -q 'NEEDED.*libOpenCL.so.1' || die "$exe does not link libOpenCL.so.1"
  local out
  out=$("${QEMU_A64[@]}" "$exe" 2>&1 || true)
  [[ "$out" == *"unsupported: no platform is installed"* ]] || die "$exe under qemu printed: $out"
  echo "  libedgemem.a + examples linked against /usr/lib/aarch64-linux-gnu/libOpenCL.so; under qemu: $out"
  NM_BUILDS+=(build-emb-cross-aarch64-opencl:aarch64-linux-gnu-nm)
}
