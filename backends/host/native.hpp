/// @file native.hpp  The native handle types of the host backend, for interop (installed as
/// edgemem/native.hpp when edgemem is built with -Dmemory_backend=host). Every handle compares with
/// == and !=, on every backend, so code that compares native handles builds everywhere.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace edgemem {

/// Native context handle: identifies the emulated device.
struct NativeContext {
  const void* device = nullptr;  ///< address of the emulated device's static descriptor
  /// Same device.
  friend bool operator==(const NativeContext& a, const NativeContext& b) noexcept { return a.device == b.device; }
  /// Other device.
  friend bool operator!=(const NativeContext& a, const NativeContext& b) noexcept { return !(a == b); }
};

/// Native queue handle: the queue's completion counter (atomic: one queue may be used from several
/// threads at once, as an OpenCL queue may).
using NativeQueue = std::atomic<std::uint64_t>*;

/// Native memory handle: the object's first byte and whether it owns its allocation.
struct NativeMem {
  std::byte* data = nullptr;    ///< first byte of this object (root storage + origin for a sub-buffer)
  std::size_t owned_bytes = 0;  ///< bytes the object returns to the allocator on release (0: not owned)
  /// The same object: same first byte, same ownership.
  friend bool operator==(const NativeMem& a, const NativeMem& b) noexcept {
    return a.data == b.data && a.owned_bytes == b.owned_bytes;
  }
  /// Another object.
  friend bool operator!=(const NativeMem& a, const NativeMem& b) noexcept { return !(a == b); }
};

/// Native event handle: the command's sequence number on its queue (0: none).
using NativeEvent = std::uint64_t;

/// Native sampler handle: the sampler's settings, encoded (0: none).
using NativeSampler = std::uint32_t;

}  // namespace edgemem
