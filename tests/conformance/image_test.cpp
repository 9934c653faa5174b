// Images (image.hpp): formats, every image type, transfers with origins, regions and host pitches,
// copies, fills by OpenCL's conversion rules, maps with their real pitches, samplers, image views of
// buffers, and ordering across two queues. A device without images (or without image views) answers
// Errc::unsupported, and these cases check that path instead, so they run unchanged on every backend.
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <thread>
#include <vector>

#include "conformance/test_helpers.hpp"

using namespace edgemem;

namespace {

constexpr ImageFormat kRgba8{ChannelOrder::rgba, ChannelType::unorm_int8};

bool has_images(const Context& ctx) { return ctx.info().caps.images; }

/// A desc of `type` with extents (w, h, d) and `layers` for arrays.
ImageDesc desc_of(ImageType type, std::size_t w, std::size_t h = 1, std::size_t d = 1, std::size_t layers = 1,
                  ImageFormat f = kRgba8) {
  ImageDesc desc;
  desc.type = type;
  desc.format = f;
  desc.width = w;
  desc.height = h;
  desc.depth = d;
  desc.array_size = layers;
  return desc;
}

/// The bytes of `region` picked out of a tightly packed image of extent `all` (pixel size e).
emt::Bytes crop(const emt::Bytes& img, ImageExtent all, const ImageRegion& r, std::size_t e) {
  emt::Bytes out;
  for (std::size_t z = 0; z < r.extent.z; ++z)
    for (std::size_t y = 0; y < r.extent.y; ++y) {
      const std::size_t at = (((r.origin.z + z) * all.y + r.origin.y + y) * all.x + r.origin.x) * e;
      out.insert(out.end(), img.begin() + at, img.begin() + at + r.extent.x * e);
    }
  return out;
}

}  // namespace

TEST_CASE_FIXTURE(emt::Fixture, "images: format lists are gathered once, valid, and include OpenCL's minimum") {
  for (unsigned t = 0; t < image_type_count; ++t)
    for (unsigned a = 0; a < format_access_count; ++a) {
      const FormatSet set = ctx.supported_formats(static_cast<ImageType>(t), static_cast<FormatAccess>(a));
      if (!has_images(ctx)) {
        CHECK(set.empty());
        continue;
      }
      std::size_t n = 0;
      for (ImageFormat f : set) {
        CHECK(f.valid());
        CHECK(set.contains(f));
        ++n;
      }
      CHECK(n == set.size());
      if (a != static_cast<unsigned>(FormatAccess::kernel_read_write)) CHECK(set.contains(kRgba8));
    }
  if (has_images(ctx))
    MESSAGE("2D read-only formats: " << ctx.supported_formats(ImageType::image2d, FormatAccess::read_only).size());
  CHECK(Context{}.supported_formats(ImageType::image2d, FormatAccess::read_only).empty());
}

