/// @file result.hpp  Result<T> = expected<T, Error> and the propagation helpers.
/// The expected implementation is a build option (config.hpp): tl::expected (-Dexpected=tl, C++17) or
/// std::expected (-Dexpected=std, a C++23 standard library). Code that must build with both uses only
/// what both offer: operator bool, has_value(), operator*, operator->, error(), value_or(), fail() and
/// the EDGEMEM_TRY macros; not .map()/.and_then() (libstdc++ 12 lacks them), not Failure::value().
/// Never call .value() on a Result: with exceptions off it is undefined behaviour (tl) or an abort
/// (std) on error.
#pragma once
#include <edgemem/config.hpp>
#include <edgemem/error.hpp>

#if EDGEMEM_EXPECTED_STD
#include <version>
#if !defined(__cpp_lib_expected) || __cpp_lib_expected < 202202L
#error "edgemem was configured with -Dexpected=std: compile with a C++23 standard library that has <expected>"
#endif
#include <expected>
#else
#include <tl/expected.hpp>
#endif

namespace edgemem {

#if EDGEMEM_EXPECTED_STD
/// Every fallible edgemem call returns a Result: a value or an Error.
template <class T>
using Result = std::expected<T, Error>;

/// The failure side of a Result, returned by fail().
using Failure = std::unexpected<Error>;
#else
/// Every fallible edgemem call returns a Result: a value or an Error.
template <class T>
using Result = tl::expected<T, Error>;

/// The failure side of a Result, returned by fail().
using Failure = tl::unexpected<Error>;
#endif

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
