/// @file sampler.hpp  Sampler: how kernels (and edgemem's software sampler, pixel.hpp) read an image at
/// coordinates: normalised or pixel coordinates, addressing outside the image, nearest or linear
/// filtering (cl_sampler). Move-only; keeps its context alive.
#pragma once
#include <cstdint>
#include <utility>

#include <edgemem/context.hpp>
#include <edgemem/handle.hpp>
#include <edgemem/native.hpp>
#include <edgemem/result.hpp>

namespace edgemem {

/// What a read outside the image returns (cl_addressing_mode).
enum class AddressMode : std::uint8_t {
  none,             ///< coordinates are inside the image (reads outside are undefined)
  clamp_to_edge,    ///< clamped to the edge pixels
  clamp,            ///< outside reads give the border color (0,0,0,0), or (0,0,0,1) for orders without alpha
  repeat,           ///< the image tiles (normalised coordinates only)
  mirrored_repeat,  ///< the image tiles, mirrored every other time (normalised coordinates only)
};

/// How a read between pixel centres is filtered (cl_filter_mode).
enum class FilterMode : std::uint8_t {
  nearest,  ///< the nearest pixel
  linear,   ///< bilinear (trilinear in 3D) blend of the nearest 2x2 (2x2x2) pixels; float-kind formats only
};

/// A sampler's three settings (pyopencl's Sampler(ctx, normalized_coords, addressing_mode, filter_mode)).
struct SamplerDesc {
  bool normalized_coords = false;              ///< true: coordinates in [0, 1); false: in pixels
  AddressMode address = AddressMode::clamp_to_edge;  ///< reads outside the image
  FilterMode filter = FilterMode::nearest;     ///< filtering

  /// True when OpenCL defines the combination: known values, and repeat / mirrored_repeat only with
  /// normalised coordinates.
  [[nodiscard]] constexpr bool valid() const noexcept {
    if (static_cast<unsigned>(address) > static_cast<unsigned>(AddressMode::mirrored_repeat)) return false;
    if (static_cast<unsigned>(filter) > static_cast<unsigned>(FilterMode::linear)) return false;
    return normalized_coords || (address != AddressMode::repeat && address != AddressMode::mirrored_repeat);
  }
};

namespace detail {
struct ContextNode;
struct HandleAccess;
/// How a Sampler lets go of its native sampler (detail::NativeTraits); its settings are kept with it.
struct SamplerKind {
  using Native = NativeSampler;                                          ///< cl_sampler on OpenCL
  using Extra = SamplerDesc;                                             ///< its settings
  static void free(NativeSampler native, ContextNode* ctx) noexcept;  ///< releases it, drops `ctx`
};
}  // namespace detail

/// A sampler on one context.
class Sampler : private detail::Unique<detail::NativeTraits<detail::SamplerKind>> {
 public:
  /// Creates a sampler (clCreateSamplerWithProperties on OpenCL 2.0+ devices, clCreateSampler on 1.2).
  /// Errc: released (ctx), invalid_argument (unknown enum values; repeat or mirrored_repeat without
  /// normalised coordinates, which OpenCL leaves undefined), unsupported (!info().caps.images),
  /// out_of_host_memory, backend_failure.
  [[nodiscard]] static Result<Sampler> create(const Context& ctx, const SamplerDesc& desc) noexcept;
  /// create() with the three settings spelled out (pyopencl's order). Errc: as create().
  [[nodiscard]] static Result<Sampler> create(const Context& ctx, bool normalized_coords, AddressMode address,
                                              FilterMode filter) noexcept {
    return create(ctx, SamplerDesc{normalized_coords, address, filter});
  }

  /// An empty (released) sampler.
  Sampler() noexcept = default;
  Sampler(Sampler&& other) noexcept = default;  ///< takes over `other`, leaving it released (default SamplerDesc)
  Sampler& operator=(Sampler&& other) noexcept = default;  ///< releases this, then takes over `other`
  ~Sampler() = default;                                    ///< release()

  using Unique::valid;  ///< true until released or moved from
  /// Its settings (the default SamplerDesc when released).
  [[nodiscard]] SamplerDesc desc() const noexcept { return get().extra; }
  /// Native sampler (cl_sampler on OpenCL) for kernel arguments; empty when released.
  [[nodiscard]] NativeSampler native() const noexcept { return get().native; }
  /// Drops the sampler. Idempotent, never fails.
  Result<void> release() noexcept {
    reset();
    return {};
  }

 private:
  friend struct detail::HandleAccess;
};

}  // namespace edgemem
