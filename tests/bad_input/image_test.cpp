// Bad inputs to images and samplers: formats, extents, regions, host pitches, fill colors, copies,
// views, maps. Each case checks the exact Errc and that the images and buffers it watches are
// unchanged (their pixels re-read), with no object made or lost. A device without images answers
// Errc::unsupported at creation, checked in the first case; the others need images.
#include <cstring>

#include "bad_input/catalogue.hpp"

using namespace edgemem;
using emt::bad::Scene;

namespace {

constexpr ImageFormat kRgba8{ChannelOrder::rgba, ChannelType::unorm_int8};

ImageDesc desc2d(std::size_t w, std::size_t h, ImageFormat f = kRgba8) {
  ImageDesc d;
  d.format = f;
  d.width = w;
  d.height = h;
  return d;
}

/// A 2D RGBA8 image of random pixels.
Image new_image(emt::Fixture& f, std::size_t w = 32, std::size_t h = 16) {
  const emt::Bytes px = emt::random_bytes(w * h * 4);
  auto img = Image::from_host(f.ctx, desc2d(w, h), px.data());
  REQUIRE_MESSAGE(static_cast<bool>(img), "Image::from_host -> " << emt::describe(img));
  return std::move(*img);
}

/// Records `img`'s pixels in the scene (re-read after each bad call). `img` must outlive the calls.
void watch_image(emt::Fixture& f, Scene& s, const Image& img) {
  s.watch("image pixels", [&f, &img] {
    emt::Bytes out(img.size());
    if (!f.q.read_image(img, img.region(), out.data(), out.size())) return std::string("unreadable");
    return std::string(out.begin(), out.end());
  });
}

}  // namespace

BAD_INPUT("Image::create: a device without images, invalid formats, zero or unused extents, unknown type") {
  emt::Fixture f;
  Scene s(f);
  if (!f.ctx.info().caps.images) {
    s.expect(Errc::unsupported, [&] { return Image::create(f.ctx, desc2d(8, 8)); });
    s.expect(Errc::unsupported, [&] { return Sampler::create(f.ctx, SamplerDesc{}); });
    return;
  }
  s.expect(Errc::invalid_argument, [&] { return Image::create(f.ctx, desc2d(8, 8, ImageFormat{ChannelOrder::rgb, ChannelType::unorm_int8})); });
  s.expect(Errc::invalid_argument, [&] { return Image::create(f.ctx, desc2d(8, 8, ImageFormat{static_cast<ChannelOrder>(40), ChannelType::unorm_int8})); });
  s.expect(Errc::invalid_argument, [&] { return Image::create(f.ctx, desc2d(0, 8)); });
  s.expect(Errc::invalid_argument, [&] { return Image::create(f.ctx, desc2d(8, 0)); });
  ImageDesc one_d = desc2d(8, 2);
  one_d.type = ImageType::image1d;
  s.expect(Errc::invalid_argument, [&] { return Image::create(f.ctx, one_d); });
  ImageDesc layers = desc2d(8, 8);
  layers.array_size = 2;  // not an array type
  s.expect(Errc::invalid_argument, [&] { return Image::create(f.ctx, layers); });
  ImageDesc unknown = desc2d(8, 8);
  unknown.type = static_cast<ImageType>(17);
  s.expect(Errc::invalid_argument, [&] { return Image::create(f.ctx, unknown); });
  s.expect(Errc::invalid_argument, [&] { return Image::create(f.ctx, desc2d(8, 8), static_cast<Storage>(9)); });
  s.expect(Errc::invalid_argument, [&] { return Image::from_host(f.ctx, desc2d(8, 8), nullptr); });
  s.expect(Errc::released, [&] { return Image::create(Context{}, desc2d(8, 8)); });
}

