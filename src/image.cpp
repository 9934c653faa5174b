// Image: creation (standalone, from host, like, views of buffers, adopt), queries, release; the
// context's format lists and required_row_pitch.
#include <edgemem/image.hpp>
#include <edgemem/queue.hpp>

#include "core/image_checks.hpp"
#include "core/svm_root.hpp"
#include "core/live.hpp"
#include "core/image_node.hpp"
#include "core/nodes.hpp"
#include "core/ordering.hpp"
#include "core/roots.hpp"

namespace edgemem {

using detail::Backend;
using detail::ContextNode;
using detail::ImageNode;
using detail::MemNode;

namespace {

/// A standalone image root: checks, then image_create with `copy_from` (host pitches `pitch`, 0: tight).
Result<ImageNode*> make_image(ContextNode* cn, const ImageDesc& desc, Storage storage, MemFlags flags,
                              const void* copy_from, HostPitch pitch) noexcept {
  std::size_t bytes = 0;
  EDGEMEM_TRY(detail::check_mem_flags(flags));
  EDGEMEM_TRY(detail::check_storage(storage));
  EDGEMEM_TRY_ASSIGN(const contract::ImageLayout layout, detail::check_image_desc(cn, desc, bytes));
  contract::ImageCreate create;
  create.layout = layout;
  create.storage = storage;
  create.flags = flags;
  create.copy_from = copy_from;
  if (copy_from != nullptr) {
    std::size_t needed = 0;
    EDGEMEM_TRY_ASSIGN(create.host, detail::resolve_host_pitch(desc, detail::image_extent(desc), pitch,
                                                               static_cast<std::size_t>(-1), needed));
  }
  EDGEMEM_TRY(detail::check_host_flags_supported(cn, flags));
  EDGEMEM_TRY(detail::check_format_supported(cn, desc.type, desc.format, flags));
  ImageNode* node = detail::make_node<ImageNode>();
  if (node == nullptr) return fail(Errc::out_of_host_memory, "no memory for the image's bookkeeping");
  node->layout = layout;
  node->image_object = true;
  if constexpr (detail::tracks_pending) {
    node->pending = detail::make_pending_table();
    if (node->pending == nullptr) {
      detail::destroy_node(node);
      return fail(Errc::out_of_host_memory, "no memory for the image's bookkeeping");
    }
  }
  auto native = Backend::image_create(cn->native, create);
  if (!native) {
    detail::destroy_pending_table(node->pending);
    detail::destroy_node(node);
    return fail(native.error());
  }
  detail::retain(cn);
  node->ctx = cn;
  node->bytes = bytes;
  node->storage = storage;
  node->flags = flags;
  node->native = *native;
  detail::live_add(detail::Live::image, 1);
  return node;
}

/// An image view of buffer node `buf` (Image::view's checks and making).
Result<ImageNode*> make_view(MemNode* buf, const ImageDesc& desc, std::size_t row_pitch) noexcept {
  ContextNode* cn = buf->ctx;
  if (desc.type != ImageType::image2d && desc.type != ImageType::image1d_buffer)
    return fail(Errc::invalid_argument, "an image view of a buffer is image2d or image1d_buffer");
  std::size_t tight_bytes = 0;
  EDGEMEM_TRY_ASSIGN(contract::ImageLayout layout, detail::check_image_desc(cn, desc, tight_bytes));
  const bool two_d = desc.type == ImageType::image2d;
  if (two_d && !cn->info.caps.image_from_buffer)
    return fail(Errc::unsupported, "the device cannot make 2D images over buffers (DeviceInfo::caps)");
  EDGEMEM_TRY(detail::check_format_supported(cn, desc.type, desc.format, buf->flags));
  const std::size_t e = desc.format.pixel_bytes();
  std::size_t bytes = tight_bytes;
  if (two_d) {
    const ImageLimits& l = cn->info.image_limits;
    if (row_pitch == 0) {
      EDGEMEM_TRY_ASSIGN(row_pitch, detail::required_row_pitch_for(cn, desc.format, desc.width));
    }
    if (row_pitch < layout.row_pitch) return fail(Errc::invalid_argument, "row pitch is smaller than a row");
    if (row_pitch % e != 0) return fail(Errc::invalid_argument, "row pitch is not a multiple of the pixel size");
    if (row_pitch % (static_cast<std::size_t>(l.pitch_align_pixels) * e) != 0)
      return fail(Errc::misaligned, "row pitch is not a multiple of the device's image pitch alignment");
    if (row_pitch > static_cast<std::size_t>(-1) / desc.height) return fail(Errc::out_of_range, "view size overflows");
    bytes = row_pitch * desc.height;
    layout.row_pitch = row_pitch;
    layout.slice_pitch = bytes;
  }
  if (bytes > buf->bytes) return fail(Errc::out_of_range, "the image view passes the buffer's end");
  if (two_d) {
    const std::size_t align = static_cast<std::size_t>(cn->info.image_limits.base_align_pixels) * e;
    const auto address = reinterpret_cast<std::uintptr_t>(buf->root->host) + buf->origin;
    if (address % align != 0)
      return fail(Errc::misaligned, "the buffer's address is not a multiple of the device's image base alignment");
  }
  // Checked last: the view is valid, the device just cannot make it over a sub-buffer.
  if (buf->parent != nullptr && !cn->info.caps.image_from_sub_buffer)
    return fail(Errc::unsupported, "the device makes image views of root buffers only (DeviceInfo::caps)");
  EDGEMEM_TRY_ASSIGN(const Backend::NativeMem under, detail::native_of(buf));
  ImageNode* node = detail::make_node<ImageNode>();
  if (node == nullptr) return fail(Errc::out_of_host_memory, "no memory for the image view's bookkeeping");
  auto native = Backend::image_from_buffer(cn->native, under, layout, buf->flags);
  if (!native) {
    detail::destroy_node(node);
    return fail(native.error());
  }
  detail::init_view(node, buf, buf->origin, bytes, buf->flags);
  node->layout = layout;
  node->image_object = two_d;
  node->native = *native;
  node->native_state.store(detail::kNativeGiven, std::memory_order_release);
  return node;
}

/// Image::adopt of a 1D-buffer image: a view of its buffer (adopted, retained) whose native image is
/// the adopted one, so its commands run on the buffer as for edgemem's own views (a driver's 1D-buffer
/// image path is avoided: PoCL 3.1 crashes in it). The image's own reference is taken (retain) or not.
Result<ImageNode*> adopt_buffer_view(const Context& ctx, ContextNode* cn, Backend::NativeMem image, AdoptMode mode,
                                     const contract::AdoptedImage& a) noexcept {
  auto drop_image = [&] {
    if (mode == AdoptMode::retain) Backend::mem_release(image);
  };
  std::size_t bytes = 0;
  auto layout = detail::check_image_desc(cn, a.layout.desc, bytes);
  if (!layout) {
    drop_image();
    return fail(layout.error());
  }
  auto under = Buffer::adopt(ctx, a.buffer, AdoptMode::retain);
  if (!under) {
    drop_image();
    return fail(under.error());
  }
  MemNode* buf = detail::node_of(*under);
  if (bytes > buf->bytes) {
    drop_image();
    return fail(Errc::invalid_argument, "the 1D-buffer image passes its buffer's end");
  }
  ImageNode* node = detail::make_node<ImageNode>();
  if (node == nullptr) {
    drop_image();
    return fail(Errc::out_of_host_memory, "no memory for the adopted image's bookkeeping");
  }
  detail::init_view(node, buf, buf->origin, bytes, a.flags);
  node->layout = *layout;
  node->storage = a.storage;
  node->image_object = false;  // commands go to the buffer, as for Image::view
  node->native = image;
  node->borrowed = mode == AdoptMode::borrow;
  node->native_state.store(detail::kNativeGiven, std::memory_order_release);
  return node;
}

}  // namespace

namespace detail {

Result<std::size_t> required_row_pitch_for(const ContextNode* cn, ImageFormat format, std::size_t width) noexcept {
  if (!format.valid()) return fail(Errc::invalid_argument, "invalid image format (channel order and type)");
  if (width == 0) return fail(Errc::invalid_argument, "width is zero");
  if (!cn->info.caps.image_from_buffer)
    return fail(Errc::unsupported, "the device cannot make 2D images over buffers (DeviceInfo::caps)");
  const std::size_t align = cn->info.image_limits.pitch_align_pixels != 0 ? cn->info.image_limits.pitch_align_pixels : 1;
  const std::size_t e = format.pixel_bytes();
  if (width > static_cast<std::size_t>(-1) - align || (width + align - 1) / align * align > static_cast<std::size_t>(-1) / e)
    return fail(Errc::out_of_range, "row pitch overflows");
  return (width + align - 1) / align * align * e;
}

}  // namespace detail

FormatSet Context::supported_formats(ImageType type, FormatAccess access) const noexcept {
  const ContextNode* cn = node_;
  if (cn == nullptr || static_cast<unsigned>(type) >= image_type_count ||
      static_cast<unsigned>(access) >= format_access_count)
    return FormatSet{};
  return cn->formats[static_cast<unsigned>(type)][static_cast<unsigned>(access)];
}

Result<std::size_t> required_row_pitch(const Context& ctx, ImageFormat format, std::size_t width) noexcept {
  const ContextNode* cn = detail::node_of(ctx);
  if (cn == nullptr) return fail(Errc::released, "context is released");
  return detail::required_row_pitch_for(cn, format, width);
}

Result<Image> Image::create(const Context& ctx, const ImageDesc& desc, Storage storage, MemFlags flags) noexcept {
  ContextNode* cn = detail::node_of(ctx);
  if (cn == nullptr) return fail(Errc::released, "context is released");
  if (desc.type == ImageType::image1d_buffer) {  // a buffer of the pixels, and the image over it
    std::size_t bytes = 0;
    EDGEMEM_TRY(detail::check_image_desc(cn, desc, bytes));
    EDGEMEM_TRY(detail::check_format_supported(cn, desc.type, desc.format, flags));
    EDGEMEM_TRY_ASSIGN(Buffer buf, Buffer::create(ctx, bytes, storage, flags));
    return view(buf, desc);
  }
  EDGEMEM_TRY_ASSIGN(ImageNode* n, make_image(cn, desc, storage, flags, nullptr, {}));
  return Image(n);
}

Result<Image> Image::from_host(const Context& ctx, const ImageDesc& desc, const void* data, HostPitch pitch,
                               Storage storage, MemFlags flags) noexcept {
  ContextNode* cn = detail::node_of(ctx);
  if (cn == nullptr) return fail(Errc::released, "context is released");
  if (data == nullptr) return fail(Errc::invalid_argument, "host pointer is null");
  if (desc.type == ImageType::image1d_buffer) {
    std::size_t bytes = 0;
    EDGEMEM_TRY(detail::check_image_desc(cn, desc, bytes));
    std::size_t needed = 0;  // the pitch rules hold for every type, though one row has no stride
    EDGEMEM_TRY(detail::resolve_host_pitch(desc, detail::image_extent(desc), pitch, static_cast<std::size_t>(-1), needed));
    EDGEMEM_TRY(detail::check_format_supported(cn, desc.type, desc.format, flags));
    EDGEMEM_TRY_ASSIGN(Buffer buf, Buffer::from_host(ctx, data, bytes, storage, flags));
    return view(buf, desc);
  }
  EDGEMEM_TRY_ASSIGN(ImageNode* n, make_image(cn, desc, storage, flags, data, pitch));
  return Image(n);
}

Result<Image> Image::like(const Image& other) noexcept {
  const ImageNode* o = detail::HandleAccess::node(other);
  if (o == nullptr) return fail(Errc::released, "image is released");
  Context ctx = detail::HandleAccess::context_handle(o->ctx);
  return create(ctx, o->layout.desc, o->storage, o->flags);
}

Result<Image> Image::view(const Buffer& buf, const ImageDesc& desc, std::size_t row_pitch) noexcept {
  MemNode* b = detail::node_of(buf);
  if (b == nullptr) return fail(Errc::released, "buffer is released");
  EDGEMEM_TRY(detail::check_not_svm(b));
  EDGEMEM_TRY_ASSIGN(ImageNode* n, make_view(b, desc, row_pitch));
  return Image(n);
}

Result<Image> Image::adopt(const Context& ctx, NativeMem native, AdoptMode mode) noexcept {
  ContextNode* cn = detail::node_of(ctx);
  if (cn == nullptr) return fail(Errc::released, "context is released");
  if (mode != AdoptMode::retain && mode != AdoptMode::borrow) return fail(Errc::invalid_argument, "unknown AdoptMode");
  contract::AdoptedImage a;
  EDGEMEM_TRY(Backend::image_adopt(cn->native, native, mode, a));
  if (a.layout.desc.type == ImageType::image1d_buffer && a.buffer != Backend::NativeMem{}) {
    EDGEMEM_TRY_ASSIGN(ImageNode* view, adopt_buffer_view(ctx, cn, native, mode, a));
    return Image(view);
  }
  std::size_t bytes = 0;
  auto layout = detail::check_image_desc(cn, a.layout.desc, bytes);
  ImageNode* node = layout ? detail::make_node<ImageNode>() : nullptr;
  if (node != nullptr && detail::tracks_pending) {
    node->pending = detail::make_pending_table();
    if (node->pending == nullptr) {
      detail::destroy_node(node);
      node = nullptr;
    }
  }
  if (node == nullptr) {
    if (mode == AdoptMode::retain) Backend::mem_release(native);
    if (!layout) return fail(layout.error());
    return fail(Errc::out_of_host_memory, "no memory for the adopted image's bookkeeping");
  }
  detail::retain(cn);
  node->ctx = cn;
  node->layout = *layout;
  node->bytes = bytes;
  node->storage = a.storage;
  node->flags = a.flags;
  node->native = native;
  node->image_object = true;  // its own root: even an adopted 1D-buffer image's commands use the image
  node->borrowed = mode == AdoptMode::borrow;
  detail::live_add(detail::Live::image, 1);
  return Image(node);
}

ImageDesc Image::desc() const noexcept {
  return node_ != nullptr ? static_cast<const ImageNode*>(node_)->layout.desc : ImageDesc{};
}
ImageExtent Image::extent() const noexcept { return node_ != nullptr ? detail::image_extent(desc()) : ImageExtent{0, 0, 0}; }
std::size_t Image::row_pitch() const noexcept {
  return node_ != nullptr ? static_cast<const ImageNode*>(node_)->layout.row_pitch : 0;
}
std::size_t Image::slice_pitch() const noexcept {
  if (node_ == nullptr) return 0;
  const contract::ImageLayout& l = static_cast<const ImageNode*>(node_)->layout;
  const ImageType t = l.desc.type;
  return t == ImageType::image3d || t == ImageType::image1d_array || t == ImageType::image2d_array ? l.slice_pitch : 0;
}
std::size_t Image::size() const noexcept { return node_ != nullptr ? node_->bytes : 0; }
Storage Image::storage() const noexcept { return node_ != nullptr ? node_->storage : Storage::device; }
MemFlags Image::flags() const noexcept { return node_ != nullptr ? node_->flags : MemFlags::read_write; }
bool Image::is_view() const noexcept { return node_ != nullptr && node_->parent != nullptr; }
bool Image::shares_root_with(const Buffer& buf) const noexcept {
  const MemNode* b = detail::node_of(buf);
  return node_ != nullptr && b != nullptr && node_->root == b->root;
}
NativeMem Image::native() const noexcept { return node_ != nullptr ? node_->native : NativeMem{}; }

Result<void> Image::release() noexcept {
  if (node_ == nullptr) return {};
  EDGEMEM_TRY(detail::check_releasable(node_));
  drop();
  return {};
}

Result<void> Image::release(const Queue& q) noexcept {
  if (node_ == nullptr) return {};
  EDGEMEM_TRY(detail::order_release(detail::node_of(q), node_));
  drop();
  return {};
}

Result<Buffer> Buffer::like(const Image& image) noexcept {
  const ImageNode* n = detail::HandleAccess::node(image);
  if (n == nullptr) return fail(Errc::released, "image is released");
  Context ctx = detail::HandleAccess::context_handle(n->ctx);
  return create(ctx, n->bytes, n->storage, n->flags);
}

}  // namespace edgemem
