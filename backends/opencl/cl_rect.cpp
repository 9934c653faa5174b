// OpenCL backend: the rectangular transfers. The *Rect entry points in the normal case; one linear
// command per row instead (the same bytes, in order, on the same in-order queue) when:
//  - the driver answers CL_INVALID_VALUE to a rect that edgemem's exact checks accepted: NVIDIA's
//    driver (580.x) bounds-checks a buffer rect more conservatively than its last byte, so a rect that
//    ends inside the buffer but whose last slice or row pitch would pass its end is refused;
//  - copy_rect within one cl_mem with different pitches: OpenCL refuses that (CL_INVALID_VALUE) although
//    the regions are disjoint (edgemem checked), and the host backend allows it; likewise when the
//    driver's own overlap test (CL_MEM_COPY_OVERLAP) is more conservative than edgemem's exact one;
// The common layer passes root buffers only (sub-buffers are views, their origin already added to x),
// which also keeps PoCL's clEnqueueCopyBufferRect (3.1), which crashes on sub-buffers, on safe ground.
#include "cl.hpp"
#include "cl_error.hpp"
#include "cl_submit.hpp"

namespace edgemem::backend {

namespace {

std::size_t row_offset(const RectSide& s, std::size_t y, std::size_t z) noexcept {
  return (s.origin.z + z) * s.slice_pitch + (s.origin.y + y) * s.row_pitch + s.origin.x;
}

/// Runs `row(a_offset, b_offset, wait_count, waits, event_out)` for every row of `region`, where the
/// offsets are the row's first byte on sides `a` and `b`. The wait list goes to the first row, the
/// caller's event (or the blocking wait) to the last; the queue is in order, so the last completes
/// after all of them.
template <class EnqueueRow>
Result<void> per_row(const RectSide& a, const RectSide& b, const Extent3& region, const OpenCL::CommandEvents& sync,
                     EnqueueRow&& row) noexcept {
  const std::size_t rows = region.y * region.z;
  std::size_t i = 0;
  for (std::size_t z = 0; z < region.z; ++z) {
    for (std::size_t y = 0; y < region.y; ++y, ++i) {
      const std::size_t ao = row_offset(a, y, z), bo = row_offset(b, y, z);
      OpenCL::CommandEvents s;
      if (i == 0) {
        s.waits = sync.waits;
        s.wait_count = sync.wait_count;
      }
      if (i + 1 < rows) {
        const cl::WaitList w(s);
        EDGEMEM_TRY(cl::check(row(ao, bo, w.count, w.events(), nullptr)));
        continue;
      }
      s.out = sync.out;
      return cl::submit(s, [&](cl_uint n, const cl_event* waits, cl_event* out) { return row(ao, bo, n, waits, out); });
    }
  }
  return {};
}

Result<void> copy_rows(cl_command_queue q, cl_mem src, cl_mem dst, const CopyRect& rect,
                       const OpenCL::CommandEvents& sync) noexcept {
  return per_row(rect.src, rect.dst, rect.region, sync,
                 [&](std::size_t so, std::size_t d, cl_uint n, const cl_event* waits, cl_event* out) {
                   return clEnqueueCopyBuffer(q, src, dst, so, d, rect.region.x, n, waits, out);
                 });
}

/// write_rect / read_rect: `whole(blocking, buffer_origin, host_origin, region, waits..., event_out)`
/// enqueues the *Rect command; when the driver refuses it with CL_INVALID_VALUE (edgemem already
/// checked the rect exactly), `row` moves the same bytes one row at a time.
template <class Whole, class Row>
Result<void> host_rect(const Rect& rect, const OpenCL::CommandEvents& sync, Whole&& whole, Row&& row) noexcept {
  const cl::Triple b = cl::origin_of(rect.buffer), h = cl::origin_of(rect.host), r = cl::region_of(rect.region);
  const cl::WaitList w(sync);
  {
    cl::EventOut out(sync);
    EDGEMEM_TRY(out.take());
    const cl_int status = out.settle(whole(out.blocking(), b.v, h.v, r.v, w.count, w.events(), out.slot()));
    if (status != CL_INVALID_VALUE) return cl::check_host_access(status);
  }
  return per_row(rect.buffer, rect.host, rect.region, sync, row);
}

}  // namespace

Result<void> OpenCL::write_rect(NativeQueue q, const NativeMem& mem, const Rect& rect, const void* src,
                                const CommandEvents& sync) noexcept {
  const auto* bytes = static_cast<const unsigned char*>(src);
  return host_rect(rect, sync,
                   [&](cl_bool blocking, const std::size_t* b, const std::size_t* h, const std::size_t* r, cl_uint n,
                       const cl_event* waits, cl_event* out) {
                     return clEnqueueWriteBufferRect(q, mem, blocking, b, h, r, rect.buffer.row_pitch,
                                                     rect.buffer.slice_pitch, rect.host.row_pitch,
                                                     rect.host.slice_pitch, src, n, waits, out);
                   },
                   [&](std::size_t bo, std::size_t ho, cl_uint n, const cl_event* waits, cl_event* out) {
                     return clEnqueueWriteBuffer(q, mem, CL_FALSE, bo, rect.region.x, bytes + ho, n, waits, out);
                   });
}

Result<void> OpenCL::read_rect(NativeQueue q, const NativeMem& mem, const Rect& rect, void* dst,
                               const CommandEvents& sync) noexcept {
  auto* bytes = static_cast<unsigned char*>(dst);
  return host_rect(rect, sync,
                   [&](cl_bool blocking, const std::size_t* b, const std::size_t* h, const std::size_t* r, cl_uint n,
                       const cl_event* waits, cl_event* out) {
                     return clEnqueueReadBufferRect(q, mem, blocking, b, h, r, rect.buffer.row_pitch,
                                                    rect.buffer.slice_pitch, rect.host.row_pitch,
                                                    rect.host.slice_pitch, dst, n, waits, out);
                   },
                   [&](std::size_t bo, std::size_t ho, cl_uint n, const cl_event* waits, cl_event* out) {
                     return clEnqueueReadBuffer(q, mem, CL_FALSE, bo, rect.region.x, bytes + ho, n, waits, out);
                   });
}

Result<void> OpenCL::copy_rect(NativeQueue q, const NativeMem& src_mem, const NativeMem& dst_mem,
                               const CopyRect& on_mem, const CommandEvents& sync) noexcept {
  cl_mem src = src_mem, dst = dst_mem;
  const CopyRect& rect = on_mem;
  const bool same = src == dst;
  if (same && (rect.src.row_pitch != rect.dst.row_pitch || rect.src.slice_pitch != rect.dst.slice_pitch))
    return copy_rows(q, src, dst, rect, sync);
  const cl::Triple s = cl::origin_of(rect.src), d = cl::origin_of(rect.dst), r = cl::region_of(rect.region);
  auto done = cl::submit(sync, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueCopyBufferRect(q, src, dst, s.v, d.v, r.v, rect.src.row_pitch, rect.src.slice_pitch,
                                   rect.dst.row_pitch, rect.dst.slice_pitch, n, waits, out);
  });
  if (!done && (done.error().native == CL_INVALID_VALUE || (same && done.error().native == CL_MEM_COPY_OVERLAP)))
    return copy_rows(q, src, dst, rect, sync);
  return done;
}

}  // namespace edgemem::backend
