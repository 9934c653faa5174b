/// @file backend/fault_injecting.hpp  FaultInjecting<Inner>: a backend policy that forwards every
/// primitive to `Inner` (the selected backend) and makes each fallible one a fault point of
/// edgemem/fault.hpp. backend/active.hpp selects it only with the Meson option `fault_injection`
/// (tests). The handle types are Inner's, so nothing else changes. Most injected failures happen
/// before the Inner call, so nothing native is created or changed. Four report a failure after the
/// real call has run, as a driver does: unmap (the guard is unmapped either way), event_wait,
/// event_complete and queue_finish (a failed command has ended, so host memory it used may go).
#pragma once
#include <utility>

#include <edgemem/config.hpp>
#include <edgemem/fault.hpp>
#include <edgemem/result.hpp>

#if EDGEMEM_FAULT_INJECTION
namespace edgemem::backend {

/// `Inner` with a fault point in front of every primitive that can fail (releases cannot).
template <class Inner>
struct FaultInjecting {
  using NativeContext = typename Inner::NativeContext;  ///< Inner's context handle
  using NativeQueue = typename Inner::NativeQueue;      ///< Inner's queue handle
  using NativeMem = typename Inner::NativeMem;          ///< Inner's memory handle
  using NativeEvent = typename Inner::NativeEvent;      ///< Inner's event handle
  using Sync = typename Inner::Sync;                    ///< Inner's wait list / out-event
  using MemDesc = typename Inner::MemDesc;              ///< Inner's mem_create description
  using AdoptedMem = typename Inner::AdoptedMem;        ///< Inner's mem_adopt description

  static constexpr const char* name = Inner::name;  ///< Inner's name ("host", "opencl")
  static constexpr bool completes_at_enqueue = Inner::completes_at_enqueue;  ///< Inner's

#define EDGEMEM_FAULT_POINT_(fn, errc)                                                        \
  template <class... A>                                                                       \
  [[nodiscard]] static auto fn(A&&... a) noexcept -> decltype(Inner::fn(std::forward<A>(a)...)) { \
    if (fault::hit(fault::Point::backend, #fn, errc)) return fail(errc, fault::message, fault::native_code); \
    return Inner::fn(std::forward<A>(a)...);                                                  \
  }
#define EDGEMEM_FAULT_AFTER_(fn, errc)                                                        \
  template <class... A>                                                                       \
  [[nodiscard]] static auto fn(A&&... a) noexcept -> decltype(Inner::fn(std::forward<A>(a)...)) { \
    auto done = Inner::fn(std::forward<A>(a)...);                                             \
    if (fault::hit(fault::Point::backend, #fn, errc)) return fail(errc, fault::message, fault::native_code); \
    return done;                                                                              \
  }
#define EDGEMEM_FAULT_PASS_(fn)                                                               \
  template <class... A>                                                                       \
  static void fn(A&&... a) noexcept {                                                         \
    Inner::fn(std::forward<A>(a)...);                                                         \
  }

  /// Inner::device_census; injected: out_of_host_memory.
  EDGEMEM_FAULT_POINT_(device_census, Errc::out_of_host_memory)
  /// Inner::context_create; injected: out_of_host_memory.
  EDGEMEM_FAULT_POINT_(context_create, Errc::out_of_host_memory)
  /// Inner::context_adopt; injected: out_of_host_memory.
  EDGEMEM_FAULT_POINT_(context_adopt, Errc::out_of_host_memory)
  /// Inner::context_release (never fails).
  EDGEMEM_FAULT_PASS_(context_release)
  /// Inner::queue_create; injected: out_of_host_memory.
  EDGEMEM_FAULT_POINT_(queue_create, Errc::out_of_host_memory)
  /// Inner::queue_adopt; injected: out_of_host_memory.
  EDGEMEM_FAULT_POINT_(queue_adopt, Errc::out_of_host_memory)
  /// Inner::queue_release (never fails).
  EDGEMEM_FAULT_PASS_(queue_release)
  /// Inner::queue_finish, then injected: backend_failure (a command failed).
  EDGEMEM_FAULT_AFTER_(queue_finish, Errc::backend_failure)
  /// Inner::mem_create; injected: out_of_device_memory.
  EDGEMEM_FAULT_POINT_(mem_create, Errc::out_of_device_memory)
  /// Inner::mem_sub; injected: out_of_host_memory.
  EDGEMEM_FAULT_POINT_(mem_sub, Errc::out_of_host_memory)
  /// Inner::mem_adopt; injected: out_of_host_memory.
  EDGEMEM_FAULT_POINT_(mem_adopt, Errc::out_of_host_memory)
  /// Inner::mem_release (never fails).
  EDGEMEM_FAULT_PASS_(mem_release)
  /// Inner::write; injected: out_of_device_memory (CL_OUT_OF_RESOURCES).
  EDGEMEM_FAULT_POINT_(write, Errc::out_of_device_memory)
  /// Inner::read; injected: out_of_device_memory (CL_OUT_OF_RESOURCES).
  EDGEMEM_FAULT_POINT_(read, Errc::out_of_device_memory)
  /// Inner::fill; injected: out_of_device_memory (CL_OUT_OF_RESOURCES).
  EDGEMEM_FAULT_POINT_(fill, Errc::out_of_device_memory)
  /// Inner::copy; injected: out_of_device_memory (CL_OUT_OF_RESOURCES).
  EDGEMEM_FAULT_POINT_(copy, Errc::out_of_device_memory)
  /// Inner::write_rect; injected: out_of_device_memory (CL_OUT_OF_RESOURCES).
  EDGEMEM_FAULT_POINT_(write_rect, Errc::out_of_device_memory)
  /// Inner::read_rect; injected: out_of_device_memory (CL_OUT_OF_RESOURCES).
  EDGEMEM_FAULT_POINT_(read_rect, Errc::out_of_device_memory)
  /// Inner::copy_rect; injected: out_of_device_memory (CL_OUT_OF_RESOURCES).
  EDGEMEM_FAULT_POINT_(copy_rect, Errc::out_of_device_memory)
  /// Inner::migrate; injected: out_of_device_memory (CL_MEM_OBJECT_ALLOCATION_FAILURE).
  EDGEMEM_FAULT_POINT_(migrate, Errc::out_of_device_memory)
  /// Inner::map; injected: backend_failure (CL_MAP_FAILURE).
  EDGEMEM_FAULT_POINT_(map, Errc::backend_failure)
  /// Inner::event_wait, then injected: backend_failure (the command failed).
  EDGEMEM_FAULT_AFTER_(event_wait, Errc::backend_failure)
  /// Inner::event_complete, then injected: backend_failure (the command failed).
  EDGEMEM_FAULT_AFTER_(event_complete, Errc::backend_failure)
  /// Inner::unmap, then injected: backend_failure (the real unmap has happened).
  EDGEMEM_FAULT_AFTER_(unmap, Errc::backend_failure)
  /// Inner::marker; injected: out_of_host_memory (CL_OUT_OF_HOST_MEMORY).
  EDGEMEM_FAULT_POINT_(marker, Errc::out_of_host_memory)
  /// Inner::event_retain (never fails).
  EDGEMEM_FAULT_PASS_(event_retain)
  /// Inner::event_release (never fails).
  EDGEMEM_FAULT_PASS_(event_release)

#undef EDGEMEM_FAULT_POINT_
#undef EDGEMEM_FAULT_AFTER_
#undef EDGEMEM_FAULT_PASS_
};

}  // namespace edgemem::backend
#endif
