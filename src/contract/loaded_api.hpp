// Helpers for a backend whose driver is opened at run time (CUDA's libcuda.so.1, Vulkan's
// libvulkan.so.1): the entry points loaded once per process with the reason when they could not be,
// and a driver status translated to an Errc by a table.
#pragma once
#include <cstddef>

#include <edgemem/result.hpp>

namespace edgemem::contract {

/// An API's entry points as loaded once: `api` when `ok`, else `error` says why (Errc::unsupported).
template <class Api>
struct LoadedApi {
  Api api{};                             ///< the entry points
  Error error{Errc::unsupported, 0, ""};  ///< why loading failed
  bool ok = false;                       ///< all found
};

/// The entry points `load_once()` (returning a LoadedApi<Api>) loaded, loaded on the first call of any
/// thread and kept for the process.
template <class Api, LoadedApi<Api> (*load_once)() noexcept>
const LoadedApi<Api>& loaded() noexcept {
  static const LoadedApi<Api> l = load_once();
  return l;
}

/// `l`'s entry points, or its error.
template <class Api>
Result<const Api*> api_or_error(const LoadedApi<Api>& l) noexcept {
  if (!l.ok) return fail(l.error);
  return &l.api;
}

/// One row of a status -> Errc table.
template <class Status>
struct ErrcOf {
  Status status;  ///< the driver's status
  Errc code;      ///< what edgemem reports
};

/// The Errc `status` maps to in `table`, else backend_failure.
template <class Status, std::size_t N>
constexpr Errc errc_of(Status status, const ErrcOf<Status> (&table)[N]) noexcept {
  for (const ErrcOf<Status>& m : table)
    if (m.status == status) return m.code;
  return Errc::backend_failure;
}

}  // namespace edgemem::contract
