// edgemem-info: enumerating devices with Context::census and Context::create, and reading what each
// reports. Every device the census counts is tried, and one that does not open is reported with its
// error (the others are still listed). EDGEMEM_DEVICE is ignored here: --device P:D picks one instead.
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
    auto census = Context::census(DeviceType::any);
    if (!census) {
      out.none_reason = census.error();
      return out;
    }
    for (unsigned p = 0; p < census->platforms; ++p)
      for (unsigned d = 0; d < census->devices[p]; ++d) {
        const int pi = static_cast<int>(p), di = static_cast<int>(d);
        auto c = Context::create(selector(pi, di));
        if (c) out.devices.push_back(describe(*c, pi, di, opt.profile));
        else out.devices.push_back(failed(pi, di, c.error()));
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
