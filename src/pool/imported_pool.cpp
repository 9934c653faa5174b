// ImportedPool: another process's exported pool, receiving its blocks by descriptor.
#include <edgemem/imported_pool.hpp>

#include <utility>

#include "core/nodes.hpp"

namespace edgemem {

Result<ImportedPool> ImportedPool::attach(const Context& ctx, IpcHandle&& handle) noexcept {
  const IpcDescriptor desc = handle.descriptor();
  IpcHandle used = std::move(handle);  // consumed whatever happens, as by Buffer::import
  if (used.valid() && desc.kind != ExportKind::pool)
    return fail(Errc::invalid_argument, "the handle exports a buffer, not a pool");
  if (ctx.valid() && used.valid() && desc.block_bytes % ctx.base_align() != 0)
    return fail(Errc::misaligned, "the pool's blocks miss this device's base alignment");
  EDGEMEM_TRY_ASSIGN(Buffer memory, Buffer::import(ctx, std::move(used)));
  ImportedPool pool;
  pool.identity_ = desc.pool_id;  // the exporting pool's own number (adopt refused 0), not the file's
  pool.memory_ = std::move(memory);
  pool.block_bytes_ = static_cast<std::size_t>(desc.block_bytes);
  pool.count_ = desc.block_count;
  return pool;
}

Result<Buffer> ImportedPool::block(const BlockDescriptor& d) const noexcept {
  if (!valid()) return fail(Errc::released, "pool is not attached");
  if (d.pool != identity_) return fail(Errc::invalid_argument, "a block of another pool");
  if (d.index >= count_) return fail(Errc::out_of_range, "block index past the pool's blocks");
  return memory_.sub(d.index * block_bytes_, block_bytes_);
}

}  // namespace edgemem
