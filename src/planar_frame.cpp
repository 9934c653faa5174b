// PlanarLayout (plane shapes, pitches and offsets) and PlanarFrame (a frame buffer with one Buffer view
// and, where the device can, one Image view per plane). No allocation here beyond the nodes that
// Buffer::sub and Image::view take from the allocator policy.
#include <edgemem/planar_frame.hpp>

#include <utility>

#include "core/image_checks.hpp"
#include "core/nodes.hpp"
#include "core/roots.hpp"

namespace edgemem {

namespace {

constexpr std::size_t kMax = static_cast<std::size_t>(-1);
// A released frame's layout. A named object: GCC 12.2 ICEs (gimple_add_tmp_var) on `= PlanarLayout{}`.
const PlanarLayout kNoLayout{};

/// The shape of plane `i` of format `f` for a `w` x `h` frame (offset and pitch left 0).
PlaneLayout plane_shape(PlanarFormat f, unsigned i, std::size_t w, std::size_t h) noexcept {
  const ChannelType t = f == PlanarFormat::p010 ? ChannelType::unorm_int16 : ChannelType::unorm_int8;
  PlaneLayout p;
  if (i == 0) {
    p.width = w;
    p.height = h;
    p.format = ImageFormat{ChannelOrder::r, t};
  } else {
    p.width = w / 2;
    p.height = h / 2;
    p.format = ImageFormat{f == PlanarFormat::i420 ? ChannelOrder::r : ChannelOrder::rg, t};
  }
  return p;
}

/// The checks make() and given() share: a known format, even non-zero extents. Fills the shapes.
Result<PlanarLayout> shapes(PlanarFormat f, std::size_t width, std::size_t height) noexcept {
  if (format_planes(f) == 0) return fail(Errc::invalid_argument, "unknown planar format");
  if (width == 0 || height == 0) return fail(Errc::invalid_argument, "planar frame width or height is 0");
  if (width % 2 != 0 || height % 2 != 0)
    return fail(Errc::invalid_argument, "4:2:0 planar frames need an even width and height");
  // Built in the result itself: GCC 12 at -O3 warns (-Wmaybe-uninitialized, a false positive) when a
  // local layout is copied into the Result on return.
  Result<PlanarLayout> out = kNoLayout;
  PlanarLayout& l = *out;
  l.format = f;
  l.width = width;
  l.height = height;
  l.plane_count = format_planes(f);
  for (unsigned i = 0; i < l.plane_count; ++i) {
    l.planes[i] = plane_shape(f, i, width, height);
    if (l.planes[i].width > kMax / l.planes[i].format.pixel_bytes())
      return fail(Errc::out_of_range, "a plane's row size overflows");
  }
  return out;
}

/// `v` rounded up to a multiple of `a` (> 0); false on overflow.
bool round_up(std::size_t v, std::size_t a, std::size_t& out) noexcept {
  const std::size_t r = v % a;
  if (r == 0) {
    out = v;
    return true;
  }
  if (v > kMax - (a - r)) return false;
  out = v + (a - r);
  return true;
}

/// Least common multiple of two alignments (> 0); 0 on overflow.
std::size_t lcm(std::size_t a, std::size_t b) noexcept {
  std::size_t x = a, y = b;
  while (y != 0) {
    const std::size_t t = x % y;
    x = y;
    y = t;
  }
  const std::size_t q = a / x;
  return q > kMax / b ? 0 : q * b;
}

/// The end of plane `p` (offset + pitch * height); false on overflow.
bool plane_end(const PlaneLayout& p, std::size_t& end) noexcept {
  if (p.height != 0 && p.row_pitch > kMax / p.height) return false;
  const std::size_t span = p.row_pitch * p.height;
  if (p.offset > kMax - span) return false;
  end = p.offset + span;
  return true;
}

/// What given() checks and over() checks again for any layout it is handed (one rule, so a layout
/// given() refuses is refused by over() on every backend, before any view is made): each plane's pitch
/// at least its row bytes and a multiple of its pixel size, each plane inside `bytes`, no two planes
/// overlapping. Errc: invalid_argument (pitch, overlap), out_of_range (a plane past `bytes`, overflow).
Result<void> check_planes(const PlanarLayout& l) noexcept {
  std::size_t ends[3] = {};
  for (unsigned i = 0; i < l.plane_count && i < 3; ++i) {
    const PlaneLayout& p = l.planes[i];
    const std::size_t e = p.format.pixel_bytes();
    if (p.row_pitch < p.width * e) return fail(Errc::invalid_argument, "a plane's row pitch is below its row bytes");
    if (e == 0 || p.row_pitch % e != 0)
      return fail(Errc::invalid_argument, "a plane's row pitch is not a multiple of its pixel size");
    if (!plane_end(p, ends[i]) || ends[i] > l.bytes) return fail(Errc::out_of_range, "a plane passes the frame's end");
    for (unsigned j = 0; j < i; ++j)
      if (p.offset < ends[j] && l.planes[j].offset < ends[i]) return fail(Errc::invalid_argument, "two planes overlap");
  }
  return {};
}

}  // namespace

Result<PlanarLayout> PlanarLayout::make(const Context& ctx, PlanarFormat f, std::size_t width,
                                        std::size_t height) noexcept {
  const std::size_t base = ctx.base_align();
  if (base == 0) return fail(Errc::released, "context is released");
  EDGEMEM_TRY_ASSIGN(PlanarLayout l, shapes(f, width, height));
  const DeviceInfo& info = ctx.info();
  const bool views = info.caps.image_from_buffer;
  std::size_t end = 0, frame_align = base;
  for (unsigned i = 0; i < l.plane_count; ++i) {
    PlaneLayout& p = l.planes[i];
    const std::size_t e = p.format.pixel_bytes();
    p.row_pitch = p.width * e;  // shapes() checked the overflow
    std::size_t align = base;
    if (views) {
      EDGEMEM_TRY_ASSIGN(p.row_pitch, required_row_pitch(ctx, p.format, p.width));
      const std::size_t image_align = static_cast<std::size_t>(info.image_limits.base_align_pixels) * e;
      if (image_align != 0) align = lcm(base, image_align);
      if (align == 0) return fail(Errc::out_of_range, "plane alignment overflows");
    }
    if (!round_up(end, align, p.offset) || !plane_end(p, end))
      return fail(Errc::out_of_range, "planar frame size overflows");
    frame_align = lcm(frame_align, align);
    if (frame_align == 0) return fail(Errc::out_of_range, "plane alignment overflows");
  }
  // Whole frames of `bytes` back to back (pool blocks, ring frames) keep every plane aligned.
  if (!round_up(end, frame_align, l.bytes)) return fail(Errc::out_of_range, "planar frame size overflows");
  return l;
}

Result<PlanarLayout> PlanarLayout::given(PlanarFormat f, std::size_t width, std::size_t height,
                                         const std::size_t (&offsets)[3], const std::size_t (&pitches)[3],
                                         std::size_t bytes) noexcept {
  EDGEMEM_TRY_ASSIGN(PlanarLayout l, shapes(f, width, height));
  for (unsigned i = 0; i < l.plane_count; ++i) {
    l.planes[i].offset = offsets[i];
    l.planes[i].row_pitch = pitches[i];
  }
  l.bytes = bytes;
  EDGEMEM_TRY(check_planes(l));
  return l;
}

Result<PlanarFrame> PlanarFrame::over(Buffer&& frame, const PlanarLayout& layout) noexcept {
  if (!frame.valid()) return fail(Errc::released, "frame buffer is released");
  PlanarFrame out;
  out.frame_ = std::move(frame);
  out.layout_ = layout;
  auto made = out.make_views();
  if (!made) {
    out.drop_views();
    frame = std::move(out.frame_);  // the caller keeps its frame
    return fail(made.error());
  }
  return out;
}

Result<PlanarFrame> PlanarFrame::over(PooledBuffer&& frame, const PlanarLayout& layout) noexcept {
  if (!frame.valid()) return fail(Errc::released, "frame is empty");
  PlanarFrame out;
  out.pooled_ = std::move(frame);
  out.layout_ = layout;
  auto made = out.make_views();
  if (!made) {
    out.drop_views();
    frame = std::move(out.pooled_);  // the caller keeps its block
    return fail(made.error());
  }
  return out;
}

Result<void> PlanarFrame::make_views() noexcept {
  const PlanarLayout& l = layout_;
  const unsigned n = format_planes(l.format);
  if (n == 0 || l.plane_count != n || l.width == 0 || l.height == 0)
    return fail(Errc::invalid_argument, "not a planar layout (format, plane count or extent)");
  for (unsigned i = 0; i < n; ++i) {
    const PlaneLayout want = plane_shape(l.format, i, l.width, l.height);
    const PlaneLayout& p = l.planes[i];
    if (p.width != want.width || p.height != want.height || !(p.format == want.format))
      return fail(Errc::invalid_argument, "a plane's extent or format is not the planar format's");
  }
  EDGEMEM_TRY(check_planes(l));
  const Buffer& whole = this->whole();
  if (l.bytes > whole.size()) return fail(Errc::out_of_range, "the frame buffer is smaller than the layout");
  const detail::ContextNode* cn = detail::node_of(whole)->ctx;
  const DeviceInfo& info = cn->info;
  for (unsigned i = 0; i < n; ++i) {
    const PlaneLayout& p = l.planes[i];
    EDGEMEM_TRY_ASSIGN(planes_[i], whole.sub(p.offset, p.row_pitch * p.height));
    const ImageLimits& lim = info.image_limits;
    if (!info.caps.image_from_buffer || !info.caps.image_from_sub_buffer || p.width > lim.max_width_2d ||
        p.height > lim.max_height_2d)
      continue;
    if (!detail::check_format_supported(cn, ImageType::image2d, p.format, whole.flags())) continue;
    ImageDesc d;
    d.type = ImageType::image2d;
    d.format = p.format;
    d.width = p.width;
    d.height = p.height;
    auto view = Image::view(planes_[i], d, p.row_pitch);
    if (view) {
      images_[i] = std::move(*view);
    } else if (view.error().code != Errc::unsupported && view.error().code != Errc::misaligned) {
      return fail(view.error());
    }
  }
  return {};
}

Result<void> PlanarFrame::check_unmapped() const noexcept {
  // Every handle first, so a busy answer changes nothing.
  for (unsigned i = 0; i < 3; ++i) {
    if (detail::MemNode* m = detail::node_of(images_[i])) EDGEMEM_TRY(detail::check_releasable(m));
    if (detail::MemNode* m = detail::node_of(planes_[i])) EDGEMEM_TRY(detail::check_releasable(m));
  }
  if (detail::MemNode* m = detail::node_of(whole())) EDGEMEM_TRY(detail::check_releasable(m));
  return {};
}

void PlanarFrame::drop_views() noexcept {
  for (unsigned i = 0; i < 3; ++i) {
    images_[i] = Image{};
    planes_[i] = Buffer{};
  }
}

Result<void> PlanarFrame::release() noexcept {
  EDGEMEM_TRY(check_unmapped());
  drop_views();
  frame_ = Buffer{};
  pooled_ = PooledBuffer{};
  layout_ = kNoLayout;
  return {};
}

Result<PooledBuffer> PlanarFrame::take_pooled() noexcept {
  if (!pooled_.valid()) return fail(Errc::released, "the planar frame is not over a PooledBuffer");
  EDGEMEM_TRY(check_unmapped());
  drop_views();
  layout_ = kNoLayout;
  return std::move(pooled_);
}

}  // namespace edgemem
