// Translation of OpenCL status codes (cl_int) into edgemem errors.
#pragma once
#include <edgemem/result.hpp>

#include "cl.hpp"

namespace edgemem::backend::cl {

/// The Error for a failed OpenCL call: the mapped Errc, `status` as native, and a static message
/// naming the code. Unknown codes map to Errc::backend_failure.
[[nodiscard]] Error to_error(cl_int status) noexcept;

/// to_error(status) as a failed Result.
[[nodiscard]] inline Failure fail_cl(cl_int status) noexcept { return fail(to_error(status)); }

/// Success when `status` is CL_SUCCESS, else fail_cl(status).
[[nodiscard]] inline Result<void> check(cl_int status) noexcept {
  if (status == CL_SUCCESS) return {};
  return fail_cl(status);
}

/// Waits for `e` (not released). A failed command gives Errc::backend_failure with its negative
/// execution status as native; other failures map through to_error().
[[nodiscard]] Result<void> wait_event(cl_event e) noexcept;

}  // namespace edgemem::backend::cl
