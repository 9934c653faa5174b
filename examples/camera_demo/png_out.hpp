// PNG output of camera_demo through libspng.
#pragma once
#include <cstddef>
#include <cstdint>

namespace camera_demo {

/// Writes `width` x `height` RGBA bytes (tight rows) to `path` as an 8-bit RGB PNG (alpha dropped).
/// False, with a message on stderr, when the file cannot be written.
bool write_png(const char* path, const std::uint8_t* rgba, std::size_t width, std::size_t height);

}  // namespace camera_demo
