// Gate and native queues on the OpenCL backend (gate.hpp): a marker waiting for a user event.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120  // as the backend (cl.hpp): OpenCL 1.2 devices too
#endif
#include <CL/cl.h>

#include <mutex>

#include "support/gate.hpp"

namespace emt {

using edgemem::Errc;
using edgemem::fail;

struct Gate::State {
  cl_event user = nullptr;
  std::mutex m;
  bool opened = false;
};

edgemem::Result<Gate> Gate::hold(edgemem::Queue& q) noexcept {
  cl_command_queue native = q.native();
  if (native == nullptr) return fail(Errc::released, "gate: the queue is released");
  cl_context ctx = nullptr;
  if (clGetCommandQueueInfo(native, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr) != CL_SUCCESS)
    return fail(Errc::backend_failure, "gate: clGetCommandQueueInfo failed");
  cl_int status = CL_SUCCESS;
  cl_event user = clCreateUserEvent(ctx, &status);
  if (status != CL_SUCCESS || user == nullptr) return fail(Errc::backend_failure, "gate: clCreateUserEvent failed", status);
  status = clEnqueueMarkerWithWaitList(native, 1, &user, nullptr);
  if (status != CL_SUCCESS) {
    (void)clSetUserEventStatus(user, CL_COMPLETE);
    (void)clReleaseEvent(user);
    return fail(Errc::backend_failure, "gate: clEnqueueMarkerWithWaitList failed", status);
  }
  State* s = new State;
  s->user = user;
  return Gate(s);
}

void Gate::open() noexcept {
  if (state_ == nullptr) return;
  std::lock_guard<std::mutex> lock(state_->m);
  if (state_->opened) return;
  (void)clSetUserEventStatus(state_->user, CL_COMPLETE);
  state_->opened = true;
}

void Gate::reset() noexcept {
  if (state_ == nullptr) return;
  open();
  (void)clReleaseEvent(state_->user);
  delete state_;
  state_ = nullptr;
}

edgemem::Result<edgemem::NativeQueue> make_native_queue(const edgemem::Context& ctx) noexcept {
  const edgemem::NativeContext n = ctx.native();
  if (n.context == nullptr) return fail(Errc::released, "make_native_queue: the context is released");
  cl_int status = CL_SUCCESS;
  // clCreateCommandQueue, as the backend makes its own (OpenCL 1.2; 2.0's ...WithProperties with no
  // properties is the same in-order queue).
  cl_command_queue q = clCreateCommandQueue(n.context, n.device, 0, &status);
  if (status != CL_SUCCESS || q == nullptr) return fail(Errc::backend_failure, "clCreateCommandQueue failed", status);
  return q;
}

void destroy_native_queue(edgemem::NativeQueue q) noexcept {
  if (q != nullptr) (void)clReleaseCommandQueue(q);
}

}  // namespace emt
