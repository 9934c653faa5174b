/// @file context.hpp  Context: one device and its OpenCL-style context. Move-only; buffers and
/// queues created from it keep its state alive, so releasing the handle first is safe.
#pragma once
#include <cstddef>

#include <edgemem/flags.hpp>
#include <edgemem/handle.hpp>
#include <edgemem/native.hpp>
#include <edgemem/device.hpp>
#include <edgemem/error.hpp>
#include <edgemem/image_format.hpp>
#include <edgemem/result.hpp>

namespace edgemem {


/// Errors that a destructor could not return (a Mapping guard whose unmap failed): how many happened
/// on one context so far, and the last of them. A test or a watchdog reads it; nothing is lost silently.
struct UnreportedErrors {
  std::size_t count = 0;  ///< errors dropped by destructors since the context was created
  Error last{};           ///< the most recent one (code 0 when count is 0)
};

/// A device and its context.
class Context : public detail::Handle<detail::ContextNode> {
 public:
  /// Opens the device picked by `selector` (EDGEMEM_DEVICE=<platform>:<device> overrides its indices)
  /// by the selection rule documented at DeviceSelector, the same on every backend.
  /// Errc: invalid_argument (unknown DeviceType, index below -1, malformed EDGEMEM_DEVICE; or, a device
  /// of that type existing, a platform or device index that names none), unsupported (no device of
  /// that type on any platform, whatever the indices), out_of_host_memory, backend_failure.
  [[nodiscard]] static Result<Context> create(const DeviceSelector& selector = {}) noexcept;
  /// The devices of `type` on each platform as the selection rule counts them (EDGEMEM_DEVICE plays
  /// no part): every platform p < platforms and device d < devices[p] names a device for create()
  /// (which may still fail to open it). No platform installed: platforms 0. Errc: invalid_argument
  /// (unknown DeviceType), out_of_host_memory, backend_failure.
  [[nodiscard]] static Result<DeviceCensus> census(DeviceType type = DeviceType::any) noexcept;
  /// Interop: wraps a context made elsewhere (cl_context + one of its cl_device_ids on OpenCL).
  /// AdoptMode::retain takes a reference of its own (the caller keeps and releases its own); borrow
  /// takes none (the caller keeps it alive while edgemem objects on it live). Errc: invalid_argument
  /// (null handle, device not in the context, unknown mode), unsupported (host backend),
  /// out_of_host_memory, backend_failure.
  [[nodiscard]] static Result<Context> adopt(const NativeContext& native, AdoptMode mode = AdoptMode::retain) noexcept;

  /// An empty (released) context; every call on it returns Errc::released.
  Context() noexcept = default;
  Context(Context&& other) noexcept = default;             ///< takes over `other`, leaving it released
  Context& operator=(Context&& other) noexcept = default;  ///< releases this, then takes over `other`
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context() = default;  ///< release()

  /// Device properties (an all-zero DeviceInfo when released).
  [[nodiscard]] const DeviceInfo& info() const noexcept;
  /// The formats the device supports for images of `type` used with `access` (pyopencl's
  /// get_supported_image_formats), gathered once at context creation: no driver call, no allocation.
  /// Empty when released, when the device has no images, or for unknown enum values.
  [[nodiscard]] FormatSet supported_formats(ImageType type, FormatAccess access) const noexcept;
  /// Sub-buffer origin alignment in bytes (info().base_align_bytes); 0 when released.
  [[nodiscard]] std::size_t base_align() const noexcept;
  /// Native handles (cl_context + cl_device_id on OpenCL) for interop; empty when released.
  [[nodiscard]] NativeContext native() const noexcept;
  /// Errors destructors of objects on this context had to drop (count and the last one); zero when released.
  [[nodiscard]] UnreportedErrors unreported_errors() const noexcept;
  /// Drops this handle; the device stays open while objects created from it live. Idempotent, never fails.
  Result<void> release() noexcept;

 private:
  friend struct detail::HandleAccess;
  explicit Context(detail::ContextNode* node) noexcept : Handle(node) {}
};

}  // namespace edgemem
