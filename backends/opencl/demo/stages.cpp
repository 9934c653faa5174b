// camera_demo's stages as OpenCL kernels, built at run time with the raw C API on edgemem's native()
// handles (edgemem leaves kernels to the user). Ordering: edgemem orders its own commands across
// queues; these kernels are outside that, so they are enqueued on the consumer queue (in order) after
// the edgemem commands they depend on, and the frames they read go back with release(queue).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstdio>
#include <new>
#include <vector>

#include "stages.hpp"

using namespace edgemem;

namespace camera_demo {

namespace {

// USE_IMAGES (build option): the RGB frame and the overlay are image2d_t, read through samplers;
// otherwise uchar4 buffers. The constants are stages.hpp's (passed as -D options).
const char* kSource = R"CLC(
#if USE_IMAGES
#define RGB_OUT write_only image2d_t
#define RGB_IN read_only image2d_t
#else
#define RGB_OUT global uchar4*
#define RGB_IN global const uchar4*
#endif

float4 yuv_to_rgba(float y, float u, float v) {
  const float c = K_Y * (y - 16.0f), d = u - 128.0f, e = v - 128.0f;
  const float4 rgb = (float4)(c + K_RV * e, c - K_GU * d - K_GV * e, c + K_BU * d, 255.0f);
  return clamp(rgb / 255.0f, 0.0f, 1.0f);
}

// One work-item per pixel; chroma of the pixel's 2x2 block (nearest upsampling). Also stores the luma
// of the stored (8-bit) RGB pixel for Sobel, so Sobel reads 9 floats instead of 9 pixels.
kernel void nv12_to_rgba(global const uchar* y_plane, uint y_off, uint y_pitch, global const uchar* uv_plane,
                         uint uv_off, uint uv_pitch, RGB_OUT rgb, global float* luma) {
  const int x = get_global_id(0), y = get_global_id(1);
  const float y_value = y_plane[y_off + y * y_pitch + x];
  const uint uv = uv_off + (y / 2) * uv_pitch + (x / 2) * 2;
  const uchar4 p = convert_uchar4_sat_rte(yuv_to_rgba(y_value, uv_plane[uv], uv_plane[uv + 1]) * 255.0f);
  const float4 stored = convert_float4(p) / 255.0f;  // what a read of the RGB frame returns
#if USE_IMAGES
  write_imagef(rgb, (int2)(x, y), stored);
#else
  rgb[y * get_global_size(0) + x] = p;
#endif
  luma[y * get_global_size(0) + x] = LUMA_R * stored.x + LUMA_G * stored.y + LUMA_B * stored.z;
}

// Sobel of the luma, clamped to the edge, drawn over the dimmed RGB frame.
#define L(dx, dy) luma[clamp(y + (dy), 0, h - 1) * w + clamp(x + (dx), 0, w - 1)]
#if USE_IMAGES
kernel void sobel_overlay(global const float* luma, RGB_IN rgb, sampler_t s, RGB_OUT overlay) {
#else
kernel void sobel_overlay(global const float* luma, RGB_IN rgb, RGB_OUT overlay) {
#endif
  const int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0), h = get_global_size(1);
  const float gx = (L(1, -1) + 2.0f * L(1, 0) + L(1, 1)) - (L(-1, -1) + 2.0f * L(-1, 0) + L(-1, 1));
  const float gy = (L(-1, 1) + 2.0f * L(0, 1) + L(1, 1)) - (L(-1, -1) + 2.0f * L(0, -1) + L(1, -1));
  const float edge = fmin(1.0f, EDGE_GAIN * sqrt(gx * gx + gy * gy));
#if USE_IMAGES
  const float4 p = read_imagef(rgb, s, (int2)(x, y));  // nearest sampler at the pixel
#else
  const float4 p = convert_float4(rgb[y * w + x]) / 255.0f;
#endif
  const float4 o = clamp((float4)(DIM * p.x + edge * TINT_R, DIM * p.y + edge * TINT_G, DIM * p.z + edge * TINT_B, 1.0f),
                         0.0f, 1.0f);
#if USE_IMAGES
  write_imagef(overlay, (int2)(x, y), o);
#else
  overlay[y * w + x] = convert_uchar4_sat_rte(o * 255.0f);
#endif
}

// One work-item per output pixel: the 2x2 block under it.
#if USE_IMAGES
kernel void downscale(RGB_IN overlay, sampler_t s, global uchar4* out) {
  const int x = get_global_id(0), y = get_global_id(1);
  // Linear filter at the corner shared by the four pixels' centres: their average.
  const float4 p = read_imagef(overlay, s, (float2)(2 * x + 1.0f, 2 * y + 1.0f));
#else
kernel void downscale(RGB_IN overlay, global uchar4* out) {
  const int x = get_global_id(0), y = get_global_id(1), w = 2 * get_global_size(0);
  const float4 p = (convert_float4(overlay[2 * y * w + 2 * x]) + convert_float4(overlay[2 * y * w + 2 * x + 1]) +
                    convert_float4(overlay[(2 * y + 1) * w + 2 * x]) + convert_float4(overlay[(2 * y + 1) * w + 2 * x + 1])) *
                   (0.25f / 255.0f);
#endif
  out[y * get_global_size(0) + x] = convert_uchar4_sat_rte(p * 255.0f);
}
)CLC";

Failure cl_fail(const char* what, cl_int err) { return fail(Errc::backend_failure, what, err); }

// Work-groups of one row segment: the largest power of two up to 64 that divides `width` (OpenCL 1.2
// needs the global size to be a multiple). Twice as fast on PoCL as the size it picks itself.
std::size_t row_group(std::size_t width) {
  std::size_t g = 64;
  while (width % g != 0) g /= 2;
  return g;
}

template <class T>
cl_int arg(cl_kernel k, cl_uint i, const T& v) {
  return clSetKernelArg(k, i, sizeof(T), &v);
}

}  // namespace

struct Stages::Own {
  Buffer luma;  // the RGB frame's luma (float per pixel), Sobel's input
  cl_program program = nullptr;
  cl_kernel nv12 = nullptr;
  cl_kernel sobel = nullptr;
  cl_kernel downscale = nullptr;
  Own() = default;
  Own(const Own&) = delete;
  Own& operator=(const Own&) = delete;
  ~Own() {
    if (downscale != nullptr) clReleaseKernel(downscale);
    if (sobel != nullptr) clReleaseKernel(sobel);
    if (nv12 != nullptr) clReleaseKernel(nv12);
    if (program != nullptr) clReleaseProgram(program);
  }
};

Stages::~Stages() { delete own_; }

Result<void> Stages::init_own(const Context& ctx) noexcept {
  own_ = new (std::nothrow) Own;
  if (own_ == nullptr) return fail(Errc::out_of_host_memory, "Stages::init: no memory for the kernels' state");
  EDGEMEM_TRY_ASSIGN(own_->luma, Buffer::create(ctx, w_ * h_ * sizeof(float)));
  const NativeContext n = ctx.native();
  cl_int err = CL_SUCCESS;
  own_->program = clCreateProgramWithSource(n.context, 1, &kSource, nullptr, &err);
  if (err != CL_SUCCESS) return cl_fail("clCreateProgramWithSource", err);
  char options[512];
  std::snprintf(options, sizeof options,
                "-cl-std=CL1.2 -DUSE_IMAGES=%d -DK_Y=%#.9gf -DK_RV=%#.9gf -DK_GU=%#.9gf -DK_GV=%#.9gf -DK_BU=%#.9gf "
                "-DLUMA_R=%#.9gf -DLUMA_G=%#.9gf -DLUMA_B=%#.9gf -DDIM=%#.9gf -DEDGE_GAIN=%#.9gf -DTINT_R=%#.9gf "
                "-DTINT_G=%#.9gf -DTINT_B=%#.9gf",
                images_ ? 1 : 0, double(kY), double(kRV), double(kGU), double(kGV), double(kBU), double(kLumaR),
                double(kLumaG), double(kLumaB), double(kDim), double(kEdgeGain), double(kTintR), double(kTintG),
                double(kTintB));
  err = clBuildProgram(own_->program, 1, &n.device, options, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::size_t log_bytes = 0;
    clGetProgramBuildInfo(own_->program, n.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &log_bytes);
    std::vector<char> log(log_bytes + 1, '\0');
    clGetProgramBuildInfo(own_->program, n.device, CL_PROGRAM_BUILD_LOG, log_bytes, log.data(), nullptr);
    std::fputs("camera_demo: kernel build failed:\n", stderr);
    std::fwrite(log.data(), 1, log_bytes, stderr);
    return cl_fail("clBuildProgram", err);
  }
  own_->nv12 = clCreateKernel(own_->program, "nv12_to_rgba", &err);
  if (err != CL_SUCCESS) return cl_fail("clCreateKernel(nv12_to_rgba)", err);
  own_->sobel = clCreateKernel(own_->program, "sobel_overlay", &err);
  if (err != CL_SUCCESS) return cl_fail("clCreateKernel(sobel_overlay)", err);
  own_->downscale = clCreateKernel(own_->program, "downscale", &err);
  if (err != CL_SUCCESS) return cl_fail("clCreateKernel(downscale)", err);
  // The arguments that never change.
  cl_mem rgb = nullptr, overlay = nullptr;
  if (images_) {
    rgb = rgb_img_.native();
    overlay = overlay_img_.native();
  } else {
    EDGEMEM_TRY_ASSIGN(rgb, rgb_buf_.native());
    EDGEMEM_TRY_ASSIGN(overlay, overlay_buf_.native());
  }
  EDGEMEM_TRY_ASSIGN(cl_mem luma, own_->luma.native());
  err = arg(own_->nv12, 6, rgb);
  if (err == CL_SUCCESS) err = arg(own_->nv12, 7, luma);
  if (err == CL_SUCCESS) err = arg(own_->sobel, 0, luma);
  if (err == CL_SUCCESS) err = arg(own_->sobel, 1, rgb);
  if (images_) {
    const cl_sampler nearest = nearest_.native(), linear = linear_.native();
    if (err == CL_SUCCESS) err = arg(own_->sobel, 2, nearest);
    if (err == CL_SUCCESS) err = arg(own_->sobel, 3, overlay);
    if (err == CL_SUCCESS) err = arg(own_->downscale, 0, overlay);
    if (err == CL_SUCCESS) err = arg(own_->downscale, 1, linear);
  } else {
    if (err == CL_SUCCESS) err = arg(own_->sobel, 2, overlay);
    if (err == CL_SUCCESS) err = arg(own_->downscale, 0, overlay);
  }
  if (err != CL_SUCCESS) return cl_fail("clSetKernelArg", err);
  return {};
}

Result<void> Stages::run(const PlaneRef& y, const PlaneRef& uv, Buffer& out) noexcept {
  // native() of a pool block or ring frame was made at the pool's init(): no driver call here.
  EDGEMEM_TRY_ASSIGN(cl_mem y_mem, y.buffer->native());
  EDGEMEM_TRY_ASSIGN(cl_mem uv_mem, uv.buffer->native());
  EDGEMEM_TRY_ASSIGN(cl_mem out_mem, out.native());
  const cl_uint y_off = static_cast<cl_uint>(y.offset), y_pitch = static_cast<cl_uint>(y.row_pitch);
  const cl_uint uv_off = static_cast<cl_uint>(uv.offset), uv_pitch = static_cast<cl_uint>(uv.row_pitch);
  cl_int err = arg(own_->nv12, 0, y_mem);
  if (err == CL_SUCCESS) err = arg(own_->nv12, 1, y_off);
  if (err == CL_SUCCESS) err = arg(own_->nv12, 2, y_pitch);
  if (err == CL_SUCCESS) err = arg(own_->nv12, 3, uv_mem);
  if (err == CL_SUCCESS) err = arg(own_->nv12, 4, uv_off);
  if (err == CL_SUCCESS) err = arg(own_->nv12, 5, uv_pitch);
  if (err == CL_SUCCESS) err = arg(own_->downscale, images_ ? 2 : 1, out_mem);
  if (err != CL_SUCCESS) return cl_fail("clSetKernelArg", err);
  // The kernels join edgemem's ordering across queues: they start after the producer queue's unmap of
  // the frame (and anything else of another queue still writing it or the block), and end_native()
  // records them, so the frame's next owner (the producer's next map of it) waits for them.
  EDGEMEM_TRY(q_->begin_native(*y.buffer, Access::read));
  if (uv.buffer != y.buffer) EDGEMEM_TRY(q_->begin_native(*uv.buffer, Access::read));
  EDGEMEM_TRY(q_->begin_native(out, Access::write_discard));
  const cl_command_queue q = q_->native();
  const std::size_t full[2] = {w_, h_}, half[2] = {w_ / 2, h_ / 2};
  const std::size_t full_local[2] = {row_group(w_), 1}, half_local[2] = {row_group(w_ / 2), 1};
  err = clEnqueueNDRangeKernel(q, own_->nv12, 2, nullptr, full, full_local, 0, nullptr, nullptr);
  if (err == CL_SUCCESS) err = clEnqueueNDRangeKernel(q, own_->sobel, 2, nullptr, full, full_local, 0, nullptr, nullptr);
  if (err == CL_SUCCESS) err = clEnqueueNDRangeKernel(q, own_->downscale, 2, nullptr, half, half_local, 0, nullptr, nullptr);
  if (err == CL_SUCCESS) err = clFlush(q);
  // Recorded even when an enqueue failed: the kernels enqueued before it may still run.
  EDGEMEM_TRY(q_->end_native(*y.buffer, Access::read));
  if (uv.buffer != y.buffer) EDGEMEM_TRY(q_->end_native(*uv.buffer, Access::read));
  EDGEMEM_TRY(q_->end_native(out, Access::write_discard));
  if (err != CL_SUCCESS) return cl_fail("clEnqueueNDRangeKernel", err);
  return {};
}

const char* Stages::describe() const noexcept {
  return images_ ? "OpenCL kernels; RGB frame and overlay: RGBA unorm_int8 images; Sobel through a nearest sampler, "
                   "downscale through a linear sampler"
                 : "OpenCL kernels; RGB frame and overlay: RGBA byte buffers (no RGBA unorm_int8 images here, or "
                   "--no-images)";
}

}  // namespace camera_demo
