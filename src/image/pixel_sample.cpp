// read_pixel: edgemem's software sampler, reading a PixelView as a kernel's read_image* does (OpenCL
// C 1.2 section 8.2 "Image addressing and filtering"). All arithmetic is in float, as the spec's
// formulas are written, so results match devices that follow them.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include <edgemem/pixel.hpp>

namespace edgemem {
namespace {

/// floor(v) as an integer: NaN gives 0 and values past +-2^62 saturate (no undefined conversion).
std::int64_t floor_index(float v) noexcept {
  if (std::isnan(v)) return 0;
  constexpr float lim = 4611686018427387904.0f;  // 2^62
  if (v >= lim) return static_cast<std::int64_t>(lim);
  if (v <= -lim) return -static_cast<std::int64_t>(lim);
  return static_cast<std::int64_t>(std::floor(v));
}

/// v - floor(v) (the spec's frac); 0 for NaN and infinities.
float frac(float v) noexcept {
  if (!std::isfinite(v)) return 0.0f;
  return v - std::floor(v);
}

/// `v` clamped to [lo, hi].
std::int64_t clamp_i(std::int64_t v, std::int64_t lo, std::int64_t hi) noexcept { return v < lo ? lo : v > hi ? hi : v; }

/// One axis of a sample: the texel indices (i[0] only for nearest), whether each lies inside the
/// image (false: the border color), and the linear weight `a` of i[1].
struct AxisSample {
  std::int64_t i[2] = {0, 0};
  bool inside[2] = {true, true};
  float a = 0.0f;
};

/// s' = |s - 2 rint(s / 2)|: the mirrored coordinate in [0, 1] (spec's mirrored_repeat); 0 for NaN/inf.
float mirror(float s) noexcept {
  if (!std::isfinite(s)) return 0.0f;
  const float sp = 2.0f * std::nearbyint(0.5f * s);
  return std::fabs(s - sp);
}

/// Addresses coordinate `s` on an axis of `n` texels by sampler `d` (section 8.2's formulas).
AxisSample address(float s, std::int64_t n, const SamplerDesc& d, bool linear) noexcept {
  AxisSample r;
  const float fn = static_cast<float>(n);
  switch (d.address) {
    case AddressMode::repeat: {
      const float u = frac(s) * fn;
      if (!linear) {
        r.i[0] = clamp_i(floor_index(u), 0, n);
        if (r.i[0] > n - 1) r.i[0] -= n;
        return r;
      }
      r.i[0] = floor_index(u - 0.5f);
      r.i[1] = r.i[0] + 1;
      if (r.i[0] < 0) r.i[0] += n;
      if (r.i[1] > n - 1) r.i[1] -= n;
      r.i[0] = clamp_i(r.i[0], 0, n - 1);  // defensive only (u is in [0, n])
      r.i[1] = clamp_i(r.i[1], 0, n - 1);
      r.a = frac(u - 0.5f);
      return r;
    }
    case AddressMode::mirrored_repeat: {
      const float u = mirror(s) * fn;
      if (!linear) {
        r.i[0] = clamp_i(floor_index(u), 0, n - 1);
        return r;
      }
      const std::int64_t i0 = floor_index(u - 0.5f);
      r.i[0] = clamp_i(i0, 0, n - 1);
      r.i[1] = clamp_i(i0 + 1, 0, n - 1);
      r.a = frac(u - 0.5f);
      return r;
    }
    default: break;
  }
  // none, clamp_to_edge, clamp: u = s * n (normalised) or s (pixels).
  const float u = d.normalized_coords ? s * fn : s;
  const bool border = d.address == AddressMode::clamp;  // none is sampled as clamp_to_edge
  if (!linear) {
    r.i[0] = floor_index(u);
    if (border) r.inside[0] = r.i[0] >= 0 && r.i[0] < n;
    r.i[0] = clamp_i(r.i[0], 0, n - 1);
    return r;
  }
  const std::int64_t i0 = floor_index(u - 0.5f);
  for (int k = 0; k < 2; ++k) {
    const std::int64_t i = i0 + k;
    if (border) r.inside[k] = i >= 0 && i < n;
    r.i[k] = clamp_i(i, 0, n - 1);
  }
  r.a = frac(u - 0.5f);
  return r;
}

/// The border color of `f` (clamp reads outside the image): (0, 0, 0, 0) for orders with alpha,
/// (0, 0, 0, 1) for r, rg and rgb, of f's color kind.
Color border_color(ImageFormat f) noexcept {
  const bool has_alpha = f.order == ChannelOrder::rgba || f.order == ChannelOrder::bgra ||
                         f.order == ChannelOrder::argb || f.order == ChannelOrder::a;
  const int alpha = has_alpha ? 0 : 1;
  switch (f.kind()) {
    case ColorKind::signed_int: return Color::ints(0, 0, 0, alpha);
    case ColorKind::unsigned_int: return Color::uints(0, 0, 0, static_cast<std::uint32_t>(alpha));
    default: return Color::floats(0.0f, 0.0f, 0.0f, static_cast<float>(alpha));
  }
}

/// True when `v` describes readable pixels: valid format, data, non-zero extents and pitches that
/// hold a row (height > 1) and a slice (depth > 1).
bool view_ok(const PixelView& v) noexcept {
  if (!v.format.valid() || v.data == nullptr || v.width == 0 || v.height == 0 || v.depth == 0) return false;
  const std::size_t row = v.width * v.format.pixel_bytes();
  if (v.height > 1 && v.row_pitch < row) return false;
  const std::size_t slice = v.height > 1 ? v.height * v.row_pitch : row;
  return v.depth == 1 || v.slice_pitch >= slice;
}

/// The layer an array's layer coordinate `v` picks among `n`: clamp(rint(v), 0, n - 1); NaN is layer 0.
std::int64_t layer_index(float v, std::int64_t n) noexcept {
  if (std::isnan(v)) return 0;
  return clamp_i(floor_index(std::nearbyint(v)), 0, n - 1);
}

}  // namespace

// Samples `view` at (x, y, z) with sampler settings `s` (see pixel.hpp).
Color read_pixel(const PixelView& view, const SamplerDesc& s, float x, float y, float z) noexcept {
  if (!s.valid() || !view_ok(view)) return Color{};
  const float coord[3] = {x, y, z};
  const std::int64_t extent[3] = {static_cast<std::int64_t>(view.width), static_cast<std::int64_t>(view.height),
                                  static_cast<std::int64_t>(view.depth)};
  // An array's layer axis is no spatial axis: one layer is picked, the axes before it are sampled.
  const unsigned layer_axis = view.layer_axis == 2 || view.layer_axis == 3 ? view.layer_axis - 1u : 3u;
  const unsigned dims = layer_axis < 3 ? layer_axis : view.depth > 1 ? 3 : view.height > 1 ? 2 : 1;
  const std::int64_t layer = layer_axis < 3 ? layer_index(coord[layer_axis], extent[layer_axis]) : 0;
  const bool linear = s.filter == FilterMode::linear && view.format.kind() == ColorKind::floating;
  AxisSample ax[3];
  for (unsigned d = 0; d < dims; ++d) ax[d] = address(coord[d], extent[d], s, linear);
  const Color border = border_color(view.format);

  // The texel of corner `bits` (bit d: index i[1] on axis d), or the border color.
  auto texel = [&](unsigned bits) noexcept {
    std::size_t idx[3] = {0, 0, 0};
    if (layer_axis < 3) idx[layer_axis] = static_cast<std::size_t>(layer);
    for (unsigned d = 0; d < dims; ++d) {
      const unsigned k = (bits >> d) & 1u;
      if (!ax[d].inside[k]) return border;
      idx[d] = static_cast<std::size_t>(ax[d].i[k]);
    }
    return decode_pixel(view.format, view.at(idx[0], idx[1], idx[2]));
  };
  if (!linear) return texel(0);

  // Linear: sum of the 2^dims corners, x fastest (the spec's term order), weights (1-a) or a per axis.
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (unsigned bits = 0; bits < (1u << dims); ++bits) {
    float w = 1.0f;
    for (unsigned d = 0; d < dims; ++d) w *= ((bits >> d) & 1u) ? ax[d].a : 1.0f - ax[d].a;
    const Color t = texel(bits);
    for (unsigned k = 0; k < 4; ++k) sum[k] += w * t.f[k];
  }
  return Color::floats(sum[0], sum[1], sum[2], sum[3]);
}

}  // namespace edgemem
