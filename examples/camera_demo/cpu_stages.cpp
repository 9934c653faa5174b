// camera_demo's portable stages (every backend without native kernels in its registry entry): the
// arithmetic of the OpenCL kernels (backends/opencl/demo/stages.cpp) in C++, on the
// CPU, through edgemem's host-side access (buffer maps, image maps, and the software sampler
// read_pixel where the kernels use a sampler). Values are rounded where the kernels store them
// (round to nearest even, saturated: OpenCL's convert_uchar_sat_rte and write_imagef to unorm_int8).
#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

#include "stages.hpp"

using namespace edgemem;

namespace camera_demo {

namespace {

const SamplerDesc kNearest{false, AddressMode::clamp_to_edge, FilterMode::nearest};
const SamplerDesc kLinear{false, AddressMode::clamp_to_edge, FilterMode::linear};

std::uint8_t to_unorm8(float v) {  // v in [0, 1] (clamped), stored as OpenCL stores unorm_int8
  return static_cast<std::uint8_t>(std::nearbyint(std::min(std::max(v, 0.0f), 1.0f) * 255.0f));
}

float luma(float r, float g, float b) { return kLumaR * r + kLumaG * g + kLumaB * b; }

// Host views of the RGB frame or overlay: an image mapping or a buffer mapping, row by row.
struct Pixels {
  ImageMapping image;
  Mapping<std::uint8_t> bytes;
  std::size_t w = 0;
  std::uint8_t* row(std::size_t y) const {
    return image.mapped() ? image.row<std::uint8_t>(y) : bytes.data() + y * w * 4;
  }
};

Result<Pixels> map_pixels(Queue& q, Image& img, Buffer& buf, bool images, Access access, std::size_t w) {
  Pixels p;
  p.w = w;
  if (images) {
    EDGEMEM_TRY_ASSIGN(p.image, q.map_image(img, access));
  } else {
    EDGEMEM_TRY_ASSIGN(p.bytes, q.map<std::uint8_t>(buf, access));
  }
  return p;
}

}  // namespace

struct Stages::Own {
  std::vector<float> luma;  // three rows of luma for Sobel, sized at init()
};

Stages::~Stages() { delete own_; }

Result<void> Stages::init_own(const Context&) noexcept {
  own_ = new (std::nothrow) Own;
  if (own_ == nullptr) return fail(Errc::out_of_host_memory, "Stages::init: no memory for the luma rows");
  own_->luma.assign(3 * w_, 0.0f);
  return {};
}

Result<void> Stages::run(const PlaneRef& y, const PlaneRef& uv, Buffer& out) noexcept {
  const std::size_t w = w_, h = h_;
  {  // NV12 -> RGBA, BT.601 limited range, the 2x2 block's chroma
    EDGEMEM_TRY_ASSIGN(auto ym, q_->map<const std::uint8_t>(*y.buffer, Access::read, y.offset, y.row_pitch * h));
    EDGEMEM_TRY_ASSIGN(auto uvm, q_->map<const std::uint8_t>(*uv.buffer, Access::read, uv.offset, uv.row_pitch * (h / 2)));
    EDGEMEM_TRY_ASSIGN(Pixels rgb, map_pixels(*q_, rgb_img_, rgb_buf_, images_, Access::write_discard, w));
    for (std::size_t r = 0; r < h; ++r) {
      const std::uint8_t* yrow = ym.data() + r * y.row_pitch;
      const std::uint8_t* uvrow = uvm.data() + (r / 2) * uv.row_pitch;
      std::uint8_t* o = rgb.row(r);
      for (std::size_t x = 0; x < w; ++x) {
        const float c = kY * (static_cast<float>(yrow[x]) - 16.0f);
        const float d = static_cast<float>(uvrow[x / 2 * 2]) - 128.0f, e = static_cast<float>(uvrow[x / 2 * 2 + 1]) - 128.0f;
        o[4 * x] = to_unorm8((c + kRV * e) / 255.0f);
        o[4 * x + 1] = to_unorm8((c - kGU * d - kGV * e) / 255.0f);
        o[4 * x + 2] = to_unorm8((c + kBU * d) / 255.0f);
        o[4 * x + 3] = 255;
      }
    }
  }
  {  // Sobel of luma, drawn over the dimmed picture
    EDGEMEM_TRY_ASSIGN(Pixels rgb, map_pixels(*q_, rgb_img_, rgb_buf_, images_, Access::read, w));
    EDGEMEM_TRY_ASSIGN(Pixels overlay, map_pixels(*q_, overlay_img_, overlay_buf_, images_, Access::write_discard, w));
    const PixelView view = images_ ? rgb.image.pixels() : PixelView{};
    auto pixel = [&](std::size_t x, std::size_t r, float out[3]) {
      if (images_) {  // the kernel's read_imagef through the nearest clamp_to_edge sampler
        const Color c = read_pixel(view, kNearest, static_cast<float>(x) + 0.5f, static_cast<float>(r) + 0.5f);
        out[0] = c.f[0], out[1] = c.f[1], out[2] = c.f[2];
      } else {
        const std::uint8_t* p = rgb.row(r) + 4 * x;
        out[0] = p[0] / 255.0f, out[1] = p[1] / 255.0f, out[2] = p[2] / 255.0f;
      }
    };
    auto fill_luma = [&](std::size_t r, float* dst) {
      float p[3];
      for (std::size_t x = 0; x < w; ++x) {
        pixel(x, r, p);
        dst[x] = luma(p[0], p[1], p[2]);
      }
    };
    float* rows[3] = {own_->luma.data(), own_->luma.data() + w, own_->luma.data() + 2 * w};  // rows r-1, r, r+1 (clamped)
    fill_luma(0, rows[1]);
    std::copy(rows[1], rows[1] + w, rows[0]);
    for (std::size_t r = 0; r < h; ++r) {
      fill_luma(r + 1 < h ? r + 1 : h - 1, rows[2]);
      std::uint8_t* o = overlay.row(r);
      for (std::size_t x = 0; x < w; ++x) {
        const std::size_t xl = x > 0 ? x - 1 : 0, xr = x + 1 < w ? x + 1 : w - 1;
        const float* a = rows[0];
        const float* b = rows[1];
        const float* c = rows[2];
        const float gx = (a[xr] + 2.0f * b[xr] + c[xr]) - (a[xl] + 2.0f * b[xl] + c[xl]);
        const float gy = (c[xl] + 2.0f * c[x] + c[xr]) - (a[xl] + 2.0f * a[x] + a[xr]);
        const float edge = std::min(1.0f, kEdgeGain * std::sqrt(gx * gx + gy * gy));
        float p[3];
        pixel(x, r, p);
        o[4 * x] = to_unorm8(kDim * p[0] + edge * kTintR);
        o[4 * x + 1] = to_unorm8(kDim * p[1] + edge * kTintG);
        o[4 * x + 2] = to_unorm8(kDim * p[2] + edge * kTintB);
        o[4 * x + 3] = 255;
      }
      std::rotate(rows, rows + 1, rows + 3);
    }
  }
  {  // 2x downscale of the overlay into `out`
    EDGEMEM_TRY_ASSIGN(Pixels overlay, map_pixels(*q_, overlay_img_, overlay_buf_, images_, Access::read, w));
    EDGEMEM_TRY_ASSIGN(auto o, q_->map<std::uint8_t>(out, Access::write_discard, 0, (w / 2) * (h / 2) * 4));
    const PixelView view = images_ ? overlay.image.pixels() : PixelView{};
    for (std::size_t r = 0; r < h / 2; ++r)
      for (std::size_t x = 0; x < w / 2; ++x) {
        float p[4];
        if (images_) {  // the kernel's linear sampler between the four pixels' centres: their average
          const Color c = read_pixel(view, kLinear, 2.0f * x + 1.0f, 2.0f * r + 1.0f);
          for (int k = 0; k < 4; ++k) p[k] = c.f[k];
        } else {
          const std::uint8_t* t = overlay.row(2 * r) + 8 * x;
          const std::uint8_t* b = overlay.row(2 * r + 1) + 8 * x;
          for (int k = 0; k < 4; ++k)
            p[k] = (static_cast<float>(t[k]) + static_cast<float>(t[4 + k]) + static_cast<float>(b[k]) +
                    static_cast<float>(b[4 + k])) * (0.25f / 255.0f);
        }
        std::uint8_t* d = o.data() + (r * (w / 2) + x) * 4;
        for (int k = 0; k < 4; ++k) d[k] = to_unorm8(p[k]);
      }
  }
  return {};
}

const char* Stages::describe() const noexcept {
  return images_ ? "C++ on the host (maps); RGB frame and overlay: RGBA unorm_int8 images; Sobel and downscale "
                   "through the software sampler read_pixel (nearest, linear)"
                 : "C++ on the host (maps); RGB frame and overlay: RGBA byte buffers (no RGBA unorm_int8 images "
                   "here, or --no-images)";
}

}  // namespace camera_demo
