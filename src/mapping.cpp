// Queue::map, Queue::map_image and the mapping guards: slot bookkeeping that enforces the mapping rules on every backend.
#include <edgemem/mapping.hpp>
#include <edgemem/queue.hpp>

#include <cstdint>

#include "core/checks.hpp"
#include "core/external_bracket.hpp"
#include "core/image_checks.hpp"
#include "core/live.hpp"
#include "core/image_node.hpp"
#include "core/nodes.hpp"
#include "core/submit.hpp"
#include "core/svm_root.hpp"

namespace edgemem {

using detail::Backend;
using detail::ByteRange;
using detail::MemNode;
using detail::RootNode;

namespace {

/// A slot reserved for root-relative `range`; `shared` when it joined an open native read mapping.
struct Reserved {
  unsigned slot;
  bool shared;
};

/// Under the root's lock: the first open slot of any node of `root` (other than slot `skip` of node
/// `self`) for which `match(node, slot)` holds, or null.
template <class Match>
detail::MapSlot* find_open_slot(RootNode* root, const MemNode* self, unsigned skip, Match&& match) noexcept {
  for (MemNode* m = root->mapped_head; m != nullptr; m = m->maps->next) {
    for (unsigned j = 0; j < EDGEMEM_MAX_MAPPINGS_PER_BUFFER; ++j) {
      if ((m->maps->used >> j & 1u) == 0 || (m == self && j == skip)) continue;
      if (match(m, m->maps->slot[j])) return &m->maps->slot[j];
    }
  }
  return nullptr;
}

/// Reserves a slot of `n` for root-relative `range` on queue `queue` (the node's slots are made on its
/// first map). Errc: busy (conflict), exhausted (no free slot), out_of_host_memory (no slots).
Result<Reserved> reserve_slot(MemNode* n, ByteRange range, Access access, std::uint64_t queue) noexcept {
  RootNode* root = n->root;
  std::lock_guard<detail::Lock> lock(root->map_lock);
  if (detail::mapping_conflicts_locked(root, range, access != Access::read))
    return fail(Errc::busy, "range conflicts with an open mapping");
  if (n->maps == nullptr && root->spare_maps != nullptr) {  // a dead view's slots (unused: all free)
    n->maps = root->spare_maps;
    root->spare_maps = n->maps->spare_next;
  } else if (n->maps == nullptr) {
    n->maps = detail::make_node<detail::MapSlots>();
    if (n->maps == nullptr) return fail(Errc::out_of_host_memory, "no memory for the buffer's mapping slots");
  }
  for (unsigned i = 0; i < EDGEMEM_MAX_MAPPINGS_PER_BUFFER; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    if ((n->maps->used & bit) != 0) continue;
    // Image objects never share a native mapping: theirs is of the image, with its own pitches.
    const detail::MapSlot* joined =
        access != Access::read || n->image_object
            ? nullptr
            : find_open_slot(root, n, i, [&](const MemNode* m, const detail::MapSlot& o) {
                return !m->image_object && o.access == Access::read && !o.closing && o.queue == queue && o.host != nullptr &&
                       o.native_begin <= range.begin && o.native_end >= range.end;
              });
    detail::MapSlot& slot = n->maps->slot[i];
    slot = detail::MapSlot{range.begin, range.end, nullptr, {}, 0, 0, range.begin, range.end, queue, access, false};
    const bool shared = joined != nullptr;
    if (shared) {
      slot.native = joined->native;
      slot.native_id = joined->native_id;
      slot.native_begin = joined->native_begin;
      slot.native_end = joined->native_end;
      slot.host = static_cast<std::byte*>(joined->native.host) + (range.begin - joined->native_begin);
    } else {
      slot.native_id = root->next_native_id++;
    }
    n->maps->used |= bit;
    if (n->maps->count++ == 0) {
      n->maps->prev = nullptr;
      n->maps->next = root->mapped_head;
      if (root->mapped_head != nullptr) root->mapped_head->maps->prev = n;
      root->mapped_head = n;
      root->mapped_nodes.fetch_add(1, std::memory_order_release);
    }
    return Reserved{i, shared};
  }
  return fail(Errc::exhausted, "buffer handle already holds max_mappings_per_buffer mappings");
}

void release_slot_locked(MemNode* n, unsigned index) noexcept {
  RootNode* root = n->root;
  n->maps->used &= ~(std::uint64_t{1} << index);
  if (--n->maps->count != 0) return;
  if (n->maps->prev != nullptr) n->maps->prev->maps->next = n->maps->next;
  else root->mapped_head = n->maps->next;
  if (n->maps->next != nullptr) n->maps->next->maps->prev = n->maps->prev;
  n->maps->next = n->maps->prev = nullptr;
  root->mapped_nodes.fetch_sub(1, std::memory_order_release);
}

void release_slot(MemNode* n, unsigned index) noexcept {
  std::lock_guard<detail::Lock> lock(n->root->map_lock);
  release_slot_locked(n, index);
}

/// A release last_of_group enqueued (on an import the driver brackets).
struct GroupRelease {
  bool ran = false;             // a release was enqueued (or failed)
  Backend::NativeEvent event{}; // its event
  Result<void> result{};        // its failure
};

/// Under the root's lock: true when `index` is the last open member of its native mapping's group
/// (it is then marked closing, so no new mapping joins while it unmaps); otherwise its native maps
/// pass to another member (of any node of the root: one mapped on the same queue first) and its slot is
/// freed. On an import the driver brackets, native maps passed to a member on another queue take their
/// holds with them (that member unmaps them on its queue); when this mapping's queue (native `q`)
/// gave its last hold, the memory is released on `q` under the holds' lock (pass_queue_holds), and
/// `*release` then says so and receives the release's event or its failure.
bool last_of_group(MemNode* n, unsigned index, Backend::NativeQueue q, GroupRelease* release) noexcept {
  std::lock_guard<detail::Lock> lock(n->root->map_lock);
  detail::MapSlot& slot = n->maps->slot[index];
  // A member on the same queue keeps that queue's holds where they are; holds pass between queues
  // only from a group's last member on its queue, to a member whose queue holds the memory already
  // (every open member's queue does: its native maps or its group's, by this same rule).
  detail::MapSlot* other = find_open_slot(n->root, n, index, [&](const MemNode*, const detail::MapSlot& o) {
    return o.native_id == slot.native_id && o.queue == slot.queue;
  });
  if (other == nullptr)
    other = find_open_slot(n->root, n, index,
                           [&](const MemNode*, const detail::MapSlot& o) { return o.native_id == slot.native_id; });
  if (other != nullptr) {
    // The group's native maps live on in `other`, and with them every byte they map (the conflict
    // checks read native ranges). A group's native maps all start at one address, so at one byte.
    other->native_count += slot.native_count;
    if (slot.native_end > other->native_end) other->native_end = slot.native_end;
    if (detail::ExternalRef* ext = detail::bracketed_import(n); ext != nullptr && other->queue != slot.queue) {
      auto passed = detail::pass_queue_holds(ext, slot.queue, other->queue, slot.native_count, [&] {
        return detail::release_external(q, n->root->native, &release->event);
      });
      release->ran = !passed || *passed;
      if (!passed) release->result = fail(passed.error());
    }
    release_slot_locked(n, index);
    return false;
  }
  slot.closing = true;
  return true;
}

/// A native map just returned `mapped` for slot `index` of `n`: it joins the group of an open native
/// mapping of the root at the same address, if any (one unmap by address must not end the other's).
void settle_native(MemNode* n, unsigned index, const contract::Mapped& mapped) noexcept {
  std::lock_guard<detail::Lock> lock(n->root->map_lock);
  detail::MapSlot& slot = n->maps->slot[index];
  slot.native = mapped;
  slot.host = mapped.host;
  slot.native_count = 1;
  if (n->image_object) return;  // an image object's native mapping is its own
  const detail::MapSlot* same = find_open_slot(n->root, n, index, [&](const MemNode* m, const detail::MapSlot& o) {
    return !m->image_object && !o.closing && o.native.host == mapped.host;
  });
  if (same != nullptr) slot.native_id = same->native_id;
}

/// The native map of `bytes` bytes at byte `offset` of buffer node `n`, after `s`'s waits, blocking
/// (imported memory acquired first: map_bracketed). Shared virtual memory: clEnqueueSVMMap for coarse
/// grain; fine grain needs none, so a marker stands for it (the host may touch the bytes once the
/// commands before it are done).
Result<contract::Mapped> map_native(detail::QueueNode* q, MemNode* n, Access access, std::size_t offset,
                                    std::size_t bytes, const Backend::CommandEvents& s) noexcept {
  if (!detail::is_svm(n)) {
    auto mapped = detail::map_bracketed(q->native, q->serial, n, s, [&](const Backend::CommandEvents& ms) {
      return Backend::map(q->native, n->root->native, access, n->origin + offset, bytes, ms);
    });
    detail::ExternalRef* ext = n->root->external;
    if (mapped && ext != nullptr && ext->host_access != nullptr) ext->host_access(ext, true, access);
    return mapped;
  }
  const contract::SvmAddress at = detail::svm_at(n, offset);
  if (n->root->svm_grain == SvmGrain::coarse) EDGEMEM_TRY(Backend::svm_map(q->native, at, bytes, access, s));
  else EDGEMEM_TRY(Backend::marker(q->native, s));
  return contract::Mapped{at.at(), 0};
}

/// Undoes the native map of `slot` of node `n` (a marker for fine-grain SVM), blocking or async;
/// imported memory is released after it (unmap_bracketed).
Result<void> unmap_native(detail::QueueNode* q, const MemNode* n, const detail::MapSlot& slot,
                          const Backend::CommandEvents& s) noexcept {
  if (!detail::is_svm(n)) {
    detail::ExternalRef* ext = n->root->external;
    if (ext != nullptr && ext->host_access != nullptr) ext->host_access(ext, false, slot.access);
    return detail::unmap_bracketed(q->native, q->serial, n, s, [&](const Backend::CommandEvents& us) {
      return Backend::unmap(q->native, detail::command_target(n), slot.native, us);
    });
  }
  if (n->root->svm_grain != SvmGrain::coarse) return Backend::marker(q->native, s);
  std::byte* host = static_cast<std::byte*>(slot.native.host);
  return Backend::svm_unmap(q->native, contract::SvmAddress{n->root->svm, std::size_t(host - n->root->svm), true}, s);
}

/// The group of `slot` is closing: the native maps beyond the first it undoes, blocking. A driver
/// that keeps one record per address refuses them (invalid_argument): that answer is expected.
Result<void> unmap_extra(detail::QueueNode* q, MemNode* n, const detail::MapSlot& slot) noexcept {
  for (unsigned k = 1; k < slot.native_count; ++k) {
    auto done = unmap_native(q, n, slot, Backend::CommandEvents{});
    if (!done && done.error().code != Errc::invalid_argument) return done;
  }
  return {};
}

}  // namespace

Result<MappingBase> Queue::map_bytes(const Buffer& buf, bool read_only_handle, Access access, std::size_t offset,
                                     std::size_t bytes, std::size_t elem_size, std::size_t elem_align) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::use(node_, buf));
  if (access != Access::read && access != Access::write && access != Access::write_discard)
    return fail(Errc::invalid_argument, "unknown access");
  if (read_only_handle && access != Access::read)
    return fail(Errc::invalid_argument, "a const Buffer maps only for Access::read");
  EDGEMEM_TRY(detail::check_range(offset, bytes, n->bytes));
  if (offset % elem_align != 0 || bytes % elem_size != 0)
    return fail(Errc::misaligned, "map offset/size do not fit the element type");
  EDGEMEM_TRY(detail::check_host_access(n->flags, access == Access::read, access != Access::read));
  if (access != Access::read) EDGEMEM_TRY(detail::check_writable(n));
  EDGEMEM_TRY_ASSIGN(const Reserved r,
                     reserve_slot(n, ByteRange{n->origin + offset, n->origin + offset + bytes}, access, node_->serial));
  detail::MapSlot& slot = n->maps->slot[r.slot];
  if (!r.shared) {
    // The map waits for commands of other queues that still write these bytes (or, for a write
    // mapping, still read them), then has completed, with every earlier command of this queue.
    const detail::MemUse use{n, ByteRange{offset, offset + bytes}, access != Access::read};
    auto mapped = detail::submit_map(node_, use, [&](const Backend::CommandEvents& s) {
      return map_native(node_, n, access, offset, bytes, s);
    });
    if (!mapped) {
      release_slot(n, r.slot);
      return fail(mapped.error());
    }
    settle_native(n, r.slot, *mapped);
  }
  if (reinterpret_cast<std::uintptr_t>(slot.host) % elem_align != 0) {
    GroupRelease release;
    if (last_of_group(n, r.slot, node_->native, &release)) {
      (void)unmap_native(node_, n, slot, Backend::CommandEvents{});
      (void)unmap_extra(node_, n, slot);
      release_slot(n, r.slot);
    } else if (release.ran && release.result) {
      (void)detail::settle_release(release.event, nullptr);
    }
    return fail(Errc::misaligned, "mapped address is not aligned for the element type");
  }
  detail::retain(node_);
  detail::retain(n);
  detail::live_add(detail::Live::mapping, 1);
  return MappingBase(detail::MappingState{node_, n, r.slot, slot.host, bytes, access});
}

