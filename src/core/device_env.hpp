// EDGEMEM_DEVICE=<platform>:<device>: the environment override of a DeviceSelector, shared by backends.
#pragma once
#include <edgemem/device.hpp>
#include <edgemem/result.hpp>

namespace edgemem::detail {

/// `selector` with its indices replaced by EDGEMEM_DEVICE when set and not ignored.
/// Errc: invalid_argument (EDGEMEM_DEVICE is not two non-negative integers separated by ':').
Result<DeviceSelector> apply_device_env(const DeviceSelector& selector) noexcept;

/// Parses "<platform>:<device>". Errc: invalid_argument.
Result<DeviceSelector> parse_device_spec(const char* text, DeviceSelector base) noexcept;

}  // namespace edgemem::detail
