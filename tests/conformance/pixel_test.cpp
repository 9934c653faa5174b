// Pixels on the host (pixel.hpp): encode_pixel / decode_pixel by OpenCL C 1.2's conversion rules
// (normalised rounding and clamping, snorm's -1 floor, half floats with round to nearest even,
// integer saturation, channel orders, packed rgb) and read_pixel's addressing and filtering (section
// 8.2) on small hand-computed images. Pure host code: runs the same on every backend.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <edgemem/pixel.hpp>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

using Px = std::array<std::uint8_t, 20>;  // the largest pixel (16 bytes) and a guard

constexpr ImageFormat fmt(ChannelOrder o, ChannelType t) { return ImageFormat{o, t}; }

/// `c` encoded as `f` (bytes past pixel_bytes stay 0xCD); REQUIREs success.
Px enc(ImageFormat f, const Color& c) {
  Px p;
  p.fill(0xCD);
  REQUIRE(encode_pixel(f, c, p.data()));
  return p;
}

/// One channel of 8-bit float-kind formats as its stored byte.
std::uint8_t enc8(ChannelType t, float v) { return enc(fmt(ChannelOrder::r, t), Color::floats(v, 0, 0, 0))[0]; }

/// A 16-bit channel's stored value.
std::uint16_t enc16(ChannelType t, float v) {
  const Px p = enc(fmt(ChannelOrder::r, t), Color::floats(v, 0, 0, 0));
  std::uint16_t u;
  std::memcpy(&u, p.data(), 2);
  return u;
}

/// The half bits of `v`.
std::uint16_t to_half(float v) { return enc16(ChannelType::half_float, v); }

/// The float of half bits `h`.
float from_half(std::uint16_t h) { return decode_pixel(fmt(ChannelOrder::r, ChannelType::half_float), &h).f[0]; }

/// Decodes a value of type T stored as the single channel of `f`.
template <class T>
Color dec1(ImageFormat f, T v) {
  return decode_pixel(f, &v);
}

/// Same kind and components, NaN equal to NaN (floats compared bitwise-equal or both NaN).
bool same_color(const Color& a, const Color& b) {
  if (a.kind != b.kind) return false;
  for (int k = 0; k < 4; ++k) {
    if (a.kind == ColorKind::floating) {
      if (std::isnan(a.f[k]) && std::isnan(b.f[k])) continue;
      if (a.f[k] != b.f[k]) return false;
    } else if (a.u[k] != b.u[k]) {
      return false;
    }
  }
  return true;
}

/// Every valid format.
std::vector<ImageFormat> all_formats() {
  std::vector<ImageFormat> out;
  for (unsigned o = 0; o < channel_order_count; ++o)
    for (unsigned t = 0; t < channel_type_count; ++t) {
      const ImageFormat f{static_cast<ChannelOrder>(o), static_cast<ChannelType>(t)};
      if (f.valid()) out.push_back(f);
    }
  return out;
}

/// Checks the float components of `c` against (r, g, b, a) within `eps`.
void check_floats(const Color& c, float r, float g, float b, float a, float eps = 1e-6f) {
  REQUIRE(c.kind == ColorKind::floating);
  CHECK(c.f[0] == doctest::Approx(r).epsilon(eps));
  CHECK(c.f[1] == doctest::Approx(g).epsilon(eps));
  CHECK(c.f[2] == doctest::Approx(b).epsilon(eps));
  CHECK(c.f[3] == doctest::Approx(a).epsilon(eps));
}

}  // namespace

TEST_CASE("pixel: unorm_int8 rounds to nearest even and clamps") {
  const auto t = ChannelType::unorm_int8;
  CHECK(enc8(t, 0.0f) == 0);
  CHECK(enc8(t, 1.0f) == 255);
  CHECK(enc8(t, -0.5f) == 0);
  CHECK(enc8(t, -1e30f) == 0);
  CHECK(enc8(t, 2.0f) == 255);
  CHECK(enc8(t, std::numeric_limits<float>::infinity()) == 255);
  CHECK(enc8(t, std::numeric_limits<float>::quiet_NaN()) == 0);
  CHECK(enc8(t, 0.49f / 255.0f) == 0);
  CHECK(enc8(t, 0.51f / 255.0f) == 1);
  CHECK(enc8(t, 127.4f / 255.0f) == 127);
  CHECK(enc8(t, 127.6f / 255.0f) == 128);
  CHECK(enc8(t, 0.5f) == 128);     // 127.5 exactly: ties to even
  CHECK(enc8(t, 0.25f) == 64);     // 63.75
  CHECK(enc8(t, 0.75f) == 191);    // 191.25
  // Wherever (k + 0.5) / 255 * 255 lands on the half exactly in float, the even neighbour wins.
  int ties = 0;
  for (int k = 0; k < 255; ++k) {
    const float f = (static_cast<float>(k) + 0.5f) / 255.0f;
    const float p = f * 255.0f;
    if (p != static_cast<float>(k) + 0.5f) continue;
    ++ties;
    CAPTURE(k);
    CHECK(enc8(t, f) == (k % 2 == 0 ? k : k + 1));
  }
  CHECK(ties > 10);
  // Decoding is v / 255 and every byte survives a round trip.
  for (int v = 0; v < 256; ++v) {
    const auto b = static_cast<std::uint8_t>(v);
    const Color c = dec1(fmt(ChannelOrder::r, t), b);
    CHECK(c.f[0] == static_cast<float>(v) / 255.0f);
    CHECK(enc8(t, c.f[0]) == v);
  }
}

