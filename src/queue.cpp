// Queue lifetime and the linear transfers: write, read, fill, copy, migrate.
#include <edgemem/queue.hpp>

#include "core/checks.hpp"
#include "core/live.hpp"
#include "core/nodes.hpp"
#include "core/submit.hpp"
#include "core/svm_root.hpp"

namespace edgemem {

using detail::Backend;
using detail::ByteRange;
using detail::MemNode;
using detail::QueueNode;

namespace {

/// True when `n` is shared virtual memory and host memory [p, p + bytes) shares a byte with its
/// allocation (a host pointer into the SVM itself, e.g. from Svm::host_span). Refused before the
/// backend: over the bytes transferred the backends answer differently (OpenCL: CL_MEM_COPY_OVERLAP;
/// the host: a memcpy over overlapping bytes), and elsewhere in the allocation the host side would
/// not be ordered as the SVM it is (copy() is).
bool host_in_svm(const void* p, std::size_t bytes, const MemNode* n) noexcept {
  if (!detail::is_svm(n)) return false;
  const auto host = reinterpret_cast<std::uintptr_t>(p);
  const auto base = reinterpret_cast<std::uintptr_t>(n->root->svm);
  return host < base + n->root->bytes && base < host + bytes;
}

Result<void> enqueue_write(QueueNode* q, Buffer& dst, std::size_t offset, const void* src, std::size_t bytes,
                           WaitList waits, Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::use(q, dst));
  if (src == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
  EDGEMEM_TRY(detail::check_range(offset, bytes, n->bytes));
  if (detail::host_in_wrapped_memory(src, bytes, n))
    return fail(Errc::overlap, "write source lies in the caller memory the buffer wraps");
  if (host_in_svm(src, bytes, n))
    return fail(Errc::overlap, "write source lies in the shared virtual memory it writes (use copy)");
  EDGEMEM_TRY(detail::check_host_access(n->flags, false, true));
  EDGEMEM_TRY(detail::check_writable(n));
  EDGEMEM_TRY(detail::check_not_mapped(n, ByteRange{offset, offset + bytes}, true));
  return detail::submit(q, waits, out, {n, ByteRange{offset, offset + bytes}, true}, [&](const Backend::CommandEvents& s) {
    if (detail::is_svm(n)) return Backend::svm_memcpy(q->native, detail::svm_at(n, offset), detail::host_at(src), bytes, s);
    return Backend::write(q->native, n->root->native, n->origin + offset, src, bytes, s);
  });
}

Result<void> enqueue_read(QueueNode* q, const Buffer& src, std::size_t offset, void* dst, std::size_t bytes,
                          WaitList waits, Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::use(q, src));
  if (dst == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
  EDGEMEM_TRY(detail::check_range(offset, bytes, n->bytes));
  if (detail::host_in_wrapped_memory(dst, bytes, n))
    return fail(Errc::overlap, "read destination lies in the caller memory the buffer wraps");
  if (host_in_svm(dst, bytes, n))
    return fail(Errc::overlap, "read destination lies in the shared virtual memory it reads (use copy)");
  EDGEMEM_TRY(detail::check_host_access(n->flags, true, false));
  EDGEMEM_TRY(detail::check_not_mapped(n, ByteRange{offset, offset + bytes}, false));
  return detail::submit(q, waits, out, {n, ByteRange{offset, offset + bytes}, false}, [&](const Backend::CommandEvents& s) {
    if (detail::is_svm(n)) return Backend::svm_memcpy(q->native, detail::host_at(dst), detail::svm_at(n, offset), bytes, s);
    return Backend::read(q->native, n->root->native, n->origin + offset, dst, bytes, s);
  });
}

bool valid_pattern_size(std::size_t p) noexcept { return p >= 1 && p <= 128 && (p & (p - 1)) == 0; }

Result<void> enqueue_fill(QueueNode* q, Buffer& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                          std::size_t pattern_bytes, WaitList waits, Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::use(q, dst));
  if (pattern == nullptr) return fail(Errc::invalid_argument, "pattern pointer is null");
  if (!valid_pattern_size(pattern_bytes))
    return fail(Errc::invalid_argument, "pattern size must be 1, 2, 4, 8, 16, 32, 64 or 128 bytes");
  if (pattern_bytes > n->ctx->info.caps.max_fill_pattern_bytes)
    return fail(Errc::unsupported, "the device cannot fill with a pattern this wide (DeviceInfo::caps)");
  EDGEMEM_TRY(detail::check_range(offset, bytes, n->bytes));
  if (offset % pattern_bytes != 0 || bytes % pattern_bytes != 0)
    return fail(Errc::misaligned, "fill offset and size must be multiples of the pattern size");
  if (detail::host_overlap(pattern, pattern_bytes, n, ByteRange{offset, offset + bytes}))
    return fail(Errc::overlap, "fill pattern lies in the caller memory the buffer wraps, in the filled range");
  EDGEMEM_TRY(detail::check_host_access(n->flags, false, true));
  EDGEMEM_TRY(detail::check_writable(n));
  EDGEMEM_TRY(detail::check_not_mapped(n, ByteRange{offset, offset + bytes}, true));
  return detail::submit(q, waits, out, {n, ByteRange{offset, offset + bytes}, true}, [&](const Backend::CommandEvents& s) {
    if (detail::is_svm(n))
      return Backend::svm_memfill(q->native, detail::svm_at(n, offset), bytes, pattern, pattern_bytes, s);
    return Backend::fill(q->native, n->root->native, n->origin + offset, bytes, pattern, pattern_bytes, s);
  });
}

Result<void> enqueue_copy(QueueNode* q, const Buffer& src, Buffer& dst, std::size_t src_offset, std::size_t dst_offset,
                          std::size_t bytes, WaitList waits, Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* s, detail::use(q, src));
  EDGEMEM_TRY_ASSIGN(MemNode* d, detail::use(q, dst));
  EDGEMEM_TRY(detail::check_range(src_offset, bytes, s->bytes));
  EDGEMEM_TRY(detail::check_range(dst_offset, bytes, d->bytes));
  if (s->root == d->root &&
      detail::intersects(ByteRange{s->origin + src_offset, s->origin + src_offset + bytes},
                         ByteRange{d->origin + dst_offset, d->origin + dst_offset + bytes}))
    return fail(Errc::overlap, "copy source and destination overlap");
  if (detail::aliased_overlap(s, ByteRange{src_offset, src_offset + bytes}, d, ByteRange{dst_offset, dst_offset + bytes}))
    return fail(Errc::overlap, "copy source and destination overlap in memory both buffers reach (wraps, imports of one file)");
  EDGEMEM_TRY(detail::check_writable(d));
  EDGEMEM_TRY(detail::check_not_mapped(s, ByteRange{src_offset, src_offset + bytes}, false));
  EDGEMEM_TRY(detail::check_not_mapped(d, ByteRange{dst_offset, dst_offset + bytes}, true));
  const detail::MemUse reads{s, ByteRange{src_offset, src_offset + bytes}, false};
  const detail::MemUse writes{d, ByteRange{dst_offset, dst_offset + bytes}, true};
  return detail::submit(q, waits, out, reads, writes, [&](const Backend::CommandEvents& sy) {
    const bool svm_src = detail::is_svm(s), svm_dst = detail::is_svm(d);
    if (svm_src && svm_dst)
      return Backend::svm_memcpy(q->native, detail::svm_at(d, dst_offset), detail::svm_at(s, src_offset), bytes, sy);
    if (svm_src)
      return Backend::svm_buffer_copy(q->native, detail::svm_at(s, src_offset), s->root->bytes, d->root->native,
                                      d->origin + dst_offset, bytes, false, sy);
    if (svm_dst)
      return Backend::svm_buffer_copy(q->native, detail::svm_at(d, dst_offset), d->root->bytes, s->root->native,
                                      s->origin + src_offset, bytes, true, sy);
    return Backend::copy(q->native, s->root->native, d->root->native, s->origin + src_offset, d->origin + dst_offset,
                         bytes, sy);
  });
}

