/// @file result.hpp  Result<T> = expected<T, Error> and the propagation helpers.
/// Never call .value() on a Result: with exceptions off it is undefined behaviour on error.
#pragma once
#include <tl/expected.hpp>

#include <edgemem/error.hpp>

namespace edgemem {

/// Every fallible edgemem call returns a Result: a value or an Error.
template <class T>
using Result = tl::expected<T, Error>;

/// The failure side of a Result, returned by fail().
using Failure = tl::unexpected<Error>;

/// Builds a failed Result from an Errc, a static message and an optional native code.
[[nodiscard]] inline Failure fail(Errc code, const char* message, std::int32_t native = 0) noexcept {
  return Failure(Error{code, native, message});
}

/// Re-wraps an Error as a failure (for propagation across Result types).
[[nodiscard]] inline Failure fail(const Error& error) noexcept { return Failure(error); }

}  // namespace edgemem

#define EDGEMEM_CONCAT_INNER_(a, b) a##b
#define EDGEMEM_CONCAT_(a, b) EDGEMEM_CONCAT_INNER_(a, b)

/// Evaluates a Result expression and returns its error from the enclosing function if it failed.
#define EDGEMEM_TRY(expr)                                                        \
  do {                                                                           \
    auto&& edgemem_try_result_ = (expr);                                         \
    if (!edgemem_try_result_) return ::edgemem::fail(edgemem_try_result_.error()); \
  } while (false)

/// Declares `var` from a Result expression's value, or returns its error from the enclosing function.
#define EDGEMEM_TRY_ASSIGN(var, expr) \
  EDGEMEM_TRY_ASSIGN_IMPL_(EDGEMEM_CONCAT_(edgemem_try_, __LINE__), var, expr)
#define EDGEMEM_TRY_ASSIGN_IMPL_(tmp, var, expr)          \
  auto tmp = (expr);                                      \
  if (!tmp) return ::edgemem::fail(tmp.error());          \
  var = std::move(*tmp)
