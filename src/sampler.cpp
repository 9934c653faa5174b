// Sampler: creation (checked alike on every backend), ownership of the native sampler.
#include <edgemem/sampler.hpp>

#include "core/live.hpp"
#include "core/nodes.hpp"

namespace edgemem {

using detail::Backend;

Result<Sampler> Sampler::create(const Context& ctx, const SamplerDesc& desc) noexcept {
  detail::ContextNode* cn = detail::node_of(ctx);
  if (cn == nullptr) return fail(Errc::released, "context is released");
  if (static_cast<unsigned>(desc.address) > static_cast<unsigned>(AddressMode::mirrored_repeat) ||
      static_cast<unsigned>(desc.filter) > static_cast<unsigned>(FilterMode::linear))
    return fail(Errc::invalid_argument, "unknown AddressMode or FilterMode");
  if (!desc.valid())
    return fail(Errc::invalid_argument, "repeat and mirrored_repeat need normalised coordinates (undefined in OpenCL)");
  if (!cn->info.caps.images) return fail(Errc::unsupported, "the device has no images (DeviceInfo::caps)");
  const unsigned version = cn->info.version_major * 10 + (cn->info.version_minor < 10 ? cn->info.version_minor : 9);
  EDGEMEM_TRY_ASSIGN(const NativeSampler native, Backend::sampler_create(cn->native, desc, version));
  Sampler s;
  detail::retain(cn);
  s.ctx_ = cn;
  s.native_ = native;
  s.desc_ = desc;
  detail::live_add(detail::Live::sampler, 1);
  return s;
}

Sampler::Sampler(Sampler&& other) noexcept : native_(other.native_), desc_(other.desc_), ctx_(other.ctx_) {
  other.ctx_ = nullptr;
  other.native_ = NativeSampler{};
}

Sampler& Sampler::operator=(Sampler&& other) noexcept {
  if (this != &other) {
    (void)release();
    native_ = other.native_;
    desc_ = other.desc_;
    ctx_ = other.ctx_;
    other.ctx_ = nullptr;
    other.native_ = NativeSampler{};
  }
  return *this;
}

Sampler::~Sampler() { (void)release(); }

Result<void> Sampler::release() noexcept {
  if (ctx_ == nullptr) return {};
  Backend::sampler_release(native_);
  detail::live_add(detail::Live::sampler, -1);
  native_ = NativeSampler{};
  desc_ = SamplerDesc{};
  detail::ContextNode* ctx = ctx_;
  ctx_ = nullptr;
  detail::unref(ctx);
  return {};
}

}  // namespace edgemem
