// The rectangular transfers: write_rect, read_rect, copy_rect.
#include <edgemem/queue.hpp>

#include <cstdint>

#include "core/checks.hpp"
#include "core/svm_root.hpp"
#include "core/nodes.hpp"
#include "core/submit.hpp"

namespace edgemem {

using detail::Backend;
using detail::ByteRange;
using detail::MemNode;
using detail::QueueNode;

namespace {

/// Resolves both sides of a host<->buffer rect; `span` and `host_span` receive the bounding ranges in
/// the buffer and in the host memory.
Result<Rect> resolve_host_rect(const Rect& rect, std::size_t buffer_bytes, std::size_t host_bytes, ByteRange& span,
                               ByteRange& host_span) noexcept {
  Rect r = rect;
  EDGEMEM_TRY_ASSIGN(r.buffer, detail::resolve_rect_side(rect.buffer, rect.region, buffer_bytes, span));
  EDGEMEM_TRY_ASSIGN(r.host, detail::resolve_rect_side(rect.host, rect.region, host_bytes, host_span));
  return r;
}

/// The rect moved onto the view's root: a rect byte lies at z * slice_pitch + y * row_pitch + x, so the
/// view's origin adds to x.
Rect on_root(Rect r, std::size_t origin) noexcept {
  r.buffer.origin.x += origin;
  return r;
}

Result<void> enqueue_write_rect(QueueNode* q, Buffer& dst, const Rect& rect, const void* src, std::size_t src_bytes,
                                WaitList waits, Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::use(q, dst));
  EDGEMEM_TRY(detail::check_not_svm(n));
  if (src == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
  ByteRange span, host_span;
  EDGEMEM_TRY_ASSIGN(const Rect r, resolve_host_rect(rect, n->bytes, src_bytes, span, host_span));
  if (detail::host_in_wrapped_memory(static_cast<const std::byte*>(src) + host_span.begin, host_span.end - host_span.begin, n))
    return fail(Errc::overlap, "write_rect source lies in the caller memory the buffer wraps");
  EDGEMEM_TRY(detail::check_host_access(n->flags, false, true));
  EDGEMEM_TRY(detail::check_writable(n));
  EDGEMEM_TRY(detail::check_not_mapped(n, span, true));
  return detail::submit(q, waits, out, {n, span, true}, [&](const Backend::CommandEvents& s) {
    return Backend::write_rect(q->native, n->root->native, on_root(r, n->origin), src, s);
  });
}

Result<void> enqueue_read_rect(QueueNode* q, const Buffer& src, const Rect& rect, void* dst, std::size_t dst_bytes,
                               WaitList waits, Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::use(q, src));
  EDGEMEM_TRY(detail::check_not_svm(n));
  if (dst == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
  ByteRange span, host_span;
  EDGEMEM_TRY_ASSIGN(const Rect r, resolve_host_rect(rect, n->bytes, dst_bytes, span, host_span));
  if (detail::host_in_wrapped_memory(static_cast<const std::byte*>(dst) + host_span.begin, host_span.end - host_span.begin, n))
    return fail(Errc::overlap, "read_rect destination lies in the caller memory the buffer wraps");
  EDGEMEM_TRY(detail::check_host_access(n->flags, true, false));
  EDGEMEM_TRY(detail::check_not_mapped(n, span, false));
  return detail::submit(q, waits, out, {n, span, false}, [&](const Backend::CommandEvents& s) {
    return Backend::read_rect(q->native, n->root->native, on_root(r, n->origin), dst, s);
  });
}

Result<void> enqueue_copy_rect(QueueNode* q, const Buffer& src, Buffer& dst, const CopyRect& rect, WaitList waits,
                               Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* s, detail::use(q, src));
  EDGEMEM_TRY_ASSIGN(MemNode* d, detail::use(q, dst));
  EDGEMEM_TRY(detail::check_not_svm(s));
  EDGEMEM_TRY(detail::check_not_svm(d));
  CopyRect r = rect;
  ByteRange src_span, dst_span;
  EDGEMEM_TRY_ASSIGN(r.src, detail::resolve_rect_side(rect.src, rect.region, s->bytes, src_span));
  EDGEMEM_TRY_ASSIGN(r.dst, detail::resolve_rect_side(rect.dst, rect.region, d->bytes, dst_span));
  if (s->root == d->root && detail::rects_overlap(s->origin, r.src, d->origin, r.dst, r.region))
    return fail(Errc::overlap, "copy_rect source and destination regions overlap");
  if (detail::any_alias(s, d, [&](std::uintptr_t sb, std::uintptr_t db) {
        return detail::rects_overlap(sb, r.src, db, r.dst, r.region);
      }))
    return fail(Errc::overlap, "copy_rect source and destination overlap in memory both buffers reach (wraps, imports of one file)");
  EDGEMEM_TRY(detail::check_writable(d));
  EDGEMEM_TRY(detail::check_not_mapped(s, src_span, false));
  EDGEMEM_TRY(detail::check_not_mapped(d, dst_span, true));
  return detail::submit(q, waits, out, {s, src_span, false}, {d, dst_span, true}, [&](const Backend::CommandEvents& sy) {
    CopyRect moved = r;  // both sides onto their roots, as on_root() does
    moved.src.origin.x += s->origin;
    moved.dst.origin.x += d->origin;
    return Backend::copy_rect(q->native, s->root->native, d->root->native, moved, sy);
  });
}

}  // namespace

Result<void> Queue::write_rect(Buffer& dst, const Rect& rect, const void* src, std::size_t src_bytes) noexcept {
  return enqueue_write_rect(node_, dst, rect, src, src_bytes, {}, nullptr);
}
Result<Event> Queue::write_rect_async(Buffer& dst, const Rect& rect, const void* src, std::size_t src_bytes,
                                      WaitList waits) noexcept {
  return detail::as_async([&](Event* e) { return enqueue_write_rect(node_, dst, rect, src, src_bytes, waits, e); });
}

Result<void> Queue::read_rect(const Buffer& src, const Rect& rect, void* dst, std::size_t dst_bytes) noexcept {
  return enqueue_read_rect(node_, src, rect, dst, dst_bytes, {}, nullptr);
}
Result<Event> Queue::read_rect_async(const Buffer& src, const Rect& rect, void* dst, std::size_t dst_bytes,
                                     WaitList waits) noexcept {
  return detail::as_async([&](Event* e) { return enqueue_read_rect(node_, src, rect, dst, dst_bytes, waits, e); });
}

Result<void> Queue::copy_rect(const Buffer& src, Buffer& dst, const CopyRect& rect) noexcept {
  return enqueue_copy_rect(node_, src, dst, rect, {}, nullptr);
}
Result<Event> Queue::copy_rect_async(const Buffer& src, Buffer& dst, const CopyRect& rect, WaitList waits) noexcept {
  return detail::as_async([&](Event* e) { return enqueue_copy_rect(node_, src, dst, rect, waits, e); });
}

}  // namespace edgemem
