// The size-erased ring behind FrameRing<K> (private: FrameRing keeps it as raw bytes, frame_ring.hpp):
// a FIFO of published frames over inline storage FrameRing owns, under one mutex; frames come from and
// go back to a PoolCore<ThreadSafe>.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

#include <edgemem/frame_ring.hpp>

#include "pool/pool_core.hpp"

namespace edgemem::detail {

/// The size-erased ring: a FIFO of published frames over inline storage owned by FrameRing<K>.
/// Nothing of it is callable but by RingOps (FrameRing's operations, a friend).
class RingCore {
  friend struct RingOps;

  RingCore(PoolCore<ThreadSafe>& pool, PooledBuffer* fifo, std::size_t capacity) noexcept
      : pool_(pool), fifo_(fifo), capacity_(capacity) {}
  RingCore(const RingCore&) = delete;
  RingCore& operator=(const RingCore&) = delete;
  ~RingCore() { clear(); }
  Result<void> init(const Context& ctx, Queue& q, std::size_t frame_bytes, Overflow policy, Storage storage,
                    MemFlags flags, const BlockSource& source = {}) noexcept;
  Result<PooledBuffer> acquire() noexcept;
  Result<void> publish(PooledBuffer&& frame) noexcept;
  Result<PooledBuffer> take() noexcept;
  Result<PooledBuffer> take_for(std::chrono::nanoseconds timeout) noexcept;
  RingStats stats() const noexcept;
  [[nodiscard]] Result<void> release() noexcept;

  void clear() noexcept;
  PooledBuffer pop_locked() noexcept;
  PoolCore<ThreadSafe>& pool_;
  PooledBuffer* fifo_;
  std::size_t capacity_;
  std::size_t head_ = 0, size_ = 0;
  Overflow policy_ = Overflow::refuse;
  std::size_t published_ = 0, taken_ = 0, dropped_ = 0, refused_ = 0;
  mutable std::mutex lock_;
  std::condition_variable ready_;
};

}  // namespace edgemem::detail
