/// @file backends/host/backend.hpp  The host backend: the backend contract
/// (src/contract/backend_contract.hpp documents every operation) over plain host memory. Private: not
/// installed. Dependency-free.
///
/// What is particular to the host:
/// - memory objects are aligned allocations of the allocator policy (host_base_align, at most
///   host_max_alloc_bytes, both Meson options); a sub-object is the root's bytes at its origin;
/// - every command runs to completion at enqueue, in order (completes_at_enqueue); an event is the
///   command's sequence number on its queue, so waits never block and never fail;
/// - map returns the memory itself (zero-copy), unmap does nothing but count;
/// - SVM is allocator-policy memory behind a small header (host_svm.cpp); under AddressSanitizer, coarse
///   SVM is poisoned outside maps so host stores that a coarse-only GPU would lose fail the test;
/// - there is nothing to adopt: context_adopt, queue_adopt and mem_adopt answer unsupported (null
///   handles: invalid_argument);
/// - the capabilities it reports are configurable with EDGEMEM_HOST_CAPS in builds with
///   -Dhost_caps_env=true (host_device.cpp), so tests
///   run both the "has" and the "lacks" path of each capability.
#pragma once
#include "contract/backend_contract.hpp"

namespace edgemem::backend {

/// The host backend.
struct Host : contract::BackendTypes {
  static constexpr const char* name = "host";  ///< DeviceInfo::backend
  static constexpr unsigned groups = contract::group_device | contract::group_buffer | contract::group_image |
                                    contract::group_svm;  ///< contract groups
  /// Every command has completed when its enqueue returns.
  static constexpr bool completes_at_enqueue = true;
  static constexpr bool unmap_waits = false;  ///< commands complete at enqueue

  EDGEMEM_BACKEND_OPERATIONS(EDGEMEM_DECLARE_OPERATION)
};

/// True unless EDGEMEM_HOST_CAPS says rg=0 (host_caps_env builds): the host device lists R and RG
/// image formats (host_device.cpp).
bool host_rg_formats() noexcept;

/// The backend this folder builds (src/contract/active.hpp).
using Selected = Host;

}  // namespace edgemem::backend