TEST_CASE("pixel: snorm_int8 and snorm_int16 map -1 to -127 / -32767 and decode the minimum as -1") {
  const auto t = ChannelType::snorm_int8;
  CHECK(static_cast<std::int8_t>(enc8(t, -1.0f)) == -127);
  CHECK(static_cast<std::int8_t>(enc8(t, 1.0f)) == 127);
  CHECK(static_cast<std::int8_t>(enc8(t, 0.0f)) == 0);
  CHECK(static_cast<std::int8_t>(enc8(t, 0.5f)) == 64);   // 63.5: ties to even
  CHECK(static_cast<std::int8_t>(enc8(t, -0.5f)) == -64);
  CHECK(static_cast<std::int8_t>(enc8(t, 5.0f)) == 127);
  // Clamped to -1 first (not OpenCL C's convert_char_sat_rte(f * 127), which gives -128): NVIDIA's
  // OpenCL and Vulkan fills cannot store the lowest code, and it reads back as -1 all the same.
  CHECK(static_cast<std::int8_t>(enc8(t, -5.0f)) == -127);
  CHECK(static_cast<std::int8_t>(enc8(t, -std::numeric_limits<float>::infinity())) == -127);
  CHECK(static_cast<std::int16_t>(enc16(ChannelType::snorm_int16, -70000.0f)) == -32767);
  CHECK(static_cast<std::int8_t>(enc8(t, std::numeric_limits<float>::quiet_NaN())) == 0);
  const ImageFormat r8{ChannelOrder::r, t};
  CHECK(dec1(r8, std::int8_t{-128}).f[0] == -1.0f);
  CHECK(dec1(r8, std::int8_t{-127}).f[0] == -1.0f);
  CHECK(dec1(r8, std::int8_t{127}).f[0] == 1.0f);
  CHECK(dec1(r8, std::int8_t{64}).f[0] == 64.0f / 127.0f);
  for (int v = -127; v <= 127; ++v) {
    const Color c = dec1(r8, static_cast<std::int8_t>(v));
    CHECK(static_cast<std::int8_t>(enc8(t, c.f[0])) == v);
  }
  const ImageFormat r16{ChannelOrder::r, ChannelType::snorm_int16};
  CHECK(static_cast<std::int16_t>(enc16(ChannelType::snorm_int16, -1.0f)) == -32767);
  CHECK(static_cast<std::int16_t>(enc16(ChannelType::snorm_int16, 1.0f)) == 32767);
  CHECK(dec1(r16, std::int16_t{-32768}).f[0] == -1.0f);
  CHECK(dec1(r16, std::int16_t{-32767}).f[0] == -1.0f);
  CHECK(dec1(r16, std::int16_t{100}).f[0] == 100.0f / 32767.0f);
}

TEST_CASE("pixel: unorm_int16 rounding, clamping and decoding") {
  const auto t = ChannelType::unorm_int16;
  CHECK(enc16(t, 0.0f) == 0);
  CHECK(enc16(t, 1.0f) == 65535);
  CHECK(enc16(t, 0.5f) == 32768);  // 32767.5: ties to even
  CHECK(enc16(t, 1.5f) == 65535);
  CHECK(enc16(t, -0.1f) == 0);
  CHECK(enc16(t, std::numeric_limits<float>::quiet_NaN()) == 0);
  CHECK(enc16(t, 1000.4f / 65535.0f) == 1000);
  CHECK(enc16(t, 1000.6f / 65535.0f) == 1001);
  const ImageFormat r16{ChannelOrder::r, t};
  for (int v = 0; v < 65536; v += 7) {
    const Color c = dec1(r16, static_cast<std::uint16_t>(v));
    REQUIRE(c.f[0] == static_cast<float>(v) / 65535.0f);
    REQUIRE(enc16(t, c.f[0]) == v);
  }
}

