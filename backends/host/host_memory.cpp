// Host backend: memory objects and mappings. Storage comes from the allocator policy, aligned to
// the emulated base alignment; a sub-buffer is a view; a map returns the bytes themselves.
#include <cstring>

#include <edgemem/allocator.hpp>
#include "backend.hpp"
#include <edgemem/config.hpp>

namespace edgemem::backend {

namespace {
constexpr std::size_t kStorageAlign = EDGEMEM_HOST_BASE_ALIGN < 64 ? 64 : EDGEMEM_HOST_BASE_ALIGN;
}  // namespace

Result<Host::NativeMem> Host::mem_create(const NativeContext&, const MemDesc& desc) noexcept {
  if (desc.use_host != nullptr) return NativeMem{static_cast<std::byte*>(desc.use_host), 0};
  void* p = DefaultAllocator::allocate(desc.bytes, kStorageAlign);
  if (p == nullptr) return fail(Errc::out_of_host_memory, "allocator could not provide the buffer's storage");
  if (desc.copy_from != nullptr) std::memcpy(p, desc.copy_from, desc.bytes);
  return NativeMem{static_cast<std::byte*>(p), desc.bytes};
}

Result<Host::NativeMem> Host::mem_sub(const NativeMem& root, std::size_t origin, std::size_t, MemFlags) noexcept {
  return NativeMem{root.data + origin, 0};
}

bool Host::mem_shadowed(const NativeMem&) noexcept { return false; }  // every buffer is host memory

Host::MemAddress Host::mem_address(const NativeContext&, const NativeMem& mem) noexcept {
  return MemAddress{mem.data, mem.data != nullptr ? contract::MemPlace::host : contract::MemPlace::none};
}

void Host::mem_release(NativeMem& mem) noexcept {
  if (mem.owned_bytes != 0) DefaultAllocator::deallocate(mem.data, mem.owned_bytes, kStorageAlign);
  mem = NativeMem{};
}

Result<Host::Mapped> Host::map(NativeQueue q, const NativeMem& mem, Access, std::size_t offset, std::size_t,
                               const CommandEvents&) noexcept {
  q->fetch_add(1, std::memory_order_relaxed);
  return Mapped{mem.data + offset, 0};
}

Result<void> Host::unmap(NativeQueue q, const NativeMem&, const Mapped&, const CommandEvents& sync) noexcept {
  return marker(q, sync);
}

}  // namespace edgemem::backend
