// CUDA backend: caller memory for the device (Buffer::wrap, DLPack imports of host tensors). CUDA
// registers a page once (cuMemHostRegister refuses pages registered already) and one command may not
// cross two registrations, so wraps share: a fixed table of the page ranges edgemem registered, each
// with the number of wraps inside it, unregistered when the last goes. A wrap is zero-copy when its
// pages are all inside one registration (a new one, an earlier wrap's, or the caller's own pinned or
// registered memory); a wrap partly over an earlier wrap's pages, memory CUDA will not register, and
// wraps past the table's size are shadowed (cu_memory.cpp). Memory the process may only read (a
// PROT_READ mapping) is registered CU_MEMHOSTREGISTER_READ_ONLY: NativeMem::read_only, and commands
// that would write it answer access_denied.
#include <unistd.h>

#include <mutex>

#include "cu.hpp"

namespace edgemem::backend::cu {

namespace {

/// Page ranges edgemem registered, process-wide (registrations are portable: every context sees them).
constexpr std::size_t kRegistrations = 1024;

struct Registration {
  std::uintptr_t begin = 0, end = 0;  // page-aligned; end == 0: a free slot
  std::uint32_t wraps = 0;            // live wraps inside it
  bool read_only = false;             // registered CU_MEMHOSTREGISTER_READ_ONLY
};

struct Table {
  std::mutex lock;
  Registration slot[kRegistrations];
};

Table& table() noexcept {
  static Table t;
  return t;
}

constexpr CUresult kTableFull = CUDA_ERROR_TOO_MANY_PEERS;  // never an answer of cuMemHostRegister

std::uintptr_t page() noexcept {
  static const auto bytes = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  return bytes;
}
std::uintptr_t page_down(std::uintptr_t a) noexcept { return a & ~(page() - 1); }
std::uintptr_t page_up(std::uintptr_t a) noexcept { return (a + page() - 1) & ~(page() - 1); }

/// The device address of host byte `p` (registered or pinned), else 0.
CUdeviceptr device_of(std::uintptr_t p) noexcept {
  CUdeviceptr d = 0;
  if (driver().cuMemHostGetDevicePointer(&d, reinterpret_cast<void*>(p), 0) != CUDA_SUCCESS) return 0;
  return d;
}

/// Adds one wrap to every registration meeting [begin, end) (+1) or takes it away (-1), unregistering
/// those left without a wrap. Under the table's lock.
void count_wraps(Table& t, std::uintptr_t begin, std::uintptr_t end, int delta) noexcept {
  for (Registration& r : t.slot) {
    if (r.end == 0 || r.end <= begin || end <= r.begin) continue;
    r.wraps = static_cast<std::uint32_t>(static_cast<int>(r.wraps) + delta);
    if (r.wraps != 0) continue;  // (delta 0: only a registration no wrap counts goes)
    (void)driver().cuMemHostUnregister(reinterpret_cast<void*>(r.begin));
    r = Registration{};
  }
}

/// Registers [begin, end) (page-aligned, no page of it registered by edgemem) into a free slot, read-only
/// when only that is accepted. CUDA_ERROR_TOO_MANY_PEERS stands for a full table.
CUresult add(Table& t, std::uintptr_t begin, std::uintptr_t end, bool& read_only) noexcept {
  Registration* free_slot = nullptr;
  for (Registration& r : t.slot)
    if (r.end == 0) {
      free_slot = &r;
      break;
    }
  if (free_slot == nullptr) return kTableFull;
  void* const p = reinterpret_cast<void*>(begin);
  const unsigned flags = CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE;
  CUresult status = driver().cuMemHostRegister(p, end - begin, flags);
  read_only = false;
  if (status != CUDA_SUCCESS && status != CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED && status != CUDA_ERROR_OUT_OF_MEMORY) {
    // Pages the process may only read: only a read-only registration takes them.
    if (driver().cuMemHostRegister(p, end - begin, flags | CU_MEMHOSTREGISTER_READ_ONLY) == CUDA_SUCCESS) {
      status = CUDA_SUCCESS;
      read_only = true;
    }
  }
  if (status == CUDA_SUCCESS) *free_slot = Registration{begin, end, 0, read_only};
  return status;
}

}  // namespace

Registered register_host(void* host, std::size_t bytes) noexcept {
  Table& t = table();
  const auto p = reinterpret_cast<std::uintptr_t>(host);
  const std::uintptr_t begin = page_down(p), end = page_up(p + bytes);
  std::lock_guard<std::mutex> guard(t.lock);
  Registered out;
  const Registration* containing = nullptr;
  bool meets = false;
  for (const Registration& r : t.slot) {
    if (r.end == 0 || r.end <= begin || end <= r.begin) continue;
    meets = true;
    if (r.begin <= begin && end <= r.end) containing = &r;
  }
  if (containing != nullptr) {  // inside an earlier wrap's registration: shared, counted
    out.read_only = containing->read_only;
    out.device = device_of(p);
  } else if (!meets) {
    const CUdeviceptr first = device_of(p);
    if (first != 0) {  // memory the caller pinned or registered (cuMemHostAlloc, a DLPack tensor): as it is
      if (device_of(p + bytes - 1) == first + (bytes - 1)) out.device = first;
      else out.status = CUDA_ERROR_INVALID_VALUE;
      return out;
    }
    bool read_only = false;
    const CUresult status = add(t, begin, end, read_only);
    if (status != CUDA_SUCCESS) {  // a full table, too: shadowed
      out.status = status == kTableFull ? CUDA_ERROR_INVALID_VALUE : status;
      return out;
    }
    out.read_only = read_only;
    out.device = device_of(p);
  } else {
    // Partly over an earlier wrap's pages, partly not: CUDA registers a page once, and one command may
    // not cross two registrations; the caller falls back to a device copy (backend.hpp).
    out.status = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    return out;
  }
  if (out.device == 0) {
    out.status = CUDA_ERROR_INVALID_VALUE;
    count_wraps(t, begin, end, 0);  // a registration just added with no wrap goes again
    return out;
  }
  count_wraps(t, begin, end, +1);
  return out;
}

void unregister_host(const void* host, std::size_t bytes) noexcept {
  Table& t = table();
  const auto p = reinterpret_cast<std::uintptr_t>(host);
  std::lock_guard<std::mutex> guard(t.lock);
  count_wraps(t, page_down(p), page_up(p + bytes), -1);
}

}  // namespace edgemem::backend::cu
