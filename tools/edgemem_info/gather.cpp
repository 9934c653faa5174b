// edgemem-info: enumerating devices with Context::create and reading what each reports.
// Enumeration uses only the public selection rule (device.hpp, DeviceSelector): for DeviceType::any,
// platform p and device d name a device, or Context::create answers invalid_argument (no such index)
// or unsupported (no device at all). EDGEMEM_DEVICE is ignored here: --device P:D picks one instead.
#include <utility>

#include "report.hpp"

namespace info {

using namespace edgemem;

namespace {

DeviceReport describe(Context& ctx, int platform, int device, bool profile) {
  DeviceReport r;
  r.platform = platform;
  r.device = device;
  r.opened = true;
  r.info = ctx.info();
  for (unsigned t = 0; t < image_type_count; ++t)
    for (unsigned a = 0; a < format_access_count; ++a)
      r.formats[t][a] = ctx.supported_formats(static_cast<ImageType>(t), static_cast<FormatAccess>(a));
  if (profile) {
    r.profile = run_profile(ctx);
    r.profiled = true;
  }
  return r;
}

DeviceReport failed(int platform, int device, const Error& e) {
  DeviceReport r;
  r.platform = platform;
  r.device = device;
  r.error = e;
  return r;
}

DeviceSelector selector(int platform, int device) {
  DeviceSelector s;
  s.type = DeviceType::any;
  s.platform_index = platform;
  s.device_index = device;
  s.ignore_environment = true;
  return s;
}

}  // namespace

Survey gather(const Options& opt) {
  Survey out;
  if (opt.only_platform >= 0) {
    auto c = Context::create(selector(opt.only_platform, opt.only_device));
    if (c) out.devices.push_back(describe(*c, opt.only_platform, opt.only_device, opt.profile));
    else out.devices.push_back(failed(opt.only_platform, opt.only_device, c.error()));
  } else {
    constexpr int kMaxDevices = 64;
    bool stop = false;
    for (int p = 0; p < static_cast<int>(DeviceCensus::max_platforms) && !stop; ++p) {
      Errc last_failure{};
      for (int d = 0; d < kMaxDevices; ++d) {
        auto c = Context::create(selector(p, d));
        if (c) {
          out.devices.push_back(describe(*c, p, d, opt.profile));
          last_failure = Errc{};
          continue;
        }
        const Errc e = c.error().code;
        if (e == Errc::invalid_argument) break;  // no device d on platform p (or no platform p)
        if (e == Errc::unsupported) {            // no device on any platform
          stop = true;
          break;
        }
        // A device that exists but does not open: reported, then the next one is tried (a second
        // failure alike in a row ends the platform, whose devices then fail as a whole).
        out.devices.push_back(failed(p, d, c.error()));
        if (e == last_failure) break;
        last_failure = e;
      }
    }
  }
  bool any = false;
  for (const DeviceReport& r : out.devices) any = any || r.opened;
  if (!any) {
    DeviceSelector s;
    s.ignore_environment = true;
    auto c = Context::create(s);
    out.none_reason = c ? Error{Errc::unsupported, 0, "no device matched"} : c.error();
  }
  return out;
}

}  // namespace info
