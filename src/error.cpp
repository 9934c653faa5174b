#include <edgemem/error.hpp>

namespace edgemem {

const char* to_string(Errc code) noexcept {
  switch (code) {
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::out_of_range: return "out_of_range";
    case Errc::misaligned: return "misaligned";
    case Errc::overlap: return "overlap";
    case Errc::exhausted: return "exhausted";
    case Errc::out_of_device_memory: return "out_of_device_memory";
    case Errc::out_of_host_memory: return "out_of_host_memory";
    case Errc::unsupported: return "unsupported";
    case Errc::busy: return "busy";
    case Errc::released: return "released";
    case Errc::backend_failure: return "backend_failure";
    case Errc::access_denied: return "access_denied";
  }
  return "unknown";
}

}  // namespace edgemem
