// The raw OpenCL baseline of pool_bench: clCreateBuffer + a 4-byte blocking write (touch) +
// clReleaseMemObject on edgemem's own context and queue. Included only on the OpenCL backend.
#pragma once
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstddef>
#include <cstdint>

#include <edgemem/edgemem.hpp>

namespace pool_bench {

/// One raw create + touch + release of `bytes` bytes; false on any OpenCL error.
inline bool raw_create_touch_release(const edgemem::Context& ctx, edgemem::Queue& q, std::size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(ctx.native().context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  if (err != CL_SUCCESS) return false;
  const std::uint32_t word = 0x5a5a5a5au;
  err = clEnqueueWriteBuffer(q.native(), mem, CL_TRUE, 0, sizeof word, &word, 0, nullptr, nullptr);
  return clReleaseMemObject(mem) == CL_SUCCESS && err == CL_SUCCESS;
}

}  // namespace pool_bench
