// pool_bench's OpenCL baseline: clCreateBuffer + a 4-byte blocking write (touch) + clReleaseMemObject
// on edgemem's own context and queue.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdint>

#include "../../../bench/raw_alloc.hpp"

namespace pool_bench {

namespace {

bool raw_create_touch_release(const edgemem::Context& ctx, edgemem::Queue& q, std::size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(ctx.native().context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  if (err != CL_SUCCESS) return false;
  const std::uint32_t word = 0x5a5a5a5au;
  err = clEnqueueWriteBuffer(q.native(), mem, CL_TRUE, 0, sizeof word, &word, 0, nullptr, nullptr);
  return clReleaseMemObject(mem) == CL_SUCCESS && err == CL_SUCCESS;
}

const RawAlloc kRaw{"clCreateBuffer + 4-byte blocking write + clReleaseMemObject", raw_create_touch_release};

}  // namespace

const RawAlloc* raw_alloc() noexcept { return &kRaw; }

}  // namespace pool_bench
