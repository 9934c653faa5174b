// Issue #30, item 4: Image::from_host with a padded host pitch read past the caller's last pixel on
// OpenCL (clCreateImage's COPY_HOST_PTR reads row pitch x rows, slice pitch x slices), where edgemem's
// layout rule and write_image end at the last pixel. The pixels are placed so their last byte is the
// last byte before a PROT_NONE guard page: any over-read is SIGSEGV. Every type with rows or slices,
// SampledImage::from_host, and host-access flags that forbid host writes; the pixels are read back.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "conformance/test_helpers.hpp"

using namespace edgemem;

namespace {

constexpr ImageFormat kRgba8{ChannelOrder::rgba, ChannelType::unorm_int8};

/// Host memory ending at a guard page: `bytes` writable bytes whose last one is just before it.
class GuardedBytes {
 public:
  explicit GuardedBytes(std::size_t bytes) : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
    const std::size_t pages = (bytes + page_ - 1) / page_ + 1;
    total_ = pages * page_;
    void* p = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    base_ = static_cast<unsigned char*>(p);
    REQUIRE(mprotect(base_ + total_ - page_, page_, PROT_NONE) == 0);
    data_ = base_ + total_ - page_ - bytes;
  }
  ~GuardedBytes() { munmap(base_, total_); }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;
  unsigned char* data() { return data_; }

 private:
  std::size_t page_, total_ = 0;
  unsigned char* base_ = nullptr;
  unsigned char* data_ = nullptr;
};

struct Case {
  ImageType type;
  std::size_t w, h, d, layers;
};

/// Rows and slices of `c` (a 1D array's layers are its slices, one row each).
void extents(const Case& c, std::size_t& rows, std::size_t& slices) {
  rows = c.type == ImageType::image2d || c.type == ImageType::image2d_array || c.type == ImageType::image3d ? c.h : 1;
  slices = c.type == ImageType::image3d ? c.d : c.type == ImageType::image1d_array || c.type == ImageType::image2d_array ? c.layers : 1;
}

}  // namespace

TEST_CASE_FIXTURE(emt::Fixture, "images: from_host with padded pitches reads only up to the last pixel (guard page)") {
  if (!ctx.info().caps.images) return;
  const Case cases[] = {{ImageType::image1d, 29, 1, 1, 1},       {ImageType::image1d_array, 29, 1, 1, 3},
                        {ImageType::image2d, 29, 7, 1, 1},       {ImageType::image2d_array, 17, 5, 1, 3},
                        {ImageType::image3d, 13, 5, 4, 1}};
  const MemFlags flag_sets[] = {MemFlags::read_write, MemFlags::read_write | MemFlags::host_no_access};
  for (const Case& c : cases) {
    for (MemFlags flags : flag_sets) {
      CAPTURE(static_cast<int>(c.type));
      const bool no_host = flags != MemFlags::read_write;
      CAPTURE(no_host);
      if (no_host && !ctx.info().caps.host_access_flags) continue;
      ImageDesc desc;
      desc.type = c.type;
      desc.format = kRgba8;
      desc.width = c.w;
      desc.height = c.h;
      desc.depth = c.d;
      desc.array_size = c.layers;
      std::size_t rows = 0, slices = 0;
      extents(c, rows, slices);
      const std::size_t row_bytes = c.w * 4;
      HostPitch pitch{row_bytes + 20, 0};  // padded rows (20: a multiple of the 4-byte pixel)
      pitch.slice = pitch.row * (rows + 1);  // and padded slices (a multiple of the row pitch)
      if (c.type == ImageType::image1d_array) pitch.slice = pitch.row * 2;  // layers apart by the slice pitch
      // edgemem's rule: the last pixel of the last row of the last slice ends the host layout.
      const std::size_t used = (slices - 1) * pitch.slice + (rows - 1) * pitch.row + row_bytes;
      GuardedBytes host(used);
      const emt::Bytes pixels = emt::random_bytes(row_bytes * rows * slices);
      for (std::size_t z = 0; z < slices; ++z)
        for (std::size_t y = 0; y < rows; ++y)
          std::memcpy(host.data() + z * pitch.slice + y * pitch.row, pixels.data() + (z * rows + y) * row_bytes, row_bytes);
      auto img = Image::from_host(ctx, desc, host.data(), pitch, Storage::device, flags);
      REQUIRE_OK(img);  // an over-read ends the run here with SIGSEGV
      CHECK(img->flags() == flags);
      if (no_host) {
        emt::Bytes none(pixels.size());
        CHECK_ERRC(q.read_image(*img, img->region(), none.data(), none.size()), Errc::access_denied);
        // Read back through a copy into an image the host may read.
        auto open = Image::create(ctx, desc);
        REQUIRE_OK(open);
        CHECK_OK(q.copy_image(*img, *open, ImageOrigin{}, open->region()));
        emt::Bytes back(pixels.size());
        CHECK_OK(q.read_image(*open, open->region(), back.data(), back.size()));
        CHECK(back == pixels);
      } else {
        emt::Bytes back(pixels.size());
        CHECK_OK(q.read_image(*img, img->region(), back.data(), back.size()));
        CHECK(back == pixels);
      }
    }
  }
  // SampledImage::from_host takes the same path.
  const ImageDesc d2 = [] {
    ImageDesc d;
    d.type = ImageType::image2d;
    d.format = kRgba8;
    d.width = 8;
    d.height = 4;
    return d;
  }();
  const HostPitch pitch{8 * 4 + 16, 0};
  GuardedBytes host(3 * pitch.row + 8 * 4);
  std::memset(host.data(), 0x5a, 3 * pitch.row + 8 * 4);
  auto pair = SampledImage::from_host(ctx, d2, host.data(), SamplerDesc{}, pitch);
  REQUIRE_OK(pair);
  emt::Bytes back(8 * 4 * 4);
  CHECK_OK(q.read_image(pair->image(), pair->image().region(), back.data(), back.size()));
  CHECK(back == emt::Bytes(back.size(), 0x5a));
}
