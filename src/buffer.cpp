#include <edgemem/buffer.hpp>
#include <edgemem/queue.hpp>

#include "core/checks.hpp"
#include "core/live.hpp"
#include "core/nodes.hpp"
#include "core/ordering.hpp"
#include "core/roots.hpp"

namespace edgemem {

using detail::Backend;
using detail::MemNode;
using detail::RootNode;

namespace {

Result<RootNode*> make_root(detail::ContextNode* cn, const Backend::MemDesc& desc, bool wrapped) noexcept {
  if (cn == nullptr) return fail(Errc::released, "context is released");
  if (desc.bytes == 0) return fail(Errc::invalid_argument, "size is zero");
  if (desc.bytes > cn->info.max_alloc_bytes) return fail(Errc::out_of_range, "size exceeds the device's max allocation");
  EDGEMEM_TRY(detail::check_mem_flags(desc.flags));
  EDGEMEM_TRY(detail::check_host_flags_supported(cn, desc.flags));
  EDGEMEM_TRY(detail::check_storage(desc.storage));
  return detail::make_root_node(cn, desc.bytes, [&](RootNode* node) -> Result<void> {
    EDGEMEM_TRY_ASSIGN(node->native, Backend::mem_create(cn->native, desc));
    node->storage = desc.storage;
    node->flags = desc.flags;
    node->wrapped = wrapped;
    node->host = static_cast<const std::byte*>(desc.use_host);
    return {};
  });
}

Backend::MemDesc describe(std::size_t bytes, Storage storage, MemFlags flags) noexcept {
  Backend::MemDesc desc;
  desc.bytes = bytes;
  desc.storage = storage;
  desc.flags = flags;
  return desc;
}

/// A node over a buffer made elsewhere, with one retained reference; a sub-buffer brings its parent
/// along as its root. Errc: those of Backend::mem_adopt, out_of_host_memory.
Result<MemNode*> adopt_node(detail::ContextNode* cn, Backend::NativeMem mem, AdoptMode mode) noexcept {
  Backend::AdoptedMem a;
  EDGEMEM_TRY(Backend::mem_adopt(cn->native, mem, mode, a));
  auto drop_native = [&] {
    if (mode == AdoptMode::retain) Backend::mem_release(mem);
  };
  RootNode* root_node = a.is_sub ? nullptr : detail::make_node<RootNode>();
  MemNode* node = a.is_sub ? detail::make_node<MemNode>() : root_node;
  MemNode* parent = nullptr;
  if (node != nullptr && a.is_sub) {
    auto adopted_parent = adopt_node(cn, a.parent, mode);
    if (!adopted_parent) {
      drop_native();
      detail::destroy_mem_node(node);
      return fail(adopted_parent.error());
    }
    parent = *adopted_parent;
  }
  if (node == nullptr || (root_node != nullptr && !detail::attach_root_state(root_node))) {
    if (root_node != nullptr) detail::destroy_pending_table(root_node->pending);
    if (node != nullptr) detail::destroy_mem_node(node);
    drop_native();
    if (parent != nullptr) detail::unref(parent);
    return fail(Errc::out_of_host_memory, "no memory for the adopted buffer's bookkeeping");
  }
  if (parent != nullptr) {
    // A view of its adopted parent whose native sub-object is the adopted one. The parent's
    // reference to it moves to the view (init_view takes one more).
    detail::init_view(node, parent, parent->origin + a.origin, a.bytes, a.flags);
    detail::unref(parent);
    node->storage = a.storage;
    node->wrapped = a.wrapped;
    node->native_state.store(detail::kNativeGiven, std::memory_order_relaxed);
  } else {
    detail::retain(cn);  // a root holds the context
    node->ctx = cn;
    node->bytes = a.bytes;
    node->storage = a.storage;
    node->flags = a.flags;
    node->wrapped = a.wrapped;
    // The overlap checks read the root's caller memory (an adopted sub-buffer's root records it).
    root_node->host = static_cast<const std::byte*>(a.host);
    detail::live_add(detail::Live::buffer, 1);
  }
  node->native = mem;
  node->borrowed = mode == AdoptMode::borrow;
  return node;
}

}  // namespace

Result<Buffer> Buffer::adopt(const Context& ctx, NativeMem native, AdoptMode mode) noexcept {
  if (detail::node_of(ctx) == nullptr) return fail(Errc::released, "context is released");
  if (mode != AdoptMode::retain && mode != AdoptMode::borrow) return fail(Errc::invalid_argument, "unknown AdoptMode");
  EDGEMEM_TRY_ASSIGN(MemNode* n, adopt_node(detail::node_of(ctx), native, mode));
  return Buffer(n);
}

Result<Buffer> Buffer::create(const Context& ctx, std::size_t bytes, Storage storage, MemFlags flags) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* n, make_root(detail::node_of(ctx), describe(bytes, storage, flags), false));
  return Buffer(n);
}

