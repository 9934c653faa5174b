/// @file backend/active.hpp  The backend policy selected by the Meson option `backend`.
#pragma once
#include <edgemem/config.hpp>

#if EDGEMEM_BACKEND_OPENCL
#include <edgemem/backend/opencl.hpp>
namespace edgemem::backend {
/// The backend edgemem was built with.
using Active = OpenCL;
}  // namespace edgemem::backend
#else
#include <edgemem/backend/host.hpp>
namespace edgemem::backend {
/// The backend edgemem was built with.
using Active = Host;
}  // namespace edgemem::backend
#endif
