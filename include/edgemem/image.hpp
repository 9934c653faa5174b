/// @file image.hpp  Image: an image memory object (pyopencl's Image, lluvia's createImage) or an image
/// view of a buffer's bytes. Move-only, RAII. Images are memory like buffers: they keep edgemem's
/// ordering and mapping rules (an image view and the buffer under it count as overlapping byte
/// ranges of one root), and a view keeps its buffer (a pool block, heap run or ring frame) alive.
/// Extents and origins are in pixels; pitches in bytes. For a 1D array, y is the layer; for a 2D
/// array, z is the layer (OpenCL's convention).
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/handle.hpp>
#include <edgemem/image_format.hpp>
#include <edgemem/native.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

/// The shape and format of an image. Extents a type does not use must stay 1.
struct ImageDesc {
  ImageType type = ImageType::image2d;  ///< which kind of image
  ImageFormat format{};                 ///< pixel format
  std::size_t width = 0;                ///< pixels per row (>= 1)
  std::size_t height = 1;               ///< rows (2D, 2D array, 3D; else 1)
  std::size_t depth = 1;                ///< slices (3D; else 1)
  std::size_t array_size = 1;           ///< layers (arrays; else 1)

  /// lluvia's shorthand: an image of `channels` (1: R, 2: RG, 4: RGBA; anything else gives an invalid
  /// format, which create() refuses) channels of `type` with the given extents; depth > 1 makes it 3D,
  /// else height > 1 2D, else 1D.
  static constexpr ImageDesc shape(std::size_t depth, std::size_t height, std::size_t width, unsigned channels,
                                   ChannelType type) noexcept {
    ImageDesc d;
    d.type = depth > 1 ? ImageType::image3d : height > 1 ? ImageType::image2d : ImageType::image1d;
    const ChannelOrder order = channels == 1   ? ChannelOrder::r
                               : channels == 2 ? ChannelOrder::rg
                               : channels == 4 ? ChannelOrder::rgba
                                               : static_cast<ChannelOrder>(0xff);
    d.format = ImageFormat{order, type};
    d.width = width;
    d.height = height;
    d.depth = depth;
    return d;
  }
};

/// A pixel position: x in pixels, y in rows (a 1D array: the layer), z in slices (a 2D array: the layer).
struct ImageOrigin {
  std::size_t x = 0;  ///< pixels
  std::size_t y = 0;  ///< rows, or the layer of a 1D array
  std::size_t z = 0;  ///< slices, or the layer of a 2D array
};
/// A pixel extent, each >= 1 (y and z are 1 for the dimensions an image type lacks).
struct ImageExtent {
  std::size_t x = 0;  ///< pixels
  std::size_t y = 1;  ///< rows, or layers of a 1D array
  std::size_t z = 1;  ///< slices, or layers of a 2D array
};
/// A region of an image: where it starts and how large it is, in pixels.
struct ImageRegion {
  ImageOrigin origin{};  ///< first pixel
  ImageExtent extent{};  ///< size
};
/// The layout of host memory in an image transfer, in bytes; 0 means tight (row: extent.x * pixel
/// bytes; slice: rows * row pitch, for a 1D array the row pitch).
struct HostPitch {
  std::size_t row = 0;    ///< bytes between rows (a multiple of the pixel size, >= a row's bytes)
  std::size_t slice = 0;  ///< bytes between slices or layers (a multiple of `row`, >= a slice's bytes)
};

/// The smallest row pitch in bytes a buffer needs for a 2D image view (Image::view) of `width` pixels of
/// `format` on `ctx`'s device: width * pixel bytes rounded up to the device's pitch alignment. Allocate
/// camera buffers with it and their views need no copy. Errc: released, invalid_argument (invalid
/// format, width 0), unsupported (!info().caps.image_from_buffer), out_of_range (the pitch overflows).
[[nodiscard]] Result<std::size_t> required_row_pitch(const Context& ctx, ImageFormat format, std::size_t width) noexcept;

