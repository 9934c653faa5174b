/// @file allocator.hpp  Allocator policies for storage and bookkeeping, chosen at compile time
/// by the Meson option `allocator`. A policy is a type with static allocate/deallocate.
#pragma once
#include <cstddef>

#include <edgemem/config.hpp>
#include <edgemem/fault.hpp>

namespace edgemem {

/// Byte counts of an allocator policy.
struct AllocatorStats {
  std::size_t capacity_bytes = 0;   ///< bytes the policy can hand out (0: unbounded)
  std::size_t in_use_bytes = 0;     ///< bytes handed out now, headers included
  std::size_t peak_bytes = 0;       ///< high-water mark of in_use_bytes
  std::size_t allocations = 0;      ///< live allocations (a root's kept view storage counts until the root goes: up to 257 view records per root)
  std::size_t failures = 0;         ///< allocate() calls that returned null
  std::size_t total_allocations = 0;  ///< allocate() calls that succeeded since start-up (never decreases)
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

/// Firmware's own heap through two callbacks installed once at start-up with install(), before the
/// first edgemem call (selected with -Dallocator=user). Until installed, allocate() returns null, so
/// every edgemem call that needs memory returns Errc::out_of_host_memory. Never calls malloc/new itself.
struct UserAllocator {
  /// Returns `bytes` (> 0) bytes aligned to `align` (a power of two), or null. `user` as installed.
  using AllocateFn = void* (*)(std::size_t bytes, std::size_t align, void* user) noexcept;
  /// Frees memory from AllocateFn; `bytes` and `align` as passed there. Never called with null.
  using DeallocateFn = void (*)(void* p, std::size_t bytes, std::size_t align, void* user) noexcept;
  /// Installs the callbacks (null `allocate` uninstalls). Not synchronised with concurrent allocation:
  /// call it before any other thread uses edgemem, and never while edgemem objects live.
  static void install(AllocateFn allocate, DeallocateFn deallocate, void* user) noexcept;
  /// `bytes` (> 0) aligned to `align` (power of two) from the installed callback, or null (none installed,
  /// bytes 0, or the callback returned null).
  [[nodiscard]] static void* allocate(std::size_t bytes, std::size_t align) noexcept;
  /// Returns memory from allocate(); null is ignored.
  static void deallocate(void* p, std::size_t bytes, std::size_t align) noexcept;
  /// Live allocations and bytes made through this policy (capacity 0: unknown).
  [[nodiscard]] static AllocatorStats stats() noexcept;
};

#if EDGEMEM_ALLOCATOR_STATIC
/// The policy selected by the Meson option `allocator`.
using SelectedAllocator = StaticArenaAllocator;
#elif EDGEMEM_ALLOCATOR_USER
/// The policy selected by the Meson option `allocator`.
using SelectedAllocator = UserAllocator;
#else
/// The policy selected by the Meson option `allocator`.
using SelectedAllocator = SystemAllocator;
#endif

#if EDGEMEM_FAULT_INJECTION
/// The policy edgemem allocates through: SelectedAllocator behind fault points (tests only, edgemem/fault.hpp).
using DefaultAllocator = FaultInjectingAllocator<SelectedAllocator>;
#else
/// The policy edgemem allocates through.
using DefaultAllocator = SelectedAllocator;
#endif

}  // namespace edgemem
