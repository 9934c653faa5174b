// The one allocation of a pool or heap (detail::MakeArena, pool_core.hpp): made and zero-filled through
// the caller's queue at init(), so a device that defers allocation fails there and not mid-frame.
#include "pool/pool_core.hpp"
#include <edgemem/svm.hpp>

#include "core/svm_root.hpp"
#include "pool/touch.hpp"

namespace edgemem::detail {

Result<Buffer> buffer_arena(const Context& ctx, const Queue& q, std::size_t bytes, Storage storage, MemFlags flags,
                            SvmGrain) noexcept {
  auto made = Buffer::create(ctx, bytes, storage, flags);
  if (!made) return made;
  EDGEMEM_TRY(touch_zero(q, *made));
  return made;
}

Result<Buffer> svm_arena(const Context& ctx, const Queue& q, std::size_t bytes, Storage, MemFlags,
                         SvmGrain grain) noexcept {
  auto made = Svm::create(ctx, bytes, grain);
  if (!made) return fail(made.error());
  static constexpr unsigned char kZero = 0;  // every SVM device has clEnqueueSVMMemFill (OpenCL 2.0)
  EDGEMEM_TRY(Backend::svm_memfill(node_of(q)->native, svm_at(node_of(*made), 0), bytes, &kZero, 1,
                                   Backend::CommandEvents{}));
  return Buffer(std::move(*made));
}

Result<Buffer> exportable_arena(const Context& ctx, const Queue&, std::size_t bytes, Storage, MemFlags flags,
                                SvmGrain) noexcept {
  return Buffer::create_exportable(ctx, bytes, flags);  // a new memfd is zero
}

}  // namespace edgemem::detail