TEST_CASE_FIXTURE(emt::Fixture, "images: every type is created with the queried shape, or refused as unsupported") {
  struct Case {
    ImageDesc desc;
    ImageExtent extent;
    std::size_t slice_pitch;
  };
  const Case cases[] = {
      {desc_of(ImageType::image1d, 64), {64, 1, 1}, 0},
      {desc_of(ImageType::image1d_buffer, 64), {64, 1, 1}, 0},
      {desc_of(ImageType::image1d_array, 64, 1, 1, 3), {64, 3, 1}, 256},
      {desc_of(ImageType::image2d, 64, 16), {64, 16, 1}, 0},
      {desc_of(ImageType::image2d_array, 32, 8, 1, 3), {32, 8, 3}, 32 * 4 * 8},
      {desc_of(ImageType::image3d, 16, 8, 4), {16, 8, 4}, 16 * 4 * 8},
  };
  for (const Case& c : cases) {
    CAPTURE(static_cast<int>(c.desc.type));
    auto img = Image::create(ctx, c.desc);
    if (!has_images(ctx)) {
      CHECK_ERRC(img, Errc::unsupported);
      continue;
    }
    REQUIRE_OK(img);
    CHECK(img->type() == c.desc.type);
    CHECK(img->format() == kRgba8);
    CHECK(img->element_size() == 4);
    CHECK(img->extent().x == c.extent.x);
    CHECK(img->extent().y == c.extent.y);
    CHECK(img->extent().z == c.extent.z);
    CHECK(img->row_pitch() == c.desc.width * 4);
    CHECK(img->slice_pitch() == c.slice_pitch);
    CHECK(img->size() == c.extent.x * c.extent.y * c.extent.z * 4);
    CHECK(img->native() != NativeMem{});
    auto like = Image::like(*img);
    REQUIRE_OK(like);
    CHECK(like->type() == c.desc.type);
    CHECK(like->size() == img->size());
    auto buf = Buffer::like(*img);
    REQUIRE_OK(buf);
    CHECK(buf->size() == img->size());
  }
  // lluvia's shorthand picks the type from the shape.
  CHECK(ImageDesc::shape(1, 1, 32, 1, ChannelType::float32).type == ImageType::image1d);
  CHECK(ImageDesc::shape(1, 8, 32, 2, ChannelType::float32).type == ImageType::image2d);
  CHECK(ImageDesc::shape(4, 8, 32, 4, ChannelType::float32).type == ImageType::image3d);
  CHECK(ImageDesc::shape(1, 8, 32, 2, ChannelType::unorm_int8).format == ImageFormat{ChannelOrder::rg, ChannelType::unorm_int8});
  CHECK(!ImageDesc::shape(1, 8, 32, 3, ChannelType::unorm_int8).format.valid());
}

TEST_CASE_FIXTURE(emt::Fixture, "images: write and read regions of every type, with host pitches") {
  if (!has_images(ctx)) return;
  const ImageDesc descs[] = {desc_of(ImageType::image1d, 37), desc_of(ImageType::image1d_array, 37, 1, 1, 5),
                             desc_of(ImageType::image2d, 37, 23), desc_of(ImageType::image2d_array, 19, 11, 1, 4),
                             desc_of(ImageType::image3d, 13, 9, 6), desc_of(ImageType::image1d_buffer, 37)};
  for (const ImageDesc& d : descs) {
    CAPTURE(static_cast<int>(d.type));
    const emt::Bytes pixels = emt::random_bytes(d.width * d.height * d.depth * d.array_size * 4);
    auto made = Image::from_host(ctx, d, pixels.data());
    REQUIRE_OK(made);
    Image& img = *made;
    const ImageExtent all = img.extent();
    // The whole image back, tight.
    emt::Bytes back(pixels.size());
    CHECK_OK(q.read_image(img, img.region(), back.data(), back.size()));
    CHECK(back == pixels);
    // An inner region, read into a padded host layout, then written elsewhere from it.
    ImageRegion r{{1, all.y > 2 ? 1u : 0u, all.z > 2 ? 1u : 0u}, {all.x - 3, all.y > 2 ? all.y - 2 : all.y,
                                                                  all.z > 2 ? all.z - 2 : all.z}};
    // Padded rows and padded slices (a 1D array's layers: two rows apart, as OpenCL strides them).
    const HostPitch pitch{r.extent.x * 4 + 12, (r.extent.x * 4 + 12) * (d.type == ImageType::image1d_array ? 2 : r.extent.y + 1)};
    emt::Bytes host(pitch.slice * r.extent.z + pitch.row * r.extent.y, 0xEE);
    CHECK_OK(q.read_image(img, r, host.data(), host.size(), pitch));
    emt::Bytes packed;
    for (std::size_t z = 0; z < r.extent.z; ++z)
      for (std::size_t y = 0; y < r.extent.y; ++y) {
        const std::size_t at = z * pitch.slice + y * (d.type == ImageType::image1d_array ? pitch.slice : pitch.row);
        packed.insert(packed.end(), host.begin() + at, host.begin() + at + r.extent.x * 4);
      }
    CHECK(packed == crop(pixels, all, r, 4));
    // Write that region back shifted to the origin, then read the whole image and compare.
    const ImageRegion at0{{0, 0, 0}, r.extent};
    CHECK_OK(q.write_image(img, at0, host.data(), host.size(), pitch));
    CHECK_OK(q.read_image(img, img.region(), back.data(), back.size()));
    CHECK(crop(back, all, at0, 4) == packed);
  }
}

