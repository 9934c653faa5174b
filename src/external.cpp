// Buffer::import, create_exportable and export_handle: foreign memory in, shareable memory out
// (external.hpp, ipc_handle.hpp). The fd work is in external/fd_memory; the driver's own import
// paths are the backend's external group.
#include <cstdint>
#include <cstring>

#include <edgemem/buffer.hpp>
#include <edgemem/external.hpp>
#include <edgemem/ipc_handle.hpp>

#include "core/checks.hpp"
#include "core/nodes.hpp"
#include "core/roots.hpp"
#include "external/fd_memory.hpp"

namespace edgemem {

using detail::Backend;
using detail::ContextNode;
using detail::FdRecord;
using detail::MemNode;
using detail::RootNode;

const char* to_string(ImportPath path) noexcept {
  switch (path) {
    case ImportPath::none: return "none";
    case ImportPath::khr_dma_buf: return "khr_dma_buf";
    case ImportPath::arm_dma_buf: return "arm_dma_buf";
    case ImportPath::khr_opaque_fd: return "khr_opaque_fd";
    case ImportPath::mmap_host_ptr: return "mmap_host_ptr";
    case ImportPath::host_ptr: return "host_ptr";
    case ImportPath::copy: return "copy";
  }
  return "unknown";
}

namespace {

constexpr const char* kReadOnlyFd =
    "the fd cannot be mapped writable (opened O_RDONLY, or sealed F_SEAL_WRITE / F_SEAL_FUTURE_WRITE): import it "
    "with MemFlags::read_only";

/// The common checks of every import and export. Errc: released, invalid_argument, out_of_range.
Result<ContextNode*> check_new_root(const Context& ctx, std::size_t bytes, MemFlags flags) noexcept {
  ContextNode* cn = detail::node_of(ctx);
  if (cn == nullptr) return fail(Errc::released, "context is released");
  if (bytes == 0) return fail(Errc::invalid_argument, "size is zero");
  if (bytes > cn->info.max_alloc_bytes) return fail(Errc::out_of_range, "size exceeds the device's max allocation");
  EDGEMEM_TRY(detail::check_mem_flags(flags));
  EDGEMEM_TRY(detail::check_host_flags_supported(cn, flags));
  return cn;
}

/// True when CL_MEM_USE_HOST_PTR over `p` is zero-copy by edgemem's rule (external.hpp).
bool use_host_aligned(const ContextNode* cn, const void* p) noexcept {
  return reinterpret_cast<std::uintptr_t>(p) % cn->info.base_align_bytes == 0;
}

/// True when an import with `flags` is read-only memory (ExternalRef::read_only): MemFlags::read_only.
bool read_only_import(MemFlags flags) noexcept { return has(flags, MemFlags::read_only); }

/// A copy of `bytes` bytes at `data` in a new device buffer, remembered as ImportPath::copy.
/// `rec` (the mapping `data` lies in, or null) is let go either way; a dma-buf's copy is read between
/// its host-access bracket (DMA_BUF_IOCTL_SYNC).
Result<Buffer> copy_in(const Context& ctx, const void* data, std::size_t bytes, MemFlags flags,
                       FdRecord* rec) noexcept {
  const bool sync = rec != nullptr && rec->host_access != nullptr;
  if (sync) rec->host_access(rec, true, Access::read);
  auto b = Buffer::from_host(ctx, data, bytes, Storage::device, flags);
  if (sync) rec->host_access(rec, false, Access::read);
  if (rec != nullptr) rec->release(rec);
  if (!b) return b;
  auto marker = detail::adopt_fd_record(-1);
  if (!marker) return fail(marker.error());
  (*marker)->path = ImportPath::copy;
  (*marker)->read_only = read_only_import(flags);
  detail::node_of(*b)->root->external = *marker;
  return b;
}

/// A buffer over `bytes` bytes at `data` (zero-copy) that owns `rec` from now on, also on failure. A
/// dma-buf's pages are read between its host-access bracket (a driver may copy them in at creation).
/// `host_read_only`: the mapping is PROT_READ (detail::wrap_root); where the backend refuses that
/// (unsupported: it would write back into it) and `allow_copy`, the bytes are copied instead (copy_in).
Result<Buffer> wrap_owning(const Context& ctx, std::byte* data, std::size_t bytes, MemFlags flags, FdRecord* rec,
                           bool host_read_only, bool allow_copy) noexcept {
  if (rec->host_access != nullptr) rec->host_access(rec, true, Access::read);
  auto n = detail::wrap_root(detail::node_of(ctx), data, bytes, flags, host_read_only);
  if (rec->host_access != nullptr) rec->host_access(rec, false, Access::read);
  if (!n) {
    if (allow_copy && n.error().code == Errc::unsupported) return copy_in(ctx, data, bytes, flags, rec);
    rec->release(rec);
    return fail(n.error());
  }
  (*n)->external = rec;
  return detail::HandleAccess::buffer(*n);
}

/// The driver's own import of `m` (the backend's external group), or unsupported.
template <class B>
Result<Buffer> driver_import(const Context& ctx, ContextNode* cn, const ExternalMemory& m, MemFlags flags) noexcept {
  if constexpr ((B::groups & contract::group_external) != 0) {
    const unsigned kinds = cn->info.caps.external_memory;
    const bool can = m.type == HandleType::dma_buf ? (kinds & (external_dma_buf | external_arm_import)) != 0
                                                   : (kinds & external_opaque_fd) != 0;
    if (!can) return fail(Errc::unsupported, "the device imports no such handle");
    EDGEMEM_TRY_ASSIGN(FdRecord* rec, detail::make_fd_record(m.fd));
    contract::ImportDesc desc;
    desc.type = m.type;
    desc.fd = m.fd;
    desc.offset = m.offset;
    desc.bytes = m.bytes;
    desc.flags = flags;
    ImportPath path = ImportPath::none;
    auto node = detail::make_root_node(cn, m.bytes, [&](RootNode* n) -> Result<void> {
      EDGEMEM_TRY_ASSIGN(n->native, B::mem_import(cn->native, desc, path));
      n->flags = flags;
      return {};
    });
    if (!node) {
      rec->release(rec);
      return fail(node.error());
    }
    rec->path = path;
    rec->bracketed = path == ImportPath::khr_dma_buf || path == ImportPath::khr_opaque_fd;
    rec->read_only = read_only_import(flags);
    rec->fd_offset = m.offset;
    (*node)->external = rec;
    return detail::HandleAccess::buffer(*node);
  } else {
    (void)ctx, (void)cn, (void)m, (void)flags;
    return fail(Errc::unsupported, "the backend has no driver import paths");
  }
}

/// The mmap path of a checked dma-buf or memfd `m` (`kind`: what check_fd_memory found) whose fd `rec`
/// owns (consumed, also on failure).
Result<Buffer> map_import(const Context& ctx, ContextNode* cn, const ExternalMemory& m, detail::FdKind kind,
                          const ImportOptions& o, FdRecord* rec) noexcept {
  const bool read_only = read_only_import(o.flags);  // mapped PROT_READ: nothing may write it
  auto data = detail::map_fd(rec, m.offset, m.bytes, read_only);
  if (!data) {
    rec->release(rec);
    return fail(data.error());
  }
  rec->host_access = detail::host_access_for(m, kind);
  if (!use_host_aligned(cn, *data)) {
    if (o.allow_copy) return copy_in(ctx, *data, m.bytes, o.flags, rec);
    rec->release(rec);
    return fail(Errc::misaligned, "the mapped memory is not a multiple of the device's base alignment");
  }
  rec->path = ImportPath::mmap_host_ptr;
  rec->fd_offset = m.offset;
  rec->read_only = read_only;
  if (m.type == HandleType::memfd) rec->sealed = detail::fd_sealed(rec->fd.get());  // (a dma-buf is not re-exported)
  if (rec->sealed) rec->identity = detail::random_identity();
  return wrap_owning(ctx, *data, m.bytes, o.flags, rec, read_only, o.allow_copy);
}

}  // namespace

Result<Buffer> Buffer::import(const Context& ctx, const ExternalMemory& m, const ImportOptions& o) noexcept {
  EDGEMEM_TRY_ASSIGN(ContextNode* cn, check_new_root(ctx, m.bytes, o.flags));
  switch (m.type) {
    case HandleType::host_pointer: {
      if (m.host == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
      if (!use_host_aligned(cn, m.host)) {
        if (o.allow_copy) return copy_in(ctx, m.host, m.bytes, o.flags, nullptr);
        return fail(Errc::misaligned, "the host pointer is not a multiple of the device's base alignment");
      }
      EDGEMEM_TRY_ASSIGN(FdRecord* rec, detail::adopt_fd_record(-1));
      rec->path = ImportPath::host_ptr;
      rec->read_only = read_only_import(o.flags);
      return wrap_owning(ctx, static_cast<std::byte*>(m.host), m.bytes, o.flags, rec, false, o.allow_copy);
    }
    case HandleType::dma_buf:
    case HandleType::opaque_fd:
    case HandleType::memfd: break;
    default: return fail(Errc::invalid_argument, "unknown HandleType");
  }
  EDGEMEM_TRY_ASSIGN(const detail::FdKind kind, detail::check_fd_memory(m, o.require_sealed));
  if (kind != detail::FdKind::opaque && !read_only_import(o.flags) && detail::fd_read_only(m.fd))
    return fail(Errc::access_denied, kReadOnlyFd);
  if (kind != detail::FdKind::sealed_file) {  // a real dma-buf or an opaque fd: the driver's paths first
    auto driver = driver_import<Backend>(ctx, cn, m, o.flags);
    if (driver || driver.error().code != Errc::unsupported) return driver;
    if (m.type == HandleType::opaque_fd)
      return fail(Errc::unsupported, "an opaque fd needs cl_khr_external_memory_opaque_fd on the device");
  }
  EDGEMEM_TRY_ASSIGN(FdRecord* rec, detail::make_fd_record(m.fd));
  return map_import(ctx, cn, m, kind, o, rec);
}

Result<Buffer> Buffer::import(const Context& ctx, IpcHandle&& handle, MemFlags flags) noexcept {
  const IpcDescriptor desc = handle.descriptor();
  const int fd = handle.release_fd();
  if (fd < 0) return fail(Errc::released, "the IPC handle is empty or already used");
  auto checked = [&]() -> Result<ContextNode*> {
    EDGEMEM_TRY_ASSIGN(ContextNode* cn, check_new_root(ctx, desc.bytes, flags));
    if (desc.has_uuid != 0 && cn->info.has_uuid && std::memcmp(desc.uuid, cn->info.uuid, sizeof desc.uuid) != 0)
      return fail(Errc::invalid_argument, "the handle was exported by another device (uuid)");
    EDGEMEM_TRY(detail::check_fd_memory(ExternalMemory::memfd(fd, desc.offset, desc.bytes), true));  // sealed_file
    if (!read_only_import(flags) && detail::fd_read_only(fd)) return fail(Errc::access_denied, kReadOnlyFd);
    return cn;
  }();
  if (!checked) {
    detail::close_fd(fd);
    return fail(checked.error());
  }
  EDGEMEM_TRY_ASSIGN(FdRecord* rec, detail::adopt_fd_record(fd));
  ImportOptions o;
  o.flags = flags;
  return map_import(ctx, *checked, ExternalMemory::memfd(fd, desc.offset, desc.bytes), detail::FdKind::sealed_file,
                    o, rec);
}

Result<Buffer> Buffer::create_exportable(const Context& ctx, std::size_t bytes, MemFlags flags,
                                         PeerAccess peer) noexcept {
  EDGEMEM_TRY_ASSIGN(ContextNode* cn, check_new_root(ctx, bytes, flags));
  if (peer != PeerAccess::read_write && peer != PeerAccess::read_only)
    return fail(Errc::invalid_argument, "unknown PeerAccess");
  if (!cn->info.caps.unified_memory)
    return fail(Errc::unsupported, "exportable memory needs a unified-memory device (DeviceInfo::caps)");
  EDGEMEM_TRY_ASSIGN(const int fd, detail::make_sealed_memfd(bytes));
  EDGEMEM_TRY_ASSIGN(FdRecord* rec, detail::adopt_fd_record(fd));
  auto data = detail::map_fd(rec, 0, bytes, false);
  // Sealed only now: F_SEAL_FUTURE_WRITE leaves this (earlier) mapping writable and no later one.
  auto sealed = data ? detail::finish_sealing(fd, peer == PeerAccess::read_only) : Result<void>{};
  if (!data || !sealed) {
    rec->release(rec);
    return fail(!data ? data.error() : sealed.error());
  }
  rec->sealed = true;
  rec->identity = detail::random_identity();
  return wrap_owning(ctx, *data, bytes, flags, rec, false, false);
}

ImportPath Buffer::import_path() const noexcept {
  if (node_ == nullptr || node_->root->external == nullptr) return ImportPath::none;
  return node_->root->external->path;
}

Result<IpcHandle> Buffer::export_handle() const noexcept {
  if (node_ == nullptr) return fail(Errc::released, "buffer is released");
  const RootNode* root = node_->root;
  const detail::ExternalRef* rec = root->external;
  if (rec == nullptr || !rec->sealed || rec->fd.get() < 0)
    return fail(Errc::unsupported, "only memory made by create_exportable() or a sealed memfd import is exported");
  // The peer gets the file, not a range of it: export only what it may reach in full (issue #29.6).
  if (node_->origin != 0 || node_->bytes != root->bytes)
    return fail(Errc::access_denied,
                "a view is not exported: the peer would receive its whole allocation (export a buffer of its own)");
  // create_exportable's memfd is the buffer and its zero padding to the next page; an import's is the
  // caller's file, which must be exactly the buffer.
  const std::size_t page = detail::page_bytes();
  const std::uint64_t limit = rec->path == ImportPath::none ? (root->bytes + page - 1) / page * page : root->bytes;
  if (rec->fd_offset != 0 || detail::fd_size(rec->fd.get()) > limit)
    return fail(Errc::access_denied, "the memfd holds bytes beyond this buffer's: the peer would receive them too");
  if (rec->read_only && !detail::fd_write_sealed(rec->fd.get()))
    return fail(Errc::access_denied,
                "a read-only import of writable memory is not exported: the peer could write it (only a write-sealed memfd)");
  const ContextNode* cn = node_->ctx;
  IpcDescriptor desc;
  desc.offset = 0;
  desc.bytes = node_->bytes;
  desc.has_uuid = cn->info.has_uuid ? 1 : 0;
  std::memcpy(desc.uuid, cn->info.uuid, sizeof desc.uuid);
  EDGEMEM_TRY_ASSIGN(const int fd, detail::dup_fd(rec->fd.get()));
  return IpcHandle::adopt(fd, desc);
}

}  // namespace edgemem
