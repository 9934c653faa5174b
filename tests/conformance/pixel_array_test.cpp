// Issue #30, item 2: read_pixel sampled an image array's layer axis as a spatial one: it floored the
// layer coordinate (OpenCL rounds it with rint) and linear filtering blended adjacent layers. A layer
// is picked as clamp(rint(coordinate), 0, layers - 1), normalised coordinates or not, and only the
// axes before it are filtered (OpenCL C 1.2, section 8.2; read_imagef on 1D and 2D arrays). Checked on
// PixelViews made by hand and on ImageMapping::pixels() of real arrays, on every backend.
#include <cmath>
#include <vector>

#include "conformance/test_helpers.hpp"

using namespace edgemem;

namespace {

constexpr ImageFormat kRf{ChannelOrder::r, ChannelType::float32};

/// Layer k of every texel holds k * 10 + x (x: the texel's column; rows of a layer all alike).
std::vector<float> layered(std::size_t w, std::size_t h, std::size_t layers) {
  std::vector<float> v(w * h * layers);
  for (std::size_t k = 0; k < layers; ++k)
    for (std::size_t y = 0; y < h; ++y)
      for (std::size_t x = 0; x < w; ++x) v[(k * h + y) * w + x] = static_cast<float>(k * 10 + x);
  return v;
}

float red(const Color& c) { return c.f[0]; }

}  // namespace

TEST_CASE("pixel: read_pixel picks an array's layer by rint and never filters across layers") {
  const SamplerDesc nearest{false, AddressMode::clamp_to_edge, FilterMode::nearest};
  const SamplerDesc linear{false, AddressMode::clamp_to_edge, FilterMode::linear};
  const SamplerDesc norm_linear{true, AddressMode::clamp_to_edge, FilterMode::linear};
  // A 1D array: 4 texels, 3 layers, layers as rows (ImageMapping's layout of a 1D array).
  const std::vector<float> a1 = layered(4, 1, 3);
  PixelView v1;
  v1.data = a1.data();
  v1.format = kRf;
  v1.width = 4;
  v1.height = 3;
  v1.row_pitch = 4 * sizeof(float);
  v1.layer_axis = 2;
  CHECK(red(read_pixel(v1, nearest, 1.5f, 0.6f)) == 11.0f);   // rint(0.6) = 1 (floor gave 0)
  CHECK(red(read_pixel(v1, nearest, 1.5f, 0.5f)) == 1.0f);    // rint(0.5) = 0: to nearest even
  CHECK(red(read_pixel(v1, nearest, 1.5f, 1.5f)) == 21.0f);   // rint(1.5) = 2
  CHECK(red(read_pixel(v1, nearest, 1.5f, 7.0f)) == 21.0f);   // clamped to the last layer
  CHECK(red(read_pixel(v1, nearest, 1.5f, -3.0f)) == 1.0f);   // and to the first
  CHECK(red(read_pixel(v1, nearest, 1.5f, NAN)) == 1.0f);     // NaN: layer 0
  CHECK(red(read_pixel(v1, linear, 2.0f, 1.0f)) == 11.5f);    // x blends 1 and 2; layer 1 alone (was 6.5)
  CHECK(red(read_pixel(v1, linear, 2.0f, 0.6f)) == 11.5f);    // no blend of layers 0 and 1
  CHECK(red(read_pixel(v1, norm_linear, 0.5f, 2.0f)) == 21.5f);  // the layer is never normalised
  // Without layer_axis the same view is a 2D image: rows are filtered (the old reading, still right there).
  PixelView flat = v1;
  flat.layer_axis = 0;
  CHECK(red(read_pixel(flat, linear, 2.0f, 1.0f)) == 6.5f);

  // A 2D array: 2 x 2 texels, 3 layers as slices.
  const std::vector<float> a2 = layered(2, 2, 3);
  PixelView v2;
  v2.data = a2.data();
  v2.format = kRf;
  v2.width = 2;
  v2.height = 2;
  v2.depth = 3;
  v2.row_pitch = 2 * sizeof(float);
  v2.slice_pitch = 4 * sizeof(float);
  v2.layer_axis = 3;
  CHECK(red(read_pixel(v2, nearest, 1.5f, 0.5f, 1.4f)) == 11.0f);
  CHECK(red(read_pixel(v2, nearest, 1.5f, 0.5f, 1.6f)) == 21.0f);
  CHECK(red(read_pixel(v2, linear, 1.0f, 1.0f, 1.0f)) == 10.5f);  // x and y filtered inside layer 1
  CHECK(red(read_pixel(v2, linear, 1.0f, 1.0f, 0.5f)) == 0.5f);   // rint(0.5) = 0, no blend
  // A 2D array of one layer stays a 2D array (its layer axis is not taken for rows).
  PixelView one = v2;
  one.depth = 1;
  CHECK(red(read_pixel(one, linear, 1.0f, 1.0f, 0.0f)) == 0.5f);
}

TEST_CASE_FIXTURE(emt::Fixture, "pixel: ImageMapping::pixels() of 1D and 2D arrays marks their layers") {
  if (!ctx.info().caps.images) return;
  const SamplerDesc linear{false, AddressMode::clamp_to_edge, FilterMode::linear};
  struct Case {
    ImageType type;
    std::size_t w, h, layers;
    std::uint8_t axis;
  };
  for (const Case& c : {Case{ImageType::image1d_array, 4, 1, 3, 2}, Case{ImageType::image2d_array, 2, 2, 3, 3}}) {
    CAPTURE(static_cast<int>(c.type));
    ImageDesc d;
    d.type = c.type;
    d.format = kRf;
    d.width = c.w;
    d.height = c.h;
    d.array_size = c.layers;
    const std::vector<float> px = layered(c.w, c.h, c.layers);
    auto img = Image::from_host(ctx, d, px.data());
    if (!img && img.error().code == Errc::unsupported) {
      MESSAGE("R float32 arrays are not supported here");
      continue;
    }
    REQUIRE_OK(img);
    auto m = q.map_image(*img, Access::read, img->region());
    REQUIRE_OK(m);
    const PixelView v = m->pixels();
    CHECK(v.layer_axis == c.axis);
    const float layer = 1.0f, y = c.type == ImageType::image2d_array ? 1.0f : layer;
    const float z = c.type == ImageType::image2d_array ? layer : 0.0f;
    // x = 1.0 blends columns 0 and 1 of layer 1 only: 10.5.
    CHECK(red(read_pixel(v, linear, 1.0f, y, z)) == 10.5f);
    CHECK_OK(m->unmap());
  }
}
