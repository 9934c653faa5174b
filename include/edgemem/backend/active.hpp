/// @file backend/active.hpp  The backend policy selected by the Meson option `backend`.
#pragma once
#include <edgemem/config.hpp>

#if EDGEMEM_BACKEND_OPENCL
#include <edgemem/backend/opencl.hpp>
namespace edgemem::backend {
/// The backend edgemem was built with.
using Selected = OpenCL;
}  // namespace edgemem::backend
#else
#include <edgemem/backend/host.hpp>
namespace edgemem::backend {
/// The backend edgemem was built with.
using Selected = Host;
}  // namespace edgemem::backend
#endif

#if EDGEMEM_FAULT_INJECTION
#include <edgemem/backend/fault_injecting.hpp>
namespace edgemem::backend {
/// The backend the library calls: Selected behind fault points (Meson option fault_injection, tests only).
using Active = FaultInjecting<Selected>;
}  // namespace edgemem::backend
#else
namespace edgemem::backend {
/// The backend the library calls.
using Active = Selected;
}  // namespace edgemem::backend
#endif
