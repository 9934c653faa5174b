/// @file sampled_image.hpp  SampledImage: an image and the sampler kernels read it with, kept and
/// passed together (lluvia's ImageView: createImageView(image, {filter, address, normalized})).
/// Move-only; owns both.
#pragma once
#include <edgemem/image.hpp>
#include <edgemem/native.hpp>
#include <edgemem/result.hpp>
#include <edgemem/sampler.hpp>

namespace edgemem {

/// An image with its sampler.
class SampledImage {
 public:
  /// Takes `image` and makes a sampler of `desc` on its context. On failure `image` is left as it was.
  /// Errc: released (image), invalid_argument (desc: unknown values, or repeat / mirrored_repeat without
  /// normalised coordinates), unsupported (no images), out_of_host_memory, backend_failure.
  [[nodiscard]] static Result<SampledImage> create(Image&& image, const SamplerDesc& desc) noexcept;
  /// lluvia's createImageViewFromHost: Image::from_host, then create(). Errc: as those two.
  [[nodiscard]] static Result<SampledImage> from_host(const Context& ctx, const ImageDesc& desc, const void* data,
                                                      const SamplerDesc& sampler, HostPitch pitch = {}) noexcept;

  /// An empty pair (both released).
  SampledImage() noexcept = default;

  /// The image (released when the pair is).
  [[nodiscard]] Image& image() noexcept { return image_; }
  /// The image, read-only.
  [[nodiscard]] const Image& image() const noexcept { return image_; }
  /// The sampler.
  [[nodiscard]] const Sampler& sampler() const noexcept { return sampler_; }
  /// The sampler's settings.
  [[nodiscard]] SamplerDesc sampler_desc() const noexcept { return sampler_.desc(); }
  /// The two kernel arguments: the native image (cl_mem) ...
  [[nodiscard]] NativeMem native_image() const noexcept { return image_.native(); }
  /// ... and the native sampler (cl_sampler).
  [[nodiscard]] NativeSampler native_sampler() const noexcept { return sampler_.native(); }
  /// True while both are held.
  [[nodiscard]] bool valid() const noexcept { return image_.valid() && sampler_.valid(); }
  /// Drops both. Errc: busy (a mapping made through the image is open; nothing changes).
  [[nodiscard]] Result<void> release() noexcept;

 private:
  Image image_;
  Sampler sampler_;
};

}  // namespace edgemem