TEST_CASE("pixel: half_float encodes with round to nearest even, denormals, inf and NaN") {
  CHECK(to_half(1.0f) == 0x3C00);
  CHECK(to_half(-2.0f) == 0xC000);
  CHECK(to_half(0.0f) == 0x0000);
  CHECK(to_half(-0.0f) == 0x8000);
  CHECK(to_half(0.1f) == 0x2E66);
  CHECK(to_half(65504.0f) == 0x7BFF);
  CHECK(to_half(65519.0f) == 0x7BFF);  // below the halfway point to 65536
  CHECK(to_half(65520.0f) == 0x7C00);  // halfway: ties to even, which is infinity
  CHECK(to_half(1e6f) == 0x7C00);
  CHECK(to_half(-1e6f) == 0xFC00);
  CHECK(to_half(std::numeric_limits<float>::infinity()) == 0x7C00);
  CHECK(to_half(-std::numeric_limits<float>::infinity()) == 0xFC00);
  const std::uint16_t nan = to_half(std::numeric_limits<float>::quiet_NaN());
  CHECK((nan & 0x7C00) == 0x7C00);
  CHECK((nan & 0x03FF) != 0);
  CHECK(to_half(std::ldexp(1.0f, -14)) == 0x0400);         // smallest normal
  CHECK(to_half(std::ldexp(1.0f, -24)) == 0x0001);         // smallest denormal
  CHECK(to_half(std::ldexp(1023.0f, -24)) == 0x03FF);      // largest denormal
  CHECK(to_half(std::ldexp(1.0f, -25)) == 0x0000);         // half of it: ties to even (0)
  CHECK(to_half(std::ldexp(1.0f, -25) * 1.01f) == 0x0001);
  CHECK(to_half(std::ldexp(3.0f, -25)) == 0x0002);         // 1.5 units: ties to even (2)
  CHECK(to_half(std::ldexp(5.0f, -25)) == 0x0002);         // 2.5 units: ties to even (2)
  CHECK(to_half(-std::ldexp(1.0f, -30)) == 0x8000);        // underflow keeps the sign
  CHECK(to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);  // halfway 0x3C00 / 0x3C01: even
  CHECK(to_half(1.0f + std::ldexp(3.0f, -11)) == 0x3C02);  // halfway 0x3C01 / 0x3C02: even
  CHECK(to_half(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3C01);  // past halfway
  CHECK(to_half(1.0f + 1023.0f / 1024.0f + 1.0f / 2048.0f) == 0x4000);  // halfway past 0x3FFF: carries into the exponent
  // Decoding is exact.
  CHECK(from_half(0x3555) == 0.333251953125f);
  CHECK(from_half(0x0001) == std::ldexp(1.0f, -24));
  CHECK(from_half(0x03FF) == std::ldexp(1023.0f, -24));
  CHECK(from_half(0xFBFF) == -65504.0f);
  CHECK(from_half(0x7C00) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(from_half(0x7E00)));
  CHECK(std::signbit(from_half(0x8000)));
  // Every non-NaN half survives decode and encode.
  for (unsigned h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) continue;
    const float f = from_half(static_cast<std::uint16_t>(h));
    if (to_half(f) != h) {
      CAPTURE(h);
      REQUIRE(to_half(f) == h);
    }
  }
}

TEST_CASE("pixel: float32 stores the value unchanged") {
  const ImageFormat f{ChannelOrder::rgba, ChannelType::float32};
  const Color c = Color::floats(-3.25f, 1e-40f, 7e30f, std::numeric_limits<float>::quiet_NaN());
  const Px p = enc(f, c);
  float stored[4];
  std::memcpy(stored, p.data(), sizeof stored);
  CHECK(stored[0] == -3.25f);
  CHECK(stored[1] == 1e-40f);
  CHECK(stored[2] == 7e30f);
  CHECK(std::isnan(stored[3]));
  CHECK(p[16] == 0xCD);
  CHECK(same_color(decode_pixel(f, p.data()), c));
}

TEST_CASE("pixel: integer types saturate and sign-extend") {
  const ImageFormat i8{ChannelOrder::rgba, ChannelType::signed_int8};
  Px p = enc(i8, Color::ints(300, -300, -5, 127));
  CHECK(static_cast<std::int8_t>(p[0]) == 127);
  CHECK(static_cast<std::int8_t>(p[1]) == -128);
  CHECK(p[2] == 0xFB);
  CHECK(p[3] == 127);
  CHECK(p[4] == 0xCD);
  Color c = decode_pixel(i8, p.data());
  CHECK(c.kind == ColorKind::signed_int);
  CHECK(c.i[0] == 127);
  CHECK(c.i[1] == -128);
  CHECK(c.i[2] == -5);

  const ImageFormat u8{ChannelOrder::rgba, ChannelType::unsigned_int8};
  p = enc(u8, Color::uints(300, 255, 0, 0xFFFFFFFFu));
  CHECK(p[0] == 255);
  CHECK(p[1] == 255);
  CHECK(p[2] == 0);
  CHECK(p[3] == 255);
  c = decode_pixel(u8, p.data());
  CHECK(c.kind == ColorKind::unsigned_int);
  CHECK(c.u[0] == 255u);

  std::int16_t s16[4];
  p = enc(fmt(ChannelOrder::rgba, ChannelType::signed_int16), Color::ints(40000, -40000, -1, 32767));
  std::memcpy(s16, p.data(), 8);
  CHECK(s16[0] == 32767);
  CHECK(s16[1] == -32768);
  CHECK(s16[2] == -1);
  std::uint16_t u16;
  p = enc(fmt(ChannelOrder::r, ChannelType::unsigned_int16), Color::uints(70000, 0, 0, 0));
  std::memcpy(&u16, p.data(), 2);
  CHECK(u16 == 65535);

  const ImageFormat i32{ChannelOrder::rg, ChannelType::signed_int32};
  c = decode_pixel(i32, enc(i32, Color::ints(INT32_MIN, INT32_MAX, 9, 9)).data());
  CHECK(c.i[0] == INT32_MIN);
  CHECK(c.i[1] == INT32_MAX);
  CHECK(c.i[2] == 0);
  CHECK(c.i[3] == 1);
  const ImageFormat u32{ChannelOrder::r, ChannelType::unsigned_int32};
  c = decode_pixel(u32, enc(u32, Color::uints(0xFFFFFFFFu, 0, 0, 0)).data());
  CHECK(c.u[0] == 0xFFFFFFFFu);
  CHECK(c.u[3] == 1u);
}

