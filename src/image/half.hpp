// Private: IEEE 754 binary16 <-> binary32 conversion for the half_float image channel type
// (OpenCL C 1.2 section 8.3: half values written by write_imagef round to nearest even).
#pragma once
#include <cstdint>
#include <cstring>

namespace edgemem::detail {

/// The bits of `f` (binary32).
inline std::uint32_t float_bits(float f) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

/// The binary32 with bits `u`.
inline float bits_float(std::uint32_t u) noexcept {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// `f` as binary16 bits, rounded to nearest even: overflow gives infinity, tiny values denormals or
/// zero (sign kept), NaN a quiet NaN keeping the sign and the top payload bits.
inline std::uint16_t float_to_half(float f) noexcept {
  const std::uint32_t u = float_bits(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    if (abs == 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
    return static_cast<std::uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  }
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: rounds to inf
  const int exp = static_cast<int>(abs >> 23) - 127;
  if (exp >= -14) {  // normal half: drop 13 mantissa bits with round to nearest even
    std::uint32_t h = (static_cast<std::uint32_t>(exp + 15) << 10) | ((abs >> 13) & 0x3ffu);
    const std::uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is right
    return static_cast<std::uint16_t>(sign | h);
  }
  if (exp < -25) return sign;  // below half the smallest denormal (2^-25): zero
  // Denormal half: value = mant * 2^(exp-23) with the implicit bit; unit is 2^-24.
  const std::uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
  const int shift = -exp - 1;  // 14..24: mant >> shift counts units of 2^-24
  std::uint32_t h = mant >> shift;
  const std::uint32_t rest = mant & ((1u << shift) - 1u);
  const std::uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (h & 1u))) ++h;  // may become the smallest normal: right
  return static_cast<std::uint16_t>(sign | h);
}

/// The binary32 value of binary16 bits `h` (exact; NaN payload kept).
inline float half_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  if (exp == 0x1fu) return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp != 0) return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return bits_float(sign);
  // Denormal: normalise.
  std::uint32_t e = 113;  // exponent of 2^-14 is 127 - 14 = 113
  while ((mant & 0x400u) == 0) {
    mant <<= 1;
    --e;
  }
  return bits_float(sign | (e << 23) | ((mant & 0x3ffu) << 13));
}

}  // namespace edgemem::detail
