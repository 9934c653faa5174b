// The Queue's image commands: write, read, copy, fill, and copies between images and buffers.
#include <edgemem/queue.hpp>

#include "core/image_checks.hpp"
#include "core/svm_root.hpp"
#include "core/image_node.hpp"
#include "core/nodes.hpp"
#include "core/submit.hpp"
#include "image/exact_fill.hpp"

namespace edgemem {

using detail::Backend;
using detail::ByteRange;
using detail::ImageNode;
using detail::MemNode;
using detail::QueueNode;

namespace {

// A 1D-buffer image view (!image_object) is its buffer's bytes, tightly packed: its commands run as
// buffer commands on the root at the view's origin (the same bytes; and PoCL 3.1 crashes filling
// or copying from such images). span.begin is the region's first byte in the view.

/// The host transfer of write_image (`writes_image`) or read_image.
Result<void> enqueue_host_transfer(QueueNode* q, const Image& img, const ImageRegion& r, const void* host,
                                   std::size_t host_bytes, HostPitch pitch, bool writes_image, WaitList waits,
                                   Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(ImageNode* n, detail::use_image(q, img));
  if (host == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
  EDGEMEM_TRY(detail::check_image_region(n, r));
  std::size_t needed = 0;
  EDGEMEM_TRY_ASSIGN(const HostPitch resolved, detail::resolve_host_pitch(n->layout.desc, r.extent, pitch, host_bytes, needed));
  if (detail::host_in_wrapped_memory(host, needed, n))
    return fail(Errc::overlap, "host memory lies in the caller memory the image's buffer wraps");
  EDGEMEM_TRY(detail::check_host_access(n->flags, !writes_image, writes_image));
  if (writes_image) EDGEMEM_TRY(detail::check_writable(n));
  const ByteRange span = detail::image_span(n, r);
  EDGEMEM_TRY(detail::check_not_mapped(n, span, writes_image));
  return detail::submit(q, waits, out, {n, span, writes_image}, [&](const Backend::CommandEvents& s) -> Result<void> {
    const std::size_t at = n->origin + span.begin, bytes = span.end - span.begin;
    if (!n->image_object)
      return writes_image ? Backend::write(q->native, n->root->native, at, host, bytes, s)
                          : Backend::read(q->native, n->root->native, at, const_cast<void*>(host), bytes, s);
    return writes_image ? Backend::write_image(q->native, n->native, n->layout, r, host, resolved, s)
                        : Backend::read_image(q->native, n->native, n->layout, r, const_cast<void*>(host), resolved, s);
  });
}

/// True when boxes (origin a / b, same extent e) share a pixel.
bool boxes_overlap(const ImageOrigin& a, const ImageOrigin& b, const ImageExtent& e) noexcept {
  auto axis = [](std::size_t p, std::size_t q, std::size_t len) { return p < q + len && q < p + len; };
  return axis(a.x, b.x, e.x) && axis(a.y, b.y, e.y) && axis(a.z, b.z, e.z);
}

Result<void> enqueue_copy_image(QueueNode* q, const Image& src, Image& dst, ImageOrigin so, const ImageRegion& dr,
                                WaitList waits, Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(ImageNode* s, detail::use_image(q, src));
  EDGEMEM_TRY_ASSIGN(ImageNode* d, detail::use_image(q, dst));
  if (s->layout.desc.format != d->layout.desc.format) return fail(Errc::invalid_argument, "image formats differ");
  const ImageRegion sr{so, dr.extent};
  EDGEMEM_TRY(detail::check_image_region(s, sr));
  EDGEMEM_TRY(detail::check_image_region(d, dr));
  const ByteRange ss = detail::image_span(s, sr), ds = detail::image_span(d, dr);
  const bool overlap = s == d ? boxes_overlap(so, dr.origin, dr.extent)
                              : s->root == d->root && detail::intersects(ByteRange{s->origin + ss.begin, s->origin + ss.end},
                                                                         ByteRange{d->origin + ds.begin, d->origin + ds.end});
  if (overlap) return fail(Errc::overlap, "copy source and destination regions overlap");
  EDGEMEM_TRY(detail::check_writable(d));
  EDGEMEM_TRY(detail::check_not_mapped(s, ss, false));
  EDGEMEM_TRY(detail::check_not_mapped(d, ds, true));
  return detail::submit(q, waits, out, {s, ss, false}, {d, ds, true}, [&](const Backend::CommandEvents& ev) -> Result<void> {
    const std::size_t s_at = s->origin + ss.begin, d_at = d->origin + ds.begin;
    if (!s->image_object && !d->image_object)
      return Backend::copy(q->native, s->root->native, d->root->native, s_at, d_at, ss.end - ss.begin, ev);
    if (!s->image_object) return Backend::copy_buffer_to_image(q->native, s->root->native, s_at, d->native, d->layout, dr, ev);
    if (!d->image_object) return Backend::copy_image_to_buffer(q->native, s->native, s->layout, sr, d->root->native, d_at, ev);
    return Backend::copy_image(q->native, s->native, s->layout, d->native, d->layout, so, dr, ev);
  });
}

Result<void> enqueue_fill_image(QueueNode* q, Image& dst, const Color& color, const ImageRegion& r, WaitList waits,
                                Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(ImageNode* n, detail::use_image(q, dst));
  if (color.kind != n->layout.desc.format.kind())
    return fail(Errc::invalid_argument, "fill color kind does not match the image's channel type");
  EDGEMEM_TRY(detail::check_image_region(n, r));
  EDGEMEM_TRY(detail::check_host_access(n->flags, false, true));
  EDGEMEM_TRY(detail::check_writable(n));
  const ByteRange span = detail::image_span(n, r);
  EDGEMEM_TRY(detail::check_not_mapped(n, span, true));
  unsigned char pixel[16];
  const std::size_t e = n->layout.desc.format.pixel_bytes();
  const bool as_buffer = !n->image_object && e <= n->ctx->info.caps.max_fill_pattern_bytes &&
                         encode_pixel(n->layout.desc.format, color, pixel);
  return detail::submit(q, waits, out, {n, span, true}, [&](const Backend::CommandEvents& s) -> Result<void> {
    if (as_buffer)  // the pixel, encoded by OpenCL's rules, as a fill pattern of the buffer's bytes
      return Backend::fill(q->native, n->root->native, n->origin + span.begin, span.end - span.begin, pixel, e, s);
    // Every fill ends in encode_pixel's bits: the driver gets a colour it cannot convert otherwise.
    return Backend::fill_image(q->native, n->native, n->layout, detail::exact_fill_color(n->layout.desc.format, color), r, s);
  });
}

/// copy_image_to_buffer (`to_buffer`) or copy_buffer_to_image.
Result<void> enqueue_image_buffer(QueueNode* q, const Image& img, const ImageRegion& r, const Buffer& buf,
                                  std::size_t offset, bool to_buffer, WaitList waits, Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(ImageNode* n, detail::use_image(q, img));
  EDGEMEM_TRY_ASSIGN(MemNode* b, detail::use(q, buf));
  EDGEMEM_TRY(detail::check_not_svm(b));
  EDGEMEM_TRY(detail::check_image_region(n, r));
  const std::size_t e = n->layout.desc.format.pixel_bytes();
  std::size_t bytes = r.extent.x;
  for (std::size_t f : {e, r.extent.y, r.extent.z}) {
    if (bytes > static_cast<std::size_t>(-1) / f) return fail(Errc::out_of_range, "region size overflows");
    bytes *= f;
  }
  EDGEMEM_TRY(detail::check_range(offset, bytes, b->bytes));
  const ByteRange span = detail::image_span(n, r), range{offset, offset + bytes};
  if (n->root == b->root && detail::intersects(ByteRange{n->origin + span.begin, n->origin + span.end},
                                               ByteRange{b->origin + offset, b->origin + offset + bytes}))
    return fail(Errc::overlap, "the buffer's bytes and the image's region overlap");
  if (to_buffer) EDGEMEM_TRY(detail::check_writable(b));
  else EDGEMEM_TRY(detail::check_writable(n));
  EDGEMEM_TRY(detail::check_not_mapped(n, span, !to_buffer));
  EDGEMEM_TRY(detail::check_not_mapped(b, range, to_buffer));
  const detail::MemUse image_use{n, span, !to_buffer}, buffer_use{b, range, to_buffer};
  return detail::submit(q, waits, out, image_use, buffer_use, [&](const Backend::CommandEvents& s) -> Result<void> {
    if (!n->image_object) {
      const std::size_t image_at = n->origin + span.begin, buffer_at = b->origin + offset;
      return to_buffer ? Backend::copy(q->native, n->root->native, b->root->native, image_at, buffer_at, bytes, s)
                       : Backend::copy(q->native, b->root->native, n->root->native, buffer_at, image_at, bytes, s);
    }
    return to_buffer ? Backend::copy_image_to_buffer(q->native, n->native, n->layout, r, b->root->native,
                                                     b->origin + offset, s)
                     : Backend::copy_buffer_to_image(q->native, b->root->native, b->origin + offset, n->native,
                                                     n->layout, r, s);
  });
}

}  // namespace

Result<void> Queue::write_image(Image& dst, const ImageRegion& region, const void* src, std::size_t src_bytes,
                                HostPitch pitch) noexcept {
  return enqueue_host_transfer(node_, dst, region, src, src_bytes, pitch, true, {}, nullptr);
}
Result<Event> Queue::write_image_async(Image& dst, const ImageRegion& region, const void* src, std::size_t src_bytes,
                                       HostPitch pitch, WaitList waits) noexcept {
  return detail::as_async(
      [&](Event* e) { return enqueue_host_transfer(node_, dst, region, src, src_bytes, pitch, true, waits, e); });
}
Result<void> Queue::read_image(const Image& src, const ImageRegion& region, void* dst, std::size_t dst_bytes,
                               HostPitch pitch) noexcept {
  return enqueue_host_transfer(node_, src, region, dst, dst_bytes, pitch, false, {}, nullptr);
}
Result<Event> Queue::read_image_async(const Image& src, const ImageRegion& region, void* dst, std::size_t dst_bytes,
                                      HostPitch pitch, WaitList waits) noexcept {
  return detail::as_async(
      [&](Event* e) { return enqueue_host_transfer(node_, src, region, dst, dst_bytes, pitch, false, waits, e); });
}
Result<void> Queue::copy_image(const Image& src, Image& dst, ImageOrigin src_origin, const ImageRegion& dst_region) noexcept {
  return enqueue_copy_image(node_, src, dst, src_origin, dst_region, {}, nullptr);
}
Result<Event> Queue::copy_image_async(const Image& src, Image& dst, ImageOrigin src_origin,
                                      const ImageRegion& dst_region, WaitList waits) noexcept {
  return detail::as_async([&](Event* e) { return enqueue_copy_image(node_, src, dst, src_origin, dst_region, waits, e); });
}
Result<void> Queue::fill_image(Image& dst, const Color& color, const ImageRegion& region) noexcept {
  return enqueue_fill_image(node_, dst, color, region, {}, nullptr);
}
Result<Event> Queue::fill_image_async(Image& dst, const Color& color, const ImageRegion& region, WaitList waits) noexcept {
  return detail::as_async([&](Event* e) { return enqueue_fill_image(node_, dst, color, region, waits, e); });
}
Result<void> Queue::copy_image_to_buffer(const Image& src, const ImageRegion& region, Buffer& dst,
                                         std::size_t dst_offset) noexcept {
  return enqueue_image_buffer(node_, src, region, dst, dst_offset, true, {}, nullptr);
}
Result<Event> Queue::copy_image_to_buffer_async(const Image& src, const ImageRegion& region, Buffer& dst,
                                                std::size_t dst_offset, WaitList waits) noexcept {
  return detail::as_async([&](Event* e) { return enqueue_image_buffer(node_, src, region, dst, dst_offset, true, waits, e); });
}
Result<void> Queue::copy_buffer_to_image(const Buffer& src, std::size_t src_offset, Image& dst,
                                         const ImageRegion& region) noexcept {
  return enqueue_image_buffer(node_, dst, region, src, src_offset, false, {}, nullptr);
}
Result<Event> Queue::copy_buffer_to_image_async(const Buffer& src, std::size_t src_offset, Image& dst,
                                                const ImageRegion& region, WaitList waits) noexcept {
  return detail::as_async([&](Event* e) { return enqueue_image_buffer(node_, dst, region, src, src_offset, false, waits, e); });
}

}  // namespace edgemem
