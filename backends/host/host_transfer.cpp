// Host backend: transfers. Each command runs to completion at enqueue (in order by construction);
// an async command's event is its sequence number on the queue.
#include <cstring>

#include "backend.hpp"

namespace edgemem::backend {

namespace {

void complete(Host::NativeQueue q, const Host::CommandEvents& sync) noexcept {
  const std::uint64_t seq = q->fetch_add(1, std::memory_order_relaxed) + 1;
  if (sync.out != nullptr) *sync.out = seq;
}

// Byte offset of row (y, z) of a resolved rect side.
std::size_t row_offset(const RectSide& s, std::size_t y, std::size_t z) noexcept {
  return (s.origin.z + z) * s.slice_pitch + (s.origin.y + y) * s.row_pitch + s.origin.x;
}

void copy_rows(std::byte* dst, const RectSide& dst_side, const std::byte* src, const RectSide& src_side,
               const Extent3& region) noexcept {
  for (std::size_t z = 0; z < region.z; ++z)
    for (std::size_t y = 0; y < region.y; ++y)
      std::memcpy(dst + row_offset(dst_side, y, z), src + row_offset(src_side, y, z), region.x);
}

}  // namespace

Result<void> Host::write(NativeQueue q, const NativeMem& mem, std::size_t offset, const void* src, std::size_t bytes,
                         const CommandEvents& sync) noexcept {
  std::memcpy(mem.data + offset, src, bytes);
  complete(q, sync);
  return {};
}

Result<void> Host::read(NativeQueue q, const NativeMem& mem, std::size_t offset, void* dst, std::size_t bytes,
                        const CommandEvents& sync) noexcept {
  std::memcpy(dst, mem.data + offset, bytes);
  complete(q, sync);
  return {};
}

Result<void> Host::fill(NativeQueue q, const NativeMem& mem, std::size_t offset, std::size_t bytes,
                        const void* pattern, std::size_t pattern_bytes, const CommandEvents& sync) noexcept {
  std::byte* dst = mem.data + offset;
  if (pattern_bytes == 1) {
    std::memset(dst, *static_cast<const unsigned char*>(pattern), bytes);
  } else {
    std::memcpy(dst, pattern, pattern_bytes);
    for (std::size_t done = pattern_bytes; done < bytes;) {  // double the filled prefix
      const std::size_t n = done < bytes - done ? done : bytes - done;
      std::memcpy(dst + done, dst, n);
      done += n;
    }
  }
  complete(q, sync);
  return {};
}

Result<void> Host::copy(NativeQueue q, const NativeMem& src, const NativeMem& dst, std::size_t src_offset,
                        std::size_t dst_offset, std::size_t bytes, const CommandEvents& sync) noexcept {
  std::memcpy(dst.data + dst_offset, src.data + src_offset, bytes);
  complete(q, sync);
  return {};
}

Result<void> Host::write_rect(NativeQueue q, const NativeMem& mem, const Rect& rect, const void* src,
                              const CommandEvents& sync) noexcept {
  copy_rows(mem.data, rect.buffer, static_cast<const std::byte*>(src), rect.host, rect.region);
  complete(q, sync);
  return {};
}

Result<void> Host::read_rect(NativeQueue q, const NativeMem& mem, const Rect& rect, void* dst,
                             const CommandEvents& sync) noexcept {
  copy_rows(static_cast<std::byte*>(dst), rect.host, mem.data, rect.buffer, rect.region);
  complete(q, sync);
  return {};
}

Result<void> Host::copy_rect(NativeQueue q, const NativeMem& src, const NativeMem& dst, const CopyRect& rect,
                             const CommandEvents& sync) noexcept {
  copy_rows(dst.data, rect.dst, src.data, rect.src, rect.region);
  complete(q, sync);
  return {};
}

Result<void> Host::migrate(NativeQueue q, const NativeMem&, Migration, const CommandEvents& sync) noexcept {
  complete(q, sync);
  return {};
}

Result<void> Host::marker(NativeQueue q, const CommandEvents& sync) noexcept {
  complete(q, sync);
  return {};
}

}  // namespace edgemem::backend
