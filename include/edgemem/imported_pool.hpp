/// @file imported_pool.hpp  ImportedPool: another process's FixedPool or FrameRing, attached from its
/// export_handle() (cuda.core's pool-level import). It receives blocks but does not allocate: the
/// producer process acquires, fills and describes a block (FixedPool::descriptor, a BlockDescriptor of
/// 16 bytes sent however the two processes like), and block(descriptor) here is a view of the same
/// bytes, made with no system call and no driver call. When the producer may reuse a block is agreed
/// between the two processes (e.g. the consumer sends the descriptor back once its commands on the
/// view completed: Queue::finish or a blocking map). Move-only.
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/ipc_handle.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

/// An exported pool, attached in this process.
class ImportedPool {
 public:
  /// Attaches the pool `handle` describes (consumed, as Buffer::import). Errc: released (ctx, or an
  /// empty or used handle), invalid_argument (a handle of a buffer, not a pool), misaligned (its block
  /// size is not a multiple of this device's base alignment), and those of Buffer::import(ctx, IpcHandle&&).
  [[nodiscard]] static Result<ImportedPool> attach(const Context& ctx, IpcHandle&& handle) noexcept;

  ImportedPool() noexcept = default;  ///< an empty pool: block() answers Errc::released
  ImportedPool(ImportedPool&&) noexcept = default;             ///< takes over `other`, leaving it empty
  ImportedPool& operator=(ImportedPool&&) noexcept = default;  ///< drops this pool, takes over `other`

  /// The block `d` names: a view of its bytes. Errc: released (empty pool), invalid_argument (a block
  /// of another pool: its BlockDescriptor::pool is not this pool's IpcDescriptor::pool_id, also when
  /// both pools live in one memfd), out_of_range (index past the pool's blocks), out_of_host_memory.
  [[nodiscard]] Result<Buffer> block(const BlockDescriptor& d) const noexcept;
  /// Blocks in the pool (0 when empty).
  [[nodiscard]] std::size_t capacity() const noexcept { return count_; }
  /// Bytes per block (0 when empty).
  [[nodiscard]] std::size_t block_bytes() const noexcept { return block_bytes_; }
  /// True once attach() made it.
  [[nodiscard]] bool valid() const noexcept { return memory_.valid(); }

 private:
  Buffer memory_;
  std::uint64_t identity_ = 0;
  std::size_t block_bytes_ = 0;
  std::size_t count_ = 0;
};

}  // namespace edgemem
