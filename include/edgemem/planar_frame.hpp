/// @file planar_frame.hpp  PlanarFrame: a planar camera frame (NV12, NV21, I420, P010) in one buffer,
/// each plane a Buffer view and, where the device can, a 2D Image view of that view (zero-copy).
/// PlanarLayout says where the planes lie: made for a context (pitches and offsets the device's image
/// views accept) or given by the caller (V4L2's bytesperline and plane offsets). Sizes, offsets and
/// pitches are in bytes; widths and heights in pixels of the plane's own format.
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/image.hpp>
#include <edgemem/image_format.hpp>
#include <edgemem/pooled_buffer.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

/// The planar YUV 4:2:0 layouts (width and height even).
enum class PlanarFormat : std::uint8_t {
  nv12,  ///< Y plane (R unorm_int8, W x H), then interleaved U,V (RG unorm_int8, W/2 x H/2)
  nv21,  ///< as nv12 with V,U interleaved (RG unorm_int8: r is V, g is U)
  i420,  ///< Y (R unorm_int8, W x H), U and V (R unorm_int8, W/2 x H/2 each)
  p010,  ///< as nv12 with 16-bit samples (the 10 bits in the high bits): R and RG unorm_int16
};
/// Number of PlanarFormat values.
inline constexpr unsigned planar_format_count = 4;

/// Planes of format `f` (2 or 3; 0 for an unknown value).
constexpr unsigned format_planes(PlanarFormat f) noexcept {
  return f == PlanarFormat::i420 ? 3u : static_cast<unsigned>(f) < planar_format_count ? 2u : 0u;
}

/// Where one plane lies in the frame's buffer.
struct PlaneLayout {
  std::size_t offset = 0;     ///< bytes from the frame's first byte to the plane's
  std::size_t row_pitch = 0;  ///< bytes between rows (>= width * pixel bytes)
  std::size_t width = 0;      ///< pixels of `format` per row
  std::size_t height = 0;     ///< rows
  ImageFormat format{};       ///< pixel format of the plane (R or RG, unorm_int8 or unorm_int16)
  /// Bytes the plane spans: row_pitch * height (the size of its Buffer view).
  [[nodiscard]] constexpr std::size_t bytes() const noexcept { return row_pitch * height; }
};

/// The layout of a planar frame in one buffer.
struct PlanarLayout {
  PlanarFormat format = PlanarFormat::nv12;  ///< which planar format
  std::size_t width = 0;                     ///< luma pixels per row
  std::size_t height = 0;                    ///< luma rows
  unsigned plane_count = 0;                  ///< planes in use (2 or 3)
  PlaneLayout planes[3]{};                   ///< planes in order (Y, UV / VU; or Y, U, V)
  std::size_t bytes = 0;                     ///< bytes the frame needs (>= the end of its last plane)

  /// A layout for `ctx`'s device: planes in order, each offset a multiple of ctx.base_align() (so
  /// Buffer::sub works) and, with caps.image_from_buffer, each row pitch required_row_pitch() and
  /// each offset also a multiple of image_limits.base_align_pixels * pixel bytes (so Image::view
  /// works on a buffer whose first byte is so aligned); without it, tight rows. `bytes` is the end of
  /// the last plane rounded up to every plane's offset alignment, so pool blocks and ring frames of
  /// `bytes` carved from an aligned allocation all keep their planes aligned. Errc: released (ctx),
  /// invalid_argument (unknown format; width or height 0 or odd), out_of_range (a size overflows).
  [[nodiscard]] static Result<PlanarLayout> make(const Context& ctx, PlanarFormat f, std::size_t width,
                                                 std::size_t height) noexcept;
  /// A layout the caller gives (V4L2's plane offsets and bytesperline), for a frame of `bytes` bytes:
  /// plane i at `offsets[i]` with rows `pitches[i]` apart (entries past format_planes(f) ignored).
  /// Alignment is not checked here: PlanarFrame::over() reports what Buffer::sub refuses, and planes
  /// whose pitch or offset an image view refuses stay PlanePath::buffer_only. Errc: invalid_argument
  /// (unknown format; width or height 0 or odd; a pitch below a row's bytes or not a multiple of the
  /// pixel size; planes overlapping), out_of_range (a plane passes `bytes`, overflow included).
  [[nodiscard]] static Result<PlanarLayout> given(PlanarFormat f, std::size_t width, std::size_t height,
                                                  const std::size_t (&offsets)[3], const std::size_t (&pitches)[3],
                                                  std::size_t bytes) noexcept;
};

/// How a plane of a PlanarFrame can be reached.
enum class PlanePath : std::uint8_t {
  buffer_only,  ///< a Buffer view only (no image view: device, format, limits or alignment)
  image_view,   ///< a Buffer view and a 2D Image view of it (kernels may sample it)
};

