// Vulkan backend: the operations still to come (issue #32, steps 3-8 of docs/backends/vulkan.md).
// Each answers unsupported with the step that brings it; this file shrinks as they land and goes.
#include "vk.hpp"

namespace edgemem::backend {

namespace {

Failure memory_to_come() noexcept {
  return fail(Errc::unsupported, "Vulkan backend: memory objects are not implemented yet (issue #32, steps 3-6)");
}

}  // namespace

Result<Vulkan::NativeMem> Vulkan::mem_create(const NativeContext&, const MemDesc&) noexcept { return memory_to_come(); }
Result<Vulkan::NativeMem> Vulkan::mem_sub(const NativeMem&, std::size_t, std::size_t, MemFlags) noexcept {
  return memory_to_come();
}
Result<void> Vulkan::mem_adopt(const NativeContext&, NativeMem&, AdoptMode, AdoptedMem&) noexcept {
  return memory_to_come();
}
void Vulkan::mem_release(NativeMem& mem) noexcept { mem = NativeMem{}; }
Vulkan::MemAddress Vulkan::mem_address(const NativeContext&, const NativeMem&) noexcept { return MemAddress{}; }
bool Vulkan::mem_shadowed(const NativeMem&) noexcept { return false; }
Result<void> Vulkan::write(NativeQueue, const NativeMem&, std::size_t, const void*, std::size_t,
                           const CommandEvents&) noexcept {
  return memory_to_come();
}
Result<void> Vulkan::read(NativeQueue, const NativeMem&, std::size_t, void*, std::size_t, const CommandEvents&) noexcept {
  return memory_to_come();
}
Result<void> Vulkan::fill(NativeQueue, const NativeMem&, std::size_t, std::size_t, const void*, std::size_t,
                          const CommandEvents&) noexcept {
  return memory_to_come();
}
Result<void> Vulkan::copy(NativeQueue, const NativeMem&, const NativeMem&, std::size_t, std::size_t, std::size_t,
                          const CommandEvents&) noexcept {
  return memory_to_come();
}
Result<void> Vulkan::write_rect(NativeQueue, const NativeMem&, const Rect&, const void*, const CommandEvents&) noexcept {
  return memory_to_come();
}
Result<void> Vulkan::read_rect(NativeQueue, const NativeMem&, const Rect&, void*, const CommandEvents&) noexcept {
  return memory_to_come();
}
Result<void> Vulkan::copy_rect(NativeQueue, const NativeMem&, const NativeMem&, const CopyRect&,
                               const CommandEvents&) noexcept {
  return memory_to_come();
}
Result<void> Vulkan::migrate(NativeQueue, const NativeMem&, Migration, const CommandEvents&) noexcept {
  return memory_to_come();
}
Result<Vulkan::Mapped> Vulkan::map(NativeQueue, const NativeMem&, Access, std::size_t, std::size_t,
                                   const CommandEvents&) noexcept {
  return memory_to_come();
}
Result<void> Vulkan::unmap(NativeQueue, const NativeMem&, const Mapped&, const CommandEvents&) noexcept {
  return memory_to_come();
}

}  // namespace edgemem::backend
