#include "core/checks.hpp"

#include <algorithm>
#include <cstdint>

namespace edgemem::detail {

namespace {
bool mul_overflows(std::size_t a, std::size_t b, std::size_t& out) noexcept {
  return __builtin_mul_overflow(a, b, &out);
}
bool add_overflows(std::size_t a, std::size_t b, std::size_t& out) noexcept {
  return __builtin_add_overflow(a, b, &out);
}
}  // namespace

Result<void> check_range(std::size_t offset, std::size_t bytes, std::size_t size) noexcept {
  if (bytes == 0) return fail(Errc::invalid_argument, "size is zero");
  if (offset > size || bytes > size - offset) return fail(Errc::out_of_range, "offset + size is past the end");
  return {};
}

Result<RectSide> resolve_rect_side(const RectSide& side, const Extent3& region, std::size_t limit,
                                   ByteRange& span) noexcept {
  if (region.x == 0 || region.y == 0 || region.z == 0) return fail(Errc::invalid_argument, "rect region has a zero extent");
  RectSide r = side;
  if (r.row_pitch == 0) r.row_pitch = region.x;
  if (r.row_pitch < region.x) return fail(Errc::invalid_argument, "row pitch is smaller than region.x");
  std::size_t min_slice = 0;
  if (mul_overflows(region.y, r.row_pitch, min_slice)) return fail(Errc::out_of_range, "rect slice size overflows");
  if (r.slice_pitch == 0) r.slice_pitch = min_slice;
  if (r.slice_pitch < min_slice) return fail(Errc::invalid_argument, "slice pitch is smaller than region.y * row pitch");
  if (r.slice_pitch % r.row_pitch != 0) return fail(Errc::invalid_argument, "slice pitch is not a multiple of row pitch");

  std::size_t first = 0, t = 0, last = 0;
  bool bad = mul_overflows(r.origin.z, r.slice_pitch, first) || mul_overflows(r.origin.y, r.row_pitch, t) ||
             add_overflows(first, t, first) || add_overflows(first, r.origin.x, first);
  bad = bad || mul_overflows(region.z - 1, r.slice_pitch, last) || mul_overflows(region.y - 1, r.row_pitch, t) ||
        add_overflows(last, t, last) || add_overflows(last, region.x, last) || add_overflows(last, first, last);
  if (bad) return fail(Errc::out_of_range, "rect offset overflows");
  if (last > limit) return fail(Errc::out_of_range, "rect region is past the end");
  span = ByteRange{first, last};
  return r;
}

bool rects_overlap(std::size_t base_a, const RectSide& a, std::size_t base_b, const RectSide& b,
                   const Extent3& region) noexcept {
  const std::size_t w = region.x;
  auto first_of = [](const RectSide& s) { return s.origin.z * s.slice_pitch + s.origin.y * s.row_pitch + s.origin.x; };
  const std::size_t a0 = base_a + first_of(a);
  const std::size_t b0 = base_b + first_of(b);
  const ByteRange ba{a0, a0 + (region.z - 1) * a.slice_pitch + (region.y - 1) * a.row_pitch + w};
  const ByteRange bb{b0, b0 + (region.z - 1) * b.slice_pitch + (region.y - 1) * b.row_pitch + w};
  if (!intersects(ba, bb)) return false;
  // Exact test: does any row [s, s + w) of a meet any row of b? A slice pitch is a whole number of
  // row pitches (resolve_rect_side), so b's rows start at b0 + j * rp for the row numbers
  // j in J = {zb * per_slice + yb : zb < region.z, yb < region.y}: region.z runs of region.y
  // consecutive numbers, one every per_slice. The rows of b that can meet one row of a have
  // consecutive numbers [j_begin, j_end), found in O(1); whether that interval holds a member of J
  // is O(1) too. So the test costs O(region.y * region.z), a few divisions per row of a.
  const std::size_t rp = b.row_pitch;
  const std::size_t per_slice = b.slice_pitch / rp;  // >= region.y
  const std::size_t j_last = (region.z - 1) * per_slice + region.y;  // one past the last member of J
  for (std::size_t za = 0; za < region.z; ++za) {
    for (std::size_t ya = 0; ya < region.y; ++ya) {
      const std::size_t s = a0 + za * a.slice_pitch + ya * a.row_pitch;
      if (s + w <= b0) continue;  // the a-row ends before b's first row starts
      // rows j with b0 + j*rp < s + w  ->  j < ceil((s + w - b0) / rp)
      const std::size_t j_end = std::min(j_last, (s + w - b0 + rp - 1) / rp);
      // rows j with b0 + j*rp + w > s
      const std::size_t j_begin = (s < b0 + w) ? 0 : (s - w - b0) / rp + 1;
      if (j_begin >= j_end) continue;
      // The first member of J at or after j_begin: j_begin itself when it lies within a slice's
      // rows, else the first row of the next slice.
      const std::size_t slice = j_begin / per_slice;
      const std::size_t next = j_begin - slice * per_slice < region.y ? j_begin : (slice + 1) * per_slice;
      if (next < j_end) return true;
    }
  }
  return false;
}

namespace {
/// Node-relative [r) of `n` as addresses of the caller memory its wrapped root uses.
ByteRange host_range(const MemNode* n, ByteRange r) noexcept {
  const auto base = reinterpret_cast<std::uintptr_t>(host_address(n->root)) + n->origin;
  return ByteRange{base + r.begin, base + r.end};
}
}  // namespace

bool aliased_overlap(const MemNode* a, ByteRange ra, const MemNode* b, ByteRange rb) noexcept {
  return any_alias(a, b, [&](std::uintptr_t base_a, std::uintptr_t base_b) {
    return intersects(ByteRange{base_a + ra.begin, base_a + ra.end}, ByteRange{base_b + rb.begin, base_b + rb.end});
  });
}

bool host_overlap(const void* p, std::size_t bytes, const MemNode* n, ByteRange r) noexcept {
  if (host_address(n->root) == nullptr) return false;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  return intersects(ByteRange{begin, begin + bytes}, host_range(n, r));
}

bool host_in_wrapped_memory(const void* p, std::size_t bytes, const MemNode* n) noexcept {
  const RootNode* root = n->root;
  if (root->host == nullptr) return false;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const auto wrapped = reinterpret_cast<std::uintptr_t>(root->host);
  return intersects(ByteRange{begin, begin + bytes}, ByteRange{wrapped, wrapped + root->bytes});
}

Result<void> check_host_access(MemFlags flags, bool host_reads, bool host_writes) noexcept {
  if (has(flags, MemFlags::host_no_access) && (host_reads || host_writes))
    return fail(Errc::access_denied, "buffer was created host_no_access");
  if (host_reads && has(flags, MemFlags::host_write_only))
    return fail(Errc::access_denied, "buffer was created host_write_only");
  if (host_writes && has(flags, MemFlags::host_read_only))
    return fail(Errc::access_denied, "buffer was created host_read_only");
  return {};
}

Result<void> check_writable(const MemNode* n) noexcept {
  const ExternalRef* ext = n->root->external;
  if (ext != nullptr && ext->read_only)
    return fail(Errc::access_denied, "the memory was imported read-only (MemFlags::read_only): nothing may write it");
  return {};
}

bool mapping_conflicts_locked(const RootNode* root, ByteRange range, bool writes) noexcept {
  for (const MemNode* n = root->mapped_head; n != nullptr; n = n->maps->next) {
    for (unsigned i = 0; i < EDGEMEM_MAX_MAPPINGS_PER_BUFFER; ++i) {
      const MapSlot& s = n->maps->slot[i];
      // The slot's native range: all the bytes its native mapping (shared with its group) still maps.
      if ((n->maps->used >> i & 1u) != 0 && intersects(range, ByteRange{s.native_begin, s.native_end}) &&
          (writes || s.access != Access::read))
        return true;
    }
  }
  return false;
}

Result<void> check_not_mapped(const MemNode* node, ByteRange range, bool writes) noexcept {
  RootNode* root = node->root;
  if (root->mapped_nodes.load(std::memory_order_acquire) == 0) return {};
  std::lock_guard<detail::Lock> lock(root->map_lock);
  if (mapping_conflicts_locked(root, ByteRange{range.begin + node->origin, range.end + node->origin}, writes))
    return fail(Errc::busy, "range is mapped");
  return {};
}

}  // namespace edgemem::detail
