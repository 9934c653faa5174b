# The host backend's CI configurations, sourced by scripts/edgemem.sh (its helpers: build_and_test,
# threads_tsan). No package: the host backend has no dependency.
backend_ci_host() {
  # The one configuration whose test programs are optimized (-O2): the others compile them at -O0
  # (-Dtests_optimized=false, a quarter of the compile time; the library keeps its optimization).
  build_and_test build-test-host -Dmemory_backend=host -Dlive_counters=true -Dhost_caps_env=true
  build_and_test build-test-host-static -Dmemory_backend=host -Dallocator=static -Dlive_counters=true \
    -Dtests_optimized=false
  # clang++ and the user allocator policy (test programs install aligned_alloc callbacks).
  CXX=clang++ build_and_test build-test-clang-host-user -Dmemory_backend=host -Dallocator=user -Dlive_counters=true \
    -Dtests_optimized=false
  ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    CXX=clang++ build_and_test build-test-asan-host -Dmemory_backend=host -Dhost_caps_env=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dbuildtype=debug -Dlive_counters=true
  threads_tsan host -Dmemory_backend=host
  # Fault injection (tests/fault): each backend call and allocation of the scenarios fails in turn;
  # ASan/LSan watch. The rest of the suite runs too, through the (disarmed) wrapper.
  ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    CXX=clang++ build_and_test build-test-fault-host -Dmemory_backend=host -Dfault_injection=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Dlive_counters=true \
    -Dexamples=disabled -Dbench=disabled
}