TEST_CASE("pixel: channel orders store and read components in their order") {
  const auto t = ChannelType::unorm_int8;
  const Color c = Color::floats(10 / 255.0f, 20 / 255.0f, 30 / 255.0f, 40 / 255.0f);
  auto bytes = [&](ChannelOrder o, std::size_t n) {
    const Px p = enc(fmt(o, t), c);
    CHECK(p[n] == 0xCD);  // nothing written past the pixel
    return std::vector<int>(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(n));
  };
  CHECK(bytes(ChannelOrder::rgba, 4) == std::vector<int>{10, 20, 30, 40});
  CHECK(bytes(ChannelOrder::bgra, 4) == std::vector<int>{30, 20, 10, 40});
  CHECK(bytes(ChannelOrder::argb, 4) == std::vector<int>{40, 10, 20, 30});
  CHECK(bytes(ChannelOrder::a, 1) == std::vector<int>{40});
  CHECK(bytes(ChannelOrder::r, 1) == std::vector<int>{10});
  CHECK(bytes(ChannelOrder::rg, 2) == std::vector<int>{10, 20});

  const std::uint8_t px[4] = {10, 20, 30, 40};
  check_floats(decode_pixel(fmt(ChannelOrder::rgba, t), px), 10 / 255.0f, 20 / 255.0f, 30 / 255.0f, 40 / 255.0f);
  check_floats(decode_pixel(fmt(ChannelOrder::bgra, t), px), 30 / 255.0f, 20 / 255.0f, 10 / 255.0f, 40 / 255.0f);
  check_floats(decode_pixel(fmt(ChannelOrder::argb, t), px), 20 / 255.0f, 30 / 255.0f, 40 / 255.0f, 10 / 255.0f);
  check_floats(decode_pixel(fmt(ChannelOrder::a, t), px), 0, 0, 0, 10 / 255.0f);
  check_floats(decode_pixel(fmt(ChannelOrder::r, t), px), 10 / 255.0f, 0, 0, 1);
  check_floats(decode_pixel(fmt(ChannelOrder::rg, t), px), 10 / 255.0f, 20 / 255.0f, 0, 1);
  // Integer kinds fill missing components the same way.
  const Color ur = decode_pixel(fmt(ChannelOrder::r, ChannelType::unsigned_int8), px);
  CHECK(ur.u[0] == 10u);
  CHECK(ur.u[1] == 0u);
  CHECK(ur.u[3] == 1u);
  const Color ia = decode_pixel(fmt(ChannelOrder::a, ChannelType::signed_int8), px);
  CHECK(ia.i[0] == 0);
  CHECK(ia.i[3] == 10);
  // 16-bit channels of bgra: each channel two bytes, in b, g, r, a order.
  const Px p16 = enc(fmt(ChannelOrder::bgra, ChannelType::unorm_int16), Color::floats(1.0f, 0.0f, 0.5f, 1.0f));
  std::uint16_t ch[4];
  std::memcpy(ch, p16.data(), 8);
  CHECK(ch[0] == 32768);
  CHECK(ch[1] == 0);
  CHECK(ch[2] == 65535);
  CHECK(ch[3] == 65535);
}

TEST_CASE("pixel: packed rgb formats (565, 555, 101010)") {
  auto packed16 = [](ChannelType t, const Color& c) {
    const Px p = enc(fmt(ChannelOrder::rgb, t), c);
    CHECK(p[2] == 0xCD);
    std::uint16_t v;
    std::memcpy(&v, p.data(), 2);
    return v;
  };
  const auto t565 = ChannelType::unorm_short_565;
  CHECK(packed16(t565, Color::floats(1, 0, 1, 0)) == 0xF81F);
  CHECK(packed16(t565, Color::floats(0, 1, 0, 0)) == 0x07E0);
  CHECK(packed16(t565, Color::floats(0.5f, 0.5f, 0.5f, 1)) == 0x8410);  // 15.5 -> 16, 31.5 -> 32
  CHECK(packed16(t565, Color::floats(-1, 2, 0, 0)) == 0x07E0);
  const std::uint16_t v565 = 0xF81F;
  check_floats(decode_pixel(fmt(ChannelOrder::rgb, t565), &v565), 1, 0, 1, 1);
  const std::uint16_t g1 = 1u << 5;
  check_floats(decode_pixel(fmt(ChannelOrder::rgb, t565), &g1), 0, 1 / 63.0f, 0, 1);

  const auto t555 = ChannelType::unorm_short_555;
  CHECK(packed16(t555, Color::floats(1, 0, 0, 0)) == 0x7C00);
  CHECK(packed16(t555, Color::floats(0, 1, 1, 0)) == 0x03FF);
  const std::uint16_t top = 0x8000;  // the unused bit is ignored
  check_floats(decode_pixel(fmt(ChannelOrder::rgb, t555), &top), 0, 0, 0, 1);
  const std::uint16_t b3 = 3;
  check_floats(decode_pixel(fmt(ChannelOrder::rgb, t555), &b3), 0, 0, 3 / 31.0f, 1);

  const ImageFormat f10{ChannelOrder::rgb, ChannelType::unorm_int_101010};
  const Px p = enc(f10, Color::floats(1, 0, 1, 0));
  std::uint32_t v;
  std::memcpy(&v, p.data(), 4);
  CHECK(v == 0x3FF003FFu);
  CHECK(p[4] == 0xCD);
  const std::uint32_t w = 0xC0000000u | (512u << 10);
  check_floats(decode_pixel(f10, &w), 0, 512 / 1023.0f, 0, 1);
}