TEST_CASE_FIXTURE(emt::Fixture, "images: copies between images and buffers, async with wait lists") {
  if (!has_images(ctx)) return;
  const ImageDesc d = desc_of(ImageType::image2d, 40, 30);
  const emt::Bytes pixels = emt::random_bytes(40 * 30 * 4);
  auto a = Image::from_host(ctx, d, pixels.data());
  auto b = Image::create(ctx, d);
  auto buf = Buffer::create(ctx, pixels.size());
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  REQUIRE_OK(buf);
  const ImageRegion r{{5, 4, 0}, {20, 10, 1}};
  auto e1 = q.copy_image_async(*a, *b, r.origin, ImageRegion{{0, 0, 0}, r.extent});
  REQUIRE_OK(e1);
  const Event waits1[] = {std::move(*e1)};
  auto e2 = q.copy_image_to_buffer_async(*b, ImageRegion{{0, 0, 0}, r.extent}, *buf, 64, waits1);
  REQUIRE_OK(e2);
  CHECK_OK(e2->wait());
  emt::Bytes got(20 * 10 * 4);
  CHECK_OK(q.read(*buf, 64, got.data(), got.size()));
  CHECK(got == crop(pixels, ImageExtent{40, 30, 1}, r, 4));
  // And back into a third image through copy_buffer_to_image.
  auto c = Image::create(ctx, d);
  REQUIRE_OK(c);
  CHECK_OK(q.copy_buffer_to_image(*buf, 64, *c, ImageRegion{{10, 10, 0}, r.extent}));
  emt::Bytes again(got.size());
  CHECK_OK(q.read_image(*c, ImageRegion{{10, 10, 0}, r.extent}, again.data(), again.size()));
  CHECK(again == got);
}

TEST_CASE_FIXTURE(emt::Fixture, "images: fills convert the color by OpenCL's rules") {
  if (!has_images(ctx)) return;
  struct Case {
    ImageFormat format;
    Color color;
  };
  const Case cases[] = {
      {kRgba8, Color::floats(0.5f, 1.5f, -0.25f, 0.2f)},
      {ImageFormat{ChannelOrder::rgba, ChannelType::float32}, Color::floats(0.5f, -2.0f, 3.25f, 1.0f)},
      {ImageFormat{ChannelOrder::rgba, ChannelType::half_float}, Color::floats(0.333f, 70000.0f, -1.0f, 0.0f)},
      {ImageFormat{ChannelOrder::rgba, ChannelType::unsigned_int8}, Color::uints(7, 300, 0, 255)},
      {ImageFormat{ChannelOrder::rgba, ChannelType::signed_int16}, Color::ints(-40000, 5, 40000, -1)},
      {ImageFormat{ChannelOrder::bgra, ChannelType::unorm_int8}, Color::floats(1.0f, 0.0f, 0.25f, 0.75f)},
  };
  for (const Case& c : cases) {
    CAPTURE(c.format.index());
    if (!ctx.supported_formats(ImageType::image2d, FormatAccess::read_write).contains(c.format)) continue;
    auto img = Image::create(ctx, desc_of(ImageType::image2d, 9, 7, 1, 1, c.format));
    REQUIRE_OK(img);
    const std::size_t e = c.format.pixel_bytes();
    emt::Bytes zero(9 * 7 * e, 0);
    CHECK_OK(q.write_image(*img, img->region(), zero.data(), zero.size()));
    const ImageRegion r{{2, 1, 0}, {4, 3, 1}};
    CHECK_OK(q.fill_image(*img, c.color, r));
    unsigned char want[16];
    REQUIRE(encode_pixel(c.format, c.color, want));
    emt::Bytes got(zero.size());
    CHECK_OK(q.read_image(*img, img->region(), got.data(), got.size()));
    for (std::size_t y = 0; y < 7; ++y)
      for (std::size_t x = 0; x < 9; ++x) {
        const bool inside = x >= 2 && x < 6 && y >= 1 && y < 4;
        CAPTURE(x);
        CAPTURE(y);
        const unsigned char* px = got.data() + (y * 9 + x) * e;
        if (!inside) {
          CHECK(std::memcmp(px, zero.data(), e) == 0);
          continue;
        }
        // OpenCL 1.2 section 8.3.1.1 lets a device approximate the rounding of normalised channels
        // (PoCL truncates BGRA fills): one unit off is conformant there; everything else is exact.
        // Half floats may be rounded toward zero by a device (one unit in the last place, or 65504
        // for an overflow that RNE makes infinity); compared as 16-bit values.
        if (c.format.type == ChannelType::half_float) {
          for (std::size_t i = 0; i < e; i += 2) {
            std::uint16_t g = 0, w = 0;
            std::memcpy(&g, px + i, 2);
            std::memcpy(&w, want + i, 2);
            CHECK(std::abs(int(g) - int(w)) <= 1);
          }
          continue;
        }
        const int slack = c.format.type == ChannelType::unorm_int8 ? 1 : 0;
        for (std::size_t i = 0; i < e; ++i) CHECK(std::abs(int(px[i]) - int(want[i])) <= slack);
      }
    // The wrong kind of color is refused.
    const Color wrong = c.color.kind == ColorKind::floating ? Color::uints(1, 1, 1, 1) : Color::floats(1, 1, 1, 1);
    CHECK_ERRC(q.fill_image(*img, wrong, r), Errc::invalid_argument);
  }
}

