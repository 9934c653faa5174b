// encode_pixel / decode_pixel: one pixel to and from a Color by OpenCL C 1.2's conversion rules
// (section 8.3): normalised integers clamp and round to nearest even, snorm decodes as max(-1, v/127)
// (v/32767), half floats round to nearest even, integer types saturate, rgb is one packed value.
// One deliberate difference: a snorm channel clamps to [-1, 1] before it is scaled, so it never stores
// the lowest code (-128, -32768), which OpenCL C's convert_char_sat_rte(f * 127) gives for f < -1:
// Vulkan, D3D and NVIDIA's OpenCL fills clamp (no float colour makes them store it), and both codes
// read back as -1, so the same bits on every driver and backend cost no information.
#include <cmath>
#include <cstdint>
#include <cstring>

#include <edgemem/pixel.hpp>

#include "image/exact_fill.hpp"

#include "half.hpp"

namespace edgemem {
namespace {

/// Clamps `v` to [lo, hi] and rounds it to the nearest integer, ties to even (convert_*_sat_rte);
/// NaN gives 0.
float sat_rte(float v, float lo, float hi) noexcept {
  if (std::isnan(v)) return 0.0f;
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return std::nearbyint(v);  // the default rounding mode: to nearest, ties to even
}

/// `f` (a [0, 1] float) as an unsigned normalised integer of `max` steps: convert_sat_rte(f * max).
std::uint32_t unorm_of(float f, float max) noexcept { return static_cast<std::uint32_t>(sat_rte(f * max, 0.0f, max)); }

/// `f` (a [-1, 1] float) as a signed normalised integer: convert_sat_rte(clamp(f, -1, 1) * max), in
/// [-max, max] (never the lowest code: see the top of this file).
std::int32_t snorm_of(float f, float max) noexcept { return static_cast<std::int32_t>(sat_rte(f * max, -max, max)); }

/// Clamps a signed integer to [lo, hi] (convert_*_sat from int).
std::int32_t sat_i(std::int32_t v, std::int32_t lo, std::int32_t hi) noexcept { return v < lo ? lo : v > hi ? hi : v; }

/// Clamps an unsigned integer to [0, hi] (convert_*_sat from uint).
std::uint32_t sat_u(std::uint32_t v, std::uint32_t hi) noexcept { return v > hi ? hi : v; }

/// Stores `v` at byte offset `at` of `out` (native byte order).
template <class T>
void put(void* out, std::size_t at, T v) noexcept {
  std::memcpy(static_cast<unsigned char*>(out) + at, &v, sizeof v);
}

/// Loads a T from byte offset `at` of `in` (native byte order).
template <class T>
T get(const void* in, std::size_t at) noexcept {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(in) + at, sizeof v);
  return v;
}

/// For each stored channel of order `o` (in storage order), the RGBA component it holds (0..3).
/// rgb is packed and handled apart.
const unsigned char* storage_components(ChannelOrder o) noexcept {
  static constexpr unsigned char r[] = {0}, rg[] = {0, 1}, rgba[] = {0, 1, 2, 3}, bgra[] = {2, 1, 0, 3},
                                 argb[] = {3, 0, 1, 2}, a[] = {3}, rgb[] = {0, 1, 2};
  switch (o) {
    case ChannelOrder::r: return r;
    case ChannelOrder::rg: return rg;
    case ChannelOrder::bgra: return bgra;
    case ChannelOrder::argb: return argb;
    case ChannelOrder::a: return a;
    case ChannelOrder::rgb: return rgb;
    default: return rgba;
  }
}

/// Encodes component `k` of `c` as one channel of non-packed type `t` at `out`.
void encode_channel(ChannelType t, const Color& c, unsigned k, void* out) noexcept {
  switch (t) {
    case ChannelType::snorm_int8: put(out, 0, static_cast<std::int8_t>(snorm_of(c.f[k], 127.0f))); break;
    case ChannelType::snorm_int16: put(out, 0, static_cast<std::int16_t>(snorm_of(c.f[k], 32767.0f))); break;
    case ChannelType::unorm_int8: put(out, 0, static_cast<std::uint8_t>(unorm_of(c.f[k], 255.0f))); break;
    case ChannelType::unorm_int16: put(out, 0, static_cast<std::uint16_t>(unorm_of(c.f[k], 65535.0f))); break;
    case ChannelType::signed_int8: put(out, 0, static_cast<std::int8_t>(sat_i(c.i[k], -128, 127))); break;
    case ChannelType::signed_int16: put(out, 0, static_cast<std::int16_t>(sat_i(c.i[k], -32768, 32767))); break;
    case ChannelType::signed_int32: put(out, 0, c.i[k]); break;
    case ChannelType::unsigned_int8: put(out, 0, static_cast<std::uint8_t>(sat_u(c.u[k], 255u))); break;
    case ChannelType::unsigned_int16: put(out, 0, static_cast<std::uint16_t>(sat_u(c.u[k], 65535u))); break;
    case ChannelType::unsigned_int32: put(out, 0, c.u[k]); break;
    case ChannelType::half_float: put(out, 0, detail::float_to_half(c.f[k])); break;
    case ChannelType::float32: put(out, 0, c.f[k]); break;
    default: break;  // packed types: not per channel
  }
}

/// Decodes one channel of non-packed type `t` at `in` into component `k` of `c` (c.kind already set).
void decode_channel(ChannelType t, const void* in, unsigned k, Color& c) noexcept {
  switch (t) {
    case ChannelType::snorm_int8: {
      const float v = static_cast<float>(get<std::int8_t>(in, 0)) / 127.0f;
      c.f[k] = v < -1.0f ? -1.0f : v;
      break;
    }
    case ChannelType::snorm_int16: {
      const float v = static_cast<float>(get<std::int16_t>(in, 0)) / 32767.0f;
      c.f[k] = v < -1.0f ? -1.0f : v;
      break;
    }
    case ChannelType::unorm_int8: c.f[k] = static_cast<float>(get<std::uint8_t>(in, 0)) / 255.0f; break;
    case ChannelType::unorm_int16: c.f[k] = static_cast<float>(get<std::uint16_t>(in, 0)) / 65535.0f; break;
    case ChannelType::signed_int8: c.i[k] = get<std::int8_t>(in, 0); break;
    case ChannelType::signed_int16: c.i[k] = get<std::int16_t>(in, 0); break;
    case ChannelType::signed_int32: c.i[k] = get<std::int32_t>(in, 0); break;
    case ChannelType::unsigned_int8: c.u[k] = get<std::uint8_t>(in, 0); break;
    case ChannelType::unsigned_int16: c.u[k] = get<std::uint16_t>(in, 0); break;
    case ChannelType::unsigned_int32: c.u[k] = get<std::uint32_t>(in, 0); break;
    case ChannelType::half_float: c.f[k] = detail::half_to_float(get<std::uint16_t>(in, 0)); break;
    case ChannelType::float32: c.f[k] = get<float>(in, 0); break;
    default: break;
  }
}

/// Bit layout of a packed type: field widths and shifts of r, g, b.
struct Packing {
  unsigned bits[3];
  unsigned shift[3];
};

/// The layout of packed type `t` (565: r 15..11, g 10..5, b 4..0; 555: x, r 14..10, g 9..5, b 4..0;
/// 101010: xx, r 29..20, g 19..10, b 9..0).
Packing packing_of(ChannelType t) noexcept {
  switch (t) {
    case ChannelType::unorm_short_565: return {{5, 6, 5}, {11, 5, 0}};
    case ChannelType::unorm_short_555: return {{5, 5, 5}, {10, 5, 0}};
    default: return {{10, 10, 10}, {20, 10, 0}};
  }
}

}  // namespace

