// backends/opencl/bench/peers: Khronos opencl.hpp (Debian opencl-clhpp-headers) over the shared handles, without its
// exceptions (every call returns or reports a cl_int). Its objects retain the shared context, queue
// and buffers. Written as a careful opencl.hpp user writes it: RAII objects, no event asked for where
// none is used, queue.finish() where a command must be done.
// PoCL 3.1 and NVIDIA's driver are OpenCL 3.0. Only OpenCL 1.2 entry points are called here, but the
// header (2023.02.06) does not compile with a target of 2.0 or above and a minimum of 1.2 (its
// getContextPlatformVersion is declared only for minimums below 1.2), so the minimum is 3.0 too.
#define CL_HPP_TARGET_OPENCL_VERSION 300
#define CL_HPP_MINIMUM_OPENCL_VERSION 300
#include <CL/opencl.hpp>

#include <cstdio>
#include <cstring>

#include "peers.hpp"

namespace peers {
namespace {

bool check(cl_int err, const char* what) {
  if (err == CL_SUCCESS) return true;
  std::fprintf(stderr, "peers: opencl.hpp %s: OpenCL error %d\n", what, static_cast<int>(err));
  return false;
}

class ClhppPeer final : public Peer {
 public:
  explicit ClhppPeer(Shared& s)
      : s_(s),
        ctx_(s.context.context, true),
        q_(s.queue, true),
        small_(s.small, true),
        big_a_(s.big_a, true),
        big_b_(s.big_b, true),
        strip_(s.strip, true),
        frame_(ctx_, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, FrameGeometry::bytes, nullptr, &frame_err_) {
    check(frame_err_, "cl::Buffer frame");
  }

  bool create_touch_release() override {
    cl_int err = CL_SUCCESS;
    cl::Buffer b(ctx_, CL_MEM_READ_WRITE, Shared::alloc_bytes, nullptr, &err);
    if (!check(err, "cl::Buffer")) return false;
    return check(q_.enqueueWriteBuffer(b, CL_TRUE, 0, sizeof s_.word, &s_.word), "write (touch)");
  }
  bool pool_or_create_untouched() override {
    cl_int err = CL_SUCCESS;
    cl::Buffer b(ctx_, CL_MEM_READ_WRITE, Shared::alloc_bytes, nullptr, &err);
    return check(err, "cl::Buffer");
  }
  bool sub_create_release() override {
    const cl_buffer_region region{s_.base_align, s_.base_align};
    cl_int err = CL_SUCCESS;
    cl::Buffer sub = small_.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    return check(err, "createSubBuffer");
  }
  bool write_small() override {
    return check(q_.enqueueWriteBuffer(small_, CL_TRUE, 0, sizeof s_.word, &s_.word), "write 4 B");
  }
  bool write_small_async() override {
    cl::Event e;
    return check(q_.enqueueWriteBuffer(small_, CL_FALSE, 0, sizeof s_.word, &s_.word, nullptr, &e),
                 "write 4 B async");
  }
  bool write_big() override {
    return check(q_.enqueueWriteBuffer(big_a_, CL_TRUE, 0, Shared::big_bytes, s_.host.data()), "write 64 MiB");
  }
  bool read_big() override {
    return check(q_.enqueueReadBuffer(big_a_, CL_TRUE, 0, Shared::big_bytes, s_.host.data()), "read 64 MiB");
  }
  bool map_big(bool read) override {
    cl_int err = CL_SUCCESS;
    void* p = q_.enqueueMapBuffer(big_a_, CL_TRUE, read ? CL_MAP_READ : CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                  Shared::big_bytes, nullptr, nullptr, &err);
    if (!check(err, "map 64 MiB")) return false;
    auto* bytes = static_cast<unsigned char*>(p);
    if (read) g_sink = bytes[0];
    else bytes[0] = 1;
    return check(q_.enqueueUnmapMemObject(big_a_, p), "unmap 64 MiB") && check(q_.finish(), "finish");
  }
  bool fill_big() override {
    return check(q_.enqueueFillBuffer(big_a_, s_.word, 0, Shared::big_bytes), "fill 64 MiB") &&
           check(q_.finish(), "finish");
  }
  bool copy_big() override {
    return check(q_.enqueueCopyBuffer(big_a_, big_b_, 0, 0, Shared::big_bytes), "copy 64 MiB") &&
           check(q_.finish(), "finish");
  }
  bool frame(bool map, std::size_t n) override {
    if (frame_err_ != CL_SUCCESS) return false;
    const unsigned char* camera = s_.pixels[n % 2].data();
    if (map) {
      cl_int err = CL_SUCCESS;
      void* p = q_.enqueueMapBuffer(frame_, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, FrameGeometry::bytes, nullptr,
                                    nullptr, &err);
      if (!check(err, "map frame")) return false;
      std::memcpy(p, camera, FrameGeometry::bytes);
      if (!check(q_.enqueueUnmapMemObject(frame_, p), "unmap frame")) return false;
    } else if (!check(q_.enqueueWriteBuffer(frame_, CL_TRUE, 0, FrameGeometry::bytes, camera), "write frame")) {
      return false;
    }
    if (!check(q_.enqueueCopyBufferRect(frame_, strip_, {FrameGeometry::strip_x, FrameGeometry::strip_y, 0}, {0, 0, 0},
                                        {FrameGeometry::strip_pitch, FrameGeometry::strip_rows, 1},
                                        FrameGeometry::pitch, 0, FrameGeometry::strip_pitch, 0),
               "copy rect strip"))
      return false;
    if (!check(q_.enqueueReadBuffer(strip_, CL_TRUE, 0, FrameGeometry::strip_bytes, s_.strip_host.data()),
               "read strip"))
      return false;
    g_sink = s_.strip_host[0];
    return true;
  }

 private:
  Shared& s_;
  cl::Context ctx_;
  cl::CommandQueue q_;
  cl::Buffer small_, big_a_, big_b_, strip_;
  cl_int frame_err_ = CL_SUCCESS;
  cl::Buffer frame_;  // after frame_err_: made in the constructor's list
};

}  // namespace

std::unique_ptr<Peer> make_clhpp(Shared& shared) { return std::make_unique<ClhppPeer>(shared); }

}  // namespace peers
