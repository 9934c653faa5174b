/// @file pooled_buffer.hpp  PooledBuffer: a move-only handle to one block of a FixedPool (or one frame
/// of a FrameRing), usable everywhere a Buffer is: it converts to `Buffer&` / `const Buffer&`, so
/// `q.write(pooled, ...)`, `q.map<T>(pooled, ...)`, `q.copy(a, pooled, ...)` work unchanged.
///
/// Return rule: the block goes back to its pool when the last reference to it goes: this handle,
/// a Mapping made through it, a sub-buffer made from it, or a Buffer moved out of buffer(). So a
/// block whose handle dies while a Mapping of it is open returns when that Mapping unmaps (deferred
/// return), and a block can never be handed out while a handle, mapping or sub-buffer still reaches it.
/// Commands still queued on it (on any queue) do not hold it back: it returns at once and carries them
/// to its next owner, whose first command, map or unmap waits for them (stream-ordered release; see
/// queue.hpp). Commands edgemem does not see (your kernels on native()) are ordered by
/// release(const Queue&). A block only ever goes back to the pool that carved it (the link lives in
/// the block itself).
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

#include <edgemem/buffer.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

namespace detail {
template <class Threads>
class PoolCore;
class RingCore;
}  // namespace detail

/// One block of a pool, handed out by FixedPool::acquire(). Move-only.
class PooledBuffer {
 public:
  /// An empty handle (valid() is false; converts to a released Buffer).
  PooledBuffer() noexcept = default;
  PooledBuffer(PooledBuffer&& other) noexcept = default;  ///< takes over `other`, leaving it empty
  /// Returns this block (or defers its return, see the file comment), then takes over `other`.
  PooledBuffer& operator=(PooledBuffer&& other) noexcept = default;
  PooledBuffer(const PooledBuffer&) = delete;
  PooledBuffer& operator=(const PooledBuffer&) = delete;
  ~PooledBuffer() = default;  ///< returns the block to its pool (deferred while mappings/subs of it live)

  /// The block as a Buffer (a sub-buffer of the pool's allocation); released when empty.
  [[nodiscard]] Buffer& buffer() noexcept { return buf_; }
  /// The block as a const Buffer; released when empty.
  [[nodiscard]] const Buffer& buffer() const noexcept { return buf_; }
  /// Lets a PooledBuffer stand wherever a `Buffer&` is taken.
  operator Buffer&() & noexcept { return buf_; }
  /// Lets a PooledBuffer stand wherever a `const Buffer&` is taken.
  operator const Buffer&() const& noexcept { return buf_; }

  /// Block size in bytes (the pool's block_bytes(); 0 when empty).
  [[nodiscard]] std::size_t size() const noexcept { return buf_.size(); }
  /// True until returned (release(), moved from) .
  [[nodiscard]] bool valid() const noexcept { return buf_.valid(); }
  /// Index of the block in its pool, 0 .. capacity-1 (0 when empty).
  [[nodiscard]] std::uint32_t slot() const noexcept { return slot_; }
  /// A sub-buffer of `bytes` bytes at byte `offset` of the block; it keeps the block out of the pool
  /// while it lives. Errc: as Buffer::sub() (released, invalid_argument, out_of_range, misaligned,
  /// out_of_host_memory, backend_failure). Allocates bookkeeping through the allocator policy.
  [[nodiscard]] Result<Buffer> sub(std::size_t offset, std::size_t bytes) const noexcept {
    return buf_.sub(offset, bytes);
  }
  /// Returns the block now. Idempotent. Errc: busy (a mapping made through this handle is still open;
  /// nothing changes).
  [[nodiscard]] Result<void> release() noexcept { return buf_.release(); }
  /// Returns the block in `q`'s order (see Buffer::release(const Queue&)): it is free for the pool at
  /// once, and its next owner's commands on other queues wait for what `q` has enqueued so far.
  /// Errc: as Buffer::release(const Queue&).
  [[nodiscard]] Result<void> release(const Queue& q) noexcept { return buf_.release(q); }

 private:
  template <class Threads>
  friend class detail::PoolCore;
  friend class detail::RingCore;
  PooledBuffer(Buffer&& block, std::uint32_t slot) noexcept : buf_(std::move(block)), slot_(slot) {}
  Buffer buf_;
  std::uint32_t slot_ = 0;
};

}  // namespace edgemem