TEST_CASE("pixel: every valid format round-trips through decode and encode") {
  std::mt19937 gen(1234);
  const auto formats = all_formats();
  CHECK(formats.size() == 6 * 12 + 3);
  for (const ImageFormat f : formats) {
    CAPTURE(f.index());
    for (int n = 0; n < 200; ++n) {
      Px raw{};
      for (std::size_t b = 0; b < f.pixel_bytes(); ++b) raw[b] = static_cast<std::uint8_t>(gen());
      const Color c = decode_pixel(f, raw.data());
      REQUIRE(c.kind == f.kind());
      const Px again = enc(f, c);
      const Color c2 = decode_pixel(f, again.data());
      REQUIRE(same_color(c, c2));
      // Byte-exact where the stored value is canonical: not the snorm minimum (reads as -1, written
      // back as -127 / -32767), half NaNs (quieted), or the packed types' unused bits.
      const bool exact = f.type != ChannelType::snorm_int8 && f.type != ChannelType::snorm_int16 &&
                         f.type != ChannelType::half_float && !is_packed(f.type);
      if (exact) {
        for (std::size_t b = 0; b < f.pixel_bytes(); ++b) REQUIRE(again[b] == raw[b]);
      }
      REQUIRE(again[f.pixel_bytes()] == 0xCD);
    }
  }
}

TEST_CASE("pixel: kind mismatch and invalid formats are refused") {
  Px p;
  p.fill(0xAB);
  CHECK_FALSE(encode_pixel(fmt(ChannelOrder::rgba, ChannelType::unorm_int8), Color::ints(1, 2, 3, 4), p.data()));
  CHECK_FALSE(encode_pixel(fmt(ChannelOrder::rgba, ChannelType::float32), Color::uints(1, 2, 3, 4), p.data()));
  CHECK_FALSE(encode_pixel(fmt(ChannelOrder::r, ChannelType::signed_int8), Color::uints(1, 2, 3, 4), p.data()));
  CHECK_FALSE(encode_pixel(fmt(ChannelOrder::r, ChannelType::unsigned_int8), Color::floats(1, 2, 3, 4), p.data()));
  CHECK_FALSE(encode_pixel(fmt(ChannelOrder::rgb, ChannelType::unorm_int8), Color::floats(1, 1, 1, 1), p.data()));
  CHECK_FALSE(encode_pixel(fmt(ChannelOrder::rgba, ChannelType::unorm_short_565), Color::floats(1, 1, 1, 1), p.data()));
  CHECK_FALSE(encode_pixel(ImageFormat{static_cast<ChannelOrder>(9), ChannelType::unorm_int8}, Color::floats(1, 1, 1, 1),
                           p.data()));
  CHECK_FALSE(encode_pixel(ImageFormat{ChannelOrder::r, static_cast<ChannelType>(40)}, Color::floats(1, 1, 1, 1),
                           p.data()));
  for (auto b : p) CHECK(b == 0xAB);  // nothing written
  const Color c = decode_pixel(fmt(ChannelOrder::rgb, ChannelType::float32), p.data());
  CHECK(c.kind == ColorKind::floating);
  for (float v : c.f) CHECK(v == 0.0f);
}

// ---- read_pixel -------------------------------------------------------------------------------

namespace {

/// A 4x3 R unorm_int8 image with row pitch 6 (two padding bytes): texel (x, y) = 10 y + x + 1.
struct Small {
  std::uint8_t bytes[18];
  PixelView view;
  Small() {
    std::memset(bytes, 0xEE, sizeof bytes);
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 4; ++x) bytes[y * 6 + x] = static_cast<std::uint8_t>(10 * y + x + 1);
    view.data = bytes;
    view.format = fmt(ChannelOrder::r, ChannelType::unorm_int8);
    view.width = 4;
    view.height = 3;
    view.row_pitch = 6;
  }
  /// Texel (x, y)'s red as read.
  static float t(int x, int y) { return static_cast<float>(10 * y + x + 1) / 255.0f; }
};

constexpr SamplerDesc sd(bool norm, AddressMode a, FilterMode f) { return SamplerDesc{norm, a, f}; }

}  // namespace

TEST_CASE("pixel: read_pixel nearest with pixel and normalised coordinates") {
  Small s;
  const auto px = sd(false, AddressMode::clamp_to_edge, FilterMode::nearest);
  check_floats(read_pixel(s.view, px, 0.5f, 0.5f), Small::t(0, 0), 0, 0, 1);
  check_floats(read_pixel(s.view, px, 3.99f, 2.01f), Small::t(3, 2), 0, 0, 1);
  check_floats(read_pixel(s.view, px, 1.0f, 1.0f), Small::t(1, 1), 0, 0, 1);   // an edge belongs to the next texel
  check_floats(read_pixel(s.view, px, 0.999f, 1.999f), Small::t(0, 1), 0, 0, 1);
  const auto nm = sd(true, AddressMode::clamp_to_edge, FilterMode::nearest);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) {
      CAPTURE(x);
      CAPTURE(y);
      check_floats(read_pixel(s.view, nm, (x + 0.5f) / 4.0f, (y + 0.5f) / 3.0f), Small::t(x, y), 0, 0, 1);
      check_floats(read_pixel(s.view, nm, x / 4.0f, y / 3.0f + 0.01f), Small::t(x, y), 0, 0, 1);
    }
}

