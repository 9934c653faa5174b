// camera_demo's stages: what both backends' stages share (the RGB frame read back for the input PNG).
#include "stages.hpp"

using namespace edgemem;

namespace camera_demo {

Result<void> Stages::read_rgb(std::uint8_t* rgba) noexcept {
  if (images_) return q_->read_image(rgb_img_, rgb_img_.region(), rgba, w_ * h_ * 4);
  return q_->read(rgb_buf_, 0, rgba, w_ * h_ * 4);
}

}  // namespace camera_demo