TEST_CASE_FIXTURE(emt::Fixture, "images: map_image reports its pitches; writes through a map reach the image") {
  if (!has_images(ctx)) return;
  const ImageDesc d = desc_of(ImageType::image2d_array, 24, 10, 1, 3);
  const emt::Bytes pixels = emt::random_bytes(24 * 10 * 3 * 4);
  auto img = Image::from_host(ctx, d, pixels.data());
  REQUIRE_OK(img);
  const ImageRegion r{{3, 2, 1}, {10, 5, 2}};
  {
    auto m = q.map_image(*img, Access::read, r);
    REQUIRE_OK(m);
    CHECK(m->row_pitch() >= 10 * 4);
    CHECK(m->slice_pitch() >= m->row_pitch() * 5);
    emt::Bytes seen;
    for (std::size_t z = 0; z < 2; ++z)
      for (std::size_t y = 0; y < 5; ++y) {
        const auto* row = m->row<unsigned char>(y, z);
        seen.insert(seen.end(), row, row + 40);
      }
    CHECK(seen == crop(pixels, img->extent(), r, 4));
    // A second map of overlapping pixels for writing conflicts with the open read map.
    CHECK_ERRC(q.map_image(*img, Access::write, r), Errc::busy);
    CHECK_ERRC(img->release(), Errc::busy);
    const emt::Bytes junk(40, 1);
    CHECK_ERRC(q.write_image(*img, ImageRegion{{3, 2, 1}, {10, 1, 1}}, junk.data(), junk.size()), Errc::busy);
  }
  {
    auto m = q.map_image(*img, Access::write_discard, ImageRegion{{0, 0, 0}, {4, 2, 1}});
    REQUIRE_OK(m);
    for (std::size_t y = 0; y < 2; ++y) std::memset(m->row<unsigned char>(y), 0x42, 16);
    CHECK_OK(m->unmap());
  }
  emt::Bytes got(4 * 2 * 4);
  CHECK_OK(q.read_image(*img, ImageRegion{{0, 0, 0}, {4, 2, 1}}, got.data(), got.size()));
  CHECK(got == emt::Bytes(got.size(), 0x42));
  // The software sampler reads a map: pixel (5, 3) of layer 1, nearest, pixel coordinates.
  auto m = q.map_image(*img, Access::read, ImageRegion{{0, 0, 1}, {24, 10, 1}});
  REQUIRE_OK(m);
  const Color c = read_pixel(m->pixels(), SamplerDesc{false, AddressMode::clamp_to_edge, FilterMode::nearest}, 5.5f, 3.5f);
  const std::size_t at = ((1 * 10 + 3) * 24 + 5) * 4;
  CHECK(c.f[0] == doctest::Approx(pixels[at] / 255.0f));
  CHECK(c.f[3] == doctest::Approx(pixels[at + 3] / 255.0f));
}

