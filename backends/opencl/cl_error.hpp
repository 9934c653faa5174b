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

/// The Error of CL_INVALID_OPERATION from a host transfer or map (clEnqueue{Read,Write}Buffer[Rect],
/// clEnqueueMapBuffer), where OpenCL returns it for exactly one cause: the buffer's host-access flags
/// forbid that access. Errc::access_denied, native CL_INVALID_OPERATION. (Elsewhere CL_INVALID_OPERATION
/// means other things and stays backend_failure.) The common layer checks the flags first, so this is
/// only a driver that knows more than edgemem does.
[[nodiscard]] Error host_access_error() noexcept;

/// check(status) for a host transfer or map: CL_INVALID_OPERATION gives host_access_error().
[[nodiscard]] inline Result<void> check_host_access(cl_int status) noexcept {
  if (status == CL_INVALID_OPERATION) return fail(host_access_error());
  return check(status);
}

/// Waits for `e` (not released). A failed command gives Errc::backend_failure with its negative
/// execution status as native; other failures map through to_error().
[[nodiscard]] Result<void> wait_event(cl_event e) noexcept;

}  // namespace edgemem::backend::cl
