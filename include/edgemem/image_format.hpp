/// @file image_format.hpp  ImageFormat (channel order + channel type, OpenCL 1.2's set), ImageType,
/// and FormatSet: the formats a device supports for one image type and FormatAccess
/// (Context::supported_formats).
#pragma once
#include <cstddef>
#include <cstdint>

namespace edgemem {

/// Which channels a pixel has and in what order they are stored (cl_channel_order subset).
enum class ChannelOrder : std::uint8_t {
  r,     ///< one channel: red (kernels read (r, 0, 0, 1))
  rg,    ///< two channels: red, green (kernels read (r, g, 0, 1)); the UV plane of NV12
  rgba,  ///< four channels in RGBA order
  bgra,  ///< four channels stored B, G, R, A (kernels still see RGBA)
  argb,  ///< four channels stored A, R, G, B (kernels still see RGBA)
  a,     ///< one channel: alpha (kernels read (0, 0, 0, a))
  rgb,   ///< three channels, only with the packed types unorm_short_565, unorm_short_555, unorm_int_101010
};
/// Number of ChannelOrder values.
inline constexpr unsigned channel_order_count = 7;

/// How each channel is stored (cl_channel_type, OpenCL 1.2's list).
enum class ChannelType : std::uint8_t {
  snorm_int8,        ///< signed 8-bit, normalised to [-1, 1]
  snorm_int16,       ///< signed 16-bit, normalised to [-1, 1]
  unorm_int8,        ///< unsigned 8-bit, normalised to [0, 1]
  unorm_int16,       ///< unsigned 16-bit, normalised to [0, 1]
  unorm_short_565,   ///< packed 5-6-5 bits in 2 bytes (ChannelOrder::rgb only)
  unorm_short_555,   ///< packed x-5-5-5 bits in 2 bytes (ChannelOrder::rgb only)
  unorm_int_101010,  ///< packed x-10-10-10 bits in 4 bytes (ChannelOrder::rgb only)
  signed_int8,       ///< signed 8-bit integer, not normalised
  signed_int16,      ///< signed 16-bit integer, not normalised
  signed_int32,      ///< signed 32-bit integer, not normalised
  unsigned_int8,     ///< unsigned 8-bit integer, not normalised
  unsigned_int16,    ///< unsigned 16-bit integer, not normalised
  unsigned_int32,    ///< unsigned 32-bit integer, not normalised
  half_float,        ///< IEEE 754 binary16
  float32,           ///< IEEE 754 binary32
};
/// Number of ChannelType values.
inline constexpr unsigned channel_type_count = 15;

/// Which kind of color value a channel type is written and read with (OpenCL's fill color and
/// read_imagef / read_imagei / read_imageui).
enum class ColorKind : std::uint8_t {
  floating,      ///< normalised and float types: four floats
  signed_int,    ///< signed_int*: four int32
  unsigned_int,  ///< unsigned_int*: four uint32
};

/// The color kind of channel type `t`.
constexpr ColorKind color_kind(ChannelType t) noexcept {
  switch (t) {
    case ChannelType::signed_int8: case ChannelType::signed_int16: case ChannelType::signed_int32:
      return ColorKind::signed_int;
    case ChannelType::unsigned_int8: case ChannelType::unsigned_int16: case ChannelType::unsigned_int32:
      return ColorKind::unsigned_int;
    default:
      return ColorKind::floating;
  }
}

/// True for the packed types (one value holds every channel).
constexpr bool is_packed(ChannelType t) noexcept {
  return t == ChannelType::unorm_short_565 || t == ChannelType::unorm_short_555 || t == ChannelType::unorm_int_101010;
}

/// Bytes of one channel of type `t` (for a packed type: of the whole pixel).
constexpr std::size_t channel_bytes(ChannelType t) noexcept {
  switch (t) {
    case ChannelType::snorm_int8: case ChannelType::unorm_int8: case ChannelType::signed_int8:
    case ChannelType::unsigned_int8:
      return 1;
    case ChannelType::snorm_int16: case ChannelType::unorm_int16: case ChannelType::signed_int16:
    case ChannelType::unsigned_int16: case ChannelType::half_float: case ChannelType::unorm_short_565:
    case ChannelType::unorm_short_555:
      return 2;
    default:
      return 4;
  }
}

/// Channels stored per pixel for order `o`.
constexpr unsigned channel_count(ChannelOrder o) noexcept {
  switch (o) {
    case ChannelOrder::r: case ChannelOrder::a: return 1;
    case ChannelOrder::rg: return 2;
    case ChannelOrder::rgb: return 3;
    default: return 4;
  }
}

/// An image format: channel order and channel type (cl_image_format). Comparable and ordered.
struct ImageFormat {
  ChannelOrder order = ChannelOrder::rgba;    ///< channels and their order
  ChannelType type = ChannelType::unorm_int8; ///< storage of each channel

