// OpenCL backend: images, image views of buffers, image commands, samplers.
#include <cstring>

#include "cl.hpp"
#include "cl_error.hpp"
#include "cl_submit.hpp"

// OpenCL 2.0's sampler call, declared weak: edgemem targets 1.2 headers, and an ICD loader without it
// leaves the address null (then clCreateSampler is used).
extern "C" CL_API_ENTRY cl_sampler CL_API_CALL clCreateSamplerWithProperties(cl_context, const cl_ulong*, cl_int*)
    __attribute__((weak));

namespace edgemem::backend {

namespace {

constexpr cl_mem_flags kKernelReadAndWrite = 1u << 12;  // CL_MEM_KERNEL_READ_AND_WRITE (OpenCL 2.0)

constexpr cl_channel_order kOrders[channel_order_count] = {CL_R, CL_RG, CL_RGBA, CL_BGRA, CL_ARGB, CL_A, CL_RGB};
constexpr cl_mem_object_type kTypes[image_type_count] = {CL_MEM_OBJECT_IMAGE1D,       CL_MEM_OBJECT_IMAGE1D_BUFFER,
                                                         CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D,
                                                         CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D};

/// ChannelType's values follow cl_channel_type's, from CL_SNORM_INT8 on.
cl_image_format cl_format(ImageFormat f) noexcept {
  return cl_image_format{kOrders[static_cast<unsigned>(f.order)],
                         static_cast<cl_channel_type>(CL_SNORM_INT8 + static_cast<unsigned>(f.type))};
}

/// The ImageFormat of a cl_image_format; false when edgemem has no name for it.
bool from_cl(const cl_image_format& c, ImageFormat& out) noexcept {
  if (c.image_channel_data_type < CL_SNORM_INT8 || c.image_channel_data_type > CL_FLOAT) return false;
  for (unsigned o = 0; o < channel_order_count; ++o) {
    if (kOrders[o] != c.image_channel_order) continue;
    out = ImageFormat{static_cast<ChannelOrder>(o), static_cast<ChannelType>(c.image_channel_data_type - CL_SNORM_INT8)};
    return out.valid();
  }
  return false;
}

cl_image_desc cl_desc(const contract::ImageLayout& l) noexcept {
  cl_image_desc d;
  std::memset(&d, 0, sizeof d);
  d.image_type = kTypes[static_cast<unsigned>(l.desc.type)];
  d.image_width = l.desc.width;
  d.image_height = l.desc.height;
  d.image_depth = l.desc.depth;
  d.image_array_size = l.desc.array_size;
  return d;
}

/// A host slice pitch as OpenCL takes it: 0 for 1D, 1D-buffer and 2D images.
std::size_t cl_slice_pitch(ImageType t, std::size_t slice) noexcept {
  return t == ImageType::image3d || t == ImageType::image1d_array || t == ImageType::image2d_array ? slice : 0;
}

/// A host row pitch as passed to the driver. A 1D array's layers are `slice` apart in host memory
/// (OpenCL's rule); PoCL 3.1 steps them by the row pitch instead (backends/opencl/tests/driver_bugs/pocl/), so the row pitch
/// passed is the layer stride too: a layer is one row, so both readings agree.
std::size_t cl_row_pitch(ImageType t, const HostPitch& p) noexcept {
  return t == ImageType::image1d_array ? p.slice : p.row;
}

struct Box {
  std::size_t origin[3];
  std::size_t region[3];
};
Box box_of(const ImageOrigin& o, const ImageExtent& e) noexcept { return Box{{o.x, o.y, o.z}, {e.x, e.y, e.z}}; }

}  // namespace

namespace cl {

Result<void> describe_image_limits(cl_device_id d, Capabilities& caps, ImageLimits& l) noexcept {
  l = ImageLimits{};
  if (!caps.images) return {};
  const struct {
    cl_device_info param;
    std::size_t* out;
  } sizes[] = {{CL_DEVICE_IMAGE2D_MAX_WIDTH, &l.max_width_2d},   {CL_DEVICE_IMAGE2D_MAX_HEIGHT, &l.max_height_2d},
               {CL_DEVICE_IMAGE3D_MAX_WIDTH, &l.max_width_3d},   {CL_DEVICE_IMAGE3D_MAX_HEIGHT, &l.max_height_3d},
               {CL_DEVICE_IMAGE3D_MAX_DEPTH, &l.max_depth_3d},   {CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, &l.max_array_size},
               {CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, &l.max_buffer_pixels}};
  for (const auto& s : sizes) EDGEMEM_TRY(check(clGetDeviceInfo(d, s.param, sizeof(std::size_t), s.out, nullptr)));
  if (caps.image_from_buffer) {
    cl_uint pitch = 0, base = 0;  // CL_DEVICE_IMAGE_PITCH_ALIGNMENT, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT
    if (clGetDeviceInfo(d, 0x104A, sizeof pitch, &pitch, nullptr) != CL_SUCCESS) pitch = 0;
    if (clGetDeviceInfo(d, 0x104B, sizeof base, &base, nullptr) != CL_SUCCESS) base = 0;
    l.pitch_align_pixels = pitch;
    l.base_align_pixels = base;
    caps.image_from_buffer = pitch != 0 && base != 0;  // 0: the device cannot make them after all
  }
  return {};
}

bool probe_image_from_sub_buffer(cl_context context, const DeviceInfo& info) noexcept {
  if (!info.caps.images) return false;
  const std::size_t align = info.base_align_bytes;
  cl_int status = CL_SUCCESS;
  cl_mem root = clCreateBuffer(context, CL_MEM_READ_WRITE, 2 * align, nullptr, &status);
  if (root == nullptr) return false;
  const cl_buffer_region region{align, align};
  cl_mem sub = clCreateSubBuffer(root, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
  cl_mem image = nullptr;
  if (sub != nullptr) {
    const cl_image_format format{CL_RGBA, CL_UNORM_INT8};
    cl_image_desc d;
    std::memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    d.image_width = align / 4;
    d.buffer = sub;
    image = clCreateImage(context, CL_MEM_READ_WRITE, &format, &d, nullptr, &status);
  }
  const bool made = image != nullptr && status == CL_SUCCESS;
  if (image != nullptr) (void)clReleaseMemObject(image);
  if (sub != nullptr) (void)clReleaseMemObject(sub);
  (void)clReleaseMemObject(root);
  return made;
}

}  // namespace cl

Result<void> OpenCL::image_formats(const NativeContext& ctx, ImageType type, FormatAccess access, FormatSet& out) noexcept {
  out = FormatSet{};
  const cl_mem_flags flags[format_access_count] = {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE,
                                                   kKernelReadAndWrite};
  const cl_mem_flags f = flags[static_cast<unsigned>(access)];
  const cl_mem_object_type t = kTypes[static_cast<unsigned>(type)];
  cl_image_format formats[256];
  cl_uint count = 0;
  const cl_int status = clGetSupportedImageFormats(ctx.context, f, t, 256, formats, &count);
  if (status != CL_SUCCESS && access == FormatAccess::kernel_read_write) return {};  // a 1.2 device: none
  EDGEMEM_TRY(cl::check(status));
  for (cl_uint i = 0; i < count && i < 256; ++i) {
    ImageFormat fmt;
    if (from_cl(formats[i], fmt)) out.insert(fmt);
  }
  return {};
}

namespace {

/// The whole of an image of `d`: its pixels, rows (or 1D layers) and slices (or 2D layers).
Box whole_box(const ImageDesc& d) noexcept {
  const auto at_least_1 = [](std::size_t v) { return v != 0 ? v : std::size_t{1}; };
  Box b{{0, 0, 0}, {d.width, 1, 1}};
  if (d.type == ImageType::image1d_array) b.region[1] = at_least_1(d.array_size);
  if (d.type == ImageType::image2d || d.type == ImageType::image2d_array || d.type == ImageType::image3d)
    b.region[1] = at_least_1(d.height);
  if (d.type == ImageType::image2d_array) b.region[2] = at_least_1(d.array_size);
  if (d.type == ImageType::image3d) b.region[2] = at_least_1(d.depth);
  return b;
}

/// Whether clCreateImage's COPY_HOST_PTR would read past the last pixel of `c`'s host layout: it reads
/// the row pitch times the rows (the slice pitch times the slices), where edgemem's layout rule (and
/// clEnqueueWriteImage) ends at the last pixel, so a padded pitch over-reads the caller's memory.
bool copy_over_reads(const contract::ImageCreate& c) noexcept {
  const ImageType t = c.layout.desc.type;
  const Box b = whole_box(c.layout.desc);
  const std::size_t row = cl_row_pitch(t, c.host), slice = cl_slice_pitch(t, c.host.slice);
  const std::size_t tight = b.region[0] * c.layout.desc.format.pixel_bytes() * b.region[1] * b.region[2];
  const std::size_t layers = t == ImageType::image1d_array ? b.region[1] : b.region[2];
  const std::size_t reads = slice != 0 ? slice * layers : row * b.region[1];
  return reads > tight;
}

/// Writes `c.copy_from` into the new image `mem` with a blocking clEnqueueWriteImage on a queue made
/// for it (reading only up to the last pixel).
Result<void> write_initial_pixels(const OpenCL::NativeContext& ctx, cl_mem mem, const contract::ImageCreate& c) noexcept {
  cl_int status = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(ctx.context, ctx.device, 0, &status);
  if (status != CL_SUCCESS || q == nullptr) return cl::fail_cl(status != CL_SUCCESS ? status : CL_OUT_OF_HOST_MEMORY);
  const Box b = whole_box(c.layout.desc);
  const ImageType t = c.layout.desc.type;
  status = clEnqueueWriteImage(q, mem, CL_TRUE, b.origin, b.region, cl_row_pitch(t, c.host),
                               cl_slice_pitch(t, c.host.slice), c.copy_from, 0, nullptr, nullptr);
  clReleaseCommandQueue(q);
  return cl::check(status);
}

}  // namespace

Result<OpenCL::NativeMem> OpenCL::image_create(const NativeContext& ctx, const ImageCreate& desc) noexcept {
  cl_mem_flags f = cl::access_flags(desc.flags);
  if (desc.storage == Storage::host || desc.storage == Storage::shared) f |= CL_MEM_ALLOC_HOST_PTR;
  cl_image_desc d = cl_desc(desc.layout);
  // A padded host layout is written after creation instead (copy_over_reads); the image then takes no
  // host-access restriction (CL_MEM_HOST_*: the write needs host access; edgemem still enforces the
  // buffer's MemFlags itself, so only a native() user sees the difference).
  const bool write_after = desc.copy_from != nullptr && copy_over_reads(desc);
  if (write_after) f &= ~static_cast<cl_mem_flags>(CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS);
  if (desc.copy_from != nullptr && !write_after) {
    f |= CL_MEM_COPY_HOST_PTR;
    d.image_row_pitch = cl_row_pitch(desc.layout.desc.type, desc.host);
    d.image_slice_pitch = cl_slice_pitch(desc.layout.desc.type, desc.host.slice);
  }
  const cl_image_format format = cl_format(desc.layout.desc.format);
  cl_int status = CL_SUCCESS;
  cl_mem mem = clCreateImage(ctx.context, f, &format, &d, write_after ? nullptr : const_cast<void*>(desc.copy_from),
                             &status);
  if (status == CL_IMAGE_FORMAT_NOT_SUPPORTED) return fail(Errc::unsupported, "the driver refused the image format", status);
  if (status != CL_SUCCESS) return cl::fail_cl(status);
  if (mem == nullptr) return cl::fail_cl(CL_OUT_OF_HOST_MEMORY);
  if (write_after) {
    const Result<void> written = write_initial_pixels(ctx, mem, desc);
    if (!written) {
      clReleaseMemObject(mem);
      return fail(written.error());
    }
  }
  return mem;
}

Result<OpenCL::NativeMem> OpenCL::image_from_buffer(const NativeContext& ctx, const NativeMem& buffer,
                                                    const ImageLayout& layout, MemFlags flags) noexcept {
  cl_image_desc d = cl_desc(layout);
  d.buffer = buffer;
  if (layout.desc.type == ImageType::image2d) d.image_row_pitch = layout.row_pitch;
  const cl_image_format format = cl_format(layout.desc.format);
  cl_int status = CL_SUCCESS;
  cl_mem mem = clCreateImage(ctx.context, cl::access_flags(flags), &format, &d, nullptr, &status);
  if (status == CL_IMAGE_FORMAT_NOT_SUPPORTED) return fail(Errc::unsupported, "the driver refused the image format", status);
  if (status == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR || status == CL_INVALID_IMAGE_DESCRIPTOR)
    return fail(Errc::misaligned, "the driver refused the image view's layout", status);
  if (status != CL_SUCCESS) return cl::fail_cl(status);
  if (mem == nullptr) return cl::fail_cl(CL_OUT_OF_HOST_MEMORY);
  return mem;
}

Result<void> OpenCL::image_adopt(const NativeContext& ctx, NativeMem image, AdoptMode mode, AdoptedImage& out) noexcept {
  if (image == nullptr) return fail(Errc::invalid_argument, "adopt needs a cl_mem");
  cl_mem_object_type type = 0;
  cl_context context = nullptr;
  cl_mem_flags f = 0;
  EDGEMEM_TRY(cl::check(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof type, &type, nullptr)));
  unsigned t = 0;
  while (t < image_type_count && kTypes[t] != type) ++t;
  if (t == image_type_count) return fail(Errc::invalid_argument, "the cl_mem is not an image");
  EDGEMEM_TRY(cl::check(clGetMemObjectInfo(image, CL_MEM_CONTEXT, sizeof context, &context, nullptr)));
  if (context != ctx.context) return fail(Errc::invalid_argument, "the image belongs to another context");
  EDGEMEM_TRY(cl::check(clGetMemObjectInfo(image, CL_MEM_FLAGS, sizeof f, &f, nullptr)));
  cl_image_format format{};
  EDGEMEM_TRY(cl::check(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof format, &format, nullptr)));
  AdoptedImage a;
  if (!from_cl(format, a.layout.desc.format)) return fail(Errc::unsupported, "the image's format has no ImageFormat name");
  a.layout.desc.type = static_cast<ImageType>(t);
  std::size_t* const dims[] = {&a.layout.desc.width, &a.layout.desc.height, &a.layout.desc.depth,
                               &a.layout.desc.array_size, &a.layout.row_pitch, &a.layout.slice_pitch};
  const cl_image_info params[] = {CL_IMAGE_WIDTH, CL_IMAGE_HEIGHT, CL_IMAGE_DEPTH, CL_IMAGE_ARRAY_SIZE,
                                  CL_IMAGE_ROW_PITCH, CL_IMAGE_SLICE_PITCH};
  for (unsigned i = 0; i < 6; ++i) EDGEMEM_TRY(cl::check(clGetImageInfo(image, params[i], sizeof(std::size_t), dims[i], nullptr)));
  for (std::size_t* e : {&a.layout.desc.height, &a.layout.desc.depth, &a.layout.desc.array_size})
    if (*e == 0) *e = 1;  // OpenCL reports 0 for extents a type does not use
  a.flags = cl::flags_from_cl(f);
  a.storage = (f & CL_MEM_ALLOC_HOST_PTR) != 0 ? Storage::shared : Storage::device;
  if (a.layout.desc.type == ImageType::image1d_buffer)
    EDGEMEM_TRY(cl::check(clGetImageInfo(image, CL_IMAGE_BUFFER, sizeof a.buffer, &a.buffer, nullptr)));
  if (mode == AdoptMode::retain) EDGEMEM_TRY(cl::check(clRetainMemObject(image)));
  out = a;
  return {};
}

