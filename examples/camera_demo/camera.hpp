// The synthetic camera of camera_demo: a test scene that is a function of the frame index only
// (integer arithmetic throughout, so tests/demo/check_camera_demo.py recomputes it bit for bit),
// written as NV12 (BT.601 limited range, chroma = the 2x2 block's averaged RGB) into caller memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace camera_demo {

/// Draws frame `t` of a `width` x `height` scene (both even) as NV12: the Y plane (`y_pitch` bytes per
/// row) and the interleaved U,V plane (`uv_pitch` bytes per row, height / 2 rows). The scene: a
/// red/green/blue gradient background with a moving diagonal blue band, a fixed checkerboard, a red
/// rectangle moving up and down and a yellow disc moving left and right (triangle waves).
class Camera {
 public:
  /// Sizes the row buffers and tables (the only allocations; none per frame).
  Camera(std::size_t width, std::size_t height);
  /// Writes frame `t`.
  void capture(std::size_t t, std::uint8_t* y_plane, std::size_t y_pitch, std::uint8_t* uv_plane,
               std::size_t uv_pitch);

 private:
  void draw_row(std::size_t t, std::size_t y, std::uint8_t* rgb) const;
  std::size_t w_, h_;
  std::vector<std::uint8_t> rows_;  // two RGB rows
  std::vector<std::uint8_t> red_;   // the background's red, per column
};

}  // namespace camera_demo