BAD_INPUT("Image::create: extents past the device's limits, formats the device lacks") {
  emt::Fixture f;
  Scene s(f);
  if (!f.ctx.info().caps.images) return;
  const ImageLimits& l = f.ctx.info().image_limits;
  s.expect(Errc::out_of_range, [&] { return Image::create(f.ctx, desc2d(l.max_width_2d + 1, 1)); });
  s.expect(Errc::out_of_range, [&] { return Image::create(f.ctx, desc2d(1, l.max_height_2d + 1)); });
  ImageDesc arr = desc2d(4, 4);
  arr.type = ImageType::image2d_array;
  arr.array_size = l.max_array_size + 1;
  s.expect(Errc::out_of_range, [&] { return Image::create(f.ctx, arr); });
  // A valid format the device does not list for read_write 2D images (RG on PoCL, ARGB signed_int32 ...).
  const FormatSet have = f.ctx.supported_formats(ImageType::image2d, FormatAccess::read_write);
  for (unsigned o = 0; o < channel_order_count; ++o)
    for (unsigned t = 0; t < channel_type_count; ++t) {
      const ImageFormat fmt{static_cast<ChannelOrder>(o), static_cast<ChannelType>(t)};
      if (!fmt.valid() || have.contains(fmt)) continue;
      s.expect(Errc::unsupported, [&] { return Image::create(f.ctx, desc2d(8, 8, fmt)); });
      return;
    }
}

BAD_INPUT("write_image/read_image: zero extents, regions past the image, bad host pitches, short host memory") {
  emt::Fixture f;
  Scene s(f);
  if (!f.ctx.info().caps.images) return;
  Image img = new_image(f);
  watch_image(f, s, img);
  emt::Bytes host(32 * 16 * 4 * 2, 0x11);
  s.expect(Errc::invalid_argument, [&] { return f.q.write_image(img, ImageRegion{{0, 0, 0}, {0, 4, 1}}, host.data(), host.size()); });
  s.expect(Errc::out_of_range, [&] { return f.q.write_image(img, ImageRegion{{30, 0, 0}, {4, 4, 1}}, host.data(), host.size()); });
  s.expect(Errc::out_of_range, [&] { return f.q.write_image(img, ImageRegion{{0, 14, 0}, {4, 4, 1}}, host.data(), host.size()); });
  s.expect(Errc::out_of_range, [&] { return f.q.write_image(img, ImageRegion{{0, 0, 1}, {4, 4, 1}}, host.data(), host.size()); });
  s.expect(Errc::out_of_range, [&] { return f.q.write_image(img, ImageRegion{{static_cast<std::size_t>(-2), 0, 0}, {4, 1, 1}}, host.data(), host.size()); });
  s.expect(Errc::invalid_argument, [&] { return f.q.write_image(img, img.region(), host.data(), host.size(), HostPitch{32 * 4 - 4, 0}); });
  s.expect(Errc::invalid_argument, [&] { return f.q.write_image(img, img.region(), host.data(), host.size(), HostPitch{32 * 4 + 2, 0}); });
  s.expect(Errc::invalid_argument, [&] { return f.q.write_image(img, img.region(), host.data(), host.size(), HostPitch{128, 128 * 16 + 4}); });
  s.expect(Errc::out_of_range, [&] { return f.q.write_image(img, img.region(), host.data(), 32 * 16 * 4 - 1); });
  s.expect(Errc::invalid_argument, [&] { return f.q.write_image(img, img.region(), nullptr, host.size()); });
  s.expect(Errc::out_of_range, [&] { return f.q.read_image(img, img.region(), host.data(), 100); });
  CHECK(host == emt::Bytes(host.size(), 0x11));
  s.expect(Errc::out_of_range, [&] { return emt::settle(f.q.read_image_async(img, ImageRegion{{0, 0, 0}, {33, 1, 1}}, host.data(), host.size())); });
}

BAD_INPUT("images: released images, images of another context, released queues") {
  emt::Fixture f;
  Scene s(f);
  if (!f.ctx.info().caps.images) return;
  Image img = new_image(f);
  watch_image(f, s, img);
  emt::OtherContext other(64);
  auto foreign = Image::create(other.ctx, desc2d(32, 16));
  REQUIRE_OK(foreign);
  emt::Bytes host(32 * 16 * 4);
  Image gone;
  s.expect(Errc::released, [&] { return f.q.write_image(gone, ImageRegion{{0, 0, 0}, {1, 1, 1}}, host.data(), host.size()); });
  s.expect(Errc::invalid_argument, [&] { return f.q.read_image(*foreign, foreign->region(), host.data(), host.size()); });
  s.expect(Errc::invalid_argument, [&] { return f.q.copy_image(*foreign, img, ImageOrigin{}, img.region()); });
  Queue no_queue;
  s.expect(Errc::released, [&] { return no_queue.fill_image(img, Color::floats(0, 0, 0, 0), img.region()); });
  s.expect(Errc::released, [&] { return Image::like(gone); });
  s.expect(Errc::released, [&] { return Buffer::like(gone); });
}