TEST_CASE("pixel: read_pixel address modes in and out of range") {
  Small s;
  const float border_r[4] = {0, 0, 0, 1};
  for (auto mode : {AddressMode::none, AddressMode::clamp_to_edge, AddressMode::clamp}) {
    CAPTURE(static_cast<int>(mode));
    const auto d = sd(false, mode, FilterMode::nearest);
    check_floats(read_pixel(s.view, d, 2.5f, 1.5f), Small::t(2, 1), 0, 0, 1);
    const Color left = read_pixel(s.view, d, -0.01f, 1.5f);
    const Color below = read_pixel(s.view, d, 100.0f, -3.0f);
    const Color far = read_pixel(s.view, d, 1e30f, -1e30f);
    if (mode == AddressMode::clamp) {
      check_floats(left, border_r[0], border_r[1], border_r[2], border_r[3]);
      check_floats(below, 0, 0, 0, 1);
      check_floats(far, 0, 0, 0, 1);
      check_floats(read_pixel(s.view, d, 3.99f, 2.99f), Small::t(3, 2), 0, 0, 1);
      check_floats(read_pixel(s.view, d, 4.0f, 1.0f), 0, 0, 0, 1);
    } else {  // clamp_to_edge (and none, which edgemem clamps to the edge)
      check_floats(left, Small::t(0, 1), 0, 0, 1);
      check_floats(below, Small::t(3, 0), 0, 0, 1);
      check_floats(far, Small::t(3, 0), 0, 0, 1);
    }
  }
  // The border color has alpha 0 for orders with alpha, of the format's kind.
  std::uint8_t rgba[4 * 4] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  PixelView v{rgba, fmt(ChannelOrder::rgba, ChannelType::unorm_int8), 2, 2, 1, 8, 0};
  const auto clamp = sd(true, AddressMode::clamp, FilterMode::nearest);
  check_floats(read_pixel(v, clamp, -0.1f, 0.5f), 0, 0, 0, 0);
  v.format = fmt(ChannelOrder::a, ChannelType::unorm_int8);
  v.width = 4;
  v.row_pitch = 4;
  check_floats(read_pixel(v, clamp, 1.1f, 0.5f), 0, 0, 0, 0);
  check_floats(read_pixel(v, clamp, 0.3f, 0.6f), 0, 0, 0, 6 / 255.0f);  // texel (1, 1)
  v.format = fmt(ChannelOrder::rgba, ChannelType::unsigned_int8);
  v.width = 2;
  v.row_pitch = 8;
  const Color ui = read_pixel(v, clamp, 0.5f, -0.5f);
  CHECK(ui.kind == ColorKind::unsigned_int);
  CHECK(ui.u[3] == 0u);
  v.format = fmt(ChannelOrder::rg, ChannelType::signed_int16);
  const Color si = read_pixel(v, clamp, 0.5f, 1.5f);
  CHECK(si.kind == ColorKind::signed_int);
  CHECK(si.i[0] == 0);
  CHECK(si.i[3] == 1);
  v.format = fmt(ChannelOrder::rgb, ChannelType::unorm_short_565);
  check_floats(read_pixel(v, clamp, 2.0f, 0.5f), 0, 0, 0, 1);

  // repeat (normalised): the image tiles.
  const auto rep = sd(true, AddressMode::repeat, FilterMode::nearest);
  check_floats(read_pixel(s.view, rep, 1.125f, 0.5f), Small::t(0, 1), 0, 0, 1);   // frac 0.125 -> u 0.5
  check_floats(read_pixel(s.view, rep, -0.125f, 0.5f), Small::t(3, 1), 0, 0, 1);  // frac 0.875 -> u 3.5
  check_floats(read_pixel(s.view, rep, 2.99f, -0.1f), Small::t(3, 2), 0, 0, 1);   // frac 0.9 -> v 2.7
  check_floats(read_pixel(s.view, rep, -3.0f, 5.0f), Small::t(0, 0), 0, 0, 1);
  // mirrored_repeat: s' = |s - 2 rint(s / 2)|.
  const auto mir = sd(true, AddressMode::mirrored_repeat, FilterMode::nearest);
  check_floats(read_pixel(s.view, mir, 1.125f, 0.5f), Small::t(3, 1), 0, 0, 1);   // s' 0.875
  check_floats(read_pixel(s.view, mir, -0.125f, 0.5f), Small::t(0, 1), 0, 0, 1);  // s' 0.125
  check_floats(read_pixel(s.view, mir, 2.125f, 0.5f), Small::t(0, 1), 0, 0, 1);   // s' 0.125
  check_floats(read_pixel(s.view, mir, 1.0f, 0.5f), Small::t(3, 1), 0, 0, 1);     // s' 1: last texel
  check_floats(read_pixel(s.view, mir, -1.3f, 0.5f), Small::t(2, 1), 0, 0, 1);    // s' 0.7 -> u 2.8
  check_floats(read_pixel(s.view, mir, 0.5f, -0.9f), Small::t(2, 2), 0, 0, 1);    // t' 0.9 -> v 2.7
}

