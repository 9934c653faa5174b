// Host backend: images and samplers. An image is pitched storage from the allocator policy (tight
// pitches), an image view the buffer's bytes at the view's pitch; commands copy rows, fills encode
// the color once by OpenCL's rules (edgemem/pixel.hpp) and repeat the pixel; a sampler is its
// settings, encoded.
#include <cstring>

#include <edgemem/allocator.hpp>
#include <edgemem/config.hpp>

#include "backend.hpp"

namespace edgemem::backend {

namespace {

/// host_memory.cpp's kStorageAlign: images are freed by Host::mem_release, which passes that alignment.
constexpr std::size_t kImageAlign = EDGEMEM_HOST_BASE_ALIGN < 64 ? 64 : EDGEMEM_HOST_BASE_ALIGN;

using contract::image_offset;

/// Bytes of the image's storage: slices (or layers) times the slice pitch.
std::size_t storage_bytes(const contract::ImageLayout& l) noexcept {
  const ImageDesc& d = l.desc;
  switch (d.type) {
    case ImageType::image3d: return l.slice_pitch * d.depth;
    case ImageType::image1d_array: case ImageType::image2d_array: return l.slice_pitch * d.array_size;
    default: return l.row_pitch * d.height;
  }
}

/// The byte offset of the image's pixel at `origin` + (0, y, z) of a region.
std::size_t image_row(const contract::ImageLayout& l, const ImageOrigin& origin, std::size_t y, std::size_t z) noexcept {
  return image_offset(l.desc.type, l.desc.format.pixel_bytes(), l.row_pitch, l.slice_pitch,
                      ImageOrigin{origin.x, origin.y + y, origin.z + z});
}

/// The byte offset of row (y, z) of a region in host memory laid out with `p`.
std::size_t host_row(ImageType type, const HostPitch& p, std::size_t y, std::size_t z) noexcept {
  return image_offset(type, 0, p.row, p.slice, ImageOrigin{0, y, z});
}

/// Calls f(y, z) for every row of extent `e`.
template <class F>
void for_rows(const ImageExtent& e, F&& f) noexcept {
  for (std::size_t z = 0; z < e.z; ++z)
    for (std::size_t y = 0; y < e.y; ++y) f(y, z);
}

}  // namespace

Result<void> Host::image_formats(const NativeContext&, ImageType, FormatAccess access, FormatSet& out) noexcept {
  out = FormatSet{};
  if (access == FormatAccess::kernel_read_write) return {};  // an OpenCL 1.2 device: no read-write images
  // OpenCL 1.2's minimum list (RGBA of every listed type, BGRA unorm_int8), plus R and RG of the same
  // types unless EDGEMEM_HOST_CAPS says rg=0 (then R and RG are missing, as on PoCL for RG).
  static constexpr ChannelType kTypes[] = {ChannelType::unorm_int8,    ChannelType::unorm_int16,
                                           ChannelType::signed_int8,   ChannelType::signed_int16,
                                           ChannelType::signed_int32,  ChannelType::unsigned_int8,
                                           ChannelType::unsigned_int16, ChannelType::unsigned_int32,
                                           ChannelType::half_float,    ChannelType::float32};
  const bool rg = host_rg_formats();
  for (ChannelType t : kTypes) {
    out.insert(ImageFormat{ChannelOrder::rgba, t});
    if (rg) {
      out.insert(ImageFormat{ChannelOrder::r, t});
      out.insert(ImageFormat{ChannelOrder::rg, t});
    }
  }
  out.insert(ImageFormat{ChannelOrder::bgra, ChannelType::unorm_int8});
  return {};
}

Result<Host::NativeMem> Host::image_create(const NativeContext&, const ImageCreate& desc) noexcept {
  const contract::ImageLayout& l = desc.layout;
  const std::size_t bytes = storage_bytes(l);
  void* p = DefaultAllocator::allocate(bytes, kImageAlign);
  if (p == nullptr) return fail(Errc::out_of_host_memory, "allocator could not provide the image's storage");
  auto* dst = static_cast<std::byte*>(p);
  if (desc.copy_from != nullptr) {
    const auto* src = static_cast<const std::byte*>(desc.copy_from);
    const ImageExtent e{l.desc.width, l.desc.type == ImageType::image1d_array ? l.desc.array_size : l.desc.height,
                        l.desc.type == ImageType::image3d ? l.desc.depth
                        : l.desc.type == ImageType::image2d_array ? l.desc.array_size : 1};
    for_rows(e, [&](std::size_t y, std::size_t z) {
      std::memcpy(dst + image_row(l, ImageOrigin{}, y, z), src + host_row(l.desc.type, desc.host, y, z), l.row_pitch);
    });
  }
  return NativeMem{dst, bytes};
}

Result<Host::NativeMem> Host::image_from_buffer(const NativeContext&, const NativeMem& buffer, const ImageLayout&,
                                                MemFlags) noexcept {
  return NativeMem{buffer.data, 0};
}

Result<void> Host::image_adopt(const NativeContext&, NativeMem image, AdoptMode, AdoptedImage&) noexcept {
  if (image.data == nullptr) return fail(Errc::invalid_argument, "adopt needs a native image");
  return fail(Errc::unsupported, "the host backend has no native objects made elsewhere to adopt");
}

Result<void> Host::write_image(NativeQueue q, const NativeMem& image, const ImageLayout& l, const ImageRegion& r,
                               const void* src, const HostPitch& pitch, const CommandEvents& ev) noexcept {
  const std::size_t row = r.extent.x * l.desc.format.pixel_bytes();
  for_rows(r.extent, [&](std::size_t y, std::size_t z) {
    std::memcpy(image.data + image_row(l, r.origin, y, z),
                static_cast<const std::byte*>(src) + host_row(l.desc.type, pitch, y, z), row);
  });
  return marker(q, ev);
}

Result<void> Host::read_image(NativeQueue q, const NativeMem& image, const ImageLayout& l, const ImageRegion& r,
                              void* dst, const HostPitch& pitch, const CommandEvents& ev) noexcept {
  const std::size_t row = r.extent.x * l.desc.format.pixel_bytes();
  for_rows(r.extent, [&](std::size_t y, std::size_t z) {
    std::memcpy(static_cast<std::byte*>(dst) + host_row(l.desc.type, pitch, y, z),
                image.data + image_row(l, r.origin, y, z), row);
  });
  return marker(q, ev);
}

Result<void> Host::copy_image(NativeQueue q, const NativeMem& src, const ImageLayout& sl, const NativeMem& dst,
                              const ImageLayout& dl, const ImageOrigin& so, const ImageRegion& dr,
                              const CommandEvents& ev) noexcept {
  const std::size_t row = dr.extent.x * dl.desc.format.pixel_bytes();
  // Region rows, as the destination counts them; a 1D array's layers are its rows on both sides.
  for_rows(dr.extent, [&](std::size_t y, std::size_t z) {
    std::memcpy(dst.data + image_row(dl, dr.origin, y, z), src.data + image_row(sl, so, y, z), row);
  });
  return marker(q, ev);
}

Result<void> Host::fill_image(NativeQueue q, const NativeMem& image, const ImageLayout& l, const Color& color,
                              const ImageRegion& r, const CommandEvents& ev) noexcept {
  unsigned char pixel[16];
  if (!encode_pixel(l.desc.format, color, pixel)) return fail(Errc::invalid_argument, "fill color does not fit the format");
  const std::size_t e = l.desc.format.pixel_bytes();
  for_rows(r.extent, [&](std::size_t y, std::size_t z) {
    std::byte* p = image.data + image_row(l, r.origin, y, z);
    for (std::size_t x = 0; x < r.extent.x; ++x) std::memcpy(p + x * e, pixel, e);
  });
  return marker(q, ev);
}

Result<void> Host::copy_image_to_buffer(NativeQueue q, const NativeMem& image, const ImageLayout& l,
                                        const ImageRegion& r, const NativeMem& buffer, std::size_t offset,
                                        const CommandEvents& ev) noexcept {
  const std::size_t row = r.extent.x * l.desc.format.pixel_bytes();
  for_rows(r.extent, [&](std::size_t y, std::size_t z) {
    std::memcpy(buffer.data + offset + (z * r.extent.y + y) * row, image.data + image_row(l, r.origin, y, z), row);
  });
  return marker(q, ev);
}

Result<void> Host::copy_buffer_to_image(NativeQueue q, const NativeMem& buffer, std::size_t offset,
                                        const NativeMem& image, const ImageLayout& l, const ImageRegion& r,
                                        const CommandEvents& ev) noexcept {
  const std::size_t row = r.extent.x * l.desc.format.pixel_bytes();
  for_rows(r.extent, [&](std::size_t y, std::size_t z) {
    std::memcpy(image.data + image_row(l, r.origin, y, z), buffer.data + offset + (z * r.extent.y + y) * row, row);
  });
  return marker(q, ev);
}

Result<Host::MappedImage> Host::map_image(NativeQueue q, const NativeMem& image, const ImageLayout& l, Access,
                                          const ImageRegion& r, const CommandEvents&) noexcept {
  q->fetch_add(1, std::memory_order_relaxed);
  MappedImage m;
  m.mapped.host = image.data + image_row(l, r.origin, 0, 0);
  m.row_pitch = l.row_pitch;
  const ImageType t = l.desc.type;
  m.slice_pitch = t == ImageType::image3d || t == ImageType::image1d_array || t == ImageType::image2d_array ? l.slice_pitch : 0;
  return m;
}

Result<Host::NativeSampler> Host::sampler_create(const NativeContext&, const SamplerDesc& d, const DeviceInfo&) noexcept {
  return static_cast<NativeSampler>(1u | (d.normalized_coords ? 2u : 0u) | static_cast<unsigned>(d.address) << 2 |
                                    static_cast<unsigned>(d.filter) << 5);
}

void Host::sampler_release(NativeSampler) noexcept {}

}  // namespace edgemem::backend
