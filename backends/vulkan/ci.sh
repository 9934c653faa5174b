# The Vulkan backend's packages and CI configuration, sourced by scripts/edgemem.sh (its helper
# build_and_test_suites): lavapipe (mesa-vulkan-drivers) as the device, the Khronos validation layers.
PACKAGES+=(libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers glslc)

# lavapipe, with the Khronos validation layer on, synchronization validation included (Debian 12's layer,
# 1.3.239, checks hazards inside a command buffer, not across submits): a message is printed in the test's log.
# With synchronization validation on, that layer also reports UNASSIGNED-VkSemaphore-state-timeout ("most
# likely a validation bug") at random while a host-signalled timeline semaphore is pending (the ordering
# tests' gates; none without it): that one message is filtered out.
vulkan_env() {
  VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
    VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT \
    VK_LAYER_MESSAGE_ID_FILTER=UNASSIGNED-VkSemaphore-state-timeout LP_NUM_THREADS=2 "$@"
}

# The library, tests, tools and benchmarks (no examples), built with -Werror, every suite on lavapipe under the
# validation layer (the conformance suite unchanged, the fuzz corpora compared with the host model, IPC,
# threads), then bench/vulkan_overhead --quick under it too (its raw Vulkan sequences and edgemem's, both
# raw paths: lavapipe's numbers mean nothing, the layer's verdict does); a validation message fails the run.
backend_ci_vulkan() {
  vulkan_env build_and_test_suites build-test-vulkan "" -Dmemory_backend=vulkan -Dlive_counters=true \
    -Dexamples=disabled -Dtests_optimized=false
  local bench=build-test-vulkan/backends/vulkan/bench/vulkan_overhead log=build-test-vulkan/meson-logs/vulkan-overhead.txt
  { vulkan_env "$bench" --quick && vulkan_env "$bench" --quick --raw-staged; } > "$log" 2>&1 || {
    tail -30 "$log" >&2
    return 1
  }
  # The conformance suite again as on a driver that imports only pages the process may write (NVIDIA's:
  # read-only caller memory is then copied or refused, never handed to the driver) and whose host-visible
  # memory is not coherent (every flush and invalidate, with its atom rounding, checked by the layer).
  EDGEMEM_VULKAN_IMPORT_WRITABLE_ONLY=1 EDGEMEM_VULKAN_NONCOHERENT=1 vulkan_env build-test-vulkan/tests/edgemem_conformance \
    > build-test-vulkan/meson-logs/conformance-writable-only.txt 2>&1 || {
    tail -30 build-test-vulkan/meson-logs/conformance-writable-only.txt >&2
    return 1
  }
  if grep -q "Validation Error" build-test-vulkan/meson-logs/testlog.txt build-test-vulkan/meson-logs/conformance-writable-only.txt \
    build-test-vulkan/meson-logs/vulkan-overhead.txt; then
    echo "build-test-vulkan: the validation layer reported errors (build-test-vulkan/meson-logs/testlog.txt)" >&2
    return 1
  fi
}
