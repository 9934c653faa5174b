/// @file result.hpp  Result<T> = expected<T, Error> and the propagation helpers.
/// The expected implementation is a build option (config.hpp): tl::expected (-Dexpected=tl, C++17; a
/// thin class over it, see Result below) or std::expected (-Dexpected=std, a C++23 standard library,
/// an alias). Either way a Result of a move-only handle can be re-assigned (`r = Buffer::create(...)`
/// in a retry loop). Code that must build with both uses only
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
#include <type_traits>
#include <utility>

namespace edgemem {

#if EDGEMEM_EXPECTED_STD
/// Every fallible edgemem call returns a Result: a value or an Error.
template <class T>
using Result = std::expected<T, Error>;

/// The failure side of a Result, returned by fail().
using Failure = std::unexpected<Error>;
#else
/// The failure side of a Result, returned by fail().
using Failure = tl::unexpected<Error>;

namespace detail {
template <class U>
struct is_tl_unexpected : std::false_type {};
template <class G>
struct is_tl_unexpected<tl::unexpected<G>> : std::true_type {};
/// Whether Result<T>'s move assignment is noexcept (as std::expected's).
template <class T>
inline constexpr bool result_nothrow_move_v =
    std::is_void_v<T> || (std::is_nothrow_move_assignable_v<T> && std::is_nothrow_move_constructible_v<T>);
}  // namespace detail

/// Every fallible edgemem call returns a Result: a value or an Error. A tl::expected<T, Error> (it
/// converts to and from one and has all of its members) whose assignments work for every T edgemem
/// returns, with exceptions on or off. Why a class and not an alias: tl-expected 1.0.0 (Debian 12's
/// libexpected-dev), compiled without exceptions, move-assigns an expected through
/// `assign(expected_operations_base&& rhs)`, which hands `rhs` on as an lvalue (`assign_common(rhs)`),
/// so when both sides hold a value it copy-assigns T: `r = Buffer::create(ctx, 128);` does not compile
/// for any move-only T, noexcept moves or not. Result's assignments use T's move assignment or move
/// constructor instead, with std::expected's meaning.
template <class T>
class Result : public tl::expected<T, Error> {
  using Base = tl::expected<T, Error>;

 public:
  using Base::Base;
  /// A Result holding a value-initialised T (as tl::expected's default constructor).
  Result() = default;
  /// From a tl::expected of the same types (what and_then() and map() return).
  Result(const Base& other) : Base(other) {}
  /// From a tl::expected of the same types, moved.
  Result(Base&& other) : Base(std::move(other)) {}
  Result(const Result&) = default;             ///< copies the value or the Error (copyable T only)
  Result(Result&&) = default;                  ///< moves the value or the Error
  Result& operator=(const Result&) = default;  ///< copies the value or the Error (copyable T only)

  /// Takes over `other`'s value (T's move assignment when both hold one, else its move constructor)
  /// or its Error; `other` keeps a moved-from value or its Error.
  Result& operator=(Result&& other) noexcept(detail::result_nothrow_move_v<T>) {
    if (this == &other) return *this;
    if constexpr (std::is_void_v<T>) {
      Base::operator=(static_cast<Base&&>(other));  // tl's void specialisation moves correctly
    } else if (!other.has_value()) {
      Base::operator=(Failure(std::move(other.error())));
    } else if (this->has_value()) {
      **this = std::move(*other);
    } else {
      this->emplace(std::move(*other));
    }
    return *this;
  }
  /// Holds `value` from now on (assigned to the value held, else constructed in place of the Error).
  template <class U = T,
            class = std::enable_if_t<!std::is_base_of_v<Base, std::decay_t<U>> &&
                                     !detail::is_tl_unexpected<std::decay_t<U>>::value &&
                                     std::is_constructible_v<T, U> &&
                                     std::is_assignable_v<std::add_lvalue_reference_t<T>, U>>>
  Result& operator=(U&& value) {
    if (this->has_value()) **this = std::forward<U>(value);
    else this->emplace(std::forward<U>(value));
    return *this;
  }
  /// Holds the Error of `failure` from now on.
  template <class G>
  Result& operator=(const tl::unexpected<G>& failure) {
    Base::operator=(failure);
    return *this;
  }
  /// Holds the Error of `failure` from now on.
  template <class G>
  Result& operator=(tl::unexpected<G>&& failure) {
    Base::operator=(std::move(failure));
    return *this;
  }
};
#endif

// Error paths are cold: branches to fail() and out of EDGEMEM_TRY are laid out away from the
// common path (GCC and Clang), which keeps each call's hot code in fewer cache lines.
#if defined(__GNUC__) || defined(__clang__)
#define EDGEMEM_COLD_ __attribute__((cold))
#define EDGEMEM_UNLIKELY_(x) __builtin_expect(static_cast<bool>(x), 0)
#else
#define EDGEMEM_COLD_
#define EDGEMEM_UNLIKELY_(x) (x)
#endif

/// Builds a failed Result from an Errc, a static message and an optional native code.
[[nodiscard]] EDGEMEM_COLD_ inline Failure fail(Errc code, const char* message, std::int32_t native = 0) noexcept {
  return Failure(Error{code, native, message});
}

/// Re-wraps an Error as a failure (for propagation across Result types).
[[nodiscard]] EDGEMEM_COLD_ inline Failure fail(const Error& error) noexcept { return Failure(error); }

}  // namespace edgemem

#define EDGEMEM_CONCAT_INNER_(a, b) a##b
#define EDGEMEM_CONCAT_(a, b) EDGEMEM_CONCAT_INNER_(a, b)

/// Evaluates a Result expression and returns its error from the enclosing function if it failed.
#define EDGEMEM_TRY(expr)                                                        \
  do {                                                                           \
    auto&& edgemem_try_result_ = (expr);                                         \
    if (EDGEMEM_UNLIKELY_(!edgemem_try_result_)) return ::edgemem::fail(edgemem_try_result_.error()); \
  } while (false)

/// Declares `var` from a Result expression's value, or returns its error from the enclosing function.
#define EDGEMEM_TRY_ASSIGN(var, expr) \
  EDGEMEM_TRY_ASSIGN_IMPL_(EDGEMEM_CONCAT_(edgemem_try_, __LINE__), var, expr)
#define EDGEMEM_TRY_ASSIGN_IMPL_(tmp, var, expr)          \
  auto tmp = (expr);                                      \
  if (EDGEMEM_UNLIKELY_(!tmp)) return ::edgemem::fail(tmp.error()); \
  var = std::move(*tmp)
