/// @file span.hpp  A minimal C++17 span (pointer + element count), used for wait lists and mappings.
#pragma once
#include <cstddef>
#include <type_traits>

namespace edgemem {

/// A non-owning view of `size()` contiguous elements of T.
template <class T>
class Span {
 public:
  /// An empty span.
  constexpr Span() noexcept = default;
  /// A view of `count` elements starting at `data`.
  constexpr Span(T* data, std::size_t count) noexcept : data_(data), size_(count) {}
  /// A view of a C array.
  template <std::size_t N>
  constexpr Span(T (&array)[N]) noexcept : data_(array), size_(N) {}  // NOLINT(google-explicit-constructor)
  /// A view of a single element.
  constexpr Span(T& one) noexcept : data_(&one), size_(1) {}  // NOLINT(google-explicit-constructor)
  /// A view of a contiguous container (anything with data() and size()).
  template <class C, class = std::enable_if_t<std::is_convertible_v<decltype(std::declval<C&>().data()), T*>>>
  constexpr Span(C& container) noexcept  // NOLINT(google-explicit-constructor)
      : data_(container.data()), size_(container.size()) {}

  /// First element, or null when empty.
  [[nodiscard]] constexpr T* data() const noexcept { return data_; }
  /// Number of elements.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  /// Size in bytes.
  [[nodiscard]] constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  /// True when there are no elements.
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  /// Element i; i must be < size().
  constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }
  /// Iterator to the first element.
  constexpr T* begin() const noexcept { return data_; }
  /// Iterator past the last element.
  constexpr T* end() const noexcept { return data_ + size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace edgemem
