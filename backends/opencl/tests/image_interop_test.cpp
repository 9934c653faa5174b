// OpenCL interop of images: a raw kernel samples an edgemem Image through an edgemem Sampler
// (native() handles), and Image::adopt of raw images (retain and borrow, reference counts checked;
// buffers refused). The raw C API is used only for what edgemem leaves to the user (kernels).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstring>
#include <vector>

#include "conformance/test_helpers.hpp"

using namespace edgemem;

namespace {

const char* kSample =
    "kernel void sample(read_only image2d_t img, sampler_t s, global float4* out, float ox, float oy) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  out[y * get_global_size(0) + x] = read_imagef(img, s, (float2)(x + ox, y + oy));\n"
    "}\n";

cl_uint mem_refs(cl_mem m) {
  cl_uint n = 0;
  REQUIRE(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof n, &n, nullptr) == CL_SUCCESS);
  return n;
}

ImageDesc rgba8(std::size_t w, std::size_t h) {
  ImageDesc d;
  d.format = ImageFormat{ChannelOrder::rgba, ChannelType::unorm_int8};
  d.width = w;
  d.height = h;
  return d;
}

}  // namespace

TEST_CASE_FIXTURE(emt::Fixture, "interop: a raw kernel reads an edgemem image through an edgemem sampler") {
  if (!ctx.info().caps.images) return;
  const std::size_t w = 16, h = 8;
  const emt::Bytes px = emt::random_bytes(w * h * 4);
  auto img = Image::from_host(ctx, rgba8(w, h), px.data());
  REQUIRE_OK(img);
  auto smp = Sampler::create(ctx, false, AddressMode::clamp_to_edge, FilterMode::nearest);
  REQUIRE_OK(smp);
  const auto n = ctx.native();
  cl_int err = CL_SUCCESS;
  cl_program prog = clCreateProgramWithSource(n.context, 1, &kSample, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  REQUIRE(clBuildProgram(prog, 1, &n.device, "", nullptr, nullptr) == CL_SUCCESS);
  cl_kernel k = clCreateKernel(prog, "sample", &err);
  REQUIRE(err == CL_SUCCESS);
  auto out = Buffer::create(ctx, w * h * 16);
  REQUIRE_OK(out);
  auto out_mem = out->native();
  REQUIRE_OK(out_mem);
  cl_mem image_mem = img->native();
  cl_sampler sampler = smp->native();
  const float half = 0.5f;  // pixel centres
  REQUIRE(clSetKernelArg(k, 0, sizeof(cl_mem), &image_mem) == CL_SUCCESS);
  REQUIRE(clSetKernelArg(k, 1, sizeof(cl_sampler), &sampler) == CL_SUCCESS);
  REQUIRE(clSetKernelArg(k, 2, sizeof(cl_mem), &*out_mem) == CL_SUCCESS);
  REQUIRE(clSetKernelArg(k, 3, sizeof(float), &half) == CL_SUCCESS);
  REQUIRE(clSetKernelArg(k, 4, sizeof(float), &half) == CL_SUCCESS);
  const std::size_t global[2] = {w, h};
  REQUIRE(clEnqueueNDRangeKernel(q.native(), k, 2, nullptr, global, nullptr, 0, nullptr, nullptr) == CL_SUCCESS);
  REQUIRE(clFinish(q.native()) == CL_SUCCESS);
  std::vector<float> got(w * h * 4);
  CHECK_OK(q.read(*out, 0, got.data(), got.size() * 4));
  // The kernel's texels are the pixels edgemem wrote, and what the software sampler reads.
  const PixelView view{px.data(), rgba8(w, h).format, w, h, 1, w * 4, 0};
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t x = 0; x < w; ++x) {
      const Color want = read_pixel(view, smp->desc(), x + 0.5f, y + 0.5f);
      for (int c = 0; c < 4; ++c) CHECK(got[(y * w + x) * 4 + c] == doctest::Approx(want.f[c]).epsilon(1e-5));
    }
  clReleaseKernel(k);
  clReleaseProgram(prog);
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: Image::adopt retains or borrows a raw image, and refuses buffers") {
  if (!ctx.info().caps.images) return;
  const auto n = ctx.native();
  const cl_image_format format{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc;
  std::memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 24;
  desc.image_height = 6;
  const emt::Bytes px = emt::random_bytes(24 * 6 * 4);
  cl_int err = CL_SUCCESS;
  cl_mem raw = clCreateImage(n.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &format, &desc,
                             const_cast<unsigned char*>(px.data()), &err);
  REQUIRE(err == CL_SUCCESS);
  {
    auto adopted = Image::adopt(ctx, raw);
    REQUIRE_OK(adopted);
    CHECK(mem_refs(raw) == 2);
    CHECK(adopted->type() == ImageType::image2d);
    CHECK(adopted->format() == rgba8(1, 1).format);
    CHECK(adopted->extent().x == 24);
    CHECK(adopted->extent().y == 6);
    CHECK(adopted->native() == raw);
    emt::Bytes back(px.size());
    CHECK_OK(q.read_image(*adopted, adopted->region(), back.data(), back.size()));
    CHECK(back == px);
    auto borrowed = Image::adopt(ctx, raw, AdoptMode::borrow);
    REQUIRE_OK(borrowed);
    CHECK(mem_refs(raw) == 2);
    CHECK_OK(q.fill_image(*borrowed, Color::floats(0, 0, 0, 0), ImageRegion{{0, 0, 0}, {4, 1, 1}}));
    CHECK_OK(borrowed->release());
    CHECK(mem_refs(raw) == 2);
  }
  CHECK(mem_refs(raw) == 1);
  // A buffer is not an image; null is refused; nothing is retained either way.
  auto buf = Buffer::create(ctx, 256);
  REQUIRE_OK(buf);
  auto buf_mem = buf->native();
  REQUIRE_OK(buf_mem);
  const cl_uint before = mem_refs(*buf_mem);
  CHECK_ERRC(Image::adopt(ctx, *buf_mem), Errc::invalid_argument);
  CHECK(mem_refs(*buf_mem) == before);
  CHECK_ERRC(Image::adopt(ctx, nullptr), Errc::invalid_argument);
  CHECK_ERRC(Buffer::adopt(ctx, raw), Errc::unsupported);
  CHECK(mem_refs(raw) == 1);
  clReleaseMemObject(raw);
}

// Issue #30, item 3: an adopted 1D-buffer image kept the driver's image path, so fill_image,
// copy_image_to_buffer and copy_image ran the calls PoCL 3.1 crashes in (SIGSEGV inside libpocl),
// which edgemem avoids for its own views. Adopted, it becomes a view of its buffer: every command
// works and lands in the raw buffer, and the raw objects' reference counts come back as they were.
TEST_CASE_FIXTURE(emt::Fixture, "interop: an adopted 1D-buffer image runs its commands on its buffer") {
  if (!ctx.info().caps.images) return;
  const auto n = ctx.native();
  const cl_image_format format{CL_RGBA, CL_UNORM_INT8};
  constexpr std::size_t kWidth = 64;
  cl_int err = CL_SUCCESS;
  cl_mem raw_buf = clCreateBuffer(n.context, CL_MEM_READ_WRITE, kWidth * 4, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_image_desc desc;
  std::memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
  desc.image_width = kWidth;
  desc.buffer = raw_buf;
  cl_mem raw_img = clCreateImage(n.context, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
  if (err == CL_IMAGE_FORMAT_NOT_SUPPORTED || err == CL_INVALID_OPERATION) {
    clReleaseMemObject(raw_buf);
    MESSAGE("no RGBA8 1D-buffer images here");
    return;
  }
  REQUIRE(err == CL_SUCCESS);
  const cl_uint img_refs = mem_refs(raw_img), buf_refs = mem_refs(raw_buf);
  for (AdoptMode mode : {AdoptMode::retain, AdoptMode::borrow}) {
    CAPTURE(static_cast<int>(mode));
    auto adopted = Image::adopt(ctx, raw_img, mode);
    REQUIRE_OK(adopted);
    CHECK(adopted->type() == ImageType::image1d_buffer);
    CHECK(adopted->native() == raw_img);
    CHECK(adopted->is_view());
    const ImageRegion all = adopted->region();
    CHECK_OK(q.fill_image(*adopted, Color::floats(1.0f, 0.5f, 0.0f, 1.0f), all));
    unsigned char want[4];
    REQUIRE(encode_pixel(adopted->format(), Color::floats(1.0f, 0.5f, 0.0f, 1.0f), want));
    std::vector<unsigned char> got(kWidth * 4);
    REQUIRE(clEnqueueReadBuffer(static_cast<cl_command_queue>(q.native()), raw_buf, CL_TRUE, 0, got.size(),
                                got.data(), 0, nullptr, nullptr) == CL_SUCCESS);
    for (std::size_t i = 0; i < kWidth; ++i) CHECK(std::memcmp(got.data() + i * 4, want, 4) == 0);
    auto out = Buffer::create(ctx, kWidth * 4);
    REQUIRE_OK(out);
    CHECK_OK(q.copy_image_to_buffer(*adopted, all, *out, 0));
    std::vector<unsigned char> copied(kWidth * 4);
    CHECK_OK(q.read(*out, 0, copied.data(), copied.size()));
    CHECK(copied == got);
    auto other = Image::create(ctx, adopted->desc());
    REQUIRE_OK(other);
    CHECK_OK(q.copy_image(*adopted, *other, ImageOrigin{}, other->region()));
    std::vector<unsigned char> back(kWidth * 4);
    CHECK_OK(q.read_image(*other, other->region(), back.data(), back.size()));
    CHECK(back == got);
    CHECK_OK(q.copy_image(*other, *adopted, ImageOrigin{}, all));
    CHECK_OK(q.finish());
    CHECK(mem_refs(raw_img) == img_refs + (mode == AdoptMode::retain ? 1u : 0u));
    CHECK(mem_refs(raw_buf) > buf_refs);  // the adopted buffer under it is retained
  }
  CHECK(mem_refs(raw_img) == img_refs);
  CHECK(mem_refs(raw_buf) == buf_refs);
  clReleaseMemObject(raw_img);
  clReleaseMemObject(raw_buf);
}