TEST_CASE("pixel: read_pixel linear filtering on a 2x2 image") {
  const std::uint8_t px[2 * 2 * 4] = {0, 100, 200, 255, 40, 80, 120, 160, 255, 0, 10, 20, 60, 30, 90, 0};
  const PixelView v{px, fmt(ChannelOrder::rgba, ChannelType::unorm_int8), 2, 2, 1, 8, 0};
  auto T = [&](int x, int y, int k) { return px[(y * 2 + x) * 4 + k] / 255.0f; };
  const auto lin = sd(false, AddressMode::clamp_to_edge, FilterMode::linear);
  // Centre: the average of the four.
  Color c = read_pixel(v, lin, 1.0f, 1.0f);
  for (int k = 0; k < 4; ++k) CHECK(c.f[k] == doctest::Approx((T(0, 0, k) + T(1, 0, k) + T(0, 1, k) + T(1, 1, k)) / 4));
  // A texel centre: that texel.
  c = read_pixel(v, lin, 1.5f, 0.5f);
  for (int k = 0; k < 4; ++k) CHECK(c.f[k] == doctest::Approx(T(1, 0, k)));
  // A quarter of the way: 3:1 weights.
  c = read_pixel(v, lin, 0.75f, 0.5f);
  for (int k = 0; k < 4; ++k) CHECK(c.f[k] == doctest::Approx(0.75f * T(0, 0, k) + 0.25f * T(1, 0, k)));
  c = read_pixel(v, lin, 1.25f, 1.0f);  // a = 0.75, b = 0.5
  for (int k = 0; k < 4; ++k) {
    const float want = 0.25f * 0.5f * T(0, 0, k) + 0.75f * 0.5f * T(1, 0, k) + 0.25f * 0.5f * T(0, 1, k) +
                       0.75f * 0.5f * T(1, 1, k);
    CHECK(c.f[k] == doctest::Approx(want));
  }
  // Normalised coordinates: the same point.
  c = read_pixel(v, sd(true, AddressMode::clamp_to_edge, FilterMode::linear), 0.625f, 0.5f);
  for (int k = 0; k < 4; ++k)
    CHECK(c.f[k] == doctest::Approx(0.25f * 0.5f * (T(0, 0, k) + T(0, 1, k)) + 0.75f * 0.5f * (T(1, 0, k) + T(1, 1, k))));
  // Corner: clamp_to_edge gives the corner texel, clamp blends in the border (0, 0, 0, 0).
  c = read_pixel(v, lin, 0.0f, 0.0f);
  for (int k = 0; k < 4; ++k) CHECK(c.f[k] == doctest::Approx(T(0, 0, k)));
  c = read_pixel(v, sd(false, AddressMode::clamp, FilterMode::linear), 0.0f, 0.0f);
  for (int k = 0; k < 4; ++k) CHECK(c.f[k] == doctest::Approx(0.25f * T(0, 0, k)));
  c = read_pixel(v, sd(false, AddressMode::clamp, FilterMode::linear), 2.5f, 1.0f);  // wholly outside in x
  for (int k = 0; k < 4; ++k) CHECK(c.f[k] == 0.0f);
  // An r image: the border's alpha 1 blends to alpha 1.
  const PixelView r{px, fmt(ChannelOrder::r, ChannelType::unorm_int8), 2, 2, 1, 8, 0};
  c = read_pixel(r, sd(false, AddressMode::clamp, FilterMode::linear), 0.0f, 1.0f);
  CHECK(c.f[0] == doctest::Approx(0.5f * 0.5f * (T(0, 0, 0) + T(0, 1, 0))));
  CHECK(c.f[3] == doctest::Approx(1.0f));
}

TEST_CASE("pixel: read_pixel linear with repeat and mirrored_repeat wraps around") {
  const float row[4] = {1.0f, 2.0f, 4.0f, 8.0f};  // 1D float32 image of width 4
  const PixelView v{row, fmt(ChannelOrder::r, ChannelType::float32), 4, 1, 1, 0, 0};
  const auto rep = sd(true, AddressMode::repeat, FilterMode::linear);
  CHECK(read_pixel(v, rep, 0.0f).f[0] == doctest::Approx(0.5f * (8 + 1)));      // i0 -1 -> 3, i1 0
  CHECK(read_pixel(v, rep, 1.0f).f[0] == doctest::Approx(0.5f * (8 + 1)));
  CHECK(read_pixel(v, rep, 0.25f).f[0] == doctest::Approx(0.5f * (1 + 2)));
  CHECK(read_pixel(v, rep, 0.9375f).f[0] == doctest::Approx(0.75f * 8 + 0.25f * 1));  // u 3.75: i1 4 -> 0
  CHECK(read_pixel(v, rep, -0.0625f).f[0] == doctest::Approx(0.75f * 8 + 0.25f * 1));
  const auto mir = sd(true, AddressMode::mirrored_repeat, FilterMode::linear);
  CHECK(read_pixel(v, mir, 0.0f).f[0] == doctest::Approx(1.0f));                     // i0 max(-1, 0)
  CHECK(read_pixel(v, mir, -0.25f).f[0] == doctest::Approx(0.5f * (1 + 2)));          // s' 0.25
  CHECK(read_pixel(v, mir, 1.0f).f[0] == doctest::Approx(8.0f));                      // s' 1: i1 min(4, 3)
  CHECK(read_pixel(v, mir, 1.0625f).f[0] == doctest::Approx(8.0f));                   // s' 0.9375: i0 3, i1 min(4, 3)
  CHECK(read_pixel(v, mir, 1.25f).f[0] == doctest::Approx(0.5f * (4 + 8)));           // s' 0.75: u 3
  CHECK(read_pixel(v, mir, 1.8125f).f[0] == doctest::Approx(0.75f * 1 + 0.25f * 2));  // s' 0.1875: u 0.75
  // A 1D view ignores y, whatever the address mode.
  const auto clamp = sd(false, AddressMode::clamp, FilterMode::nearest);
  CHECK(read_pixel(v, clamp, 2.5f, 100.0f).f[0] == 4.0f);
  CHECK(read_pixel(v, clamp, 4.5f, 0.0f).f[3] == 1.0f);
  CHECK(read_pixel(v, clamp, 4.5f, 0.0f).f[0] == 0.0f);
}