TEST_CASE_FIXTURE(emt::Fixture, "images: samplers of every defined setting; undefined ones refused on every backend") {
  for (bool normalized : {false, true})
    for (unsigned a = 0; a <= static_cast<unsigned>(AddressMode::mirrored_repeat); ++a)
      for (unsigned fm = 0; fm <= 1; ++fm) {
        const SamplerDesc d{normalized, static_cast<AddressMode>(a), static_cast<FilterMode>(fm)};
        auto s = Sampler::create(ctx, d);
        if (!d.valid()) {
          CHECK_ERRC(s, Errc::invalid_argument);
          continue;
        }
        if (!has_images(ctx)) {
          CHECK_ERRC(s, Errc::unsupported);
          continue;
        }
        REQUIRE_OK(s);
        CHECK(s->valid());
        CHECK(s->desc().address == d.address);
        CHECK(s->native() != NativeSampler{});
        Sampler moved = std::move(*s);
        CHECK(!s->valid());
        CHECK_OK(moved.release());
        CHECK(!moved.valid());
      }
  CHECK_ERRC(Sampler::create(Context{}, SamplerDesc{}), Errc::released);
  CHECK_ERRC(Sampler::create(ctx, SamplerDesc{true, static_cast<AddressMode>(9), FilterMode::nearest}),
             Errc::invalid_argument);
}

TEST_CASE_FIXTURE(emt::Fixture, "images: a 2D view of a camera buffer is zero-copy and follows the buffer's rules") {
  const std::size_t w = 64, h = 16;
  auto pitch = required_row_pitch(ctx, kRgba8, w);
  if (!ctx.info().caps.image_from_buffer) {
    CHECK_ERRC(pitch, Errc::unsupported);
    auto buf = Buffer::create(ctx, w * h * 4 * 2);
    REQUIRE_OK(buf);
    CHECK_ERRC(Image::view(*buf, desc_of(ImageType::image2d, w, h), w * 4), has_images(ctx) ? Errc::unsupported : Errc::unsupported);
    return;
  }
  REQUIRE_OK(pitch);
  CHECK(*pitch >= w * 4);
  CHECK(*pitch % (ctx.info().image_limits.pitch_align_pixels * 4) == 0);
  const emt::Bytes frame = emt::random_bytes(*pitch * h);
  auto buf = Buffer::from_host(ctx, frame.data(), frame.size());
  REQUIRE_OK(buf);
  auto view = Image::view(*buf, desc_of(ImageType::image2d, w, h));
  REQUIRE_OK(view);
  CHECK(view->is_view());
  CHECK(view->shares_root_with(*buf));
  CHECK(view->row_pitch() == *pitch);
  // Pixels read through the view are the buffer's bytes.
  emt::Bytes got(w * h * 4);
  CHECK_OK(q.read_image(*view, view->region(), got.data(), got.size()));
  for (std::size_t y = 0; y < h; ++y)
    CHECK(std::memcmp(got.data() + y * w * 4, frame.data() + y * *pitch, w * 4) == 0);
  // A write mapping of the buffer conflicts with reading the view, and the other way round.
  {
    auto m = q.map(*buf, Access::write, 0, 64);
    REQUIRE_OK(m);
    CHECK_ERRC(q.read_image(*view, ImageRegion{{0, 0, 0}, {4, 1, 1}}, got.data(), got.size()), Errc::busy);
  }
  // The view keeps the buffer's memory alive after the buffer handle goes.
  CHECK_OK(buf->release());
  const Color red = Color::floats(1, 0, 0, 1);
  CHECK_OK(q.fill_image(*view, red, view->region()));
  CHECK_OK(q.read_image(*view, view->region(), got.data(), got.size()));
  CHECK(got[0] == 255);
  CHECK(got[1] == 0);
  // A pitch off the device's alignment is misaligned; below a row, invalid.
  auto other = Buffer::create(ctx, *pitch * h * 2);
  REQUIRE_OK(other);
  if (ctx.info().image_limits.pitch_align_pixels > 1)
    CHECK_ERRC(Image::view(*other, desc_of(ImageType::image2d, w, h), w * 4 + 4), Errc::misaligned);
  CHECK_ERRC(Image::view(*other, desc_of(ImageType::image2d, w, h), w * 4 - 4), Errc::invalid_argument);
  CHECK_ERRC(Image::view(*other, desc_of(ImageType::image2d, w, h * 3), *pitch), Errc::out_of_range);
}