/// An image, or an image view of a buffer.
class Image : public detail::Handle<detail::MemNode> {
 public:
  /// Creates an image (contents undefined). image1d_buffer makes a buffer of width pixels and the
  /// image over it. Errc: released (ctx), invalid_argument (unknown type or Storage, invalid format,
  /// an extent 0 or an unused extent not 1, bad flag combination), out_of_range (an extent past the
  /// device's ImageLimits), unsupported (!caps.images, or the format not in supported_formats for the
  /// flags' access; host-access flags without caps.host_access_flags), out_of_device_memory,
  /// out_of_host_memory, backend_failure.
  [[nodiscard]] static Result<Image> create(const Context& ctx, const ImageDesc& desc, Storage storage = Storage::device,
                                            MemFlags flags = MemFlags::read_write) noexcept;
  /// create() and copies the pixels from `data` (pyopencl's image_from_array, lluvia's
  /// createImageFromHost), laid out with `pitch` (0: tight; read up to the last pixel, never the padding
  /// after it, on every backend). Errc: as create(), plus invalid_argument
  /// (data null; a pitch too small or not a multiple of the pixel size / row pitch).
  [[nodiscard]] static Result<Image> from_host(const Context& ctx, const ImageDesc& desc, const void* data,
                                               HostPitch pitch = {}, Storage storage = Storage::device,
                                               MemFlags flags = MemFlags::read_write) noexcept;
  /// A new image with the shape, format, storage and flags of `other` (contents not copied; a view's
  /// like is a standalone image). Errc: released (other), as create().
  [[nodiscard]] static Result<Image> like(const Image& other) noexcept;
  /// An image view of `buf`'s bytes, zero-copy: a 2D image (needs caps.image_from_buffer; pixel rows
  /// `row_pitch` bytes apart, 0: required_row_pitch) or a 1D-buffer image (width pixels from the
  /// buffer's first byte; needs caps.images only). The view and `buf` are one memory for edgemem's
  /// ordering and mapping rules; the view keeps the buffer alive (a pool block returns when both are
  /// gone). Access flags are `buf`'s. Errc: released (buf), invalid_argument (type not image2d or
  /// image1d_buffer, invalid format, extent 0 or unused extent not 1, row_pitch below a row's bytes or
  /// not a multiple of the pixel size), out_of_range (the image passes the buffer's end, or the
  /// device's ImageLimits), misaligned (row_pitch not a multiple of the device's pitch alignment, or
  /// the buffer's device address not a multiple of its base address alignment), unsupported (no images;
  /// 2D without caps.image_from_buffer; a sub-buffer, pool block or heap run without
  /// caps.image_from_sub_buffer; format not supported; `buf` is shared virtual memory), out_of_host_memory,
  /// backend_failure.
  [[nodiscard]] static Result<Image> view(const Buffer& buf, const ImageDesc& desc, std::size_t row_pitch = 0) noexcept;
  /// Interop: wraps an image made elsewhere on `ctx` (a cl_mem image). retain takes a reference,
  /// borrow none (as Buffer::adopt). An adopted image is its own root: its ordering is not shared with
  /// a buffer it may have been made over; except a 1D-buffer image, which becomes a view (is_view())
  /// of its buffer, adopted with it (retained), so its commands run on that buffer as for Image::view's
  /// (never the driver's 1D-buffer image path). Errc: released (ctx), invalid_argument (null, other context,
  /// unknown mode; not an image: a buffer, ImageType it has not), unsupported (host backend; format
  /// outside ImageFormat), out_of_host_memory, backend_failure.
  [[nodiscard]] static Result<Image> adopt(const Context& ctx, NativeMem native, AdoptMode mode = AdoptMode::retain) noexcept;

  /// An empty (released) image.
  Image() noexcept = default;
  Image(Image&& other) noexcept = default;             ///< takes over `other`, leaving it released
  Image& operator=(Image&& other) noexcept = default;  ///< drops this handle, then takes over `other`
  ~Image() = default;  ///< drops the handle; outstanding mappings stay valid until they unmap

  /// Shape and format (a default ImageDesc when released).
  [[nodiscard]] ImageDesc desc() const noexcept;
  /// Image type (image2d when released).
  [[nodiscard]] ImageType type() const noexcept { return desc().type; }
  /// Pixel format.
  [[nodiscard]] ImageFormat format() const noexcept { return desc().format; }
  /// Extent in pixels: (width, height, depth), with layers as OpenCL counts them (1D array: y; 2D array: z).
  [[nodiscard]] ImageExtent extent() const noexcept;
  /// The whole image as a region (origin 0, extent()).
  [[nodiscard]] ImageRegion region() const noexcept { return ImageRegion{ImageOrigin{}, extent()}; }
  /// Layers of an array image (1 otherwise).
  [[nodiscard]] std::size_t array_size() const noexcept { return desc().array_size; }
  /// Bytes per pixel (the element size).
  [[nodiscard]] std::size_t element_size() const noexcept { return desc().format.pixel_bytes(); }
  /// Bytes between rows: a view's own; for a standalone image, width * element size.
  [[nodiscard]] std::size_t row_pitch() const noexcept;
  /// Bytes between slices or layers (3D and arrays; a 1D array: the row pitch), else 0.
  [[nodiscard]] std::size_t slice_pitch() const noexcept;
  /// Bytes of pixels: row pitch * rows * slices (what Buffer::like(image) allocates).
  [[nodiscard]] std::size_t size() const noexcept;
  /// Placement (a view: its buffer's).
  [[nodiscard]] Storage storage() const noexcept;
  /// Access flags.
  [[nodiscard]] MemFlags flags() const noexcept;
  /// True for an image view of a buffer.
  [[nodiscard]] bool is_view() const noexcept;
  /// True when this view's bytes are `buf`'s root's (false for standalone images).
  [[nodiscard]] bool shares_root_with(const Buffer& buf) const noexcept;
  /// Native image (a cl_mem image on OpenCL; the first pixel's address on the host backend) for
  /// kernel arguments; empty when released.
  [[nodiscard]] NativeMem native() const noexcept;
  /// Drops this handle. Idempotent. Errc: busy (a mapping made through it is open; nothing changes).
  [[nodiscard]] Result<void> release() noexcept;
  /// Drops this handle in `q`'s order (as Buffer::release(const Queue&)). Errc: as that.
  [[nodiscard]] Result<void> release(const Queue& q) noexcept;

 private:
  friend struct detail::HandleAccess;
  explicit Image(detail::MemNode* node) noexcept : Handle(node) {}
};

}  // namespace edgemem