namespace {

/// write_image (`writes`) or read_image: the driver's blocking call when blocking (as the raw API is
/// used), else the command's event goes to ev.out.
Result<void> host_transfer(bool writes, cl_command_queue q, cl_mem image, const contract::ImageLayout& l,
                           const ImageRegion& r, void* host, const HostPitch& pitch,
                           const OpenCL::CommandEvents& ev) noexcept {
  const Box b = box_of(r.origin, r.extent);
  const std::size_t slice = cl_slice_pitch(l.desc.type, pitch.slice), row = cl_row_pitch(l.desc.type, pitch);
  const cl::WaitList w(ev);
  cl::EventOut out(ev);
  EDGEMEM_TRY(out.take());
  const cl_bool blocking = out.blocking();
  const cl_int status =
      writes ? clEnqueueWriteImage(q, image, blocking, b.origin, b.region, row, slice, host, w.count, w.events(), out.slot())
             : clEnqueueReadImage(q, image, blocking, b.origin, b.region, row, slice, host, w.count, w.events(), out.slot());
  return cl::check_host_access(out.settle(status));
}

}  // namespace

Result<void> OpenCL::write_image(NativeQueue q, const NativeMem& image, const ImageLayout& l, const ImageRegion& r,
                                 const void* src, const HostPitch& pitch, const CommandEvents& ev) noexcept {
  return host_transfer(true, q, image, l, r, const_cast<void*>(src), pitch, ev);
}