BAD_INPUT("fill_image: a color of the wrong kind") {
  emt::Fixture f;
  Scene s(f);
  if (!f.ctx.info().caps.images) return;
  Image img = new_image(f);
  watch_image(f, s, img);
  s.expect(Errc::invalid_argument, [&] { return f.q.fill_image(img, Color::uints(1, 2, 3, 4), img.region()); });
  s.expect(Errc::invalid_argument, [&] { return emt::settle(f.q.fill_image_async(img, Color::ints(1, 2, 3, 4), img.region())); });
  s.expect(Errc::out_of_range, [&] { return f.q.fill_image(img, Color::floats(1, 2, 3, 4), ImageRegion{{0, 0, 0}, {33, 1, 1}}); });
}

BAD_INPUT("copy_image: formats differ, regions overlap in one image, regions past either image") {
  emt::Fixture f;
  Scene s(f);
  if (!f.ctx.info().caps.images) return;
  Image img = new_image(f);
  watch_image(f, s, img);
  auto floats = Image::create(f.ctx, desc2d(32, 16, ImageFormat{ChannelOrder::rgba, ChannelType::float32}));
  REQUIRE_OK(floats);
  s.expect(Errc::invalid_argument, [&] { return f.q.copy_image(*floats, img, ImageOrigin{}, ImageRegion{{0, 0, 0}, {4, 4, 1}}); });
  s.expect(Errc::overlap, [&] { return f.q.copy_image(img, img, ImageOrigin{0, 0, 0}, ImageRegion{{2, 2, 0}, {4, 4, 1}}); });
  s.expect(Errc::out_of_range, [&] { return f.q.copy_image(img, img, ImageOrigin{30, 0, 0}, ImageRegion{{0, 8, 0}, {4, 4, 1}}); });
  s.expect(Errc::out_of_range, [&] { return f.q.copy_image(img, img, ImageOrigin{0, 0, 0}, ImageRegion{{0, 14, 0}, {4, 4, 1}}); });
}

BAD_INPUT("copy_image_to_buffer/copy_buffer_to_image: the buffer side past its end") {
  emt::Fixture f;
  Scene s(f);
  if (!f.ctx.info().caps.images) return;
  Image img = new_image(f);
  watch_image(f, s, img);
  Buffer& buf = s.make(1024);
  s.expect(Errc::out_of_range, [&] { return f.q.copy_image_to_buffer(img, img.region(), buf, 0); });
  s.expect(Errc::out_of_range, [&] { return f.q.copy_image_to_buffer(img, ImageRegion{{0, 0, 0}, {16, 4, 1}}, buf, 1024 - 255); });
  s.expect(Errc::out_of_range, [&] { return f.q.copy_buffer_to_image(buf, 769, img, ImageRegion{{0, 0, 0}, {16, 4, 1}}); });
  s.expect(Errc::invalid_argument, [&] { return f.q.copy_buffer_to_image(buf, 0, img, ImageRegion{{0, 0, 0}, {16, 0, 1}}); });
}

BAD_INPUT("map_image: unknown access, regions past the image, a conflicting mapping") {
  emt::Fixture f;
  Scene s(f);
  if (!f.ctx.info().caps.images) return;
  Image img = new_image(f);
  watch_image(f, s, img);
  s.expect(Errc::invalid_argument, [&] { return f.q.map_image(img, static_cast<Access>(7)); });
  s.expect(Errc::out_of_range, [&] { return f.q.map_image(img, Access::read, ImageRegion{{31, 0, 0}, {2, 1, 1}}); });
  s.expect(Errc::invalid_argument, [&] { return f.q.map_image(img, Access::read, ImageRegion{{0, 0, 0}, {2, 0, 1}}); });
}

