// The fill colour handed to a driver's image fill (clEnqueueFillImage), chosen so that the driver's own
// float-to-pixel conversion can only produce encode_pixel's bits (issue #30, item 1).
#pragma once
#include <edgemem/pixel.hpp>

namespace edgemem::detail {

/// `color` as encode_pixel stores it in format `f`, read back as a colour that any conversion by the
/// driver (round to nearest even, or truncation as PoCL 3.1 does) turns into those same bits: each
/// normalised channel k (0 < |k| < max) becomes (k +- 1/4) / max, 0 and the extremes exactly 0 and
/// +-1 (encode_pixel never stores a snorm channel's lowest code, which some drivers cannot fill); half
/// and float channels their exact stored value; integer channels their saturated value.
/// `color` as given when it does not fit `f` (encode_pixel refuses it; the caller checked the kind).
Color exact_fill_color(ImageFormat f, const Color& color) noexcept;

}  // namespace edgemem::detail
