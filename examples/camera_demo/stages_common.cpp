// camera_demo's stages: what every implementation shares (the choice of the image path, the frames it
// makes, the RGB frame read back for the input PNG); init_own() is the implementation's part.
#include "stages.hpp"

using namespace edgemem;

namespace camera_demo {

bool rgba8_images(const Context& ctx, std::size_t width, std::size_t height) noexcept {
  const ImageFormat rgba8{ChannelOrder::rgba, ChannelType::unorm_int8};
  const DeviceInfo& info = ctx.info();
  return info.caps.images && width <= info.image_limits.max_width_2d && height <= info.image_limits.max_height_2d &&
         ctx.supported_formats(ImageType::image2d, FormatAccess::read_write).contains(rgba8);
}

Result<void> Stages::init(const Context& ctx, Queue& q, std::size_t width, std::size_t height,
                          bool allow_images) noexcept {
  if (own_ != nullptr) return fail(Errc::busy, "Stages::init: already made");
  q_ = &q;
  w_ = width;
  h_ = height;
  images_ = allow_images && rgba8_images(ctx, width, height);
  if (images_) {
    const ImageDesc d = ImageDesc::shape(1, height, width, 4, ChannelType::unorm_int8);
    EDGEMEM_TRY_ASSIGN(rgb_img_, Image::create(ctx, d));
    EDGEMEM_TRY_ASSIGN(overlay_img_, Image::create(ctx, d));
    EDGEMEM_TRY_ASSIGN(nearest_, Sampler::create(ctx, false, AddressMode::clamp_to_edge, FilterMode::nearest));
    EDGEMEM_TRY_ASSIGN(linear_, Sampler::create(ctx, false, AddressMode::clamp_to_edge, FilterMode::linear));
  } else {
    EDGEMEM_TRY_ASSIGN(rgb_buf_, Buffer::create(ctx, width * height * 4));
    EDGEMEM_TRY_ASSIGN(overlay_buf_, Buffer::create(ctx, width * height * 4));
  }
  return init_own(ctx);
}

Result<void> Stages::read_rgb(std::uint8_t* rgba) noexcept {
  if (images_) return q_->read_image(rgb_img_, rgb_img_.region(), rgba, w_ * h_ * 4);
  return q_->read(rgb_buf_, 0, rgba, w_ * h_ * 4);
}

}  // namespace camera_demo
