// edgemem-info's default output: aligned tables, one section per device.
#include <cstdint>
#include <string>

#include "report.hpp"

namespace info {

using namespace edgemem;

namespace {

/// Rows of cells printed with every column as wide as its widest cell.
class Table {
 public:
  /// `first_width`: the least width of the first column (so a device's key-value tables line up).
  explicit Table(std::FILE* out, std::size_t first_width = 0) : out_(out), first_width_(first_width) {}
  /// Columns from `c` on are right-aligned (numbers).
  Table& right_from(std::size_t c) {
    right_from_ = c;
    return *this;
  }
  Table& row(std::vector<std::string> cells) {
    rows_.push_back(std::move(cells));
    return *this;
  }
  void print(bool header) const {
    std::vector<std::size_t> width{first_width_};
    for (const auto& r : rows_)
      for (std::size_t c = 0; c < r.size(); ++c) {
        if (width.size() <= c) width.push_back(0);
        if (r[c].size() > width[c]) width[c] = r[c].size();
      }
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      std::string line = "  ";
      for (std::size_t c = 0; c < rows_[i].size(); ++c) {
        const std::string pad(width[c] - rows_[i][c].size(), ' ');
        if (c >= right_from_) line += pad + rows_[i][c];
        else line += rows_[i][c] + (c + 1 < rows_[i].size() ? pad : "");
        if (c + 1 < rows_[i].size()) line += "  ";
      }
      std::fprintf(out_, "%s\n", line.c_str());
      if (header && i == 0) {
        std::size_t total = 0;
        for (std::size_t c = 0; c < width.size(); ++c) total += width[c] + (c + 1 < width.size() ? 2 : 0);
        std::fprintf(out_, "  %s\n", std::string(total, '-').c_str());
      }
    }
  }

 private:
  std::FILE* out_;
  std::size_t first_width_;
  std::size_t right_from_ = SIZE_MAX;
  std::vector<std::vector<std::string>> rows_;
};

constexpr std::size_t kLabelWidth = 25;  // the longest key of the key-value tables

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string num(unsigned long long n) { return std::to_string(n); }

/// "4.0 GiB", "512 bytes".
std::string human(std::size_t n) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = -1;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  if (u < 0) return num(n) + " bytes";
  char text[32];
  std::snprintf(text, sizeof text, v == static_cast<double>(static_cast<std::size_t>(v)) ? "%.0f %s" : "%.1f %s", v,
                units[u]);
  return text;
}

/// "4294967296 bytes (4 GiB)".
std::string bytes(std::size_t n) { return n < 1024 ? num(n) + " bytes" : num(n) + " bytes (" + human(n) + ")"; }