TEST_CASE_FIXTURE(emt::Fixture, "images: a 1D-buffer view shares its buffer's bytes") {
  auto buf = Buffer::create(ctx, 256 * 4);
  REQUIRE_OK(buf);
  auto view = Image::view(*buf, desc_of(ImageType::image1d_buffer, 256));
  if (!has_images(ctx)) {
    CHECK_ERRC(view, Errc::unsupported);
    return;
  }
  REQUIRE_OK(view);
  const emt::Bytes bytes = emt::random_bytes(256 * 4);
  CHECK_OK(q.write(*buf, 0, bytes.data(), bytes.size()));
  emt::Bytes got(bytes.size());
  CHECK_OK(q.read_image(*view, view->region(), got.data(), got.size()));
  CHECK(got == bytes);
}

TEST_CASE_FIXTURE(emt::Fixture, "images: a 1080p frame written on one queue is what another queue reads, each round") {
  if (!has_images(ctx)) return;
  auto q2r = Queue::create(ctx);
  REQUIRE_OK(q2r);
  Queue& q2 = *q2r;
  const ImageDesc d = desc_of(ImageType::image2d, 1920, 1080);
  auto img = Image::create(ctx, d);
  REQUIRE_OK(img);
  std::vector<std::uint32_t> frame(1920 * 1080), got(1920 * 1080);
  for (std::uint32_t round = 1; round <= 4; ++round) {
    for (auto& px : frame) px = round * 0x01010101u;
    auto written = q.write_image_async(*img, img->region(), frame.data(), frame.size() * 4);
    REQUIRE_OK(written);
    // No wait list: edgemem orders q2's read after q's write.
    CHECK_OK(q2.read_image(*img, img->region(), got.data(), got.size() * 4));
    CHECK(got == frame);
    // And q2's fill is what q maps next.
    CHECK_OK(q2.fill_image(*img, Color::floats(0, 0, 0, 0), ImageRegion{{0, 0, 0}, {1920, 8, 1}}));
    auto m = q.map_image(*img, Access::read, ImageRegion{{0, 0, 0}, {1920, 8, 1}});
    REQUIRE_OK(m);
    CHECK(m->row<std::uint32_t>(7)[1919] == 0u);
  }
}

TEST_CASE_FIXTURE(emt::Fixture, "images: a SampledImage keeps an image and its sampler together (lluvia's ImageView)") {
  const ImageDesc d = desc_of(ImageType::image2d, 8, 4);
  const emt::Bytes px = emt::random_bytes(8 * 4 * 4);
  const SamplerDesc linear{true, AddressMode::mirrored_repeat, FilterMode::linear};
  auto pair = SampledImage::from_host(ctx, d, px.data(), linear);
  if (!has_images(ctx)) {
    CHECK_ERRC(pair, Errc::unsupported);
    return;
  }
  REQUIRE_OK(pair);
  CHECK(pair->valid());
  CHECK(pair->sampler_desc().filter == FilterMode::linear);
  CHECK(pair->native_image() == pair->image().native());
  CHECK(pair->native_sampler() == pair->sampler().native());
  // An undefined sampler is refused and the image stays with the caller.
  auto img = Image::from_host(ctx, d, px.data());
  REQUIRE_OK(img);
  CHECK_ERRC(SampledImage::create(std::move(*img), SamplerDesc{false, AddressMode::repeat, FilterMode::nearest}),
             Errc::invalid_argument);
  CHECK(img->valid());
  auto made = SampledImage::create(std::move(*img), SamplerDesc{});
  REQUIRE_OK(made);
  CHECK(!img->valid());
  CHECK_ERRC(SampledImage::create(Image{}, SamplerDesc{}), Errc::released);
  {
    auto m = q.map_image(made->image(), Access::read);
    REQUIRE_OK(m);
    CHECK_ERRC(made->release(), Errc::busy);
    CHECK(made->valid());
  }
  CHECK_OK(made->release());
  CHECK(!made->valid());
}

