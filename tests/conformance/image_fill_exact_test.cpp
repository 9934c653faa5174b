// Issue #30, item 1: a standalone image's fill handed the float colour to the driver, which converted
// it by its own rules (PoCL 3.1: truncation instead of round to nearest even, +inf to 0, 70000 wrapped
// to -1.0 in snorm16, halves truncated; NVIDIA differed too), while 1D-buffer views and the host
// backend store encode_pixel's bits. Every fill path must store encode_pixel's bits on every driver:
// every format the device supports for 2D images, read-write, against colours at the rounding edges.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "conformance/test_helpers.hpp"

using namespace edgemem;

namespace {

/// Float colours at the edges of the conversions: ties, values just under a code (which truncation
/// gets wrong), out of range, infinities, signed zero and values a half float cannot hold exactly.
std::vector<Color> float_colours() {
  const float inf = std::numeric_limits<float>::infinity();
  return {Color::floats(0.3f, 0.5f, 0.999f, 0.0f),       Color::floats(1.0f / 255.0f, 2.0f / 255.0f, 254.5f / 255.0f, 1.0f),
          Color::floats(-0.3f, -1.0f, -0.999f, -0.0f),    Color::floats(inf, -inf, 70000.0f, -70000.0f),
          Color::floats(0.1f, 0.7f, 1.0f / 3.0f, 0.2f),   Color::floats(3.0f / 65535.0f, 0.50001f, 1e-8f, 65504.5f),
          Color::floats(100.0f / 127.0f, -5.0f / 32767.0f, 0.0001f, 2.5f / 31.0f)};
}

std::vector<Color> int_colours(ColorKind kind) {
  if (kind == ColorKind::signed_int)
    return {Color::ints(-40000, 5, 40000, -1), Color::ints(-129, 128, -32769, 32768),
            Color::ints(std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(), 0, 127)};
  return {Color::uints(7, 300, 0, 255), Color::uints(65536, 65535, 256, 4294967295u), Color::uints(1, 2, 3, 4)};
}

}  // namespace

TEST_CASE_FIXTURE(emt::Fixture, "images: fill_image stores encode_pixel's bits for every supported format (standalone images)") {
  if (!ctx.info().caps.images) return;
  const FormatSet formats = ctx.supported_formats(ImageType::image2d, FormatAccess::read_write);
  std::size_t pairs = 0, wrong = 0;
  std::string first_wrong;
  for (ImageFormat f : formats) {
    const std::vector<Color> colours = f.kind() == ColorKind::floating ? float_colours() : int_colours(f.kind());
    ImageDesc d;
    d.type = ImageType::image2d;
    d.format = f;
    d.width = 3;
    d.height = 2;
    auto img = Image::create(ctx, d);
    REQUIRE_OK(img);
    const std::size_t e = f.pixel_bytes();
    for (const Color& c : colours) {
      CHECK_OK(q.fill_image(*img, c, img->region()));
      unsigned char want[16];
      REQUIRE(encode_pixel(f, c, want));
      std::vector<unsigned char> got(3 * 2 * e);
      CHECK_OK(q.read_image(*img, img->region(), got.data(), got.size()));
      ++pairs;
      bool ok = true;
      for (std::size_t p = 0; p < 6; ++p) ok = ok && std::memcmp(got.data() + p * e, want, e) == 0;
      // A NaN half is any NaN (its payload is the driver's); none of these colours makes one.
      if (!ok) {
        ++wrong;
        std::string bytes = "want";
        for (std::size_t i = 0; i < e; ++i) bytes += " " + std::to_string(want[i]);
        bytes += " got";
        for (std::size_t i = 0; i < e; ++i) bytes += " " + std::to_string(got[i]);
        MESSAGE("format index " << f.index() << ": " << bytes);
        if (first_wrong.empty())
          first_wrong = "format index " + std::to_string(f.index()) + ", colour (" + std::to_string(c.f[0]) + ", " +
                        std::to_string(c.f[1]) + ", " + std::to_string(c.f[2]) + ", " + std::to_string(c.f[3]) + ")";
      }
    }
  }
  MESSAGE(pairs << " format/colour pairs filled");
  CHECK_MESSAGE(wrong == 0, wrong << " of " << pairs << " fills differ from encode_pixel; first: " << first_wrong);
}
