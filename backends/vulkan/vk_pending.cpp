// Vulkan backend: the operations still to come (issue #32, step 6 of docs/backends/vulkan.md).
// Each answers unsupported with the step that brings it; this file shrinks as they land and goes.
#include "vk.hpp"

namespace edgemem::backend {

namespace {

Failure rects_to_come() noexcept {
  return fail(Errc::unsupported, "Vulkan backend: rect transfers are not implemented yet (issue #32, step 6)");
}

}  // namespace

Result<void> Vulkan::write_rect(NativeQueue, const NativeMem&, const Rect&, const void*, const CommandEvents&) noexcept {
  return rects_to_come();
}
Result<void> Vulkan::read_rect(NativeQueue, const NativeMem&, const Rect&, void*, const CommandEvents&) noexcept {
  return rects_to_come();
}
Result<void> Vulkan::copy_rect(NativeQueue, const NativeMem&, const NativeMem&, const CopyRect&,
                               const CommandEvents&) noexcept {
  return rects_to_come();
}
}  // namespace edgemem::backend
