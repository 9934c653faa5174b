/// @file contract/active.hpp  The backend the library calls: the one Meson built
/// (backends/<memory_backend>/backend.hpp, found through the include path), checked against the
/// contract, completed with `unsupported` answers for the optional groups it lacks (completed.hpp), behind fault points when the Meson option fault_injection is on (tests only).
#pragma once
#include <edgemem/config.hpp>

#include "backend.hpp"
#include "contract/backend_contract.hpp"
#include "contract/completed.hpp"

static_assert(edgemem::contract::CheckBackend<edgemem::backend::Selected>::ok,
              "the selected backend does not meet the contract");

#if EDGEMEM_FAULT_INJECTION
#include "contract/fault_injecting.hpp"
namespace edgemem::detail {
/// The backend the library calls: backend::Selected (its missing optional groups answering
/// unsupported) behind fault points. The one name the common layer uses for it.
using Backend = backend::FaultInjecting<backend::CompletedIfNeeded<backend::Selected>>;
}  // namespace edgemem::detail
#else
namespace edgemem::detail {
/// The backend the library calls: backend::Selected, its missing optional groups answering
/// unsupported. The one name the common layer uses for it.
using Backend = backend::CompletedIfNeeded<backend::Selected>;
}  // namespace edgemem::detail
#endif