std::string fixed(double v) {
  char text[32];
  std::snprintf(text, sizeof text, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  return text;
}

std::string error_text(const Error& e) {
  std::string s = to_string(e.code);
  if (e.message != nullptr && e.message[0] != '\0') s += std::string(": ") + e.message;
  if (e.native != 0) s += " (native " + std::to_string(e.native) + ")";
  return s;
}

void properties(std::FILE* out, const DeviceReport& r) {
  const DeviceInfo& i = r.info;
  Table t(out, kLabelWidth);
  t.row({"backend", i.backend});
  t.row({"name", i.name});
  t.row({"version", i.version});
  t.row({"driver", i.driver});
  t.row({"API version", num(i.version_major) + "." + num(i.version_minor)});
  t.row({"unified memory", yes_no(i.caps.unified_memory)});
  t.row({"caller memory in place", yes_no(i.caps.caller_memory_in_place)});
  t.row({"read-only caller memory in place", yes_no(i.caps.read_only_caller_memory_in_place)});
  t.row({"base address alignment", num(i.base_align_bytes) + " bytes (sub-buffer origins, pool blocks)"});
  t.row({"max allocation", bytes(i.max_alloc_bytes)});
  t.row({"global memory", bytes(i.global_mem_bytes)});
  t.print(false);
}

void capabilities(std::FILE* out, const DeviceReport& r) {
  const Capabilities& c = r.info.caps;
  const ImageLimits& l = r.info.image_limits;
  std::fprintf(out, "\n  Capabilities\n");
  Table t(out, kLabelWidth);
  t.row({"images", yes_no(c.images)});
  std::string ifb = yes_no(c.image_from_buffer);
  if (c.image_from_buffer)
    ifb += " (row pitch alignment " + num(l.pitch_align_pixels) + " pixels, base address alignment " +
           num(l.base_align_pixels) + " pixels)";
  t.row({"image from buffer", ifb});
  t.row({"image from sub-buffer", yes_no(c.image_from_sub_buffer)});
  t.row({"SVM coarse grain", yes_no(c.svm_coarse)});
  t.row({"SVM fine grain buffer", yes_no(c.svm_fine_buffer)});
  t.row({"SVM fine grain system", yes_no(c.svm_fine_system)});
  t.row({"SVM migration", yes_no(c.svm_migration)});
  std::string ext;
  for (const ExternalKind& k : external_kinds)
    if ((c.external_memory & k.bit) != 0) ext += (ext.empty() ? "" : ", ") + std::string(k.key);
  t.row({"external memory", ext.empty() ? "no" : ext});
  std::string fill;
  for (std::size_t n = 1; n != 0 && n <= c.max_fill_pattern_bytes; n *= 2) fill += (fill.empty() ? "" : " ") + num(n);
  t.row({"fill pattern sizes", fill.empty() ? "no" : fill + " bytes"});
  t.row({"migration", yes_no(c.migration)});
  t.row({"sub-buffer migration", yes_no(c.sub_buffer_migration)});
  t.row({"host access flags", yes_no(c.host_access_flags)});
  t.print(false);
  if (!c.images) return;
  std::fprintf(out, "\n  Image limits (pixels)\n");
  Table li(out, kLabelWidth);
  li.row({"1D/2D width x 2D height", num(l.max_width_2d) + " x " + num(l.max_height_2d)});
  li.row({"3D width x height x depth", num(l.max_width_3d) + " x " + num(l.max_height_3d) + " x " +
                                           num(l.max_depth_3d)});
  li.row({"array layers", num(l.max_array_size)});
  li.row({"1D-buffer width", num(l.max_buffer_pixels)});
  li.print(false);
}

void formats(std::FILE* out, const DeviceReport& r, const Options& opt) {
  if (!r.info.caps.images) return;
  std::fprintf(out, "\n  Image formats supported (count per image type and access%s)\n",
               opt.formats ? "" : "; --formats lists them");
  Table t(out);
  t.right_from(1);
  std::vector<std::string> head{"image type"};
  for (unsigned a = 0; a < format_access_count; ++a) head.push_back(name(static_cast<FormatAccess>(a)));
  t.row(head);
  for (unsigned ty = 0; ty < image_type_count; ++ty) {
    std::vector<std::string> row{name(static_cast<ImageType>(ty))};
    for (unsigned a = 0; a < format_access_count; ++a) row.push_back(num(r.formats[ty][a].size()));
    t.row(row);
  }
  t.print(true);
  if (!opt.formats) return;
  for (unsigned ty = 0; ty < image_type_count; ++ty)
    for (unsigned a = 0; a < format_access_count; ++a) {
      std::fprintf(out, "\n  %s, %s:", name(static_cast<ImageType>(ty)), name(static_cast<FormatAccess>(a)));
      unsigned col = 0;
      for (ImageFormat f : r.formats[ty][a]) {
        char text[48];
        format_name(f, text, sizeof text);
        std::fprintf(out, "%s%s", col % 4 == 0 ? "\n    " : "  ", text);
        ++col;
      }
      if (col == 0) std::fprintf(out, " none");
      std::fprintf(out, "\n");
    }
}

void profile(std::FILE* out, const DeviceReport& r) {
  if (!r.profiled) return;
  const Profile& p = r.profile;
  std::fprintf(out,
               "\n  Profile (took %.2f s; median (p50) and best of the timed runs, std::chrono::steady_clock;\n"
               "  buffer size %s, transfer size %s)\n",
               p.seconds, human(p.buffer_bytes).c_str(), human(p.transfer_bytes).c_str());
  Table t(out);
  t.right_from(1);
  t.row({"measure", "p50", "best", "runs"});
  for (const Measure& m : p.measures) {
    if (m.ok) t.row({m.label, fixed(m.value) + " " + m.unit, fixed(m.best) + " " + m.unit, num(m.runs)});
    else t.row({m.label, "n/a", "n/a", num(m.runs)});
  }
  t.print(true);
  std::fprintf(out, "\n");
  for (const Measure& m : p.measures)
    std::fprintf(out, "  %s: %s\n", m.label, m.ok ? m.what : ("failed: " + error_text(m.error)).c_str());
}

}  // namespace

void write_text(std::FILE* out, const Survey& survey, const Options& opt) {
  unsigned opened = 0;
  for (const DeviceReport& r : survey.devices) opened += r.opened ? 1 : 0;
  std::fprintf(out, "edgemem-info %s: backend %s, allocator %s; %u device%s opened\n", EDGEMEM_VERSION,
               EDGEMEM_BACKEND_NAME, EDGEMEM_ALLOCATOR_NAME, opened, opened == 1 ? "" : "s");
  if (opened == 0) std::fprintf(out, "no device: %s\n", error_text(survey.none_reason).c_str());
  if (opened > 1) {  // an overview first; the sections follow
    std::fprintf(out, "\n");
    Table t(out);
    t.row({"device", "name", "global memory", "max allocation", "base align", "unified memory"});
    for (const DeviceReport& r : survey.devices)
      if (r.opened)
        t.row({num(static_cast<unsigned>(r.platform)) + ":" + num(static_cast<unsigned>(r.device)), r.info.name,
               human(r.info.global_mem_bytes), human(r.info.max_alloc_bytes), num(r.info.base_align_bytes) + " bytes",
               yes_no(r.info.caps.unified_memory)});
    t.print(true);
  }
  for (const DeviceReport& r : survey.devices) {
    if (!r.opened) {
      std::fprintf(out, "\nDevice %d:%d  could not be opened: %s\n", r.platform, r.device, error_text(r.error).c_str());
      continue;
    }
    std::fprintf(out, "\nDevice %d:%d  %s (EDGEMEM_DEVICE=%d:%d selects it)\n", r.platform, r.device, r.info.name,
                 r.platform, r.device);
    properties(out, r);
    capabilities(out, r);
    formats(out, r, opt);
    profile(out, r);
  }
}

}  // namespace info
