// edgemem-info: the JSON writer (json_writer.hpp).
#include "json_writer.hpp"

#include <cinttypes>
#include <cmath>

namespace info {

void JsonWriter::newline() noexcept {
  std::fputc('\n', out_);
  for (unsigned i = 0; i < depth_; ++i) std::fputs("  ", out_);
}

void JsonWriter::before_value() noexcept {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ > 0 && depth_ <= kMaxDepth) {
    if (has_items_[depth_ - 1]) std::fputs(compact_[depth_ - 1] ? ", " : ",", out_);
    if (!compact_[depth_ - 1]) newline();
    has_items_[depth_ - 1] = true;
  }
}

void JsonWriter::open(char c) noexcept {
  before_value();
  std::fputc(c, out_);
  if (depth_ < kMaxDepth) has_items_[depth_] = compact_[depth_] = false;
  ++depth_;
}

void JsonWriter::close(char c) noexcept {
  const bool items = depth_ > 0 && depth_ <= kMaxDepth && has_items_[depth_ - 1] && !compact_[depth_ - 1];
  if (depth_ > 0) --depth_;
  if (items) newline();
  std::fputc(c, out_);
}

void JsonWriter::key(const char* k) noexcept {
  before_value();
  string(k);
  std::fputs(": ", out_);
  after_key_ = true;
}

void JsonWriter::value(const char* s) noexcept {
  if (s == nullptr) return null();
  before_value();
  string(s);
}

void JsonWriter::value(bool b) noexcept {
  before_value();
  std::fputs(b ? "true" : "false", out_);
}

void JsonWriter::unsigned_number(std::uint64_t n) noexcept {
  before_value();
  std::fprintf(out_, "%" PRIu64, n);
}

void JsonWriter::signed_number(std::int64_t n) noexcept {
  before_value();
  std::fprintf(out_, "%" PRId64, n);
}

void JsonWriter::value(double d) noexcept {
  if (!std::isfinite(d)) return null();
  before_value();
  std::fprintf(out_, "%.6g", d);
}

void JsonWriter::null() noexcept {
  before_value();
  std::fputs("null", out_);
}

namespace {
/// Length of the valid UTF-8 sequence at `p` (1..4), or 0 when the bytes there are not one.
unsigned utf8_length(const unsigned char* p) noexcept {
  const unsigned char c = p[0];
  unsigned n = 0;
  std::uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
  else return 0;
  for (unsigned i = 1; i < n; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;  // also stops at the terminating NUL
    cp = cp << 6 | (p[i] & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}
}  // namespace

void JsonWriter::string(const char* s) noexcept {
  std::fputc('"', out_);
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  while (*p != 0) {
    const unsigned char c = *p;
    if (c == '"' || c == '\\') {
      std::fputc('\\', out_);
      std::fputc(c, out_);
    } else if (c == '\n') {
      std::fputs("\\n", out_);
    } else if (c == '\t') {
      std::fputs("\\t", out_);
    } else if (c == '\r') {
      std::fputs("\\r", out_);
    } else if (c < 0x20 || c == 0x7F) {
      std::fprintf(out_, "\\u%04x", c);
    } else if (c >= 0x80) {
      const unsigned n = utf8_length(p);
      if (n == 0) {
        std::fputs("\\ufffd", out_);
      } else {
        std::fwrite(p, 1, n, out_);
        p += n;
        continue;
      }
    } else {
      std::fputc(c, out_);
    }
    ++p;
  }
  std::fputc('"', out_);
}

}  // namespace info