TEST_CASE_FIXTURE(emt::Fixture, "images: an image over a pool block or heap run returns its memory as blocks do") {
  if (!has_images(ctx)) return;
  // 1D-buffer views: every device with images makes them (2D views need caps.image_from_buffer).
  const ImageDesc line = desc_of(ImageType::image1d_buffer, 256);
  FixedPool<2> pool;
  if (!ctx.info().caps.image_from_sub_buffer) {  // views of root buffers only (PoCL)
    auto ready = pool.init(ctx, q, 256 * 4, 2);
    REQUIRE_OK(ready);
    auto block = pool.acquire();
    REQUIRE_OK(block);
    CHECK_ERRC(Image::view(*block, line), Errc::unsupported);
    return;
  }
  auto pool_ready = pool.init(ctx, q, 256 * 4, 2);
  REQUIRE_OK(pool_ready);
  {
    auto block = pool.acquire();
    REQUIRE_OK(block);
    auto img = Image::view(*block, line);
    REQUIRE_OK(img);
    const emt::Bytes px = emt::random_bytes(256 * 4);
    CHECK_OK(q.write_image(*img, img->region(), px.data(), px.size()));
    *block = PooledBuffer{};  // the block's handle goes; the image keeps the block out
    CHECK(pool.stats().in_use == 1);
    emt::Bytes back(px.size());
    CHECK_OK(q.read_image(*img, img->region(), back.data(), back.size()));
    CHECK(back == px);
  }
  CHECK(pool.stats().in_use == 0);
  Heap heap;
  auto heap_ready = heap.init(ctx, q, 4096, 8);
  REQUIRE_OK(heap_ready);
  const std::size_t free_before = heap.free_pages();
  {
    auto run = heap.create_buffer(256 * 4);
    REQUIRE_OK(run);
    auto img = Image::view(*run, line);
    REQUIRE_OK(img);
    CHECK_OK(run->release());
    CHECK(heap.free_pages() < free_before);
    CHECK_OK(q.fill_image(*img, Color::floats(0, 0, 0, 0), img->region()));
  }
  CHECK(heap.free_pages() == free_before);
}

TEST_CASE_FIXTURE(emt::Fixture, "images: two threads on two queues pass frames through images without a wait list") {
  if (!has_images(ctx)) return;
  auto consumer_q = Queue::create(ctx);
  REQUIRE_OK(consumer_q);
  constexpr std::size_t kFrames = 3, kRounds = 24, kW = 640, kH = 360;
  std::vector<Image> frames;
  for (std::size_t i = 0; i < kFrames; ++i) {
    auto img = Image::create(ctx, desc_of(ImageType::image2d, kW, kH));
    REQUIRE_OK(img);
    frames.push_back(std::move(*img));
  }
  // published[i]: the round whose pixels frame i holds (0: none); consumed: rounds the consumer is done with.
  std::atomic<std::size_t> published[kFrames] = {}, consumed{0};
  std::atomic<int> bad{0};
  std::thread consumer([&] {
    std::vector<std::uint32_t> got(kW * kH);
    for (std::size_t round = 1; round <= kRounds; ++round) {
      const std::size_t i = round % kFrames;
      while (published[i].load(std::memory_order_acquire) != round) std::this_thread::yield();
      // The producer's write was async on its own queue; edgemem orders this read after it.
      if (!consumer_q->read_image(frames[i], frames[i].region(), got.data(), got.size() * 4)) ++bad;
      for (std::uint32_t px : got)
        if (px != round * 0x01010101u) {
          ++bad;
          break;
        }
      consumed.store(round, std::memory_order_release);
    }
  });
  std::vector<std::vector<std::uint32_t>> sources(kFrames, std::vector<std::uint32_t>(kW * kH));
  std::vector<Event> pending(kFrames);
  for (std::size_t round = 1; round <= kRounds; ++round) {
    const std::size_t i = round % kFrames;
    while (round > kFrames && consumed.load(std::memory_order_acquire) < round - kFrames) std::this_thread::yield();
    if (pending[i].valid()) CHECK_OK(pending[i].wait());  // the source array is reused: its write is done
    for (auto& px : sources[i]) px = static_cast<std::uint32_t>(round) * 0x01010101u;
    auto written = q.write_image_async(frames[i], frames[i].region(), sources[i].data(), sources[i].size() * 4);
    CHECK_OK(written);
    if (written) pending[i] = std::move(*written);
    published[i].store(round, std::memory_order_release);
  }
  consumer.join();
  CHECK(bad.load() == 0);
  CHECK_OK(q.finish());
}