Result<void> OpenCL::read_image(NativeQueue q, const NativeMem& image, const ImageLayout& l, const ImageRegion& r,
                                void* dst, const HostPitch& pitch, const CommandEvents& ev) noexcept {
  return host_transfer(false, q, image, l, r, dst, pitch, ev);
}

Result<void> OpenCL::copy_image(NativeQueue q, const NativeMem& src, const ImageLayout&, const NativeMem& dst,
                                const ImageLayout&, const ImageOrigin& so, const ImageRegion& dr,
                                const CommandEvents& ev) noexcept {
  const Box s = box_of(so, dr.extent), d = box_of(dr.origin, dr.extent);
  return cl::submit(ev, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueCopyImage(q, src, dst, s.origin, d.origin, d.region, n, waits, out);
  });
}

Result<void> OpenCL::fill_image(NativeQueue q, const NativeMem& image, const ImageLayout&, const Color& color,
                                const ImageRegion& r, const CommandEvents& ev) noexcept {
  const Box b = box_of(r.origin, r.extent);
  return cl::submit(ev, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueFillImage(q, image, color.f, b.origin, b.region, n, waits, out);
  });
}

Result<void> OpenCL::copy_image_to_buffer(NativeQueue q, const NativeMem& image, const ImageLayout&,
                                          const ImageRegion& r, const NativeMem& buffer, std::size_t offset,
                                          const CommandEvents& ev) noexcept {
  const Box b = box_of(r.origin, r.extent);
  return cl::submit(ev, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueCopyImageToBuffer(q, image, buffer, b.origin, b.region, offset, n, waits, out);
  });
}

