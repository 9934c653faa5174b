// The processing stages of camera_demo, on the consumer queue: NV12 -> RGBA (BT.601 limited range),
// a Sobel edge detector drawing an overlay (edges over the dimmed picture), and a 2x downscale of the
// overlay into an output buffer (a FixedPool block). A backend whose registry entry gives 'demo_stages'
// runs them as its own kernels on native() handles (OpenCL: backends/opencl/demo/stages.cpp, kernels
// built at run time through the raw C API); every other backend runs cpu_stages.cpp, the same arithmetic
// in C++ through maps and the software sampler. Both give the same picture within float rounding.
//
// Where the device has images with RGBA unorm_int8 for reading and for writing, the RGB frame and the
// overlay are edgemem Images, Sobel reads the picture through a nearest clamp_to_edge Sampler and the
// downscale through a linear one (sampling between four pixels: their average); otherwise both are
// buffers of RGBA bytes and the downscale averages the four pixels itself. Sobel works on the luma of
// the stored 8-bit RGB pixels, computed once per pixel (on OpenCL, a float buffer the first kernel
// writes: nine image reads per pixel are slow on PoCL, whose image reads are not vectorised).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include <edgemem/edgemem.hpp>

namespace camera_demo {

/// Where a plane's bytes are: a buffer, a byte offset in it and the row pitch in bytes.
struct PlaneRef {
  const edgemem::Buffer* buffer = nullptr;
  std::size_t offset = 0;
  std::size_t row_pitch = 0;
};

/// The arithmetic both implementations share (floats, OpenCL C's rounding where a value is stored).
/// YUV -> RGB: BT.601 limited range (Y 16..235, U and V 16..240 around 128).
constexpr float kY = 1.164383f, kRV = 1.596027f, kGU = 0.391762f, kGV = 0.812968f, kBU = 2.017232f;
/// Luma of an RGB pixel in [0, 1] for the Sobel operator (BT.601 weights).
constexpr float kLumaR = 0.299f, kLumaG = 0.587f, kLumaB = 0.114f;
/// Overlay: each channel is kDim * the picture's + the edge strength times this channel's tint, where
/// the edge strength is min(1, kEdgeGain * |Sobel gradient of luma|).
constexpr float kDim = 0.35f, kEdgeGain = 0.5f, kTintR = 0.25f, kTintG = 1.0f, kTintB = 0.25f;

/// True when the stages can keep a width x height RGB frame and overlay in RGBA unorm_int8 2D images
/// read and written by kernels: the device has images, that format, and the size fits its limits.
[[nodiscard]] bool rgba8_images(const edgemem::Context& ctx, std::size_t width, std::size_t height) noexcept;

/// The stages and the memory they own (RGB frame, overlay, sampler, kernels), made once by init().
class Stages {
 public:
  Stages() = default;
  Stages(const Stages&) = delete;
  Stages& operator=(const Stages&) = delete;
  ~Stages();

  /// Makes the RGB frame and the overlay (width x height) and, with native kernels, builds them.
  /// `allow_images` false forces the buffer path. Errc: those of Image/Buffer/Sampler::create,
  /// busy (called twice), out_of_host_memory, backend_failure (a kernel did not build: the build log
  /// goes to stderr).
  [[nodiscard]] edgemem::Result<void> init(const edgemem::Context& ctx, edgemem::Queue& q, std::size_t width,
                                           std::size_t height, bool allow_images) noexcept;
  /// Enqueues the three stages for one NV12 frame on the queue given to init(), writing the
  /// downscaled overlay (width/2 x height/2 RGBA bytes, tight) to `out`. On OpenCL the kernels are
  /// enqueued and flushed, not waited for: `out` is ready for a later command on that queue (map it
  /// there) and `y`/`uv` must stay untouched until then (release them with release(queue)).
  [[nodiscard]] edgemem::Result<void> run(const PlaneRef& y, const PlaneRef& uv, edgemem::Buffer& out) noexcept;
  /// Reads the last RGB frame (width x height RGBA bytes, tight) into `rgba` (blocking).
  [[nodiscard]] edgemem::Result<void> read_rgb(std::uint8_t* rgba) noexcept;
  /// True when the RGB frame and overlay are images (and the sampler is used).
  [[nodiscard]] bool uses_images() const noexcept { return images_; }
  /// One line saying how the stages run (images or buffers, kernels or C++).
  [[nodiscard]] const char* describe() const noexcept;

 private:
  edgemem::Queue* q_ = nullptr;
  std::size_t w_ = 0, h_ = 0;
  bool images_ = false;
  edgemem::Image rgb_img_, overlay_img_;  // images path
  edgemem::Buffer rgb_buf_, overlay_buf_;  // buffers path
  edgemem::Sampler nearest_, linear_;      // images path
  /// The implementation's part of init(), after the frames are made (w_, h_, images_ set): makes own_.
  /// Errc: out_of_host_memory, those of Buffer::create, backend_failure (a kernel did not build).
  [[nodiscard]] edgemem::Result<void> init_own(const edgemem::Context& ctx) noexcept;
  // What the implementation keeps besides (its luma for Sobel; kernels where it has them), made by
  // init() and defined by the implementation linked in.
  struct Own;
  Own* own_ = nullptr;
};

}  // namespace camera_demo