TEST_CASE_FIXTURE(emt::Fixture, "images: every command on a 1D-buffer view is on its buffer's bytes") {
  if (!has_images(ctx)) return;
  const emt::Bytes bytes = emt::random_bytes(512 * 4);
  auto buf = Buffer::from_host(ctx, bytes.data(), bytes.size());
  REQUIRE_OK(buf);
  auto line = Image::view(*buf, desc_of(ImageType::image1d_buffer, 512));
  REQUIRE_OK(line);
  emt::Bytes want = bytes;
  // fill: the encoded pixel over the region's bytes.
  const Color c = Color::floats(1.0f, 0.0f, 64 / 255.0f, 128 / 255.0f);
  CHECK_OK(q.fill_image(*line, c, ImageRegion{{10, 0, 0}, {20, 1, 1}}));
  for (std::size_t x = 10; x < 30; ++x) {
    want[x * 4] = 255, want[x * 4 + 1] = 0, want[x * 4 + 2] = 64, want[x * 4 + 3] = 128;
  }
  CHECK(snapshot(*buf) == want);
  // copies to and from another buffer, and to and from a 2D image.
  auto other = Buffer::create(ctx, 512 * 4);
  REQUIRE_OK(other);
  CHECK_OK(q.copy_image_to_buffer(*line, ImageRegion{{0, 0, 0}, {512, 1, 1}}, *other, 0));
  CHECK(snapshot(*other) == want);
  auto flat = Image::create(ctx, desc_of(ImageType::image2d, 64, 8));
  REQUIRE_OK(flat);
  CHECK_OK(q.copy_image(*line, *flat, ImageOrigin{0, 0, 0}, ImageRegion{{0, 2, 0}, {64, 1, 1}}));
  CHECK_OK(q.copy_image(*flat, *line, ImageOrigin{0, 2, 0}, ImageRegion{{100, 0, 0}, {64, 1, 1}}));
  std::memcpy(want.data() + 400, want.data(), 64 * 4);
  CHECK(snapshot(*buf) == want);
  const emt::Bytes fresh = emt::random_bytes(8 * 4);
  CHECK_OK(q.write(*other, 0, fresh.data(), fresh.size()));
  CHECK_OK(q.copy_buffer_to_image(*other, 0, *line, ImageRegion{{200, 0, 0}, {8, 1, 1}}));
  std::memcpy(want.data() + 800, fresh.data(), fresh.size());
  CHECK(snapshot(*buf) == want);
  {  // a map of the view is a map of the buffer's bytes, and conflicts with a buffer write map.
    auto m = q.map_image(*line, Access::read, ImageRegion{{200, 0, 0}, {8, 1, 1}});
    REQUIRE_OK(m);
    CHECK(std::memcmp(m->data(), fresh.data(), fresh.size()) == 0);
    CHECK_ERRC(q.map(*buf, Access::write, 800, 32), Errc::busy);
    auto shared = q.map(*buf, Access::read, 800, 32);
    REQUIRE_OK(shared);
    CHECK(std::memcmp(shared->data(), fresh.data(), fresh.size()) == 0);
  }
  {  // the other way round: a read map of the view joins an open read map of the buffer's bytes
    auto whole = q.map(*buf, Access::read);
    REQUIRE_OK(whole);
    auto m = q.map_image(*line, Access::read, ImageRegion{{200, 0, 0}, {8, 1, 1}});
    REQUIRE_OK(m);
    CHECK(m->data() == whole->data() + 800);
    CHECK(std::memcmp(m->data(), fresh.data(), fresh.size()) == 0);
    CHECK_OK(whole->unmap());
    CHECK(std::memcmp(m->data(), fresh.data(), fresh.size()) == 0);
    CHECK_OK(m->unmap());
  }
  CHECK(ctx.unreported_errors().count == 0);
}