Result<ImageMapping> Queue::map_image(Image& img, Access access, const ImageRegion& region) noexcept {
  EDGEMEM_TRY_ASSIGN(detail::ImageNode* n, detail::use_image(node_, img));
  if (access != Access::read && access != Access::write && access != Access::write_discard)
    return fail(Errc::invalid_argument, "unknown access");
  EDGEMEM_TRY(detail::check_image_region(n, region));
  EDGEMEM_TRY(detail::check_host_access(n->flags, access == Access::read, access != Access::read));
  if (access != Access::read) EDGEMEM_TRY(detail::check_writable(n));
  const ByteRange span = detail::image_span(n, region);
  EDGEMEM_TRY_ASSIGN(const Reserved r,
                     reserve_slot(n, ByteRange{n->origin + span.begin, n->origin + span.end}, access, node_->serial));
  detail::MapSlot& slot = n->maps->slot[r.slot];
  contract::MappedImage image{};
  image.row_pitch = span.end - span.begin;  // a 1D-buffer view: one row, mapped as its buffer's bytes
  if (!r.shared) {  // (a 1D-buffer view's read map may join an open read map of its buffer instead)
    const detail::MemUse use{n, span, access != Access::read};
    auto mapped = detail::submit_map(node_, use, [&](const Backend::CommandEvents& s) {
      return detail::map_bracketed(node_->native, node_->serial, n, s, [&](const Backend::CommandEvents& ms) -> Result<contract::Mapped> {
        if (!n->image_object)
          return Backend::map(node_->native, n->root->native, access, n->origin + span.begin, span.end - span.begin, ms);
        EDGEMEM_TRY_ASSIGN(image, Backend::map_image(node_->native, n->native, n->layout, access, region, ms));
        return image.mapped;
      });
    });
    detail::ExternalRef* ext = n->root->external;  // a dma-buf under an image view: as map_native
    if (mapped && ext != nullptr && ext->host_access != nullptr) ext->host_access(ext, true, access);
    if (!mapped) {
      release_slot(n, r.slot);
      return fail(mapped.error());
    }
    settle_native(n, r.slot, *mapped);
  }
  const ImageType type = n->layout.desc.type;
  const std::size_t e = n->layout.desc.format.pixel_bytes();
  const ImageOrigin last{region.extent.x - 1, region.extent.y - 1, region.extent.z - 1};
  const std::size_t bytes = contract::image_offset(type, e, image.row_pitch, image.slice_pitch, last) + e;
  detail::retain(node_);
  detail::retain(n);
  detail::live_add(detail::Live::mapping, 1);
  return ImageMapping(MappingBase(detail::MappingState{node_, n, r.slot, slot.host, bytes, access}), image.row_pitch, image.slice_pitch,
                      region.extent, n->layout.desc.format, type == ImageType::image1d_array,
                      type == ImageType::image1d_array   ? std::uint8_t{2}
                      : type == ImageType::image2d_array ? std::uint8_t{3}
                                                         : std::uint8_t{0});
}

