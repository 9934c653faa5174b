// Gate and native queues on the Vulkan backend (gate.hpp), until its queues land (issue #32, step 7:
// a submit that waits on a host-signalled timeline semaphore): unsupported.
#include "support/gate.hpp"

namespace emt {

using edgemem::Errc;
using edgemem::fail;

struct Gate::State {};

edgemem::Result<Gate> Gate::hold(edgemem::Queue& q) noexcept {
  if (!q.valid()) return fail(Errc::released, "gate: the queue is released");
  return fail(Errc::unsupported, "gate: the Vulkan backend's gates are not implemented yet (issue #32, step 7)");
}

void Gate::open() noexcept {}

void Gate::reset() noexcept {
  delete state_;
  state_ = nullptr;
}

edgemem::Result<edgemem::NativeQueue> make_native_queue(const edgemem::Context&) noexcept {
  return fail(Errc::unsupported, "make_native_queue: the Vulkan backend's queues are not implemented yet");
}

void destroy_native_queue(edgemem::NativeQueue) noexcept {}

}  // namespace emt