Result<void> enqueue_migrate(QueueNode* q, Buffer& buf, Migration to, WaitList waits, Event* out) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::use(q, buf));
  if (to != Migration::to_device && to != Migration::to_host && to != Migration::to_device_discard)
    return fail(Errc::invalid_argument, "unknown migration target");
  if (!n->ctx->info.caps.migration) return fail(Errc::unsupported, "the device cannot migrate memory (DeviceInfo::caps)");
  if (to != Migration::to_device) EDGEMEM_TRY(detail::check_writable(n));  // to the host: a copy back into it
  EDGEMEM_TRY(detail::check_not_mapped(n, ByteRange{0, n->bytes}, true));
  if (detail::is_svm(n)) {  // (clEnqueueSVMMigrateMem moves any range: no sub-object needed)
    if (!n->ctx->info.caps.svm_migration)
      return fail(Errc::unsupported, "the device cannot migrate shared virtual memory (DeviceInfo::caps)");
    return detail::submit(q, waits, out, {n, ByteRange{0, n->bytes}, true}, [&](const Backend::CommandEvents& s) {
      return Backend::svm_migrate(q->native, detail::svm_at(n, 0), n->bytes, to, s);
    });
  }
  // Migration moves whole memory objects: a view migrates through its native sub-object (made now if
  // it has none), so the rest of the root is left where it is. Where the device cannot migrate those,
  // the hint is not taken: a marker keeps the command's ordering and its event.
  if (n->parent != nullptr && !n->ctx->info.caps.sub_buffer_migration)
    return detail::submit(q, waits, out, {n, ByteRange{0, n->bytes}, true},
                          [&](const Backend::CommandEvents& s) { return Backend::marker(q->native, s); });
  EDGEMEM_TRY_ASSIGN(const Backend::NativeMem mem, detail::native_of(n));
  return detail::submit(q, waits, out, {n, ByteRange{0, n->bytes}, true},
                        [&](const Backend::CommandEvents& s) { return Backend::migrate(q->native, mem, to, s); });
}

}  // namespace

