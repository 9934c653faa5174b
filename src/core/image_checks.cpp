#include "core/image_checks.hpp"

namespace edgemem::detail {

namespace {

/// a * b, false on overflow.
bool mul(std::size_t a, std::size_t b, std::size_t& out) noexcept {
  if (a != 0 && b > static_cast<std::size_t>(-1) / a) return false;
  out = a * b;
  return true;
}

bool is_array(ImageType t) noexcept { return t == ImageType::image1d_array || t == ImageType::image2d_array; }
bool has_rows(ImageType t) noexcept {
  return t == ImageType::image2d || t == ImageType::image2d_array || t == ImageType::image3d;
}

}  // namespace

ImageExtent image_extent(const ImageDesc& d) noexcept {
  switch (d.type) {
    case ImageType::image1d_array: return ImageExtent{d.width, d.array_size, 1};
    case ImageType::image2d_array: return ImageExtent{d.width, d.height, d.array_size};
    case ImageType::image3d: return ImageExtent{d.width, d.height, d.depth};
    default: return ImageExtent{d.width, d.height, 1};
  }
}

Result<contract::ImageLayout> check_image_desc(const ContextNode* ctx, const ImageDesc& d, std::size_t& bytes) noexcept {
  if (static_cast<unsigned>(d.type) >= image_type_count) return fail(Errc::invalid_argument, "unknown ImageType");
  if (!d.format.valid()) return fail(Errc::invalid_argument, "invalid image format (channel order and type)");
  if (d.width == 0 || d.height == 0 || d.depth == 0 || d.array_size == 0)
    return fail(Errc::invalid_argument, "an image extent is zero");
  if (!has_rows(d.type) && d.height != 1) return fail(Errc::invalid_argument, "a 1D image's height must be 1");
  if (d.type != ImageType::image3d && d.depth != 1) return fail(Errc::invalid_argument, "depth must be 1 but for 3D images");
  if (!is_array(d.type) && d.array_size != 1) return fail(Errc::invalid_argument, "array_size must be 1 but for arrays");
  if (!ctx->info.caps.images) return fail(Errc::unsupported, "the device has no images (DeviceInfo::caps)");
  const ImageLimits& l = ctx->info.image_limits;
  bool fits = true;
  switch (d.type) {
    case ImageType::image1d_buffer: fits = d.width <= l.max_buffer_pixels; break;
    case ImageType::image3d:
      fits = d.width <= l.max_width_3d && d.height <= l.max_height_3d && d.depth <= l.max_depth_3d;
      break;
    default: fits = d.width <= l.max_width_2d && d.height <= l.max_height_2d; break;
  }
  if (is_array(d.type) && d.array_size > l.max_array_size) fits = false;
  if (!fits) return fail(Errc::out_of_range, "an image extent exceeds the device's ImageLimits");
  contract::ImageLayout layout;
  layout.desc = d;
  const ImageExtent e = image_extent(d);
  std::size_t total = 0;
  if (!mul(d.width, d.format.pixel_bytes(), layout.row_pitch) ||
      !mul(layout.row_pitch, d.type == ImageType::image1d_array ? 1 : d.height, layout.slice_pitch) ||
      !mul(layout.slice_pitch, d.type == ImageType::image1d_array ? e.y : e.z, total) ||
      total > ctx->info.max_alloc_bytes)
    return fail(Errc::out_of_range, "the image's size exceeds the device's max allocation");
  bytes = total;
  return layout;
}

Result<void> check_format_supported(const ContextNode* ctx, ImageType type, ImageFormat format, MemFlags flags) noexcept {
  FormatAccess access = FormatAccess::read_write;
  if (has(flags, MemFlags::read_only)) access = FormatAccess::read_only;
  else if (has(flags, MemFlags::write_only)) access = FormatAccess::write_only;
  if (!ctx->formats[static_cast<unsigned>(type)][static_cast<unsigned>(access)].contains(format))
    return fail(Errc::unsupported, "the device does not support this image format for this type and access");
  return {};
}

Result<void> check_image_region(const ImageNode* n, const ImageRegion& r) noexcept {
  if (r.extent.x == 0 || r.extent.y == 0 || r.extent.z == 0) return fail(Errc::invalid_argument, "a region extent is zero");
  const ImageExtent e = image_extent(n->layout.desc);
  const std::size_t o[3] = {r.origin.x, r.origin.y, r.origin.z}, x[3] = {r.extent.x, r.extent.y, r.extent.z};
  const std::size_t lim[3] = {e.x, e.y, e.z};
  for (int i = 0; i < 3; ++i)
    if (o[i] > lim[i] || x[i] > lim[i] - o[i]) return fail(Errc::out_of_range, "region passes the image's extent");
  return {};
}

ByteRange image_span(const ImageNode* n, const ImageRegion& r) noexcept {
  const contract::ImageLayout& l = n->layout;
  const std::size_t e = l.desc.format.pixel_bytes();
  const ImageOrigin last{r.origin.x + r.extent.x - 1, r.origin.y + r.extent.y - 1, r.origin.z + r.extent.z - 1};
  return ByteRange{contract::image_offset(l.desc.type, e, l.row_pitch, l.slice_pitch, r.origin),
                   contract::image_offset(l.desc.type, e, l.row_pitch, l.slice_pitch, last) + e};
}

Result<HostPitch> resolve_host_pitch(const ImageDesc& desc, const ImageExtent& ext, HostPitch p, std::size_t host_bytes,
                                     std::size_t& needed) noexcept {
  const ImageType type = desc.type;
  const std::size_t e = desc.format.pixel_bytes();
  const bool layers_in_y = type == ImageType::image1d_array;
  std::size_t row_bytes = 0, slice_bytes = 0;
  if (!mul(ext.x, e, row_bytes)) return fail(Errc::out_of_range, "host row size overflows");
  HostPitch out;
  out.row = p.row != 0 ? p.row : row_bytes;
  if (out.row < row_bytes) return fail(Errc::invalid_argument, "host row pitch is smaller than a row");
  if (out.row % e != 0) return fail(Errc::invalid_argument, "host row pitch is not a multiple of the pixel size");
  if (!mul(out.row, layers_in_y ? 1 : ext.y, slice_bytes)) return fail(Errc::out_of_range, "host slice size overflows");
  out.slice = p.slice != 0 ? p.slice : slice_bytes;
  if (out.slice < slice_bytes) return fail(Errc::invalid_argument, "host slice pitch is smaller than a slice");
  if (out.slice % out.row != 0) return fail(Errc::invalid_argument, "host slice pitch is not a multiple of the row pitch");
  // Last pixel's offset + its bytes, overflow-safe (each term is bounded by the checks above or below).
  std::size_t a = 0, b = 0, c = 0;
  const std::size_t ys = layers_in_y ? out.slice : out.row;
  if (!mul(ext.y - 1, ys, a) || !mul(ext.z - 1, out.slice, b) || !mul(ext.x, e, c) || a > static_cast<std::size_t>(-1) - b ||
      a + b > static_cast<std::size_t>(-1) - c)
    return fail(Errc::out_of_range, "host layout overflows");
  needed = a + b + c;
  if (needed > host_bytes) return fail(Errc::out_of_range, "the host memory is smaller than the region's layout");
  return out;
}

Result<ImageNode*> use_image(const QueueNode* q, const Image& img) noexcept {
  if (q == nullptr) return fail(Errc::released, "queue is released");
  ImageNode* n = HandleAccess::node(img);
  if (n == nullptr) return fail(Errc::released, "image is released");
  if (n->ctx != q->ctx) return fail(Errc::invalid_argument, "image belongs to another context");
  return n;
}

}  // namespace edgemem::detail