  /// True when order and type are known values that OpenCL allows together (rgb only with the
  /// packed types, the packed types only with rgb).
  [[nodiscard]] constexpr bool valid() const noexcept {
    if (static_cast<unsigned>(order) >= channel_order_count || static_cast<unsigned>(type) >= channel_type_count)
      return false;
    return (order == ChannelOrder::rgb) == is_packed(type);
  }
  /// Channels per pixel (0 when !valid()).
  [[nodiscard]] constexpr unsigned channels() const noexcept { return valid() ? channel_count(order) : 0; }
  /// Bytes per pixel, the image's element size (0 when !valid()).
  [[nodiscard]] constexpr std::size_t pixel_bytes() const noexcept {
    if (!valid()) return 0;
    return is_packed(type) ? channel_bytes(type) : channel_bytes(type) * channel_count(order);
  }
  /// The color kind fills and reads use (ColorKind).
  [[nodiscard]] constexpr ColorKind kind() const noexcept { return color_kind(type); }
  /// A dense index (order * channel_type_count + type), for tables and FormatSet.
  [[nodiscard]] constexpr unsigned index() const noexcept {
    return static_cast<unsigned>(order) * channel_type_count + static_cast<unsigned>(type);
  }

  /// Same order and type.
  friend constexpr bool operator==(ImageFormat a, ImageFormat b) noexcept { return a.order == b.order && a.type == b.type; }
  /// Other order or type.
  friend constexpr bool operator!=(ImageFormat a, ImageFormat b) noexcept { return !(a == b); }
  /// Ordered by index() (for sorting and sets).
  friend constexpr bool operator<(ImageFormat a, ImageFormat b) noexcept { return a.index() < b.index(); }
};

/// A set of image formats, 16 bytes, no allocation: what a device supports for one image type and
/// access. Iterates in index() order.
class FormatSet {
 public:
  static constexpr unsigned capacity = channel_order_count * channel_type_count;  ///< formats it can name

  /// Adds `f` (ignored when !f.valid()).
  constexpr void insert(ImageFormat f) noexcept {
    if (f.valid()) bits_[f.index() / 64] |= std::uint64_t{1} << (f.index() % 64);
  }
  /// True when `f` is in the set.
  [[nodiscard]] constexpr bool contains(ImageFormat f) const noexcept {
    return f.valid() && (bits_[f.index() / 64] >> (f.index() % 64) & 1u) != 0;
  }
  /// Number of formats in the set.
  [[nodiscard]] constexpr std::size_t size() const noexcept {
    std::size_t n = 0;
    for (unsigned i = 0; i < capacity; ++i) n += (bits_[i / 64] >> (i % 64)) & 1u;
    return n;
  }
  /// True when the set is empty.
  [[nodiscard]] constexpr bool empty() const noexcept { return bits_[0] == 0 && bits_[1] == 0; }
  /// Formats in both sets.
  [[nodiscard]] constexpr FormatSet operator&(const FormatSet& o) const noexcept {
    FormatSet r;
    r.bits_[0] = bits_[0] & o.bits_[0];
    r.bits_[1] = bits_[1] & o.bits_[1];
    return r;
  }
  /// Same formats.
  friend constexpr bool operator==(const FormatSet& a, const FormatSet& b) noexcept {
    return a.bits_[0] == b.bits_[0] && a.bits_[1] == b.bits_[1];
  }

  /// Forward iterator over the formats of a set.
  class iterator {
   public:
    /// The format at this position.
    constexpr ImageFormat operator*() const noexcept {
      return ImageFormat{static_cast<ChannelOrder>(i_ / channel_type_count), static_cast<ChannelType>(i_ % channel_type_count)};
    }
    /// Moves to the next format of the set.
    constexpr iterator& operator++() noexcept {
      i_ = set_->next(i_ + 1);
      return *this;
    }
    /// Same position.
    friend constexpr bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }
    /// Other position.
    friend constexpr bool operator!=(const iterator& a, const iterator& b) noexcept { return a.i_ != b.i_; }

   private:
    friend class FormatSet;
    constexpr iterator(const FormatSet* s, unsigned i) noexcept : set_(s), i_(i) {}
    const FormatSet* set_;
    unsigned i_;
  };
  /// First format.
  [[nodiscard]] constexpr iterator begin() const noexcept { return iterator(this, next(0)); }
  /// Past the last format.
  [[nodiscard]] constexpr iterator end() const noexcept { return iterator(this, capacity); }

 private:
  constexpr unsigned next(unsigned i) const noexcept {
    while (i < capacity && ((bits_[i / 64] >> (i % 64)) & 1u) == 0) ++i;
    return i;
  }
  std::uint64_t bits_[2] = {0, 0};
};

/// The image types of OpenCL 1.2.
enum class ImageType : std::uint8_t {
  image1d,         ///< width pixels
  image1d_buffer,  ///< width pixels over a buffer (Image::view, or create() making the buffer)
  image1d_array,   ///< array_size layers of width pixels
  image2d,         ///< width x height pixels
  image2d_array,   ///< array_size layers of width x height pixels
  image3d,         ///< width x height x depth pixels
};
/// Number of ImageType values.
inline constexpr unsigned image_type_count = 6;

/// Formats a device supports for an access (Context::supported_formats).
enum class FormatAccess : std::uint8_t {
  read_only,          ///< MemFlags::read_only images: kernels read them (read_imagef ...)
  write_only,         ///< MemFlags::write_only images: kernels write them
  read_write,         ///< MemFlags::read_write images: some kernels read them, others write them
  kernel_read_write,  ///< one kernel both reads and writes the image (OpenCL 2.0+ read_write images)
};
/// Number of FormatAccess values.
inline constexpr unsigned format_access_count = 4;

}  // namespace edgemem
