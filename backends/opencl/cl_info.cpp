// Device queries shared by the backend: string properties, the platform name, version parsing.
#include <cstring>

#include <edgemem/allocator.hpp>

#include "cl.hpp"
#include "cl_error.hpp"

namespace edgemem::backend::cl {

namespace {
constexpr std::size_t kScratch = 1024;

void copy_truncated(char* out, std::size_t cap, const char* src, std::size_t len) noexcept {
  if (cap == 0) return;
  const std::size_t n = len < cap - 1 ? len : cap - 1;
  std::memcpy(out, src, n);
  out[n] = '\0';
}
}  // namespace

Result<void> query_text(cl_device_id device, cl_device_info param, char* out, std::size_t cap) noexcept {
  std::size_t size = 0;
  EDGEMEM_TRY(check(clGetDeviceInfo(device, param, 0, nullptr, &size)));
  char scratch[kScratch];
  char* buf = scratch;
  if (size > kScratch) {
    buf = static_cast<char*>(DefaultAllocator::allocate(size, 1));
    if (buf == nullptr) return fail(Errc::out_of_host_memory, "no memory for a device property string");
  }
  const cl_int status = size == 0 ? CL_SUCCESS : clGetDeviceInfo(device, param, size, buf, nullptr);
  if (status == CL_SUCCESS) {
    const void* nul = size == 0 ? nullptr : std::memchr(buf, '\0', size);
    copy_truncated(out, cap, buf, nul != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nul) - buf) : size);
  }
  if (buf != scratch) DefaultAllocator::deallocate(buf, size, 1);
  return check(status);
}

bool parse_version(const char* text, unsigned& major, unsigned& minor) noexcept {
  static constexpr char kPrefix[] = "OpenCL ";
  if (std::strncmp(text, kPrefix, sizeof kPrefix - 1) != 0) return false;
  const char* p = text + sizeof kPrefix - 1;
  unsigned parts[2] = {0, 0};
  for (unsigned& part : parts) {
    if (*p < '0' || *p > '9') return false;
    while (*p >= '0' && *p <= '9' && part < 1000) part = part * 10 + static_cast<unsigned>(*p++ - '0');
    if (&part == &parts[0] && *p++ != '.') return false;
  }
  major = parts[0];
  minor = parts[1];
  return true;
}

}  // namespace edgemem::backend::cl