namespace {

/// A queue node on `ctx` whose native queue `open_native(ctx native)` provides.
/// Errc: released, out_of_host_memory, or open_native's.
template <class OpenNative>
Result<QueueNode*> open_node(const Context& ctx, bool borrowed, OpenNative&& open_native) noexcept {
  detail::ContextNode* cn = detail::node_of(ctx);
  if (cn == nullptr) return fail(Errc::released, "context is released");
  auto* node = detail::make_node<QueueNode>();
  if (node == nullptr) return fail(Errc::out_of_host_memory, "no memory for the queue");
  auto native = open_native(cn->native);
  if (!native) {
    detail::destroy_node(node);
    return fail(native.error());
  }
  static std::atomic<std::uint64_t> next_serial{1};
  detail::retain(cn);
  node->ctx = cn;
  node->native = *native;
  node->serial = next_serial.fetch_add(1, std::memory_order_relaxed);
  node->borrowed = borrowed;
  detail::link_queue(node);
  detail::live_add(detail::Live::queue, 1);
  return node;
}

}  // namespace

Result<Queue> Queue::create(const Context& ctx) noexcept {
  EDGEMEM_TRY_ASSIGN(QueueNode* n,
                     open_node(ctx, false, [](const Backend::NativeContext& c) { return Backend::queue_create(c); }));
  return Queue(n);
}

Result<Queue> Queue::adopt(const Context& ctx, NativeQueue native, AdoptMode mode) noexcept {
  if (ctx.valid() && mode != AdoptMode::retain && mode != AdoptMode::borrow)
    return fail(Errc::invalid_argument, "unknown AdoptMode");
  EDGEMEM_TRY_ASSIGN(QueueNode* n, open_node(ctx, mode == AdoptMode::borrow, [&](const Backend::NativeContext& c) {
    return Backend::queue_adopt(c, native, mode);
  }));
  return Queue(n);
}

Result<void> Queue::release() noexcept {
  drop();
  return {};
}

Backend::NativeQueue Queue::native() const noexcept { return node_ != nullptr ? node_->native : Backend::NativeQueue{}; }

Result<void> Queue::finish() noexcept {
  if (node_ == nullptr) return fail(Errc::released, "queue is released");
  return Backend::queue_finish(node_->native);
}

Result<Event> Queue::marker(WaitList waits) noexcept {
  if (node_ == nullptr) return fail(Errc::released, "queue is released");
  return detail::as_async([&](Event* e) {
    return detail::submit(node_, waits, e, detail::MemUse{}, [&](const Backend::CommandEvents& s) {
      return Backend::marker(node_->native, s);
    });
  });
}

// An in-order queue starts no command before the previous one has completed: a marker is a barrier.
Result<Event> Queue::barrier(WaitList waits) noexcept { return marker(waits); }

Result<void> Queue::write(Buffer& dst, std::size_t offset, const void* src, std::size_t bytes) noexcept {
  return enqueue_write(node_, dst, offset, src, bytes, {}, nullptr);
}
Result<Event> Queue::write_async(Buffer& dst, std::size_t offset, const void* src, std::size_t bytes,
                                 WaitList waits) noexcept {
  return detail::as_async([&](Event* e) { return enqueue_write(node_, dst, offset, src, bytes, waits, e); });
}

Result<void> Queue::read(const Buffer& src, std::size_t offset, void* dst, std::size_t bytes) noexcept {
  return enqueue_read(node_, src, offset, dst, bytes, {}, nullptr);
}
Result<Event> Queue::read_async(const Buffer& src, std::size_t offset, void* dst, std::size_t bytes,
                                WaitList waits) noexcept {
  return detail::as_async([&](Event* e) { return enqueue_read(node_, src, offset, dst, bytes, waits, e); });
}

Result<void> Queue::fill(Buffer& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                         std::size_t pattern_bytes) noexcept {
  return enqueue_fill(node_, dst, offset, bytes, pattern, pattern_bytes, {}, nullptr);
}
Result<Event> Queue::fill_async(Buffer& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                                std::size_t pattern_bytes, WaitList waits) noexcept {
  return detail::as_async(
      [&](Event* e) { return enqueue_fill(node_, dst, offset, bytes, pattern, pattern_bytes, waits, e); });
}

Result<void> Queue::copy(const Buffer& src, Buffer& dst, std::size_t src_offset, std::size_t dst_offset,
                         std::size_t bytes) noexcept {
  return enqueue_copy(node_, src, dst, src_offset, dst_offset, bytes, {}, nullptr);
}
Result<Event> Queue::copy_async(const Buffer& src, Buffer& dst, std::size_t src_offset, std::size_t dst_offset,
                                std::size_t bytes, WaitList waits) noexcept {
  return detail::as_async(
      [&](Event* e) { return enqueue_copy(node_, src, dst, src_offset, dst_offset, bytes, waits, e); });
}

Result<void> Queue::migrate(Buffer& buf, Migration to) noexcept {
  return enqueue_migrate(node_, buf, to, {}, nullptr);
}
Result<Event> Queue::migrate_async(Buffer& buf, Migration to, WaitList waits) noexcept {
  return detail::as_async([&](Event* e) { return enqueue_migrate(node_, buf, to, waits, e); });
}

}  // namespace edgemem
