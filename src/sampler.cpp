// Sampler: creation (checked alike on every backend), ownership of the native sampler.
#include <edgemem/sampled_image.hpp>
#include <edgemem/sampler.hpp>

#include "core/image_node.hpp"
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
  EDGEMEM_TRY_ASSIGN(const NativeSampler native, Backend::sampler_create(cn->native, desc, cn->info));
  Sampler s;
  detail::retain(cn);
  s.reset({native, cn, desc, true});
  detail::live_add(detail::Live::sampler, 1);
  return s;
}

void detail::SamplerKind::free(NativeSampler native, ContextNode* ctx) noexcept {
  Backend::sampler_release(native);
  live_add(Live::sampler, -1);
  unref(ctx);
}

Result<SampledImage> SampledImage::create(Image&& image, const SamplerDesc& desc) noexcept {
  const detail::MemNode* n = detail::node_of(image);
  if (n == nullptr) return fail(Errc::released, "image is released");
  const Context ctx = detail::HandleAccess::context_handle(n->ctx);
  EDGEMEM_TRY_ASSIGN(Sampler sampler, Sampler::create(ctx, desc));
  SampledImage pair;
  pair.image_ = std::move(image);
  pair.sampler_ = std::move(sampler);
  return pair;
}

Result<SampledImage> SampledImage::from_host(const Context& ctx, const ImageDesc& desc, const void* data,
                                             const SamplerDesc& sampler, HostPitch pitch) noexcept {
  if (ctx.valid() && !sampler.valid()) return fail(Errc::invalid_argument, "invalid sampler settings");
  EDGEMEM_TRY_ASSIGN(Image image, Image::from_host(ctx, desc, data, pitch));
  return create(std::move(image), sampler);
}

Result<void> SampledImage::release() noexcept {
  EDGEMEM_TRY(image_.release());
  return sampler_.release();
}

}  // namespace edgemem
