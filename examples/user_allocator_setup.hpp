// What a program built with -Dallocator=user does first: install the two callbacks edgemem takes all
// its host memory from, before any other edgemem call. Firmware would hand out memory from its own
// heap or a reserved region here; the examples use aligned_alloc/free. With another allocator policy
// this does nothing. A program that installs nothing gets Errc::out_of_host_memory from every
// allocating edgemem call (Context::create first).
#pragma once
#include <cstddef>
#include <cstdlib>

#include <edgemem/allocator.hpp>

namespace example {

/// `bytes` bytes aligned to `align` (a power of two) from the C runtime, or null.
inline void* user_allocate(std::size_t bytes, std::size_t align, void*) noexcept {
  if (align < sizeof(void*)) align = sizeof(void*);
  return std::aligned_alloc(align, (bytes + align - 1) / align * align);
}

/// Frees memory from user_allocate().
inline void user_deallocate(void* p, std::size_t, std::size_t, void*) noexcept { std::free(p); }

/// Installs the callbacks when this build uses allocator=user; call it first thing in main().
inline void setup_user_allocator() noexcept {
#if EDGEMEM_ALLOCATOR_USER
  edgemem::UserAllocator::install(&user_allocate, &user_deallocate, nullptr);
#endif
}

}  // namespace example