Result<Buffer> Buffer::from_host(const Context& ctx, const void* data, std::size_t bytes, Storage storage,
                                 MemFlags flags) noexcept {
  if (ctx.valid() && data == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
  Backend::MemDesc desc = describe(bytes, storage, flags);
  desc.copy_from = data;
  EDGEMEM_TRY_ASSIGN(MemNode* n, make_root(detail::node_of(ctx), desc, false));
  return Buffer(n);
}

Result<Buffer> Buffer::wrap(const Context& ctx, void* data, std::size_t bytes, MemFlags flags) noexcept {
  if (ctx.valid() && data == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::wrap_root(detail::node_of(ctx), data, bytes, flags, false));
  return Buffer(n);
}

Result<RootNode*> detail::wrap_root(ContextNode* cn, void* data, std::size_t bytes, MemFlags flags,
                                   bool host_read_only) noexcept {
  Backend::MemDesc desc = describe(bytes, Storage::host, flags);
  desc.use_host = data;
  desc.host_read_only = host_read_only;
  return make_root(cn, desc, true);
}

Result<Buffer> Buffer::like(const Buffer& other) noexcept {
  if (other.node_ == nullptr) return fail(Errc::released, "buffer is released");
  const MemNode& o = *other.node_;
  EDGEMEM_TRY_ASSIGN(MemNode* n, make_root(o.ctx, describe(o.bytes, o.storage, o.flags), false));
  return Buffer(n);
}

Result<Buffer> Buffer::sub(std::size_t offset, std::size_t bytes) const noexcept {
  return sub(offset, bytes, flags());
}

Result<Buffer> Buffer::sub(std::size_t offset, std::size_t bytes, MemFlags flags) const noexcept {
  if (node_ == nullptr) return fail(Errc::released, "buffer is released");
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::make_sub(node_, offset, bytes, flags));
  return Buffer(n);
}

namespace detail {

Result<MemNode*> make_sub(MemNode* node, std::size_t offset, std::size_t bytes, MemFlags flags) noexcept {
  if (bytes == 0 || offset > node->bytes || bytes > node->bytes - offset)
    return fail(detail::check_range(offset, bytes, node->bytes).error());
  if (flags != node->flags) {  // the parent's own flags were checked when it was made
    EDGEMEM_TRY(detail::check_mem_flags(flags));
    if (!detail::flags_narrow(node->flags, flags))
      return fail(Errc::invalid_argument, "a sub-buffer's flags may only narrow its parent's access");
    EDGEMEM_TRY(detail::check_host_flags_supported(node->ctx, flags));
  }
  const std::size_t origin = node->origin + offset;
  if (!detail::is_multiple_of(origin, node->ctx->info.base_align_bytes))
    return fail(Errc::misaligned, "sub-buffer origin is not a multiple of the device base alignment");
  MemNode* view = detail::take_view_node(node->root, origin, bytes, flags);
  if (view == nullptr) return fail(Errc::out_of_host_memory, "no memory for the sub-buffer's bookkeeping");
  detail::init_view(view, node, origin, bytes, flags);
  return view;
}

}  // namespace detail

std::size_t Buffer::size() const noexcept { return node_ != nullptr ? node_->bytes : 0; }
std::size_t Buffer::origin() const noexcept { return node_ != nullptr ? node_->origin : 0; }
bool Buffer::is_sub() const noexcept { return node_ != nullptr && node_->parent != nullptr; }
Storage Buffer::storage() const noexcept { return node_ != nullptr ? node_->storage : Storage::device; }
MemFlags Buffer::flags() const noexcept { return node_ != nullptr ? node_->flags : MemFlags::read_write; }

bool Buffer::is_host_accessible() const noexcept {
  if (node_ == nullptr) return false;
  return node_->storage != Storage::device || node_->wrapped || node_->ctx->info.caps.unified_memory;
}

bool Buffer::is_caller_memory_in_place() const noexcept {
  if (node_ == nullptr || node_->root->host == nullptr) return false;
  return node_->ctx->info.caps.caller_memory_in_place && !Backend::mem_shadowed(node_->root->native);
}

bool Buffer::shares_root_with(const Buffer& other) const noexcept {
  return node_ != nullptr && other.node_ != nullptr && node_->root == other.node_->root;
}

bool Buffer::is_svm() const noexcept { return node_ != nullptr && node_->root->svm != nullptr; }

void* Buffer::svm_pointer() const noexcept {
  return is_svm() ? node_->root->svm + node_->origin : nullptr;
}

Result<NativeMem> Buffer::native() const noexcept {
  if (node_ == nullptr) return fail(Errc::released, "buffer is released");
  return detail::native_of(node_);
}

Result<void> Buffer::release() noexcept {
  if (node_ == nullptr) return {};
  EDGEMEM_TRY(detail::check_releasable(node_));
  drop();
  return {};
}

Result<void> Buffer::release(const Queue& q) noexcept {
  if (node_ == nullptr) return {};
  EDGEMEM_TRY(detail::order_release(detail::node_of(q), node_));
  drop();
  return {};
}

}  // namespace edgemem
