// backends/opencl/bench/peers: the raw OpenCL C API on the shared handles, as a careful C user writes it: no event
// asked for where none is used, blocking calls where the result is needed at once, the in-order
// queue relied on for ordering. Also the naive raw frame loop (buffers created and released per frame).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>
#include <cstring>

#include "peers.hpp"

namespace peers {
namespace {

bool check(cl_int err, const char* what) {
  if (err == CL_SUCCESS) return true;
  std::fprintf(stderr, "peers: raw %s: OpenCL error %d\n", what, static_cast<int>(err));
  return false;
}

// The frame pipeline's steps on given frame and strip buffers (shared by the careful and naive loops).
bool raw_frame(Shared& s, cl_mem frame, cl_mem strip, bool map, std::size_t n) {
  cl_command_queue q = s.queue;
  const unsigned char* camera = s.pixels[n % 2].data();
  cl_int err = CL_SUCCESS;
  if (map) {
    void* p = clEnqueueMapBuffer(q, frame, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, FrameGeometry::bytes, 0,
                                 nullptr, nullptr, &err);
    if (!check(err, "map frame")) return false;
    std::memcpy(p, camera, FrameGeometry::bytes);
    if (!check(clEnqueueUnmapMemObject(q, frame, p, 0, nullptr, nullptr), "unmap frame")) return false;
  } else if (!check(clEnqueueWriteBuffer(q, frame, CL_TRUE, 0, FrameGeometry::bytes, camera, 0, nullptr, nullptr),
                    "write frame")) {
    return false;
  }
  const std::size_t src_origin[3] = {FrameGeometry::strip_x, FrameGeometry::strip_y, 0};
  const std::size_t dst_origin[3] = {0, 0, 0};
  const std::size_t region[3] = {FrameGeometry::strip_pitch, FrameGeometry::strip_rows, 1};
  if (!check(clEnqueueCopyBufferRect(q, frame, strip, src_origin, dst_origin, region, FrameGeometry::pitch, 0,
                                     FrameGeometry::strip_pitch, 0, 0, nullptr, nullptr),
             "copy rect strip"))
    return false;
  unsigned char* host = s.strip_host.data();
  if (!check(clEnqueueReadBuffer(q, strip, CL_TRUE, 0, FrameGeometry::strip_bytes, host, 0, nullptr, nullptr),
             "read strip"))
    return false;
  g_sink = host[0];
  return true;
}

class RawPeer final : public Peer {
 public:
  explicit RawPeer(Shared& s) : s_(s), ctx_(s.context.context), q_(s.queue) {
    cl_int err = CL_SUCCESS;
    frame_ = clCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, FrameGeometry::bytes, nullptr, &err);
    if (!check(err, "clCreateBuffer frame")) frame_ = nullptr;
  }
  ~RawPeer() override {
    if (frame_ != nullptr) clReleaseMemObject(frame_);
  }
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;

