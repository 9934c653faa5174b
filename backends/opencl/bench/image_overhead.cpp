// Overhead of edgemem's images over the raw OpenCL C API, measured in one run on the same context,
// device, queue and images (the raw side uses edgemem's cl_context, cl_device_id, cl_command_queue and
// the image's cl_mem). Each case alternates a raw and an edgemem repetition and reports the medians
// (overhead_harness.hpp):
//   case=<name> raw_us=<x> edgemem_us=<y> edgemem/raw=<y/x> goal=edgemem/raw<=1.05 met=<yes|NO>
// Every goal is edgemem/raw <= 1.05. A missed goal is reported, not an error: the exit status says
// only whether every call succeeded. The last line counts the goals met and names the missed ones.
// A device without images prints "images: unsupported on this device" and exits 0.
// Usage: image_overhead [--quick]   (--quick: fewer repetitions, for CI smoke runs)
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <edgemem/edgemem.hpp>

#include "../../../bench/overhead_harness.hpp"

using namespace edgemem;
using namespace overhead;

int main(int argc, char** argv) {
  g_program = "image_overhead";
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int small_reps = quick ? 200 : 5000;
  const int create_reps = quick ? 50 : 1001;
  const int big_reps = quick ? 5 : 41;
  const int map_reps = quick ? 5 : 401;

  auto ctx = Context::create();
  if (!ctx) {
    std::fprintf(stderr, "Context::create: %s (%s)\n", to_string(ctx.error().code), ctx.error().message);
    return 1;
  }
  if (!ctx->info().caps.images) {
    std::printf("images: unsupported on this device\n");
    return 0;
  }
  auto q = Queue::create(*ctx);
  if (!q) return 1;
  const std::string platform = platform_name(ctx->native().device);
  std::printf("platform=\"%s\" device=\"%s\" version=\"%s\"\n", platform.c_str(), ctx->info().name,
              ctx->info().version);
  std::printf("clock_floor_us=%.3f (median time of an empty repetition)\n", clock_floor_us(small_reps));

  constexpr std::size_t W = 1920, H = 1080, kPixel = 4, kBytes = W * H * kPixel;
  constexpr std::size_t kSmall = 16, kSmallBytes = kSmall * kSmall * kPixel;
  const ImageDesc desc = ImageDesc::shape(1, H, W, 4, ChannelType::unorm_int8);
  const ImageDesc small_desc = ImageDesc::shape(1, kSmall, kSmall, 4, ChannelType::unorm_int8);
  auto img = Image::create(*ctx, desc);
  auto small_img = Image::create(*ctx, small_desc);
  auto buf = Buffer::create(*ctx, kBytes);
  if (!img || !small_img || !buf) {
    std::fprintf(stderr, "image_overhead: creating the images or buffer failed\n");
    return 1;
  }

  cl_context cl_ctx = ctx->native().context;
  cl_command_queue cq = q->native();
  cl_mem img_mem = img->native();
  cl_mem small_mem = small_img->native();
  cl_mem buf_mem = buf->native().value_or(nullptr);
  const cl_image_format cl_format{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc cl_desc{};
  cl_desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  cl_desc.image_width = W;
  cl_desc.image_height = H;
  const std::size_t origin[3] = {0, 0, 0};
  const std::size_t region[3] = {W, H, 1};
  const std::size_t small_region[3] = {kSmall, kSmall, 1};
  const ImageRegion whole = img->region();
  const ImageRegion small_whole = small_img->region();

  std::vector<unsigned char> host(kBytes);
  for (std::size_t i = 0; i < kBytes; ++i) host[i] = static_cast<unsigned char>(i * 13 + 1);
  std::vector<unsigned char> small_host(kSmallBytes, 7);
  auto nothing = [] {};

  // Warm up: first touches allocate on many drivers.
  check(q->write_image(*img, whole, host.data(), kBytes).has_value(), "warm-up write_image");
  check(q->write_image(*small_img, small_whole, small_host.data(), kSmallBytes).has_value(), "warm-up small write");
  check(q->copy_image_to_buffer(*img, whole, *buf, 0).has_value(), "warm-up copy_image_to_buffer");

  // 1. Create and release a 1080p RGBA8 image (device storage, read_write: CL_MEM_READ_WRITE).
  run_case("image_create_1080p_rgba8", create_reps,
           [&] {
             cl_int err = CL_SUCCESS;
             cl_mem m = clCreateImage(cl_ctx, CL_MEM_READ_WRITE, &cl_format, &cl_desc, nullptr, &err);
             check(err == CL_SUCCESS && m != nullptr, "raw clCreateImage");
             if (m != nullptr) clReleaseMemObject(m);
           },
           [&] {
             auto i = Image::create(*ctx, desc);
             check(i.has_value(), "Image::create");
           },
           nothing);

  // 2, 3. Blocking whole-image transfers.
  run_case("write_image_1080p_rgba8", big_reps,
           [&] {
             check(clEnqueueWriteImage(cq, img_mem, CL_TRUE, origin, region, 0, 0, host.data(), 0, nullptr, nullptr) ==
                       CL_SUCCESS, "raw write image");
           },
           [&] { check(q->write_image(*img, whole, host.data(), kBytes).has_value(), "write_image"); }, nothing);
  run_case("read_image_1080p_rgba8", big_reps,
           [&] {
             check(clEnqueueReadImage(cq, img_mem, CL_TRUE, origin, region, 0, 0, host.data(), 0, nullptr, nullptr) ==
                       CL_SUCCESS, "raw read image");
           },
           [&] { check(q->read_image(*img, whole, host.data(), kBytes).has_value(), "read_image"); }, nothing);

  // 4, 5. Map, touch one byte per row, unmap and wait.
  auto touch_row = [](unsigned char* p, bool read) {
    if (read) g_sink = static_cast<volatile unsigned char*>(p)[0];
    else static_cast<volatile unsigned char*>(p)[0] = 1;
  };
  auto raw_map = [&](cl_map_flags flags) {
    cl_int err = CL_SUCCESS;
    std::size_t row_pitch = 0, slice_pitch = 0;
    void* p = clEnqueueMapImage(cq, img_mem, CL_TRUE, flags, origin, region, &row_pitch, &slice_pitch, 0, nullptr,
                                nullptr, &err);
    check(err == CL_SUCCESS && p != nullptr, "raw map image");
    if (p == nullptr) return;
    for (std::size_t y = 0; y < H; ++y) touch_row(static_cast<unsigned char*>(p) + y * row_pitch, flags == CL_MAP_READ);
    check(clEnqueueUnmapMemObject(cq, img_mem, p, 0, nullptr, nullptr) == CL_SUCCESS, "raw unmap image");
    clFinish(cq);
  };
  auto my_map = [&](Access access) {
    auto m = q->map_image(*img, access);
    check(m.has_value(), "map_image");
    if (!m) return;
    for (std::size_t y = 0; y < H; ++y) touch_row(m->row<unsigned char>(y), access == Access::read);
    check(m->unmap().has_value(), "ImageMapping::unmap");  // unmaps and waits
  };
  run_case("map_image_1080p_rgba8_read", map_reps, [&] { raw_map(CL_MAP_READ); }, [&] { my_map(Access::read); },
           nothing);
  run_case("map_image_1080p_rgba8_write_discard", map_reps, [&] { raw_map(CL_MAP_WRITE_INVALIDATE_REGION); },
           [&] { my_map(Access::write_discard); }, nothing);

  // 6, 7. Image <-> buffer copies: enqueue + clFinish against edgemem's blocking calls.
  run_case("copy_image_to_buffer_1080p", big_reps,
           [&] {
             check(clEnqueueCopyImageToBuffer(cq, img_mem, buf_mem, origin, region, 0, 0, nullptr, nullptr) ==
                       CL_SUCCESS, "raw copy image to buffer");
             clFinish(cq);
           },
           [&] { check(q->copy_image_to_buffer(*img, whole, *buf, 0).has_value(), "copy_image_to_buffer"); }, nothing);
  run_case("copy_buffer_to_image_1080p", big_reps,
           [&] {
             check(clEnqueueCopyBufferToImage(cq, buf_mem, img_mem, 0, origin, region, 0, nullptr, nullptr) ==
                       CL_SUCCESS, "raw copy buffer to image");
             clFinish(cq);
           },
           [&] { check(q->copy_buffer_to_image(*buf, 0, *img, whole).has_value(), "copy_buffer_to_image"); }, nothing);

  // 8. A small async write, enqueue only (the event released); the queue drains untimed every
  // kDrainEvery repetitions (raw and edgemem ones counted together).
  constexpr int kDrainEvery = 32;
  int since_drain = 0;
  auto drain_now_and_then = [&] {
    if (++since_drain >= kDrainEvery) {
      clFinish(cq);
      since_drain = 0;
    }
  };
  run_case("write_image_16x16_async", small_reps,
           [&] {
             cl_event e = nullptr;
             check(clEnqueueWriteImage(cq, small_mem, CL_FALSE, origin, small_region, 0, 0, small_host.data(), 0,
                                       nullptr, &e) == CL_SUCCESS, "raw write image async");
             if (e != nullptr) clReleaseEvent(e);
           },
           [&] {
             auto e = q->write_image_async(*small_img, small_whole, small_host.data(), kSmallBytes);
             check(e.has_value(), "write_image_async");
           },
           drain_now_and_then);
  clFinish(cq);

  print_summary();
  return g_failed ? 1 : 0;
}
