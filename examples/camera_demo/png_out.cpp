#include "png_out.hpp"

#include <spng.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace camera_demo {

bool write_png(const char* path, const std::uint8_t* rgba, std::size_t width, std::size_t height) {
  std::vector<std::uint8_t> rgb(width * height * 3);
  for (std::size_t i = 0; i < width * height; ++i) std::memcpy(&rgb[3 * i], rgba + 4 * i, 3);
  std::FILE* f = std::fopen(path, "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "camera_demo: cannot write %s: %s\n", path, std::strerror(errno));
    return false;
  }
  spng_ctx* ctx = spng_ctx_new(SPNG_CTX_ENCODER);
  int err = ctx == nullptr ? SPNG_EMEM : spng_set_png_file(ctx, f);
  spng_ihdr ihdr{};
  ihdr.width = static_cast<std::uint32_t>(width);
  ihdr.height = static_cast<std::uint32_t>(height);
  ihdr.bit_depth = 8;
  ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR;
  if (err == 0) err = spng_set_ihdr(ctx, &ihdr);
  if (err == 0) err = spng_encode_image(ctx, rgb.data(), rgb.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  spng_ctx_free(ctx);
  const bool closed = std::fclose(f) == 0;
  if (err != 0 || !closed) {
    std::fprintf(stderr, "camera_demo: writing %s failed: %s\n", path, err != 0 ? spng_strerror(err) : "close failed");
    return false;
  }
  return true;
}

}  // namespace camera_demo