TEST_CASE("pixel: read_pixel on a 3D view (nearest and trilinear)") {
  // 2x2x2 float32 R, rows of 3 floats (padding), slices of 8 floats.
  float data[16];
  for (float& f : data) f = -99.0f;
  auto set = [&](int x, int y, int z, float v) { data[z * 8 + y * 3 + x] = v; };
  float sum = 0;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) {
        const float v = static_cast<float>(1 + x + 2 * y + 4 * z * z);
        set(x, y, z, v);
        sum += v;
      }
  const PixelView v{data, fmt(ChannelOrder::r, ChannelType::float32), 2, 2, 2, 3 * sizeof(float), 8 * sizeof(float)};
  const auto near = sd(false, AddressMode::clamp_to_edge, FilterMode::nearest);
  CHECK(read_pixel(v, near, 0.5f, 0.5f, 1.5f).f[0] == 5.0f);
  CHECK(read_pixel(v, near, 1.5f, 1.5f, 1.5f).f[0] == 8.0f);
  CHECK(read_pixel(v, near, 1.5f, 0.2f, -7.0f).f[0] == 2.0f);
  CHECK(read_pixel(v, sd(false, AddressMode::clamp, FilterMode::nearest), 1.5f, 0.5f, 2.0f).f[0] == 0.0f);
  const auto lin = sd(false, AddressMode::clamp_to_edge, FilterMode::linear);
  CHECK(read_pixel(v, lin, 1.0f, 1.0f, 1.0f).f[0] == doctest::Approx(sum / 8));
  CHECK(read_pixel(v, lin, 0.5f, 0.5f, 1.0f).f[0] == doctest::Approx((1.0f + 5.0f) / 2));
  CHECK(read_pixel(v, lin, 0.5f, 0.5f, 0.75f).f[0] == doctest::Approx(0.75f * 1 + 0.25f * 5));
  CHECK(read_pixel(v, lin, 1.0f, 0.5f, 1.5f).f[0] == doctest::Approx((5.0f + 6.0f) / 2));
}

TEST_CASE("pixel: read_pixel of integer and half formats") {
  // Integer formats return integer colors; linear filtering samples them as nearest.
  const std::int16_t si[2 * 2 * 2] = {-5, 7, 300, -32768, 1, 2, 3, 4};
  const PixelView v{si, fmt(ChannelOrder::rg, ChannelType::signed_int16), 2, 2, 1, 8, 0};
  Color c = read_pixel(v, sd(false, AddressMode::clamp_to_edge, FilterMode::linear), 1.4f, 0.6f);
  CHECK(c.kind == ColorKind::signed_int);
  CHECK(c.i[0] == 300);
  CHECK(c.i[1] == -32768);
  CHECK(c.i[2] == 0);
  CHECK(c.i[3] == 1);
  const std::uint8_t ub[4] = {200, 1, 2, 3};
  const PixelView u{ub, fmt(ChannelOrder::argb, ChannelType::unsigned_int8), 1, 1, 1, 4, 0};
  c = read_pixel(u, sd(true, AddressMode::repeat, FilterMode::nearest), 5.5f, 0.0f);
  CHECK(c.kind == ColorKind::unsigned_int);
  CHECK(c.u[0] == 1u);
  CHECK(c.u[3] == 200u);
  // Half: linear blends the decoded values.
  const std::uint16_t h[2] = {0x3C00, 0x4000};  // 1.0, 2.0
  const PixelView hv{h, fmt(ChannelOrder::r, ChannelType::half_float), 2, 1, 1, 4, 0};
  CHECK(read_pixel(hv, sd(false, AddressMode::clamp_to_edge, FilterMode::linear), 1.25f).f[0] == doctest::Approx(1.75f));
}

TEST_CASE("pixel: read_pixel with an invalid sampler or view gives a floating zero") {
  Small s;
  auto zero = [](const Color& c) {
    CHECK(c.kind == ColorKind::floating);
    for (float v : c.f) CHECK(v == 0.0f);
  };
  zero(read_pixel(s.view, sd(false, AddressMode::repeat, FilterMode::nearest), 0.5f, 0.5f));
  zero(read_pixel(s.view, sd(false, AddressMode::mirrored_repeat, FilterMode::linear), 0.5f, 0.5f));
  zero(read_pixel(s.view, SamplerDesc{false, static_cast<AddressMode>(7), FilterMode::nearest}, 0.5f, 0.5f));
  PixelView bad = s.view;
  bad.data = nullptr;
  zero(read_pixel(bad, SamplerDesc{}, 0.5f, 0.5f));
  bad = s.view;
  bad.width = 0;
  zero(read_pixel(bad, SamplerDesc{}, 0.5f, 0.5f));
  bad = s.view;
  bad.row_pitch = 3;  // shorter than a row
  zero(read_pixel(bad, SamplerDesc{}, 0.5f, 0.5f));
  bad = s.view;
  bad.format = fmt(ChannelOrder::rgb, ChannelType::unorm_int8);
  zero(read_pixel(bad, SamplerDesc{}, 0.5f, 0.5f));
  // NaN coordinates read a texel (the first), never crash.
  const Color n = read_pixel(s.view, SamplerDesc{}, std::nanf(""), std::nanf(""));
  CHECK(n.f[0] == Small::t(0, 0));
}
