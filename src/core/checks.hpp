// Argument checks shared by every backend: ranges, rects, alignment, host access, mappings.
// Each returns the Errc the public documentation promises; none changes any object.
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/event.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/rect.hpp>
#include <edgemem/result.hpp>

#include "core/nodes.hpp"

namespace edgemem::detail {

/// A byte range [begin, end).
struct ByteRange {
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// invalid_argument when bytes == 0; out_of_range when offset + bytes passes `size` (overflow included).
Result<void> check_range(std::size_t offset, std::size_t bytes, std::size_t size) noexcept;

/// True when `value` is a multiple of `align` (> 0); a mask for the usual power of two, no division.
inline bool is_multiple_of(std::size_t value, std::size_t align) noexcept {
  return (align & (align - 1)) == 0 ? (value & (align - 1)) == 0 : value % align == 0;
}

/// Resolves zero pitches of `side` for `region` and checks it fits in `limit` bytes. Returns the
/// resolved side; `span` receives its bounding byte range. Errc: invalid_argument, out_of_range.
Result<RectSide> resolve_rect_side(const RectSide& side, const Extent3& region, std::size_t limit,
                                   ByteRange& span) noexcept;

/// True when two resolved rect sides of the same region share a byte; bases are byte offsets in one root
/// (or addresses). Exact (row against row), O(region.y * region.z).
bool rects_overlap(std::size_t base_a, const RectSide& a, std::size_t base_b, const RectSide& b,
                   const Extent3& region) noexcept;

/// access_denied when the buffer's host-access flags forbid the host reading/writing it.
Result<void> check_host_access(MemFlags flags, bool host_reads, bool host_writes) noexcept;

/// access_denied when `n`'s root is read-only memory (an import with MemFlags::read_only: mapped
/// PROT_READ), which no command, fill, copy or map may write.
Result<void> check_writable(const MemNode* n) noexcept;

/// busy when [range) of `node` (node-relative) conflicts with an open mapping of its root (with every
/// byte its native mapping, which a group of read mappings shares, still maps): any overlap when
/// `writes`, overlap with a write/write_discard mapping otherwise.
Result<void> check_not_mapped(const MemNode* node, ByteRange range, bool writes) noexcept;

/// True when root-relative `range` conflicts with an open mapping of `root`; caller holds root->map_lock.
bool mapping_conflicts_locked(const RootNode* root, ByteRange range, bool writes) noexcept;

/// The host address of root `root`'s first byte where the caller can reach its bytes by address: its
/// caller or mapped memory (`host`), else its SVM allocation (an SVM pointer is a host address too:
/// a wrap over it, or a fill pattern inside it, aliases it; issue #30, items 12-13); null otherwise.
inline const std::byte* host_address(const RootNode* root) noexcept {
  return root->host != nullptr ? root->host : root->svm;
}

/// Calls `test(base_a, base_b)` for each memory that the distinct roots of `a` and `b` both reach,
/// with the first byte of `a` and of `b` in it: caller memory (both roots use host memory: wraps,
/// host-pointer and mmap imports, create_exportable, SVM allocations; bases are addresses) and one file (both roots
/// were made over fds of the same st_dev / st_ino: memfd, dma-buf and opaque-fd imports, exports;
/// bases are file offsets). True when one call is; false for one root (its callers compare root
/// bytes) and for roots that share neither.
template <class Test>
bool any_alias(const MemNode* a, const MemNode* b, Test&& test) noexcept {
  const RootNode* ra = a->root;
  const RootNode* rb = b->root;
  if (ra == rb) return false;
  const std::byte* ha = host_address(ra);
  const std::byte* hb = host_address(rb);
  if (ha != nullptr && hb != nullptr &&
      test(reinterpret_cast<std::uintptr_t>(ha) + a->origin, reinterpret_cast<std::uintptr_t>(hb) + b->origin))
    return true;
  const ExternalRef* ea = ra->external;
  const ExternalRef* eb = rb->external;
  return ea != nullptr && eb != nullptr && ea->has_file && eb->has_file && ea->file_dev == eb->file_dev &&
         ea->file_ino == eb->file_ino && test(ea->fd_offset + a->origin, eb->fd_offset + b->origin);
}

/// True when node-relative [ra) of `a` and [rb) of `b` share a byte through two distinct roots that
/// alias (any_alias): two wraps of overlapping caller memory, two imports of one file, an export and
/// its own import (issue #29.7).
bool aliased_overlap(const MemNode* a, ByteRange ra, const MemNode* b, ByteRange rb) noexcept;

/// True when [p, p + bytes) of host memory shares a byte with node-relative [r) of wrapped `n`.
bool host_overlap(const void* p, std::size_t bytes, const MemNode* n, ByteRange r) noexcept;

/// True when [p, p + bytes) of host memory shares a byte with the caller memory that `n`'s wrapped root
/// uses, anywhere in it: a read or write whose host memory lies in the buffer's own memory is refused
/// whole (PoCL 3.1 skips such transfers silently even when the bytes are disjoint).
bool host_in_wrapped_memory(const void* p, std::size_t bytes, const MemNode* n) noexcept;

/// True when [a) and [b) share a byte.
constexpr bool intersects(ByteRange a, ByteRange b) noexcept { return a.begin < b.end && b.begin < a.end; }

}  // namespace edgemem::detail