Result<void> OpenCL::copy_buffer_to_image(NativeQueue q, const NativeMem& buffer, std::size_t offset,
                                          const NativeMem& image, const ImageLayout&, const ImageRegion& r,
                                          const CommandEvents& ev) noexcept {
  const Box b = box_of(r.origin, r.extent);
  return cl::submit(ev, [&](cl_uint n, const cl_event* waits, cl_event* out) {
    return clEnqueueCopyBufferToImage(q, buffer, image, offset, b.origin, b.region, n, waits, out);
  });
}

Result<OpenCL::MappedImage> OpenCL::map_image(NativeQueue q, const NativeMem& image, const ImageLayout&, Access access,
                                              const ImageRegion& r, const CommandEvents& ev) noexcept {
  const Box b = box_of(r.origin, r.extent);
  const cl::WaitList w(ev);
  MappedImage m;
  cl_int status = CL_SUCCESS;
  void* p = clEnqueueMapImage(q, image, CL_TRUE, cl::map_flags(access), b.origin, b.region, &m.row_pitch,
                              &m.slice_pitch, w.count, w.events(), nullptr, &status);
  if (status == CL_INVALID_OPERATION && access == Access::write)  // host_write_only: no CL_MAP_READ
    p = clEnqueueMapImage(q, image, CL_TRUE, CL_MAP_WRITE, b.origin, b.region, &m.row_pitch, &m.slice_pitch, w.count,
                          w.events(), nullptr, &status);
  EDGEMEM_TRY(cl::check_host_access(status));
  if (p == nullptr) return cl::fail_cl(CL_MAP_FAILURE);
  m.mapped = Mapped{p, 0};
  return m;
}

