/// @file image_mapping.hpp  ImageMapping: a guard over a mapped region of an image (Queue::map_image),
/// with the pitches the map really has, typed row access and a PixelView for the software sampler.
/// The mapping rules of mapping.hpp apply (the region's bytes: its span in the image's storage).
#pragma once
#include <cstddef>

#include <edgemem/image.hpp>
#include <edgemem/mapping.hpp>
#include <edgemem/pixel.hpp>

namespace edgemem {

/// A mapped image region. Move-only; unmaps in its destructor (see MappingBase).
class ImageMapping : public MappingBase {
 public:
  /// An empty (unmapped) guard.
  ImageMapping() noexcept = default;

  /// The region's first pixel (null when unmapped).
  [[nodiscard]] void* data() const noexcept { return raw(); }
  /// Bytes between mapped rows.
  [[nodiscard]] std::size_t row_pitch() const noexcept { return row_pitch_; }
  /// Bytes between mapped slices or layers (0 for 1D and 2D images).
  [[nodiscard]] std::size_t slice_pitch() const noexcept { return slice_pitch_; }
  /// The mapped region's extent in pixels.
  [[nodiscard]] ImageExtent extent() const noexcept { return extent_; }
  /// The image's pixel format.
  [[nodiscard]] ImageFormat format() const noexcept { return format_; }
  /// Row `y` of slice (or 2D-array layer) `z` as T* (a 1D array: y is the layer). T should be the
  /// pixel's storage type (e.g. std::uint8_t[4] for RGBA unorm_int8, float for R float32). Null when
  /// unmapped; y and z are not checked.
  template <class T>
  [[nodiscard]] T* row(std::size_t y, std::size_t z = 0) const noexcept {
    if (!mapped()) return nullptr;
    const std::size_t y_pitch = layers_in_y_ ? slice_pitch_ : row_pitch_;
    return reinterpret_cast<T*>(static_cast<unsigned char*>(raw()) + y * y_pitch + z * slice_pitch_);
  }
  /// The mapped pixels as a PixelView (for read_pixel); a 1D array's layers appear as rows, a 2D
  /// array's as slices, marked as layers (PixelView::layer_axis) so read_pixel samples one of them.
  [[nodiscard]] PixelView pixels() const noexcept {
    PixelView v;
    v.data = data();
    v.format = format_;
    v.width = extent_.x;
    v.height = extent_.y;
    v.depth = extent_.z;
    v.row_pitch = layers_in_y_ ? slice_pitch_ : row_pitch_;
    v.slice_pitch = slice_pitch_;
    v.layer_axis = layer_axis_;
    return v;
  }

 private:
  friend class Queue;
  ImageMapping(MappingBase&& raw, std::size_t row_pitch, std::size_t slice_pitch, ImageExtent extent,
               ImageFormat format, bool layers_in_y, std::uint8_t layer_axis) noexcept
      : MappingBase(std::move(raw)), row_pitch_(row_pitch), slice_pitch_(slice_pitch), extent_(extent),
        format_(format), layers_in_y_(layers_in_y), layer_axis_(layer_axis) {}
  std::size_t row_pitch_ = 0;
  std::size_t slice_pitch_ = 0;
  ImageExtent extent_{0, 0, 0};
  ImageFormat format_{};
  bool layers_in_y_ = false;
  std::uint8_t layer_axis_ = 0;  // PixelView::layer_axis of pixels()
};

}  // namespace edgemem
