// Test programs of an allocator=user build: installs malloc-backed aligned callbacks during static
// initialisation, before main() and so before any edgemem call, as firmware would at start-up. Linked
// into every test executable that does not install its own; compiles to nothing with other policies.
// (A program that installs nothing gets Errc::out_of_host_memory from every allocating call: see
// user_allocator_test.cpp.)
#include <edgemem/allocator.hpp>

#if EDGEMEM_ALLOCATOR_USER
#include <cstdlib>

namespace {

void* test_allocate(std::size_t bytes, std::size_t align, void*) noexcept {
  if (align < sizeof(void*)) align = sizeof(void*);
  return std::aligned_alloc(align, (bytes + align - 1) / align * align);
}

void test_deallocate(void* p, std::size_t, std::size_t, void*) noexcept { std::free(p); }

struct Installer {
  Installer() noexcept { edgemem::UserAllocator::install(&test_allocate, &test_deallocate, nullptr); }
};
const Installer g_installer;

}  // namespace
#endif
