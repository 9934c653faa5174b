#include "core/device_env.hpp"

#include <cstdlib>

namespace edgemem::detail {

namespace {
// Reads a non-negative decimal int at *p, advancing p; false if none or too large.
bool read_index(const char*& p, int& out) noexcept {
  if (*p < '0' || *p > '9') return false;
  long v = 0;
  while (*p >= '0' && *p <= '9') {
    v = v * 10 + (*p - '0');
    if (v > 1000000) return false;
    ++p;
  }
  out = static_cast<int>(v);
  return true;
}
}  // namespace

Result<DeviceSelector> parse_device_spec(const char* text, DeviceSelector base) noexcept {
  const char* p = text;
  int platform = 0, device = 0;
  if (!read_index(p, platform) || *p++ != ':' || !read_index(p, device) || *p != '\0')
    return fail(Errc::invalid_argument, "EDGEMEM_DEVICE must be <platform>:<device>, e.g. 0:1");
  base.platform_index = platform;
  base.device_index = device;
  return base;
}

Result<DeviceSelector> apply_device_env(const DeviceSelector& selector) noexcept {
  if (selector.ignore_environment) return selector;
  const char* env = std::getenv("EDGEMEM_DEVICE");
  if (env == nullptr || *env == '\0') return selector;
  return parse_device_spec(env, selector);
}

}  // namespace edgemem::detail
