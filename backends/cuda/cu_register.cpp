// CUDA backend: caller memory for the device (Buffer::wrap, DLPack imports of host tensors). CUDA
// registers a page once (cuMemHostRegister refuses a range whose pages are registered already), so two
// wraps of the same memory, or of overlapping memory, share registrations: a fixed table of the
// page ranges edgemem registered, each with the number of wraps that use it, unregistered when the
// last goes. A wrap is zero-copy when every page it covers is registered (by it, by an earlier wrap,
// or by the caller) and the device reaches the bytes as one contiguous range; memory CUDA will not
// register at all is shadowed (a device copy synchronised at map and unmap). Memory the process may
// only read (a PROT_READ mapping) is registered CU_MEMHOSTREGISTER_READ_ONLY: NativeMem::read_only,
// and commands that would write it answer access_denied.
#include <mutex>

#include "cu.hpp"

namespace edgemem::backend::cu {

namespace {

/// Page ranges edgemem registered, process-wide (registrations are portable: every context sees them).
constexpr std::size_t kRegistrations = 256;
constexpr std::uintptr_t kPage = 4096;

struct Registration {
  std::uintptr_t begin = 0, end = 0;  // page-aligned; end == 0: a free slot
  std::uint32_t wraps = 0;            // live wraps covering some of it
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

std::uintptr_t page_down(std::uintptr_t a) noexcept { return a & ~(kPage - 1); }
std::uintptr_t page_up(std::uintptr_t a) noexcept { return (a + kPage - 1) & ~(kPage - 1); }

/// The device address of host byte `p` (registered or pinned), else 0.
CUdeviceptr device_of(std::uintptr_t p) noexcept {
  CUdeviceptr d = 0;
  if (driver().cuMemHostGetDevicePointer(&d, reinterpret_cast<void*>(p), 0) != CUDA_SUCCESS) return 0;
  return d;
}

/// The device address of [p, p + bytes) when the device reaches all of it as one contiguous range:
/// within one of edgemem's registrations addresses are contiguous (one check at its first byte); pages
/// the caller registered are checked one by one. Under the table's lock.
CUdeviceptr contiguous(const Table& t, std::uintptr_t p, std::size_t bytes) noexcept {
  const CUdeviceptr first = device_of(p);
  if (first == 0) return 0;
  for (std::uintptr_t at = p; at < p + bytes;) {
    const Registration* covering = nullptr;
    for (const Registration& r : t.slot)
      if (r.end != 0 && r.begin <= at && at < r.end) covering = &r;
    if (device_of(at) != first + (at - p)) return 0;
    at = covering != nullptr ? covering->end : page_down(at) + kPage;
  }
  return first;
}

/// Adds one wrap to every registration meeting [begin, end) (+1) or takes it away (-1), unregistering
/// those left without a wrap. Under the table's lock.
void count_wraps(Table& t, std::uintptr_t begin, std::uintptr_t end, int delta) noexcept {
  for (Registration& r : t.slot) {
    if (r.end == 0 || r.end <= begin || end <= r.begin) continue;
    r.wraps = static_cast<std::uint32_t>(static_cast<int>(r.wraps) + delta);
    if (r.wraps != 0) continue;
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
  // Register the gaps between edgemem's registrations over [begin, end); pages registered by the
  // caller (cuMemHostRegister, cuMemHostAlloc) answer HOST_MEMORY_ALREADY_REGISTERED and are used as
  // they are.
  Registered out;
  std::uintptr_t at = begin;
  std::uintptr_t added[kRegistrations];
  std::size_t n_added = 0;
  CUresult failed = CUDA_SUCCESS;
  while (at < end && failed == CUDA_SUCCESS) {
    std::uintptr_t next = end;  // the next registration's start at or after `at`, or end
    const Registration* covering = nullptr;
    for (const Registration& r : t.slot) {
      if (r.end == 0) continue;
      if (r.begin <= at && at < r.end) covering = &r;
      else if (at < r.begin && r.begin < next) next = r.begin;
    }
    if (covering != nullptr) {
      out.read_only = out.read_only || covering->read_only;
      at = covering->end;
      continue;
    }
    bool read_only = false;
    const CUresult status = add(t, at, next, read_only);
    if (status == CUDA_SUCCESS) {
      added[n_added++] = at;
      out.read_only = out.read_only || read_only;
    } else if (status != CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) {
      failed = status;
    }
    at = next;
  }
  if (failed == CUDA_SUCCESS) out.device = contiguous(t, p, bytes);
  if (out.device != 0) {
    count_wraps(t, begin, end, +1);
    out.status = CUDA_SUCCESS;
    return out;
  }
  // Not usable zero-copy: undo this call's registrations (no wrap counts them yet).
  for (std::size_t i = 0; i < n_added; ++i)
    for (Registration& r : t.slot)
      if (r.end != 0 && r.begin == added[i]) {
        (void)driver().cuMemHostUnregister(reinterpret_cast<void*>(r.begin));
        r = Registration{};
      }
  out = Registered{};
  out.table_full = failed == kTableFull;
  out.status = failed == CUDA_SUCCESS || failed == kTableFull ? CUDA_ERROR_INVALID_VALUE : failed;
  return out;
}

void unregister_host(const void* host, std::size_t bytes) noexcept {
  Table& t = table();
  const auto p = reinterpret_cast<std::uintptr_t>(host);
  std::lock_guard<std::mutex> guard(t.lock);
  count_wraps(t, page_down(p), page_up(p + bytes), -1);
}

}  // namespace edgemem::backend::cu