BAD_INPUT("Sampler::create: repeat or mirrored_repeat without normalised coordinates, unknown modes") {
  emt::Fixture f;
  Scene s(f);
  s.expect(Errc::invalid_argument, [&] { return Sampler::create(f.ctx, false, AddressMode::repeat, FilterMode::nearest); });
  s.expect(Errc::invalid_argument, [&] { return Sampler::create(f.ctx, false, AddressMode::mirrored_repeat, FilterMode::linear); });
  s.expect(Errc::invalid_argument, [&] { return Sampler::create(f.ctx, true, AddressMode::clamp, static_cast<FilterMode>(5)); });
}

BAD_INPUT("Image::view: a sub-buffer on a device that views root buffers only") {
  emt::Fixture f;
  Scene s(f);
  Buffer& buf = s.make(64 * 1024);
  if (!f.ctx.info().caps.images || f.ctx.info().caps.image_from_sub_buffer) return;
  auto sub = buf.sub(f.ctx.base_align(), 4096);
  REQUIRE_OK(sub);
  ImageDesc line = desc2d(256, 1);
  line.type = ImageType::image1d_buffer;
  s.expect(Errc::unsupported, [&] { return Image::view(*sub, line); });
}

BAD_INPUT("Image::view: wrong type, pitch below a row or off the alignment, past the buffer, or no capability") {
  emt::Fixture f;
  Scene s(f);
  Buffer& buf = s.make(64 * 1024);
  if (!f.ctx.info().caps.image_from_buffer) {
    s.expect(Errc::unsupported, [&] { return Image::view(buf, desc2d(64, 16), 256); });
    s.expect(Errc::unsupported, [&] { return required_row_pitch(f.ctx, kRgba8, 64); });
    return;
  }
  ImageDesc three = desc2d(8, 8);
  three.type = ImageType::image3d;
  s.expect(Errc::invalid_argument, [&] { return Image::view(buf, three); });
  s.expect(Errc::invalid_argument, [&] { return Image::view(buf, desc2d(64, 16), 64 * 4 - 4); });
  s.expect(Errc::invalid_argument, [&] { return Image::view(buf, desc2d(64, 16), 64 * 4 + 2); });
  if (f.ctx.info().image_limits.pitch_align_pixels > 1)
    s.expect(Errc::misaligned, [&] { return Image::view(buf, desc2d(64, 16), 64 * 4 + 4); });
  s.expect(Errc::out_of_range, [&] { return Image::view(buf, desc2d(64, 1024)); });
  s.expect(Errc::invalid_argument, [&] { return required_row_pitch(f.ctx, kRgba8, 0); });
  s.expect(Errc::released, [&] { return Image::view(Buffer{}, desc2d(64, 16)); });
}

BAD_INPUT("Image::from_host: host pitches below a row, off the pixel size, or a slice pitch off the row pitch, every type") {
  emt::Fixture f;
  Scene s(f);
  if (!f.ctx.info().caps.images) return;
  const emt::Bytes px = emt::random_bytes(64 * 8 * 4 * 2);
  for (ImageType t : {ImageType::image1d, ImageType::image1d_buffer, ImageType::image2d, ImageType::image3d}) {
    CAPTURE(static_cast<int>(t));
    ImageDesc d = desc2d(16, t == ImageType::image1d || t == ImageType::image1d_buffer ? 1 : 4);
    d.type = t;
    if (t == ImageType::image3d) d.depth = 2;
    s.expect(Errc::invalid_argument, [&] { return Image::from_host(f.ctx, d, px.data(), HostPitch{16 * 4 - 4, 0}); });
    s.expect(Errc::invalid_argument, [&] { return Image::from_host(f.ctx, d, px.data(), HostPitch{16 * 4 + 2, 0}); });
    s.expect(Errc::invalid_argument, [&] { return Image::from_host(f.ctx, d, px.data(), HostPitch{128, 128 * 4 + 64}); });
  }
}
