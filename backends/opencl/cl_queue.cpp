// OpenCL backend: in-order command queues (events: cl_event.cpp).
#include "cl.hpp"
#include "cl_error.hpp"

namespace edgemem::backend {

Result<OpenCL::NativeQueue> OpenCL::queue_create(const NativeContext& ctx) noexcept {
  cl_int status = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(ctx.context, ctx.device, 0, &status);
  if (status != CL_SUCCESS) return cl::fail_cl(status);
  if (q == nullptr) return cl::fail_cl(CL_OUT_OF_HOST_MEMORY);
  return q;
}

Result<OpenCL::NativeQueue> OpenCL::queue_adopt(const NativeContext& ctx, NativeQueue q, AdoptMode mode) noexcept {
  if (q == nullptr) return fail(Errc::invalid_argument, "adopt needs a cl_command_queue");
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  cl_command_queue_properties props = 0;
  EDGEMEM_TRY(cl::check(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr)));
  EDGEMEM_TRY(cl::check(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof device, &device, nullptr)));
  EDGEMEM_TRY(cl::check(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr)));
  if (context != ctx.context || device != ctx.device)
    return fail(Errc::invalid_argument, "the cl_command_queue belongs to another context or device");
  if ((props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0)
    return fail(Errc::unsupported, "edgemem queues are in order; the cl_command_queue is out of order");
  if (mode == AdoptMode::retain) EDGEMEM_TRY(cl::check(clRetainCommandQueue(q)));
  return q;
}

void OpenCL::queue_release(NativeQueue q) noexcept {
  if (q != nullptr) (void)clReleaseCommandQueue(q);
}

Result<void> OpenCL::queue_finish(NativeQueue q) noexcept { return cl::check(clFinish(q)); }

}  // namespace edgemem::backend
