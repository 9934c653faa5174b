// Gate and native queues on the host backend (gate.hpp): neither exists. Its commands complete at
// enqueue, so nothing can be held, and Queue::adopt is unsupported.
#include "support/gate.hpp"

namespace emt {

using edgemem::Errc;
using edgemem::fail;

struct Gate::State {};

edgemem::Result<Gate> Gate::hold(edgemem::Queue& q) noexcept {
  if (!q.valid()) return fail(Errc::released, "gate: the queue is released");
  return fail(Errc::unsupported, "gate: the host backend runs commands at enqueue; nothing can be held");
}

void Gate::open() noexcept {}

void Gate::reset() noexcept {
  delete state_;
  state_ = nullptr;
}

edgemem::Result<edgemem::NativeQueue> make_native_queue(const edgemem::Context&) noexcept {
  return fail(Errc::unsupported, "make_native_queue: the host backend has no native queues to adopt");
}

void destroy_native_queue(edgemem::NativeQueue) noexcept {}

}  // namespace emt
