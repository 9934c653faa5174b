// edgemem-info: what one device is and can do (gathered through the public API only), and what the
// quick profile measured on it. Shared by the gathering, profiling and the two report writers.
#pragma once
#include <cstddef>
#include <cstdio>
#include <vector>

#include <edgemem/edgemem.hpp>

namespace info {

/// One measured number of the profile: the median of `runs` runs, or why there is none.
struct Measure {
  const char* key = "";       ///< stable JSON key, e.g. "buffer_create_release"
  const char* label = "";     ///< table label
  const char* unit = "";      ///< "us", "ns" or "MiB/s"
  const char* what = "";      ///< one line saying what was timed
  bool ok = false;            ///< value is meaningful
  double value = 0;           ///< p50 in `unit`
  double best = 0;            ///< best run in `unit` (lowest time, highest bandwidth)
  unsigned runs = 0;          ///< runs timed
  edgemem::Error error{};     ///< why not ok
};

/// The quick profile of one device.
struct Profile {
  std::size_t buffer_bytes = 0;    ///< buffer size of the create/map measures, bytes
  std::size_t transfer_bytes = 0;  ///< bytes per bandwidth run
  std::size_t pool_block_bytes = 0;
  std::size_t pool_blocks = 0;
  double seconds = 0;              ///< wall time the whole profile took
  std::vector<Measure> measures;
};

/// Everything reported for one device.
struct DeviceReport {
  int platform = 0;
  int device = 0;
  bool opened = false;            ///< false: `error` says why Context::create failed
  edgemem::Error error{};
  edgemem::DeviceInfo info{};
  edgemem::FormatSet formats[edgemem::image_type_count][edgemem::format_access_count]{};
  bool profiled = false;
  Profile profile{};
};

/// Options of one run.
struct Options {
  bool json = false;
  bool formats = false;           ///< list every format in the table output
  bool profile = true;
  int only_platform = -1;         ///< --device P:D (-1: every device)
  int only_device = -1;
};

/// What gather() found.
struct Survey {
  std::vector<DeviceReport> devices;  ///< every device tried, opened or not, in platform/device order
  edgemem::Error none_reason{};       ///< when no device opened: what Context::create() answered
};

/// Opens every device edgemem can open (or only --device), fills its report and, unless disabled,
/// profiles it while its context is open.
Survey gather(const Options& opt);
/// Runs the quick profile on an open context.
Profile run_profile(const edgemem::Context& ctx);

/// Names used by both writers (stable: they are JSON values and keys).
const char* name(edgemem::ImageType t) noexcept;
const char* name(edgemem::FormatAccess a) noexcept;
const char* name(edgemem::ChannelOrder o) noexcept;
const char* name(edgemem::ChannelType t) noexcept;
/// "rgba/unorm_int8" into `out`.
void format_name(edgemem::ImageFormat f, char* out, std::size_t cap) noexcept;

/// ExternalMemoryKind bits with their JSON keys.
struct ExternalKind {
  unsigned bit;
  const char* key;
};
extern const ExternalKind external_kinds[4];

/// Human-readable tables, one section per device.
void write_text(std::FILE* out, const Survey& survey, const Options& opt);
/// One JSON document with stable keys (schema 1; listed in json_report.cpp's file comment).
void write_json(std::FILE* out, const Survey& survey, const Options& opt);

}  // namespace info
