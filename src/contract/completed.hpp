/// @file contract/completed.hpp  Completed<Inner>: a backend with every group of the contract, for a
/// backend that declares only some of the optional ones (the CUDA backend has no image or SVM group).
/// The operations of Inner's groups are forwarded unchanged; those of a group it lacks answer
/// Errc::unsupported (releases do nothing). The common layer calls an optional group only when
/// DeviceInfo::caps says the device has it, so these answers are a second line, never the first; they
/// exist so the common layer's code compiles once for every backend. Private; used by active.hpp.
#pragma once
#include <type_traits>
#include <utility>

#include <edgemem/result.hpp>

#include "contract/backend_contract.hpp"

namespace edgemem::backend {

namespace detail_completed {
/// The answer of an operation of a group the backend lacks: unsupported, nothing for a release, no
/// address for mem_address.
template <class R>
struct Absent {
  static R answer(const char* what) noexcept { return fail(Errc::unsupported, what); }
};
template <>
struct Absent<void> {
  static void answer(const char*) noexcept {}
};
template <>
struct Absent<contract::MemAddress> {
  static contract::MemAddress answer(const char*) noexcept { return {}; }
};
}  // namespace detail_completed

/// Every contract group of a backend: Inner's own operations, `unsupported` for the others.
template <class Inner>
struct Completed : contract::BackendTypes {
  static constexpr const char* name = Inner::name;                          ///< Inner's
  static constexpr unsigned groups = Inner::groups;                         ///< Inner's (not widened)
  static constexpr bool completes_at_enqueue = Inner::completes_at_enqueue;  ///< Inner's
  static constexpr bool unmap_waits = Inner::unmap_waits;                    ///< Inner's

#define EDGEMEM_COMPLETE_OPERATION_(group, fn, fault, errc, ret, params)                                     \
  template <class... A>                                                                                     \
  static ret fn(A&&... a) noexcept {                                                                        \
    if constexpr ((Inner::groups & contract::group_##group) != 0) {                                         \
      return Inner::fn(std::forward<A>(a)...);                                                              \
    } else {                                                                                                \
      return detail_completed::Absent<ret>::answer("the " #group " operations are not in this backend (" #fn ")"); \
    }                                                                                                       \
  }
  EDGEMEM_BACKEND_OPERATIONS(EDGEMEM_COMPLETE_OPERATION_)
#undef EDGEMEM_COMPLETE_OPERATION_
};

/// Inner itself when it declares every group, else Completed<Inner>.
template <class Inner>
using CompletedIfNeeded =
    std::conditional_t<(Inner::groups & (contract::group_image | contract::group_svm | contract::group_external)) ==
                           (contract::group_image | contract::group_svm | contract::group_external),
                       Inner, Completed<Inner>>;

}  // namespace edgemem::backend
