// Queue::map and the Mapping guard: slot bookkeeping that enforces the mapping rules on every backend.
#include <edgemem/mapping.hpp>
#include <edgemem/queue.hpp>

#include <cstdint>

#include "detail/checks.hpp"
#include "detail/live.hpp"
#include "detail/nodes.hpp"
#include "detail/submit.hpp"

namespace edgemem {

using detail::Backend;
using detail::ByteRange;
using detail::MemNode;

namespace {

/// Reserves a slot of `n` for root-relative `range`. Errc: busy (conflict), exhausted (no free slot).
Result<unsigned> reserve_slot(MemNode* n, ByteRange range, Access access) noexcept {
  MemNode* root = n->root;
  std::lock_guard<std::mutex> lock(root->map_lock);
  if (detail::mapping_conflicts_locked(root, range, access != Access::read))
    return fail(Errc::busy, "range conflicts with an open mapping");
  for (unsigned i = 0; i < EDGEMEM_MAX_MAPPINGS_PER_BUFFER; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    if ((n->slots_used & bit) != 0) continue;
    n->slots[i] = detail::MapSlot{range.begin, range.end, nullptr, access};
    n->slots_used |= bit;
    if (n->map_count++ == 0) {
      n->mapped_prev = nullptr;
      n->mapped_next = root->mapped_head;
      if (root->mapped_head != nullptr) root->mapped_head->mapped_prev = n;
      root->mapped_head = n;
      root->mapped_nodes.fetch_add(1, std::memory_order_release);
    }
    return i;
  }
  return fail(Errc::exhausted, "buffer handle already holds max_mappings_per_buffer mappings");
}

void release_slot(MemNode* n, unsigned index) noexcept {
  MemNode* root = n->root;
  std::lock_guard<std::mutex> lock(root->map_lock);
  n->slots_used &= ~(std::uint64_t{1} << index);
  if (--n->map_count != 0) return;
  if (n->mapped_prev != nullptr) n->mapped_prev->mapped_next = n->mapped_next;
  else root->mapped_head = n->mapped_next;
  if (n->mapped_next != nullptr) n->mapped_next->mapped_prev = n->mapped_prev;
  n->mapped_next = n->mapped_prev = nullptr;
  root->mapped_nodes.fetch_sub(1, std::memory_order_release);
}

}  // namespace

Result<MappingBase> Queue::map_bytes(Buffer& buf, Access access, std::size_t offset, std::size_t bytes,
                                     std::size_t elem_size, std::size_t elem_align) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::use(node_, buf));
  if (access != Access::read && access != Access::write && access != Access::write_discard)
    return fail(Errc::invalid_argument, "unknown access");
  EDGEMEM_TRY(detail::check_range(offset, bytes, n->bytes));
  if (offset % elem_align != 0 || bytes % elem_size != 0)
    return fail(Errc::misaligned, "map offset/size do not fit the element type");
  EDGEMEM_TRY(detail::check_host_access(n->flags, access == Access::read, access != Access::read));
  EDGEMEM_TRY_ASSIGN(const unsigned slot,
                     reserve_slot(n, ByteRange{n->origin + offset, n->origin + offset + bytes}, access));
  auto mapped = Backend::map(node_->native, n->native, access, offset, bytes);
  if (!mapped) {
    release_slot(n, slot);
    return fail(mapped.error());
  }
  if (reinterpret_cast<std::uintptr_t>(*mapped) % elem_align != 0) {
    (void)Backend::unmap(node_->native, n->native, *mapped);
    release_slot(n, slot);
    return fail(Errc::misaligned, "mapped address is not aligned for the element type");
  }
  n->slots[slot].host = *mapped;
  detail::retain(node_);
  detail::retain(n);
  detail::live_add(detail::Live::mapping, 1);
  return MappingBase(node_, n, slot, *mapped, bytes, access);
}

MappingBase::MappingBase(MappingBase&& other) noexcept
    : raw_(other.raw_), bytes_(other.bytes_), queue_(other.queue_), node_(other.node_), slot_(other.slot_),
      access_(other.access_) {
  other.node_ = nullptr;
  other.queue_ = nullptr;
  other.raw_ = nullptr;
  other.bytes_ = 0;
}

MappingBase& MappingBase::operator=(MappingBase&& other) noexcept {
  if (this != &other) {
    (void)unmap();
    raw_ = other.raw_;
    bytes_ = other.bytes_;
    queue_ = other.queue_;
    node_ = other.node_;
    slot_ = other.slot_;
    access_ = other.access_;
    other.node_ = nullptr;
    other.queue_ = nullptr;
    other.raw_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

MappingBase::~MappingBase() { (void)unmap(); }

Result<void> MappingBase::unmap() noexcept {
  if (node_ == nullptr) return fail(Errc::released, "mapping is not mapped");
  auto done = Backend::unmap(queue_->native, node_->native, raw_);
  release_slot(node_, slot_);
  detail::live_add(detail::Live::mapping, -1);
  detail::unref(node_);
  detail::unref(queue_);
  node_ = nullptr;
  queue_ = nullptr;
  raw_ = nullptr;
  bytes_ = 0;
  return done;
}

}  // namespace edgemem
