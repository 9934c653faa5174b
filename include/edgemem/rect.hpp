/// @file rect.hpp  Rectangular (2D/3D) regions of linear memory, as in OpenCL's *Rect calls.
/// All quantities are bytes in x, rows in y, slices in z.
#pragma once
#include <cstddef>

namespace edgemem {

/// A 3D origin: x in bytes, y in rows, z in slices.
struct Offset3 {
  std::size_t x = 0;  ///< bytes
  std::size_t y = 0;  ///< rows
  std::size_t z = 0;  ///< slices
};

/// A 3D extent: x in bytes, y in rows, z in slices; each must be >= 1.
struct Extent3 {
  std::size_t x = 0;  ///< bytes per row
  std::size_t y = 1;  ///< rows
  std::size_t z = 1;  ///< slices
};

/// One side of a rectangular transfer: its origin and layout in linear memory.
struct RectSide {
  Offset3 origin{};            ///< where the region starts
  std::size_t row_pitch = 0;   ///< bytes between rows; 0 means region.x
  std::size_t slice_pitch = 0; ///< bytes between slices; 0 means region.y * row_pitch
};

/// A rectangular read or write between a buffer and host memory.
struct Rect {
  RectSide buffer;  ///< layout in the buffer
  RectSide host;    ///< layout in the host memory
  Extent3 region;   ///< size of the region
};

/// A rectangular copy between two buffers.
struct CopyRect {
  RectSide src;    ///< layout in the source buffer
  RectSide dst;    ///< layout in the destination buffer
  Extent3 region;  ///< size of the region
};

}  // namespace edgemem
