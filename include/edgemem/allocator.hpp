/// @file allocator.hpp  Allocator policies for storage and bookkeeping, chosen at compile time
/// by the Meson option `allocator`. A policy is a type with static allocate/deallocate.
#pragma once
#include <cstddef>

#include <edgemem/config.hpp>

namespace edgemem {

/// Byte counts of an allocator policy.
struct AllocatorStats {
  std::size_t capacity_bytes = 0;   ///< bytes the policy can hand out (0: unbounded)
  std::size_t in_use_bytes = 0;     ///< bytes handed out now, headers included
  std::size_t peak_bytes = 0;       ///< high-water mark of in_use_bytes
  std::size_t allocations = 0;      ///< live allocations
  std::size_t failures = 0;         ///< allocate() calls that returned null
};

/// Aligned allocation from the C++ runtime (aligned operator new, no exceptions).
struct SystemAllocator {
  /// `bytes` (> 0) aligned to `align` (power of two), or null when the runtime is out of memory.
  [[nodiscard]] static void* allocate(std::size_t bytes, std::size_t align) noexcept;
  /// Returns memory from allocate(); `bytes` and `align` as passed there. Null is ignored.
  static void deallocate(void* p, std::size_t bytes, std::size_t align) noexcept;
  /// Live allocations and bytes made through this policy.
  [[nodiscard]] static AllocatorStats stats() noexcept;
};

/// Everything from one fixed arena of EDGEMEM_STATIC_ARENA_BYTES in .bss: never calls malloc/new.
/// First fit over an address-ordered block list with coalescing; O(blocks) per call; thread-safe.
struct StaticArenaAllocator {
  /// `bytes` (> 0) aligned to `align` (power of two), or null when the arena has no fitting hole.
  [[nodiscard]] static void* allocate(std::size_t bytes, std::size_t align) noexcept;
  /// Returns memory from allocate(); null is ignored.
  static void deallocate(void* p, std::size_t bytes, std::size_t align) noexcept;
  /// Capacity, use and high-water mark of the arena.
  [[nodiscard]] static AllocatorStats stats() noexcept;
};

#if EDGEMEM_ALLOCATOR_STATIC
/// The policy selected by the Meson option `allocator`.
using DefaultAllocator = StaticArenaAllocator;
#else
/// The policy selected by the Meson option `allocator`.
using DefaultAllocator = SystemAllocator;
#endif

}  // namespace edgemem
