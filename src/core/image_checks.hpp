// Checks and layout arithmetic of images, shared by Image's factories and the Queue's image commands.
// Each returns the Errc the public documentation promises; none changes any object.
#pragma once
#include <cstddef>

#include <edgemem/image.hpp>
#include <edgemem/result.hpp>

#include "core/checks.hpp"
#include "core/image_node.hpp"
#include "core/nodes.hpp"

namespace edgemem::detail {

/// Checks `desc` for `ctx`'s device and returns its layout with tight pitches (a 1D array's slice
/// pitch is its row pitch) and, in `bytes`, the pixels' size. Errc: invalid_argument (unknown type,
/// invalid format, an extent 0 or an unused extent not 1), unsupported (!caps.images), out_of_range
/// (past the device's ImageLimits or max_alloc_bytes, overflow included).
Result<contract::ImageLayout> check_image_desc(const ContextNode* ctx, const ImageDesc& desc, std::size_t& bytes) noexcept;

/// unsupported when the device does not list `format` for images of `type` with access `flags`.
Result<void> check_format_supported(const ContextNode* ctx, ImageType type, ImageFormat format, MemFlags flags) noexcept;

/// The image's extent as OpenCL counts it (1D array: layers in y; 2D array: layers in z).
ImageExtent image_extent(const ImageDesc& d) noexcept;

/// invalid_argument when an extent of `r` is 0; out_of_range when `r` passes `n`'s extent (overflow
/// included).
Result<void> check_image_region(const ImageNode* n, const ImageRegion& r) noexcept;

/// The node-relative bytes region `r` of `n` spans in its storage layout (first to last pixel).
ByteRange image_span(const ImageNode* n, const ImageRegion& r) noexcept;

/// Resolves host pitches of a transfer of extent `e` of an image of `desc` (0: tight) and checks them against
/// `host_bytes`. Errc: invalid_argument (a pitch too small, a row pitch not a multiple of the pixel
/// size, a slice pitch not a multiple of the row pitch), out_of_range (the layout passes host_bytes).
/// `needed` receives the host bytes the transfer touches.
Result<HostPitch> resolve_host_pitch(const ImageDesc& desc, const ImageExtent& e, HostPitch p, std::size_t host_bytes,
                                     std::size_t& needed) noexcept;

/// The smallest row pitch of a 2D image view of `width` pixels of `format` (required_row_pitch()).
/// Errc: invalid_argument, unsupported, out_of_range.
Result<std::size_t> required_row_pitch_for(const ContextNode* cn, ImageFormat format, std::size_t width) noexcept;

/// The image node of `img` if both handles are live and share a context. Errc: released, invalid_argument.
Result<ImageNode*> use_image(const QueueNode* q, const Image& img) noexcept;

}  // namespace edgemem::detail