// Encodes `color` as one pixel of `f` (see pixel.hpp).
bool encode_pixel(ImageFormat f, const Color& color, void* out) noexcept {
  if (!f.valid() || color.kind != f.kind() || out == nullptr) return false;
  if (is_packed(f.type)) {
    const Packing p = packing_of(f.type);
    std::uint32_t v = 0;
    for (unsigned k = 0; k < 3; ++k)
      v |= unorm_of(color.f[k], static_cast<float>((1u << p.bits[k]) - 1u)) << p.shift[k];
    if (f.type == ChannelType::unorm_int_101010) put(out, 0, v);
    else put(out, 0, static_cast<std::uint16_t>(v));
    return true;
  }
  const unsigned char* comp = storage_components(f.order);
  const std::size_t step = channel_bytes(f.type);
  for (unsigned ch = 0; ch < channel_count(f.order); ++ch)
    encode_channel(f.type, color, comp[ch], static_cast<unsigned char*>(out) + ch * step);
  return true;
}

// Decodes one pixel of `f` at `in` (see pixel.hpp).
Color decode_pixel(ImageFormat f, const void* in) noexcept {
  if (!f.valid() || in == nullptr) return Color{};
  Color c;
  switch (f.kind()) {  // missing components: 0, alpha 1
    case ColorKind::signed_int: c = Color::ints(0, 0, 0, 1); break;
    case ColorKind::unsigned_int: c = Color::uints(0, 0, 0, 1); break;
    default: c = Color::floats(0.0f, 0.0f, 0.0f, 1.0f); break;
  }
  if (is_packed(f.type)) {
    const Packing p = packing_of(f.type);
    const std::uint32_t v =
        f.type == ChannelType::unorm_int_101010 ? get<std::uint32_t>(in, 0) : get<std::uint16_t>(in, 0);
    for (unsigned k = 0; k < 3; ++k) {
      const std::uint32_t max = (1u << p.bits[k]) - 1u;
      c.f[k] = static_cast<float>((v >> p.shift[k]) & max) / static_cast<float>(max);
    }
    return c;
  }
  const unsigned char* comp = storage_components(f.order);
  const std::size_t step = channel_bytes(f.type);
  for (unsigned ch = 0; ch < channel_count(f.order); ++ch)
    decode_channel(f.type, static_cast<const unsigned char*>(in) + ch * step, comp[ch], c);
  return c;
}

namespace detail {

Color exact_fill_color(ImageFormat f, const Color& color) noexcept {
  unsigned char bits[16];
  if (!encode_pixel(f, color, bits)) return color;
  Color c = decode_pixel(f, bits);  // integer, half and float channels: exactly their stored values
  if (f.kind() != ColorKind::floating || f.type == ChannelType::half_float || f.type == ChannelType::float32) return c;
  for (unsigned k = 0; k < 4; ++k) {
    float max = 0.0f;
    switch (f.type) {
      case ChannelType::unorm_int8: max = 255.0f; break;
      case ChannelType::unorm_int16: max = 65535.0f; break;
      case ChannelType::snorm_int8: max = 127.0f; break;
      case ChannelType::snorm_int16: max = 32767.0f; break;
      default: {  // packed: r, g, b of their own widths (alpha, absent, stays 1)
        if (k == 3) continue;
        max = static_cast<float>((1u << packing_of(f.type).bits[k]) - 1u);
        break;
      }
    }
    const float code = std::nearbyint(c.f[k] * max);  // the stored integer, exact in float
    if (code == 0.0f || std::fabs(code) >= max) {
      c.f[k] = code / max;  // 0, +1 or -1: exact
      continue;
    }
    c.f[k] = (code + (code > 0.0f ? 0.25f : -0.25f)) / max;
  }
  return c;
}

}  // namespace detail

}  // namespace edgemem
