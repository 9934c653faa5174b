/// @file pixel.hpp  Pixels on the host: colors, encoding and decoding by OpenCL's conversion rules, and a
/// software sampler that reads a mapped image as read_imagef / read_imagei / read_imageui do (OpenCL C
/// 1.2, section 8 "Image addressing and filtering"). For host-fallback processing of frames, and
/// what the host backend's fill_image uses.
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/image_format.hpp>
#include <edgemem/sampler.hpp>

namespace edgemem {

/// A color of four components in RGBA order, of one ColorKind: four floats for normalised and float
/// formats, four int32 for signed_int*, four uint32 for unsigned_int* (OpenCL's fill color and the
/// values read_image* return).
struct Color {
  ColorKind kind = ColorKind::floating;  ///< which member of the union holds the value
  union {
    float f[4];          ///< ColorKind::floating
    std::int32_t i[4];   ///< ColorKind::signed_int
    std::uint32_t u[4];  ///< ColorKind::unsigned_int
  };
  constexpr Color() noexcept : f{0, 0, 0, 0} {}  ///< floating (0, 0, 0, 0)
  /// Four floats (normalised and float formats).
  static constexpr Color floats(float r, float g, float b, float a) noexcept {
    Color c;
    c.kind = ColorKind::floating;
    c.f[0] = r, c.f[1] = g, c.f[2] = b, c.f[3] = a;
    return c;
  }
  /// Four signed integers (signed_int* formats).
  static constexpr Color ints(std::int32_t r, std::int32_t g, std::int32_t b, std::int32_t a) noexcept {
    Color c;
    c.kind = ColorKind::signed_int;
    c.i[0] = r, c.i[1] = g, c.i[2] = b, c.i[3] = a;
    return c;
  }
  /// Four unsigned integers (unsigned_int* formats).
  static constexpr Color uints(std::uint32_t r, std::uint32_t g, std::uint32_t b, std::uint32_t a) noexcept {
    Color c;
    c.kind = ColorKind::unsigned_int;
    c.u[0] = r, c.u[1] = g, c.u[2] = b, c.u[3] = a;
    return c;
  }
};

/// Encodes `color` as one pixel of format `f` into `out` (f.pixel_bytes() bytes) by OpenCL's
/// write_image* rules: normalised types clamp to their range ([0, 1], snorm [-1, 1], so never the lowest
/// snorm code -128 / -32768, which no Vulkan or NVIDIA fill stores) and round to nearest even, half floats
/// round to nearest even, integer types saturate; only the channels of f.order are stored, in its order.
/// False (nothing written) when f is not valid() or color.kind != f.kind().
bool encode_pixel(ImageFormat f, const Color& color, void* out) noexcept;

/// Decodes one pixel of format `f` at `in` as read_image* return it: normalised types to floats in
/// [0, 1] / [-1, 1], channels the order lacks as 0 (alpha as 1; ChannelOrder::a gives (0, 0, 0, a)).
/// A default (floating zero) Color when f is not valid().
Color decode_pixel(ImageFormat f, const void* in) noexcept;

/// Read-only view of pixels in host memory: an image's mapping (ImageMapping::pixels()) or any
/// pitched array. Extents in pixels; pitches in bytes.
struct PixelView {
  const void* data = nullptr;    ///< pixel (0, 0, 0)
  ImageFormat format{};          ///< pixel format
  std::size_t width = 0;         ///< pixels per row
  std::size_t height = 1;        ///< rows (1 for 1D)
  std::size_t depth = 1;         ///< slices (1 for 1D and 2D)
  std::size_t row_pitch = 0;     ///< bytes between rows (>= width * pixel_bytes)
  std::size_t slice_pitch = 0;   ///< bytes between slices (>= height * row_pitch; unused when depth == 1)
  /// Which axis holds an image array's layers: 0 none, 2 the rows (y: a 1D array's layers), 3 the
  /// slices (z: a 2D array's layers). read_pixel never filters or addresses that axis: its coordinate
  /// is a layer index, rounded with rint and clamped to the layers (OpenCL's rule), normalised or not.
  std::uint8_t layer_axis = 0;

  /// The pixel at integer coordinates (x < width, y < height, z < depth: not checked).
  [[nodiscard]] const void* at(std::size_t x, std::size_t y = 0, std::size_t z = 0) const noexcept {
    return static_cast<const unsigned char*>(data) + z * slice_pitch + y * row_pitch + x * format.pixel_bytes();
  }
};

/// Samples `view` at (x, y, z) as a kernel's read_image* does with a sampler of `s`: coordinates in
/// pixels, or in [0, 1) when s.normalized_coords; the dimensions used are those of the view (height 1:
/// 1D, y ignored; depth 1: 2D, z ignored; an array's layer axis (PixelView::layer_axis) picks one layer,
/// clamp(rint(coordinate), 0, layers - 1)). Addressing and filtering follow OpenCL C 1.2 section 8.2;
/// the result has the format's color kind (linear filtering of an integer format is undefined in
/// OpenCL: edgemem samples it as nearest). Coordinates outside the image with AddressMode::none are
/// undefined in OpenCL: edgemem clamps them to the edge. NaN coordinates read as 0. An invalid `s` or
/// view gives a floating zero (a view is invalid when its format is not valid(), data is null, an extent
/// is 0, row_pitch < width * pixel_bytes with height > 1, or slice_pitch is less than a slice with
/// depth > 1).
Color read_pixel(const PixelView& view, const SamplerDesc& s, float x, float y = 0.0f, float z = 0.0f) noexcept;

}  // namespace edgemem
