/// @file contract/fault_injecting.hpp  FaultInjecting<Inner>: the backend contract's operations
/// forwarded to `Inner` (the selected backend), each fallible one made a fault point of
/// edgemem/fault.hpp. Generated from the operation lists of backend_contract.hpp, whose `fault` column
/// says where the fault goes: before the call (nothing native is created or changed) or after it
/// (the call has run and a failure is reported, as a driver reports a failed command: unmap, whose
/// guard is unmapped either way, event_wait, event_complete and queue_finish). Private; selected by
/// active.hpp only with the Meson option fault_injection (tests).
#pragma once
#include <utility>

#include <edgemem/config.hpp>
#include <edgemem/fault.hpp>
#include <edgemem/result.hpp>

#include "contract/backend_contract.hpp"

#if EDGEMEM_FAULT_INJECTION
namespace edgemem::backend {

/// `Inner` with a fault point in front of (or after) every operation that can fail.
template <class Inner>
struct FaultInjecting : contract::BackendTypes {
  static constexpr const char* name = Inner::name;                          ///< Inner's
  static constexpr unsigned groups = Inner::groups;                         ///< Inner's
  static constexpr bool completes_at_enqueue = Inner::completes_at_enqueue;  ///< Inner's
  static constexpr bool unmap_waits = Inner::unmap_waits;                    ///< Inner's

#define EDGEMEM_FAULT_before_(fn, errc)                                                                       \
  template <class... A>                                                                                       \
  [[nodiscard]] static auto fn(A&&... a) noexcept -> decltype(Inner::fn(std::forward<A>(a)...)) {             \
    if (fault::hit(fault::Point::backend, #fn, errc)) return fail(errc, fault::message, fault::native_code); \
    return Inner::fn(std::forward<A>(a)...);                                                                  \
  }
#define EDGEMEM_FAULT_after_(fn, errc)                                                                        \
  template <class... A>                                                                                       \
  [[nodiscard]] static auto fn(A&&... a) noexcept -> decltype(Inner::fn(std::forward<A>(a)...)) {             \
    auto done = Inner::fn(std::forward<A>(a)...);                                                             \
    if (fault::hit(fault::Point::backend, #fn, errc)) return fail(errc, fault::message, fault::native_code); \
    return done;                                                                                              \
  }
#define EDGEMEM_FAULT_never_(fn, errc)                                                          \
  template <class... A>                                                                         \
  static auto fn(A&&... a) noexcept -> decltype(Inner::fn(std::forward<A>(a)...)) {             \
    return Inner::fn(std::forward<A>(a)...);                                                    \
  }
#define EDGEMEM_FAULT_OPERATION_(group, name, fault, errc, ret, params) EDGEMEM_FAULT_##fault##_(name, Errc::errc)
  EDGEMEM_BACKEND_OPERATIONS(EDGEMEM_FAULT_OPERATION_)
#undef EDGEMEM_FAULT_OPERATION_
#undef EDGEMEM_FAULT_before_
#undef EDGEMEM_FAULT_after_
#undef EDGEMEM_FAULT_never_
};

}  // namespace edgemem::backend
#endif
