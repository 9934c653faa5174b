#include <edgemem/context.hpp>

#include "core/device_env.hpp"
#include "core/live.hpp"
#include "core/nodes.hpp"

namespace edgemem {

using detail::Backend;

namespace {

/// A context node whose native handles `open_native(info)` provides (`borrowed`: AdoptMode::borrow), with
/// its image format lists. Errc: out_of_host_memory, open_native's, or Backend::image_formats'.
template <class OpenNative>
Result<detail::ContextNode*> open_node(OpenNative&& open_native, bool borrowed) noexcept {
  auto* node = detail::make_node<detail::ContextNode>();
  if (node == nullptr) return fail(Errc::out_of_host_memory, "no memory for the context");
  auto native = open_native(node->info);
  if (!native) {
    detail::destroy_node(node);
    return fail(native.error());
  }
  node->native = *native;
  node->borrowed = borrowed;
  if (node->info.caps.images) {  // the format lists, once: supported_formats() then asks no driver
    for (unsigned t = 0; t < image_type_count; ++t) {
      for (unsigned a = 0; a < format_access_count; ++a) {
        auto listed = Backend::image_formats(node->native, static_cast<ImageType>(t), static_cast<FormatAccess>(a),
                                             node->formats[t][a]);
        if (!listed) {
          Backend::context_release(node->native, borrowed);
          detail::destroy_node(node);
          return fail(listed.error());
        }
      }
    }
  }
  detail::live_add(detail::Live::context, 1);
  return node;
}

/// The same answer on every backend for selectors no backend can satisfy. Errc: invalid_argument.
Result<void> check_selector(const DeviceSelector& s) noexcept {
  if (s.type != DeviceType::any && s.type != DeviceType::gpu && s.type != DeviceType::cpu &&
      s.type != DeviceType::accelerator)
    return fail(Errc::invalid_argument, "unknown device type");
  if (s.platform_index < -1 || s.device_index < -1)
    return fail(Errc::invalid_argument, "a device or platform index is negative (-1 means not specified)");
  return {};
}

/// The selection rule of DeviceSelector, decided here from the backend's census so that every backend
/// answers a selector alike. Returns the selector to open: EDGEMEM_DEVICE applied, the platform index
/// resolved, both indices naming something that exists. Errc: invalid_argument, unsupported, or the
/// census's own failure.
Result<DeviceSelector> resolve(const DeviceSelector& requested) noexcept {
  EDGEMEM_TRY(check_selector(requested));
  EDGEMEM_TRY_ASSIGN(DeviceSelector sel, detail::apply_device_env(requested));
  DeviceCensus census;
  EDGEMEM_TRY(Backend::device_census(sel.type, census));
  const unsigned platforms =
      census.platforms < DeviceCensus::max_platforms ? census.platforms : DeviceCensus::max_platforms;
  int first = -1;
  for (unsigned p = 0; p < platforms && first < 0; ++p)
    if (census.devices[p] != 0) first = static_cast<int>(p);
  if (platforms == 0) return fail(Errc::unsupported, "no platform is installed (OpenCL: no ICD found)");
  if (first < 0) return fail(Errc::unsupported, "no device of the requested type on any platform");
  if (sel.platform_index < 0) sel.platform_index = first;
  if (static_cast<unsigned>(sel.platform_index) >= platforms)
    return fail(Errc::invalid_argument, "platform index out of range");
  const unsigned devices = census.devices[sel.platform_index];
  if (devices == 0) return fail(Errc::invalid_argument, "the selected platform has no device of the requested type");
  if (sel.device_index >= 0 && static_cast<unsigned>(sel.device_index) >= devices)
    return fail(Errc::invalid_argument, "device index out of range for the requested type on the selected platform");
  sel.ignore_environment = true;
  return sel;
}

}  // namespace

Result<Context> Context::create(const DeviceSelector& selector) noexcept {
  EDGEMEM_TRY_ASSIGN(const DeviceSelector sel, resolve(selector));
  EDGEMEM_TRY_ASSIGN(detail::ContextNode* n,
                     open_node([&](DeviceInfo& info) { return Backend::context_create(sel, info); }, false));
  return Context(n);
}

Result<DeviceCensus> Context::census(DeviceType type) noexcept {
  DeviceSelector s;
  s.type = type;
  EDGEMEM_TRY(check_selector(s));
  DeviceCensus census;
  EDGEMEM_TRY(Backend::device_census(type, census));
  if (census.platforms > DeviceCensus::max_platforms) census.platforms = DeviceCensus::max_platforms;
  return census;
}

Result<Context> Context::adopt(const NativeContext& native, AdoptMode mode) noexcept {
  if (mode != AdoptMode::retain && mode != AdoptMode::borrow) return fail(Errc::invalid_argument, "unknown AdoptMode");
  EDGEMEM_TRY_ASSIGN(detail::ContextNode* n,
                     open_node([&](DeviceInfo& info) { return Backend::context_adopt(native, mode, info); },
                               mode == AdoptMode::borrow));
  return Context(n);
}

const DeviceInfo& Context::info() const noexcept {
  static const DeviceInfo empty{};
  return node_ != nullptr ? node_->info : empty;
}

std::size_t Context::base_align() const noexcept { return info().base_align_bytes; }

UnreportedErrors Context::unreported_errors() const noexcept {
  if (node_ == nullptr) return {};
  std::lock_guard<std::mutex> lock(node_->unreported_lock);
  return UnreportedErrors{node_->unreported_count, node_->unreported_last};
}

Backend::NativeContext Context::native() const noexcept {
  return node_ != nullptr ? node_->native : Backend::NativeContext{};
}

Result<void> Context::release() noexcept {
  drop();
  return {};
}

}  // namespace edgemem