Result<OpenCL::NativeSampler> OpenCL::sampler_create(const NativeContext& ctx, const SamplerDesc& s,
                                                     const DeviceInfo& info) noexcept {
  const bool opencl20 = info.version_major >= 2;  // clCreateSamplerWithProperties: OpenCL 2.0
  static constexpr cl_addressing_mode kAddress[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP,
                                                    CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT};
  const cl_addressing_mode address = kAddress[static_cast<unsigned>(s.address)];
  const cl_filter_mode filter = s.filter == FilterMode::linear ? CL_FILTER_LINEAR : CL_FILTER_NEAREST;
  cl_int status = CL_SUCCESS;
  cl_sampler sampler = nullptr;
  if (opencl20 && clCreateSamplerWithProperties != nullptr) {
    const cl_ulong props[] = {CL_SAMPLER_NORMALIZED_COORDS, s.normalized_coords ? 1u : 0u, CL_SAMPLER_ADDRESSING_MODE,
                              address, CL_SAMPLER_FILTER_MODE, filter, 0};
    sampler = clCreateSamplerWithProperties(ctx.context, props, &status);
  } else {
    sampler = clCreateSampler(ctx.context, s.normalized_coords ? CL_TRUE : CL_FALSE, address, filter, &status);
  }
  if (status != CL_SUCCESS) return cl::fail_cl(status);
  if (sampler == nullptr) return cl::fail_cl(CL_OUT_OF_HOST_MEMORY);
  return sampler;
}

void OpenCL::sampler_release(NativeSampler s) noexcept {
  if (s != nullptr) (void)clReleaseSampler(s);
}

}  // namespace edgemem::backend
