// edgemem-info: a small streaming JSON writer (no dependency). Commas and indentation are tracked
// per nesting level; strings are escaped per RFC 8259 and bytes that are not valid UTF-8 (a driver's
// name may hold any) become U+FFFD, so the document always parses.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>

namespace info {

class JsonWriter {
 public:
  explicit JsonWriter(std::FILE* out) noexcept : out_(out) {}
  void begin_object() noexcept { open('{'); }
  void end_object() noexcept { close('}'); }
  /// An array; `compact`: its items on one line (for arrays of numbers or short strings).
  void begin_array(bool compact = false) noexcept {
    open('[');
    if (depth_ <= kMaxDepth) compact_[depth_ - 1] = compact;
  }
  void end_array() noexcept { close(']'); }
  /// The key of the next value in the current object.
  void key(const char* k) noexcept;
  void value(const char* s) noexcept;  ///< a string (null: JSON null)
  void value(bool b) noexcept;
  /// An integer of any width.
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  void value(T n) noexcept {
    if constexpr (std::is_signed_v<T>) signed_number(static_cast<std::int64_t>(n));
    else unsigned_number(static_cast<std::uint64_t>(n));
  }
  void value(double d) noexcept;  ///< a finite number (non-finite: null)
  void null() noexcept;
  /// Ends the document with a newline.
  void finish() noexcept { std::fputc('\n', out_); }

  template <class T>
  void field(const char* k, T v) noexcept {
    key(k);
    value(v);
  }

 private:
  void signed_number(std::int64_t n) noexcept;
  void unsigned_number(std::uint64_t n) noexcept;
  void open(char c) noexcept;
  void close(char c) noexcept;
  void before_value() noexcept;
  void newline() noexcept;
  void string(const char* s) noexcept;

  static constexpr unsigned kMaxDepth = 32;
  std::FILE* out_;
  unsigned depth_ = 0;
  bool has_items_[kMaxDepth] = {};
  bool compact_[kMaxDepth] = {};
  bool after_key_ = false;
};

}  // namespace info
