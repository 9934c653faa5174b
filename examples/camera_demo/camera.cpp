#include "camera.hpp"

#include <algorithm>

namespace camera_demo {

namespace {

// x in [0, 2 * span): a triangle wave 0 .. span .. 0.
std::size_t triangle(std::size_t x, std::size_t span) { return x < span ? x : 2 * span - x; }

void put(std::uint8_t* rgb, std::size_t x, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  rgb[3 * x] = r;
  rgb[3 * x + 1] = g;
  rgb[3 * x + 2] = b;
}

// BT.601 limited range, 8-bit integer form (every intermediate non-negative: no shift of a negative).
std::uint8_t luma(int r, int g, int b) { return static_cast<std::uint8_t>(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16); }
std::uint8_t chroma_u(int r, int g, int b) { return static_cast<std::uint8_t>((-38 * r - 74 * g + 112 * b + 32896) >> 8); }
std::uint8_t chroma_v(int r, int g, int b) { return static_cast<std::uint8_t>((112 * r - 94 * g - 18 * b + 32896) >> 8); }

}  // namespace

Camera::Camera(std::size_t width, std::size_t height) : w_(width), h_(height), rows_(2 * 3 * width), red_(width) {
  for (std::size_t x = 0; x < width; ++x) red_[x] = static_cast<std::uint8_t>(x * 255 / (width - 1));
}

void Camera::draw_row(std::size_t t, std::size_t y, std::uint8_t* rgb) const {
  const std::size_t w = w_, h = h_;
  // Background: red across, green down, a blue diagonal band moving 4 px a frame.
  const std::uint8_t green = static_cast<std::uint8_t>(y * 255 / (h - 1));
  const std::size_t start = (y + 4 * t) % 512;
  for (std::size_t x = 0; x < w; ++x) {
    const std::size_t band = triangle((start + x) & 511, 256);
    put(rgb, x, red_[x], green, static_cast<std::uint8_t>(band > 255 ? 255 : band));
  }
  // Checkerboard: a square of 8 x 8 cells, fixed, lower left.
  const std::size_t cell = std::max<std::size_t>(h / 32, 1), cx0 = w / 16, cy0 = h * 5 / 8;
  if (y >= cy0 && y < cy0 + 8 * cell)
    for (std::size_t x = cx0; x < cx0 + 8 * cell && x < w; ++x) {
      const std::uint8_t v = (((x - cx0) / cell + (y - cy0) / cell) & 1) ? 240 : 16;
      put(rgb, x, v, v, v);
    }
  // Rectangle: W/5 x H/4, moving vertically H/48 px a frame.
  const std::size_t rw = w / 5, rh = h / 4, rx = w * 3 / 5, rspan = h - rh;
  const std::size_t ry = triangle(static_cast<std::size_t>(std::uint64_t{t} * h / 48 % (2 * rspan)), rspan);
  if (y >= ry && y < ry + rh)
    for (std::size_t x = rx; x < rx + rw && x < w; ++x) put(rgb, x, 200, 30, 40);
  // Disc: radius min(W,H)/6, moving horizontally W/64 px a frame at a third of the height.
  const std::size_t r = std::min(w, h) / 6, dspan = w - 2 * r, dy = h / 3;
  const std::size_t dx = r + triangle(static_cast<std::size_t>(std::uint64_t{t} * w / 64 % (2 * dspan)), dspan);
  const long long ddy = static_cast<long long>(y) - static_cast<long long>(dy);
  const long long rr = static_cast<long long>(r) * static_cast<long long>(r);
  if (ddy * ddy <= rr)
    for (std::size_t x = dx - r; x <= dx + r && x < w; ++x) {
      const long long ddx = static_cast<long long>(x) - static_cast<long long>(dx);
      if (ddx * ddx + ddy * ddy <= rr) put(rgb, x, 255, 220, 0);
    }
}

void Camera::capture(std::size_t t, std::uint8_t* y_plane, std::size_t y_pitch, std::uint8_t* uv_plane,
                     std::size_t uv_pitch) {
  std::uint8_t* top = rows_.data();
  std::uint8_t* bottom = top + 3 * w_;
  for (std::size_t y = 0; y < h_; y += 2) {
    draw_row(t, y, top);
    draw_row(t, y + 1, bottom);
    std::uint8_t* y0 = y_plane + y * y_pitch;
    std::uint8_t* y1 = y0 + y_pitch;
    std::uint8_t* uv = uv_plane + (y / 2) * uv_pitch;
    for (std::size_t x = 0; x < w_; x += 2) {
      const std::uint8_t* p[4] = {top + 3 * x, top + 3 * x + 3, bottom + 3 * x, bottom + 3 * x + 3};
      y0[x] = luma(p[0][0], p[0][1], p[0][2]);
      y0[x + 1] = luma(p[1][0], p[1][1], p[1][2]);
      y1[x] = luma(p[2][0], p[2][1], p[2][2]);
      y1[x + 1] = luma(p[3][0], p[3][1], p[3][2]);
      int avg[3];
      for (int c = 0; c < 3; ++c) avg[c] = (p[0][c] + p[1][c] + p[2][c] + p[3][c] + 2) >> 2;
      uv[x] = chroma_u(avg[0], avg[1], avg[2]);
      uv[x + 1] = chroma_v(avg[0], avg[1], avg[2]);
    }
  }
}

}  // namespace camera_demo
