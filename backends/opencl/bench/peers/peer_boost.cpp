// backends/opencl/bench/peers: Boost.Compute (Debian libboost-dev) over the shared handles; its objects retain the
// shared context, queue and buffers. Its calls throw boost::compute::opencl_error on failure (caught
// per call here) and hand back an event for every command (it asks the driver for one each time: that
// is Boost.Compute's cost, kept). Waiting is done on the returned event, Boost.Compute's idiom.
//
// Its BOOST_ASSERTs are off, as in a user's release build (NDEBUG): Meson's release buildtype leaves
// NDEBUG unset, and they ask the driver for the buffer's and queue's contexts (and, in
// create_subbuffer, the device's base alignment) on every call.
#define BOOST_DISABLE_ASSERTS
#define CL_TARGET_OPENCL_VERSION 300  // PoCL 3.1 and NVIDIA's driver are OpenCL 3.0
#include <boost/compute/buffer.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/context.hpp>
#include <boost/compute/event.hpp>
#include <boost/compute/exception/opencl_error.hpp>

#include <cstdio>
#include <cstring>

#include "peers.hpp"

namespace compute = boost::compute;

namespace peers {
namespace {

bool failed(const compute::opencl_error& e, const char* what) {
  std::fprintf(stderr, "peers: Boost.Compute %s: %s (OpenCL error %d)\n", what, e.what(),
               static_cast<int>(e.error_code()));
  return false;
}

class BoostPeer final : public Peer {
 public:
  explicit BoostPeer(Shared& s)
      : s_(s),
        ctx_(s.context.context, true),
        q_(s.queue, true),
        small_(s.small, true),
        big_a_(s.big_a, true),
        big_b_(s.big_b, true),
        strip_(s.strip, true),
        frame_(ctx_, FrameGeometry::bytes, compute::buffer::read_write | compute::buffer::alloc_host_ptr) {}

  bool create_touch_release() override try {
    compute::buffer b(ctx_, Shared::alloc_bytes, compute::buffer::read_write);
    q_.enqueue_write_buffer(b, 0, sizeof s_.word, &s_.word);
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "create + touch");
  }
  bool pool_or_create_untouched() override try {
    compute::buffer b(ctx_, Shared::alloc_bytes, compute::buffer::read_write);
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "buffer");
  }
  bool sub_create_release() override try {
    compute::buffer sub = small_.create_subbuffer(compute::buffer::read_write, s_.base_align, s_.base_align);
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "create_subbuffer");
  }
  bool write_small() override try {
    q_.enqueue_write_buffer(small_, 0, sizeof s_.word, &s_.word);
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "write 4 B");
  }
  bool write_small_async() override try {
    compute::event e = q_.enqueue_write_buffer_async(small_, 0, sizeof s_.word, &s_.word);
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "write 4 B async");
  }
  bool write_big() override try {
    q_.enqueue_write_buffer(big_a_, 0, Shared::big_bytes, s_.host.data());
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "write 64 MiB");
  }
  bool read_big() override try {
    q_.enqueue_read_buffer(big_a_, 0, Shared::big_bytes, s_.host.data());
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "read 64 MiB");
  }
  bool map_big(bool read) override try {
    void* p = q_.enqueue_map_buffer(big_a_, read ? CL_MAP_READ : CL_MAP_WRITE_INVALIDATE_REGION, 0, Shared::big_bytes);
    auto* bytes = static_cast<unsigned char*>(p);
    if (read) g_sink = bytes[0];
    else bytes[0] = 1;
    q_.enqueue_unmap_buffer(big_a_, p).wait();
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "map 64 MiB");
  }
  bool fill_big() override try {
    q_.enqueue_fill_buffer(big_a_, &s_.word, sizeof s_.word, 0, Shared::big_bytes).wait();
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "fill 64 MiB");
  }
  bool copy_big() override try {
    q_.enqueue_copy_buffer(big_a_, big_b_, 0, 0, Shared::big_bytes).wait();
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "copy 64 MiB");
  }
  bool frame(bool map, std::size_t n) override try {
    const unsigned char* camera = s_.pixels[n % 2].data();
    if (map) {
      void* p = q_.enqueue_map_buffer(frame_, CL_MAP_WRITE_INVALIDATE_REGION, 0, FrameGeometry::bytes);
      std::memcpy(p, camera, FrameGeometry::bytes);
      q_.enqueue_unmap_buffer(frame_, p);  // not waited for: the queue is in order
    } else {
      q_.enqueue_write_buffer(frame_, 0, FrameGeometry::bytes, camera);
    }
    const std::size_t src_origin[3] = {FrameGeometry::strip_x, FrameGeometry::strip_y, 0};
    const std::size_t dst_origin[3] = {0, 0, 0};
    const std::size_t region[3] = {FrameGeometry::strip_pitch, FrameGeometry::strip_rows, 1};
    q_.enqueue_copy_buffer_rect(frame_, strip_, src_origin, dst_origin, region, FrameGeometry::pitch, 0,
                                FrameGeometry::strip_pitch, 0);
    q_.enqueue_read_buffer(strip_, 0, FrameGeometry::strip_bytes, s_.strip_host.data());
    g_sink = s_.strip_host[0];
    return true;
  } catch (const compute::opencl_error& e) {
    return failed(e, "frame");
  }

 private:
  Shared& s_;
  compute::context ctx_;
  compute::command_queue q_;
  compute::buffer small_, big_a_, big_b_, strip_, frame_;
};

}  // namespace

std::unique_ptr<Peer> make_boost(Shared& shared) {
  try {
    return std::make_unique<BoostPeer>(shared);
  } catch (const compute::opencl_error& e) {
    failed(e, "setup");
    return nullptr;
  }
}

}  // namespace peers