  bool create_touch_release() override {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx_, CL_MEM_READ_WRITE, Shared::alloc_bytes, nullptr, &err);
    if (!check(err, "clCreateBuffer")) return false;
    err = clEnqueueWriteBuffer(q_, m, CL_TRUE, 0, sizeof s_.word, &s_.word, 0, nullptr, nullptr);
    return check(clReleaseMemObject(m), "clReleaseMemObject") && check(err, "write (touch)");
  }
  bool pool_or_create_untouched() override {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx_, CL_MEM_READ_WRITE, Shared::alloc_bytes, nullptr, &err);
    return check(err, "clCreateBuffer") && check(clReleaseMemObject(m), "clReleaseMemObject");
  }
  bool sub_create_release() override {
    const cl_buffer_region region{s_.base_align, s_.base_align};
    cl_int err = CL_SUCCESS;
    cl_mem sub = clCreateSubBuffer(s_.small, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    return check(err, "clCreateSubBuffer") && check(clReleaseMemObject(sub), "clReleaseMemObject");
  }
  bool write_small() override {
    return check(clEnqueueWriteBuffer(q_, s_.small, CL_TRUE, 0, sizeof s_.word, &s_.word, 0, nullptr, nullptr),
                 "write 4 B");
  }
  bool write_small_async() override {
    cl_event e = nullptr;
    if (!check(clEnqueueWriteBuffer(q_, s_.small, CL_FALSE, 0, sizeof s_.word, &s_.word, 0, nullptr, &e),
               "write 4 B async"))
      return false;
    return check(clReleaseEvent(e), "clReleaseEvent");
  }
  bool write_big() override {
    return check(clEnqueueWriteBuffer(q_, s_.big_a, CL_TRUE, 0, Shared::big_bytes, s_.host.data(), 0, nullptr,
                                      nullptr),
                 "write 64 MiB");
  }
  bool read_big() override {
    return check(clEnqueueReadBuffer(q_, s_.big_a, CL_TRUE, 0, Shared::big_bytes, s_.host.data(), 0, nullptr, nullptr),
                 "read 64 MiB");
  }
  bool map_big(bool read) override {
    cl_int err = CL_SUCCESS;
    void* p = clEnqueueMapBuffer(q_, s_.big_a, CL_TRUE, read ? CL_MAP_READ : CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                 Shared::big_bytes, 0, nullptr, nullptr, &err);
    if (!check(err, "map 64 MiB")) return false;
    auto* bytes = static_cast<unsigned char*>(p);
    if (read) g_sink = bytes[0];
    else bytes[0] = 1;
    return check(clEnqueueUnmapMemObject(q_, s_.big_a, p, 0, nullptr, nullptr), "unmap 64 MiB") &&
           check(clFinish(q_), "clFinish");
  }
  bool fill_big() override {
    return check(clEnqueueFillBuffer(q_, s_.big_a, &s_.word, sizeof s_.word, 0, Shared::big_bytes, 0, nullptr,
                                     nullptr),
                 "fill 64 MiB") &&
           check(clFinish(q_), "clFinish");
  }
  bool copy_big() override {
    return check(clEnqueueCopyBuffer(q_, s_.big_a, s_.big_b, 0, 0, Shared::big_bytes, 0, nullptr, nullptr),
                 "copy 64 MiB") &&
           check(clFinish(q_), "clFinish");
  }
  bool frame(bool map, std::size_t n) override {
    return frame_ != nullptr && raw_frame(s_, frame_, s_.strip, map, n);
  }

 private:
  Shared& s_;
  cl_context ctx_;
  cl_command_queue q_;
  cl_mem frame_ = nullptr;
};

// A first-version frame loop: every frame makes its frame and strip buffers (the frame with
// CL_MEM_ALLOC_HOST_PTR, as the careful loop's) and releases them at its end.
class RawNaivePeer final : public Peer {
 public:
  explicit RawNaivePeer(Shared& s) : s_(s) {}
  bool create_touch_release() override { return false; }
  bool pool_or_create_untouched() override { return false; }
  bool sub_create_release() override { return false; }
  bool write_small() override { return false; }
  bool write_small_async() override { return false; }
  bool write_big() override { return false; }
  bool read_big() override { return false; }
  bool map_big(bool) override { return false; }
  bool fill_big() override { return false; }
  bool copy_big() override { return false; }
  bool frame(bool map, std::size_t n) override {
    cl_int err = CL_SUCCESS;
    cl_mem frame = clCreateBuffer(s_.context.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, FrameGeometry::bytes,
                                  nullptr, &err);
    if (!check(err, "clCreateBuffer frame")) return false;
    cl_mem strip = clCreateBuffer(s_.context.context, CL_MEM_READ_WRITE, FrameGeometry::strip_bytes, nullptr, &err);
    if (!check(err, "clCreateBuffer strip")) {
      clReleaseMemObject(frame);
      return false;
    }
    const bool done = raw_frame(s_, frame, strip, map, n);
    return check(clReleaseMemObject(strip), "clReleaseMemObject") &&
           check(clReleaseMemObject(frame), "clReleaseMemObject") && done;
  }

 private:
  Shared& s_;
};

}  // namespace

std::unique_ptr<Peer> make_raw(Shared& shared) { return std::make_unique<RawPeer>(shared); }
std::unique_ptr<Peer> make_raw_naive(Shared& shared) { return std::make_unique<RawNaivePeer>(shared); }

bool finish_queue(const Shared& shared) { return check(clFinish(shared.queue), "clFinish"); }

DeviceNames device_names(const Shared& shared) {
  DeviceNames n;
  cl_platform_id platform = nullptr;
  cl_device_id device = shared.context.device;
  if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) == CL_SUCCESS)
    (void)clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof n.platform - 1, n.platform, nullptr);
  (void)clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof n.device - 1, n.device, nullptr);
  (void)clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof n.version - 1, n.version, nullptr);
  return n;
}

}  // namespace peers
