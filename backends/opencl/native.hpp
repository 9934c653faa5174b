/// @file native.hpp  The native handle types of the OpenCL backend, for interop (installed as
/// edgemem/native.hpp when edgemem is built with -Dmemory_backend=opencl): the cl_* types, declared
/// here without CL/cl.h (a cl_mem is a `_cl_mem*`). Every handle compares with == and !=, on every
/// backend, so code that compares native handles builds everywhere.
#pragma once
#include <atomic>
#include <cstdint>

struct _cl_platform_id;
struct _cl_device_id;
struct _cl_context;
struct _cl_command_queue;
struct _cl_mem;
struct _cl_event;
struct _cl_sampler;

namespace edgemem {

/// Native context handles: a cl_context and the cl_device_id edgemem uses in it.
struct NativeContext {
  _cl_context* context = nullptr;  ///< cl_context
  _cl_device_id* device = nullptr; ///< cl_device_id
  /// Same context and device.
  friend bool operator==(const NativeContext& a, const NativeContext& b) noexcept {
    return a.context == b.context && a.device == b.device;
  }
  /// Other context or device.
  friend bool operator!=(const NativeContext& a, const NativeContext& b) noexcept { return !(a == b); }
};

/// Native queue handle: cl_command_queue (in order).
using NativeQueue = _cl_command_queue*;
/// Native memory handle: cl_mem (a buffer, sub-buffer or image).
using NativeMem = _cl_mem*;
/// An OpenCL event with edgemem's own reference count: the ordering table's entry and the caller's
/// Event share the one cl_event reference edgemem holds, so recording an async command costs no
/// clRetainEvent (issue #28). For interop, take `event` (retain it to keep it past the Event).
struct ClEvent {
  _cl_event* event = nullptr;          ///< cl_event of the command (edgemem holds one reference)
  std::atomic<std::uint32_t> refs{1};  ///< edgemem's references; the last releases `event`
  bool pooled = false;                 ///< kept for reuse when released (the record cache's)
};

/// Native event handle: a ClEvent (null: none).
using NativeEvent = ClEvent*;

/// Native sampler handle: cl_sampler.
using NativeSampler = _cl_sampler*;

}  // namespace edgemem
