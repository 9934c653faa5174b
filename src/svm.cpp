#include <edgemem/svm.hpp>

#include "core/live.hpp"
#include "core/nodes.hpp"
#include "core/ordering.hpp"
#include "core/roots.hpp"

namespace edgemem {

using detail::Backend;
using detail::MemNode;
using detail::RootNode;

namespace {

bool has_grain(const Capabilities& caps, SvmGrain grain) noexcept {
  switch (grain) {
    case SvmGrain::coarse: return caps.svm_coarse;
    case SvmGrain::fine_buffer: return caps.svm_fine_buffer;
    case SvmGrain::fine_system: return caps.svm_fine_system;
  }
  return false;
}

/// A new SVM root on `cn`. Errc: those of Svm::create.
Result<MemNode*> make_svm_root(detail::ContextNode* cn, std::size_t bytes, SvmGrain grain,
                               std::size_t alignment) noexcept {
  if (cn == nullptr) return fail(Errc::released, "context is released");
  if (grain != SvmGrain::coarse && grain != SvmGrain::fine_buffer && grain != SvmGrain::fine_system)
    return fail(Errc::invalid_argument, "unknown SvmGrain");
  if (!has_grain(cn->info.caps, grain))
    return fail(Errc::unsupported, "the device has no shared virtual memory of this grain (DeviceInfo::caps)");
  if (bytes == 0) return fail(Errc::invalid_argument, "size is zero");
  if ((alignment & (alignment - 1)) != 0) return fail(Errc::invalid_argument, "alignment is not a power of two");
  if (bytes > cn->info.max_alloc_bytes) return fail(Errc::out_of_range, "size exceeds the device's max allocation");
  if (alignment > svm_max_alignment) return fail(Errc::out_of_range, "alignment exceeds svm_max_alignment (128)");
  return detail::make_root_node(cn, bytes, [&](RootNode* node) -> Result<void> {
    EDGEMEM_TRY_ASSIGN(void* p, Backend::svm_alloc(cn->native, bytes, grain, svm_max_alignment));
    node->storage = Storage::shared;
    node->svm = static_cast<std::byte*>(p);
    node->svm_grain = grain;
    return {};
  });
}

}  // namespace

Result<Svm> Svm::create(const Context& ctx, std::size_t bytes, SvmGrain grain, std::size_t alignment) noexcept {
  EDGEMEM_TRY_ASSIGN(MemNode* n, make_svm_root(detail::node_of(ctx), bytes, grain, alignment));
  return Svm(n);
}

Result<Svm> Svm::like(const Svm& other) noexcept {
  const MemNode* o = detail::node_of(other);
  if (o == nullptr) return fail(Errc::released, "svm is released");
  EDGEMEM_TRY_ASSIGN(MemNode* n, make_svm_root(o->ctx, o->bytes, o->root->svm_grain, 0));
  return Svm(n);
}

Result<Svm> Svm::sub(std::size_t offset, std::size_t bytes) const noexcept {
  if (node_ == nullptr) return fail(Errc::released, "svm is released");
  EDGEMEM_TRY_ASSIGN(MemNode* n, detail::make_sub(node_, offset, bytes, node_->flags));
  return Svm(n);
}

SvmGrain Svm::grain() const noexcept { return node_ != nullptr ? node_->root->svm_grain : SvmGrain::coarse; }

Result<void*> Svm::fine_host_bytes(std::size_t elem_size) const noexcept {
  if (node_ == nullptr) return fail(Errc::released, "svm is released");
  if (node_->root->svm_grain == SvmGrain::coarse)
    return fail(Errc::access_denied, "coarse-grain SVM is reached by the host only through a map (Queue::map)");
  if (node_->bytes % elem_size != 0) return fail(Errc::misaligned, "size is not a multiple of the element size");
  return static_cast<void*>(node_->root->svm + node_->origin);
}

}  // namespace edgemem
