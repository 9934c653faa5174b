// A kernel built with the raw OpenCL C API on an edgemem context, for the interop tests.
#pragma once
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "conformance/test_helpers.hpp"

namespace emt {

/// Program and kernel `name` of `source`, built with `options` for the context's device; released at
/// destruction.
struct RawKernel {
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;

  RawKernel(const edgemem::Context& ctx, const char* source, const char* name, const char* options = "") {
    const auto n = ctx.native();
    cl_int status = CL_SUCCESS;
    program = clCreateProgramWithSource(n.context, 1, &source, nullptr, &status);
    REQUIRE(status == CL_SUCCESS);
    REQUIRE(clBuildProgram(program, 1, &n.device, options, nullptr, nullptr) == CL_SUCCESS);
    kernel = clCreateKernel(program, name, &status);
    REQUIRE(status == CL_SUCCESS);
  }
  ~RawKernel() {
    clReleaseKernel(kernel);
    clReleaseProgram(program);
  }
  RawKernel(const RawKernel&) = delete;
  RawKernel& operator=(const RawKernel&) = delete;

  /// Sets argument `i` to `value`.
  template <class T>
  void arg(cl_uint i, const T& value) {
    REQUIRE(clSetKernelArg(kernel, i, sizeof value, &value) == CL_SUCCESS);
  }
  /// Enqueues `count` work-items on `q` and flushes; does not wait.
  void enqueue(cl_command_queue q, std::size_t count) {
    REQUIRE(clEnqueueNDRangeKernel(q, kernel, 1, nullptr, &count, nullptr, 0, nullptr, nullptr) == CL_SUCCESS);
    REQUIRE(clFlush(q) == CL_SUCCESS);
  }
};

}  // namespace emt
