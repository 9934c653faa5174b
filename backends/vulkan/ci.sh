# The Vulkan backend's packages and CI configuration, sourced by scripts/edgemem.sh (its helper
# build_and_test_suites): lavapipe (mesa-vulkan-drivers) as the device, the Khronos validation layers.
PACKAGES+=(libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers)

# lavapipe, with the Khronos validation layer on: a validation message is printed in the test's log.
vulkan_env() {
  VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
    LP_NUM_THREADS=2 "$@"
}

# In progress (issue #32): the library and the backend's own suite ('vulkan': the census, contexts and
# adoption on lavapipe, and the start without a driver), built with -Werror; the conformance suite joins
# when queues and memory land.
backend_ci_vulkan() {
  vulkan_env build_and_test_suites build-test-vulkan vulkan -Dmemory_backend=vulkan -Dlive_counters=true \
    -Dexamples=disabled -Dbench=disabled
  if grep -q "Validation Error" build-test-vulkan/meson-logs/testlog.txt; then
    echo "build-test-vulkan: the validation layer reported errors (build-test-vulkan/meson-logs/testlog.txt)" >&2
    return 1
  fi
}