void detail::MappingTraits::free(const MappingState& m) noexcept {
  detail::ContextNode* ctx = m.node->ctx;
  detail::retain(ctx);  // the unmap may drop the last buffer and queue holding it
  auto done = MappingBase::close(m, nullptr);
  if (!done) detail::report_dropped(ctx, done.error());
  detail::unref(ctx);
}

Result<void> MappingBase::unmap() noexcept {
  if (!valid()) return fail(Errc::released, "mapping is not mapped");
  return close(release(), nullptr);
}

Result<Event> MappingBase::unmap_async() noexcept {
  if (!valid()) return fail(Errc::released, "mapping is not mapped");
  const detail::MappingState m = release();
  return detail::as_async([&](Event* e) { return close(m, e); });
}

namespace {

/// True when the host or another process may read `n`'s bytes outside edgemem's commands: caller
/// memory a wrap uses, an import or export, shared virtual memory. An unmap() of such memory waits on
/// the host; any other is ordered before every later command by the pending table alone.
bool host_reaches(const MemNode* n) noexcept {
  const RootNode* root = n->root;
  return root->host != nullptr || root->external != nullptr || root->svm != nullptr;
}

}  // namespace

Result<void> MappingBase::close(const detail::MappingState& m, Event* out) noexcept {
  MemNode* n = m.node;
  Result<void> done{};
  GroupRelease release;
  if (last_of_group(n, m.slot, m.queue->native, &release)) {
    const detail::MapSlot& slot = n->maps->slot[m.slot];
    const detail::MemUse use{n, ByteRange{slot.begin - n->origin, slot.end - n->origin}, m.access != Access::read};
    // unmap() need not wait where the table orders every later command after the unmap (docs/ordering.md):
    // the unmap is enqueued with an event only the table keeps.
    Event ordered;
    Event* target = out;
    if (Backend::unmap_waits && detail::tracks_pending && out == nullptr && !host_reaches(n)) target = &ordered;
    // Not bracketed by submit: unmap_native releases imported memory itself (the map acquired it). Not
    // draining: a zero-copy unmap may complete without waiting for the queue's earlier commands.
    done = detail::submit<false, false>(m.queue, {}, target, use, [&](const Backend::CommandEvents& s) {
      return unmap_native(m.queue, n, slot, s);
    });
    auto extra = unmap_extra(m.queue, n, slot);
    if (done && !extra) done = fail(extra.error());
    release_slot(n, m.slot);
  } else if (release.ran) {
    // The native mappings went to a member on another queue with this queue's last hold: the memory
    // was released on this queue, after its commands (the caller's event is the release's).
    Backend::NativeEvent released{};
    done = release.result;
    if (done) done = detail::settle_release(release.event, out != nullptr ? &released : nullptr);
    if (done && out != nullptr) *out = detail::HandleAccess::event(released, m.queue->ctx);
  } else if (out != nullptr) {
    // The native mapping stays with the rest of its group: nothing to wait for but this queue's order.
    done = detail::submit(m.queue, {}, out, detail::MemUse{}, [&](const Backend::CommandEvents& s) {
      return Backend::marker(m.queue->native, s);
    });
  }
  detail::live_add(detail::Live::mapping, -1);
  detail::unref(m.node);
  detail::unref(m.queue);
  return done;
}

}  // namespace edgemem
