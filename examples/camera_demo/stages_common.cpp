// camera_demo's stages: what both backends' stages share (the choice of the image path, the RGB frame
// read back for the input PNG).
#include "stages.hpp"

using namespace edgemem;

namespace camera_demo {

bool rgba8_images(const Context& ctx, std::size_t width, std::size_t height) noexcept {
  const ImageFormat rgba8{ChannelOrder::rgba, ChannelType::unorm_int8};
  const DeviceInfo& info = ctx.info();
  return info.caps.images && width <= info.image_limits.max_width_2d && height <= info.image_limits.max_height_2d &&
         ctx.supported_formats(ImageType::image2d, FormatAccess::read_write).contains(rgba8);
}

Result<void> Stages::read_rgb(std::uint8_t* rgba) noexcept {
  if (images_) return q_->read_image(rgb_img_, rgb_img_.region(), rgba, w_ * h_ * 4);
  return q_->read(rgb_buf_, 0, rgba, w_ * h_ * 4);
}

}  // namespace camera_demo
