// edgemem-info: for each device edgemem can open, what a memory-minded engineer needs (backend, name,
// driver, memory sizes and alignment, capabilities, image formats) and a quick measured profile.
// Uses only the public API (include/edgemem/), as any program would.
//   edgemem-info [--json] [--formats] [--no-profile] [--device P:D]
// Exit status: 0 when at least one device opened, 1 when none did (or, in live_counters builds, when
// an edgemem object outlived its use), 2 for a bad command line.
#include <cstdlib>
#include <cstring>

#include "report.hpp"

namespace {

const char kUsage[] =
    "usage: edgemem-info [--json] [--formats] [--no-profile] [--device P:D]\n"
    "For each device edgemem can open: backend, name, driver, memory sizes and alignment, capabilities,\n"
    "image formats and a quick measured profile (under 2 s per device).\n"
    "  --json        one JSON document instead of tables (stable keys, for scripts)\n"
    "  --formats     list every supported image format in the tables (--json always does)\n"
    "  --no-profile  skip the measured profile\n"
    "  --device P:D  only platform P, device D (as EDGEMEM_DEVICE=P:D, which is otherwise ignored)\n"
    "  -h, --help    this text\n";

#if EDGEMEM_ALLOCATOR_USER
void* user_allocate(std::size_t bytes, std::size_t align, void*) noexcept {
  if (align < sizeof(void*)) align = sizeof(void*);
  return std::aligned_alloc(align, (bytes + align - 1) / align * align);
}
void user_deallocate(void* p, std::size_t, std::size_t, void*) noexcept { std::free(p); }
#endif

int bad_usage(const char* what, const char* arg) {
  std::fprintf(stderr, "edgemem-info: %s '%s'\n%s", what, arg, kUsage);
  return 2;
}

/// "P:D" with both non-negative decimal integers.
bool parse_device(const char* text, int& platform, int& device) {
  char* end = nullptr;
  const long p = std::strtol(text, &end, 10);
  if (end == text || *end != ':' || p < 0 || p > 1000) return false;
  const char* d_text = end + 1;
  const long d = std::strtol(d_text, &end, 10);
  if (end == d_text || *end != '\0' || d < 0 || d > 1000) return false;
  platform = static_cast<int>(p);
  device = static_cast<int>(d);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  info::Options opt;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--json") == 0) {
      opt.json = true;
    } else if (std::strcmp(a, "--formats") == 0) {
      opt.formats = true;
    } else if (std::strcmp(a, "--no-profile") == 0) {
      opt.profile = false;
    } else if (std::strcmp(a, "--device") == 0) {
      if (i + 1 >= argc) return bad_usage("missing P:D after", a);
      if (!parse_device(argv[++i], opt.only_platform, opt.only_device))
        return bad_usage("expected P:D (two indices), got", argv[i]);
    } else if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      return bad_usage("unknown option", a);
    }
  }
#if EDGEMEM_ALLOCATOR_USER
  edgemem::UserAllocator::install(&user_allocate, &user_deallocate, nullptr);
#endif

  const info::Survey survey = info::gather(opt);
  if (opt.json) info::write_json(stdout, survey, opt);
  else info::write_text(stdout, survey, opt);
  std::fflush(stdout);

  int status = 0;
  bool any = false;
  for (const info::DeviceReport& r : survey.devices) any = any || r.opened;
  if (!any) status = 1;
  if (edgemem::live_objects_enabled && edgemem::live_objects().total() != 0) {
    std::fprintf(stderr, "edgemem-info: %lld edgemem objects still live at exit\n",
                 static_cast<long long>(edgemem::live_objects().total()));
    status = 1;
  }
  return status;
}
