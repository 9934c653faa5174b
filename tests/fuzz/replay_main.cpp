// Replay mode of the differential fuzzer: runs every file given, and every file in every directory
// given, once through the same driver as the libFuzzer target, without libFuzzer. Exits 0 when
// every input agreed on every target; aborts with the report of the first difference otherwise.
//   edgemem_fuzz_replay tests/fuzz/corpus [more files or directories]
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "driver.hpp"

// Under -Dfuzz=enabled (ASan): PoCL 3.1's own leak per image1d_buffer image, as in fuzz_main.cpp.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpocl.so\n"; }

namespace {

bool read_file(const std::string& path, std::vector<std::uint8_t>& out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  out.clear();
  std::uint8_t buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) != 0;) out.insert(out.end(), buf, buf + n);
  std::fclose(f);
  return true;
}

void collect(const std::string& path, std::vector<std::string>& files) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    files.push_back(path);  // reported as unreadable below
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    files.push_back(path);
    return;
  }
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> names;
  while (dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.') continue;
    names.push_back(path + "/" + name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) collect(n, files);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  if (!fz::init_targets()) return 1;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) collect(argv[i], files);
  std::vector<std::uint8_t> data;
  std::size_t bytes = 0;
  for (const auto& f : files) {
    if (!read_file(f, data)) {
      std::fprintf(stderr, "edgemem_fuzz_replay: cannot read %s\n", f.c_str());
      return 1;
    }
    fz::set_input_label(f.c_str());
    fz::run_input(data.data(), data.size());
    bytes += data.size();
  }
  std::printf("edgemem_fuzz_replay: %zu inputs (%zu bytes, %llu operations) agree on %s\n", files.size(), bytes,
              static_cast<unsigned long long>(fz::operations_run()), fz::target_names());
  return files.empty() ? 1 : 0;
}
