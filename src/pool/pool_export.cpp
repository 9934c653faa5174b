// Pool-level export (cuda.core's DeviceMemoryResource allocation handle): the pool's one exportable
// allocation as an IpcHandle, and its blocks as small descriptors.
#include <cstring>

#include <edgemem/fixed_pool.hpp>
#include <edgemem/frame_ring.hpp>

#include "core/nodes.hpp"
#include "external/fd_memory.hpp"

namespace edgemem::detail {

namespace {
/// The export record of the memory under `block`, or null when it is not exportable.
const ExternalRef* export_record(const Buffer& block) noexcept {
  const MemNode* n = node_of(block);
  const ExternalRef* rec = n != nullptr ? n->root->external : nullptr;
  return rec != nullptr && rec->sealed && rec->fd.get() >= 0 && rec->identity != 0 ? rec : nullptr;
}
}  // namespace

Result<IpcHandle> export_pool(const Buffer& block, std::size_t block_bytes, std::size_t count) noexcept {
  const ExternalRef* rec = export_record(block);
  if (rec == nullptr) return fail(Errc::unsupported, "the pool was not made by init_exportable()");
  const MemNode* n = node_of(block);
  const ContextNode* cn = n->ctx;
  IpcDescriptor desc;
  desc.kind = ExportKind::pool;
  desc.offset = rec->fd_offset + n->origin - n->owner_slot * block_bytes;  // the first block's
  desc.bytes = block_bytes * count;
  desc.block_bytes = block_bytes;
  desc.block_count = static_cast<std::uint32_t>(count);
  desc.pool_id = rec->identity;
  desc.has_uuid = cn->info.has_uuid ? 1 : 0;
  std::memcpy(desc.uuid, cn->info.uuid, sizeof desc.uuid);
  EDGEMEM_TRY_ASSIGN(const int fd, dup_fd(rec->fd.get()));
  return IpcHandle::adopt(fd, desc);
}

Result<BlockDescriptor> describe_block(const Buffer& block, std::uint32_t index) noexcept {
  const ExternalRef* rec = export_record(block);
  if (rec == nullptr) return fail(Errc::unsupported, "the pool was not made by init_exportable()");
  BlockDescriptor d;
  d.pool = rec->identity;
  d.index = index;
  return d;
}

namespace {
/// True when the pool's blocks are one allocation, block i at i * block_bytes (as init() carves it;
/// not a pool made over separate buffers or over views of one in another order).
bool one_allocation(const Buffer* blocks, std::size_t block_bytes, std::size_t count) noexcept {
  const MemNode* first = node_of(blocks[0]);
  if (first->root->bytes != block_bytes * count) return false;
  for (std::size_t i = 0; i < count; ++i) {
    const MemNode* n = node_of(blocks[i]);
    if (n->root != first->root || n->origin != i * block_bytes) return false;
  }
  return true;
}
}  // namespace

template <class Threads>
Result<IpcHandle> PoolCore<Threads>::export_handle() const noexcept {
  if (count_ == 0) return fail(Errc::released, "pool is not initialised");
  if (!one_allocation(blocks(), block_bytes_, count_))
    return fail(Errc::unsupported, "a pool made over separate buffers is not exported as one");
  return export_pool(blocks()[0], block_bytes_, count_);
}

template <class Threads>
Result<BlockDescriptor> PoolCore<Threads>::descriptor(const PooledBuffer& b) const noexcept {
  if (count_ == 0 || !b.valid()) return fail(Errc::released, "pool is not initialised, or the block is empty");
  if (!owns(b)) return fail(Errc::invalid_argument, "not a block of this pool");
  // O(1) per frame: this block where init() carves it, in the one allocation (export_handle checks all).
  const MemNode* n = node_of(b.buffer());
  if (!b.buffer().shares_root_with(blocks()[0]) || n->origin != b.slot() * block_bytes_ ||
      n->root->bytes != block_bytes_ * count_)
    return fail(Errc::unsupported, "a pool made over separate buffers is not exported as one");
  return describe_block(b.buffer(), b.slot());
}

template Result<IpcHandle> PoolCore<SingleThread>::export_handle() const noexcept;
template Result<IpcHandle> PoolCore<ThreadSafe>::export_handle() const noexcept;
template Result<BlockDescriptor> PoolCore<SingleThread>::descriptor(const PooledBuffer&) const noexcept;
template Result<BlockDescriptor> PoolCore<ThreadSafe>::descriptor(const PooledBuffer&) const noexcept;

}  // namespace edgemem::detail