/// A planar frame over one buffer it owns (a plain buffer, a pool block or a ring frame): one Buffer
/// view per plane and, where the device can, an Image view of each. Move-only. Its views keep the
/// frame's memory alive; a pool block or ring frame returns to its pool when the PlanarFrame (and
/// every view or mapping taken from it) is gone, or leaves it through take_pooled().
class PlanarFrame {
 public:
  /// Takes `frame` and makes the plane views. A plane gets an Image view when the device has
  /// caps.image_from_buffer, supports the plane's format for 2D images with the buffer's access, the
  /// plane fits its ImageLimits, and Image::view accepts the plane's pitch and address (its
  /// Errc::unsupported and misaligned leave the plane buffer_only). Errc: released (frame),
  /// invalid_argument (a layout neither make() nor given() could return: unknown format, plane count
  /// or plane format not the format's, zero extent, a pitch below a row's bytes or not a multiple of
  /// the pixel size, planes overlapping: the checks of given(), on every backend), out_of_range (a
  /// plane past layout.bytes, layout.bytes > frame.size()), those
  /// of Buffer::sub (misaligned: a plane offset not a multiple of ctx.base_align(); out_of_host_memory)
  /// and of Image::view other than unsupported and misaligned. On failure `frame` stays with the
  /// caller, unchanged.
  [[nodiscard]] static Result<PlanarFrame> over(Buffer&& frame, const PlanarLayout& layout) noexcept;
  /// As over(Buffer&&, ...) for a pool block or ring frame, kept as a PooledBuffer (take_pooled() gives
  /// it back, e.g. to FrameRing::publish it). Errc: as over(Buffer&&, ...); on failure `frame` stays
  /// with the caller (not returned to its pool).
  [[nodiscard]] static Result<PlanarFrame> over(PooledBuffer&& frame, const PlanarLayout& layout) noexcept;

  /// An empty (released) frame.
  PlanarFrame() noexcept = default;
  PlanarFrame(PlanarFrame&& other) noexcept = default;             ///< takes over `other`, leaving it released
  PlanarFrame& operator=(PlanarFrame&& other) noexcept = default;  ///< drops this frame, then takes over `other`
  PlanarFrame(const PlanarFrame&) = delete;
  PlanarFrame& operator=(const PlanarFrame&) = delete;
  ~PlanarFrame() = default;  ///< drops the views and the frame; open mappings stay valid until they unmap

  /// True until released or moved from.
  [[nodiscard]] bool valid() const noexcept { return whole().valid(); }
  /// The layout given to over() (a default one when released).
  [[nodiscard]] const PlanarLayout& layout() const noexcept { return layout_; }
  /// Planes (0 when released).
  [[nodiscard]] unsigned plane_count() const noexcept { return valid() ? layout_.plane_count : 0; }
  /// Plane i's Buffer view (row_pitch * height bytes at its offset); a released Buffer for i out of range.
  [[nodiscard]] const Buffer& plane(unsigned i) const noexcept { return i < 3 ? planes_[i] : none_; }
  /// Plane i's Buffer view, writable (q.write, q.map with Access::write); for i out of range a
  /// released Buffer that must not be assigned to.
  [[nodiscard]] Buffer& plane(unsigned i) noexcept { return i < 3 ? planes_[i] : none_; }
  /// Plane i's 2D Image view; released when path(i) is buffer_only or i is out of range.
  [[nodiscard]] const Image& image(unsigned i) const noexcept { return i < 3 ? images_[i] : no_image_; }
  /// Plane i's 2D Image view, writable (q.write_image); as image(i) const otherwise.
  [[nodiscard]] Image& image(unsigned i) noexcept { return i < 3 ? images_[i] : no_image_; }
  /// How plane i can be reached (buffer_only for i out of range or when released).
  [[nodiscard]] PlanePath path(unsigned i) const noexcept {
    return i < 3 && images_[i].valid() ? PlanePath::image_view : PlanePath::buffer_only;
  }
  /// The whole frame buffer (a pool block's Buffer for a PooledBuffer frame); released when released.
  [[nodiscard]] const Buffer& frame() const noexcept { return whole(); }
  /// The whole frame buffer, writable (q.write_rect of a camera's bytes).
  [[nodiscard]] Buffer& frame() noexcept { return pooled_.valid() ? pooled_.buffer() : frame_; }
  /// True when the frame is a PooledBuffer (over(PooledBuffer, ...)).
  [[nodiscard]] bool is_pooled() const noexcept { return pooled_.valid(); }

  /// Drops the views and the frame (a pool block returns to its pool). Idempotent. Errc: busy (a
  /// mapping made through a plane, an image view or frame() is open; nothing changes).
  [[nodiscard]] Result<void> release() noexcept;
  /// Drops the views and hands back the PooledBuffer given to over(), leaving this frame released
  /// (e.g. to FrameRing::publish() it). Errc: released (released, or not over a PooledBuffer; nothing
  /// changes), busy (as release(); nothing changes).
  [[nodiscard]] Result<PooledBuffer> take_pooled() noexcept;

 private:
  const Buffer& whole() const noexcept { return pooled_.valid() ? pooled_.buffer() : frame_; }
  Result<void> make_views() noexcept;
  Result<void> check_unmapped() const noexcept;
  void drop_views() noexcept;

  PlanarLayout layout_{};
  Buffer frame_;         // a plain frame (empty for a pooled one)
  PooledBuffer pooled_;  // a pooled frame (empty for a plain one)
  Buffer planes_[3];     // destroyed before the frame
  Image images_[3];      // destroyed first
  Buffer none_;          // always released: plane(i) for i out of range
  Image no_image_;       // always released: image(i) for i out of range
};

}  // namespace edgemem
