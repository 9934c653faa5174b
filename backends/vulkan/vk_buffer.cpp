// Vulkan backend: the contract's memory objects. A root is a VkBuffer with its own memory (mapped for
// life when host-visible) and a VulkanRoot record its views share; a view is a range of the root's
// VkBuffer (Vulkan has no sub-buffers), so mem_sub makes nothing. A root released while commands may
// still reach it is destroyed once they have run (vk_memory.cpp, retire).
#include <cstring>
#include <new>

#include <edgemem/allocator.hpp>

#include "vk_memory.hpp"
#include "vk_submit.hpp"

namespace edgemem::backend {

namespace {

vk::Placement placement_of(Storage s) noexcept {
  switch (s) {
    case Storage::host: return vk::Placement::host;
    case Storage::shared: return vk::Placement::shared;
    case Storage::device: break;
  }
  return vk::Placement::device;
}

Result<VulkanRoot*> make_root(VulkanDeviceRecord& d, const vk::Allocation& a, VulkanMemKind kind) noexcept {
  void* mem = DefaultAllocator::allocate(sizeof(VulkanRoot), alignof(VulkanRoot));
  if (mem == nullptr) return fail(Errc::out_of_host_memory, "no memory for a Vulkan root record");
  auto* root = new (mem) VulkanRoot;
  root->memory = reinterpret_cast<std::uint64_t>(a.memory);
  root->memory_offset = a.offset;
  root->block = a.block;
  root->reserved = a.reserved;
  root->kind = kind;
  root->device = &d;
  root->bytes = a.bytes;
  root->coherent = a.coherent;
  return root;
}

/// Copies `bytes` of `src` into device-local `dst` through staging, on the device's own Queue, and
/// waits. Errc: out_of_device_memory, out_of_host_memory, backend_failure.
Result<void> upload(VulkanDeviceRecord& d, VkBuffer dst, const void* src, VkDeviceSize bytes) noexcept {
  EDGEMEM_TRY_ASSIGN(VulkanQueueRecord * q, vk::internal_queue(d));
  auto copy = [&](VkCommandBuffer cb, vk::Allocation& staging) -> Result<void> {
    EDGEMEM_TRY_ASSIGN(staging, vk::allocate(d, bytes, vk::Placement::staging));
    std::memcpy(staging.host, src, static_cast<std::size_t>(bytes));
    if (!staging.coherent) EDGEMEM_TRY(vk::host_sync(d, staging, true));
    const VkBufferCopy region{0, 0, bytes};
    d.fns.vkCmdCopyBuffer(cb, staging.buffer, dst, 1, &region);
    return {};
  };
  return vk::run(*q, Vulkan::CommandEvents{}, vk::recorder(copy));
}

/// A root over caller memory (MemDesc::use_host): imported in place where the device can
/// (VK_EXT_external_memory_host), else a device copy of it synchronised at map and unmap (shadowed), as
/// OpenCL's CL_MEM_USE_HOST_PTR is on a device with its own copy. Memory the process may only read is
/// never shadowed (its maps would write into it). Errc: unsupported, out_of_device_memory,
/// out_of_host_memory, backend_failure.
Result<Vulkan::NativeMem> wrap_caller(VulkanDeviceRecord& d, const Vulkan::MemDesc& desc) noexcept {
  VkDeviceSize offset = 0;
  auto imported = vk::import_host(d, desc.use_host, desc.bytes, offset);
  VulkanMemKind kind = VulkanMemKind::mapped;
  if (!imported) {
    if (imported.error().code != Errc::unsupported) return fail(imported.error());
    if (desc.host_read_only)  // (NVIDIA imports no PROT_READ pages)
      return fail(Errc::unsupported, "read-only caller memory the device cannot import would be written at maps "
                                     "(a device copy): ImportOptions::allow_copy copies it");
    kind = VulkanMemKind::shadowed;
    offset = 0;
    imported = vk::allocate(d, desc.bytes, vk::Placement::device);
    if (!imported) return fail(imported.error());
    Result<void> filled{};
    if (imported->host != nullptr) {
      std::memcpy(imported->host, desc.use_host, desc.bytes);
      if (!imported->coherent) filled = vk::host_sync(d, *imported, true);
    } else {
      filled = upload(d, imported->buffer, desc.use_host, desc.bytes);
    }
    if (!filled) {
      vk::release(d, *imported);
      return fail(filled.error());
    }
  }
  auto root = make_root(d, *imported, kind);
  if (!root) {
    vk::release(d, *imported);
    return fail(root.error());
  }
  if (kind == VulkanMemKind::shadowed) (*root)->caller = desc.use_host;
  (*root)->device_read_only = has(desc.flags, MemFlags::read_only);
  Vulkan::NativeMem m;
  m.buffer = reinterpret_cast<std::uint64_t>(imported->buffer);
  m.offset = offset;
  m.size = desc.bytes;
  m.host = imported->host;
  m.root = *root;
  return m;
}

}  // namespace

Result<Vulkan::NativeMem> Vulkan::mem_create(const NativeContext& ctx, const MemDesc& desc) noexcept {
  VulkanDeviceRecord& d = *ctx.record;
  vk::reap(d, false);
  if (desc.use_host != nullptr) return wrap_caller(d, desc);
  EDGEMEM_TRY_ASSIGN(vk::Allocation a, vk::allocate(d, desc.bytes, placement_of(desc.storage)));
  Result<void> filled{};
  if (desc.copy_from != nullptr) {
    if (a.host != nullptr) {
      std::memcpy(a.host, desc.copy_from, desc.bytes);
      if (!a.coherent) filled = vk::host_sync(d, a, true);
    } else {
      filled = upload(d, a.buffer, desc.copy_from, desc.bytes);
    }
  }
  auto root = filled ? make_root(d, a, a.host != nullptr ? VulkanMemKind::mapped : VulkanMemKind::device)
                     : Result<VulkanRoot*>(fail(filled.error()));
  if (!root) {
    vk::release(d, a);
    return fail(root.error());
  }
  NativeMem m;
  m.buffer = reinterpret_cast<std::uint64_t>(a.buffer);
  m.offset = 0;
  m.size = desc.bytes;
  m.host = a.host;
  m.root = *root;
  return m;
}

Result<Vulkan::NativeMem> Vulkan::mem_sub(const NativeMem& root, std::size_t origin, std::size_t bytes, MemFlags) noexcept {
  NativeMem m = root;
  m.offset = root.offset + origin;
  m.size = bytes;
  m.host = root.host != nullptr ? static_cast<std::byte*>(root.host) + origin : nullptr;
  if (m.root != nullptr) m.root->refs.fetch_add(1, std::memory_order_relaxed);
  return m;
}

Result<void> Vulkan::mem_adopt(const NativeContext& ctx, NativeMem& mem, AdoptMode, AdoptedMem& out) noexcept {
  if (mem.buffer == 0 || mem.size == 0)
    return fail(Errc::invalid_argument, "adopt needs a VkBuffer and its size (Vulkan cannot tell a VkBuffer's size)");
  VulkanDeviceRecord& d = *ctx.record;
  vk::Allocation none;
  none.bytes = mem.size;
  // A VkBuffer has no reference count: retain and borrow both leave it to its maker.
  EDGEMEM_TRY_ASSIGN(VulkanRoot * root, make_root(d, none, VulkanMemKind::borrowed));
  mem.root = root;
  out = AdoptedMem{};
  out.bytes = static_cast<std::size_t>(mem.size);
  out.storage = mem.host != nullptr ? Storage::shared : Storage::device;
  return {};
}

void Vulkan::mem_release(NativeMem& mem) noexcept {
  VulkanRoot* root = mem.root;
  const VkBuffer buffer = reinterpret_cast<VkBuffer>(mem.buffer);
  mem = NativeMem{};
  if (root == nullptr || root->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  vk::Allocation a;
  if (root->kind != VulkanMemKind::borrowed) {
    a.buffer = buffer;
    a.memory = reinterpret_cast<VkDeviceMemory>(root->memory);
    a.offset = root->memory_offset;
    a.block = root->block;
    a.reserved = root->reserved;
  }
  vk::retire(*root->device, a, root);
}

Vulkan::MemAddress Vulkan::mem_address(const NativeContext&, const NativeMem&) noexcept {
  return MemAddress{};  // exports go through a Mapping (kDLCPU of mapped memory: issue #33)
}

bool Vulkan::mem_shadowed(const NativeMem& mem) noexcept {
  return mem.root != nullptr && mem.root->kind == VulkanMemKind::shadowed;
}

}  // namespace edgemem::backend
