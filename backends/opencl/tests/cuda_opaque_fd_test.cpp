// H100 proof of edgemem's cl_khr_external_memory_opaque_fd import: device memory made by the CUDA
// driver API (cuMemCreate, exported with cuMemExportToShareableHandle as a POSIX fd) is imported with
// Buffer::import(ExternalMemory::opaque_fd) on the OpenCL backend (NVIDIA platform, GPU device) and
// must be the same memory both ways: edgemem reads CUDA's pattern, CUDA reads edgemem's writes
// (blocking write + finish, an async write + Event::wait, and a write through a mapping).
// Prints PASS / FAIL / INFO lines; exits 1 on any failure, 2 when the setup itself fails.
// Built only when the CUDA headers are found (backends/opencl/tests/meson.build); not a meson test (no GPU in CI).
#include <cuda.h>
#include <dirent.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include <CL/cl.h>
#include <edgemem/edgemem.hpp>

#include "core/external_bracket.hpp"
#include "core/nodes.hpp"

using namespace edgemem;

namespace {

int failures = 0;

/// Prints PASS or FAIL for `what`, counting failures.
void check(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what);
  if (!ok) ++failures;
}

/// Prints an edgemem error.
void print_error(const char* what, const Error& e) {
  std::printf("FAIL %s: %s (%s, native %d)\n", what, e.message, to_string(e.code), static_cast<int>(e.native));
  ++failures;
}

/// Stops the run when a CUDA call fails.
#define CU_REQUIRE(expr)                                                            \
  do {                                                                              \
    const CUresult r_ = (expr);                                                     \
    if (r_ != CUDA_SUCCESS) {                                                       \
      const char* name_ = nullptr;                                                  \
      cuGetErrorName(r_, &name_);                                                   \
      std::printf("FAIL %s: %s\n", #expr, name_ != nullptr ? name_ : "unknown");    \
      return 2;                                                                     \
    }                                                                               \
  } while (false)

/// Open file descriptors of this process (entries of /proc/self/fd, less the one opendir holds).
int open_fds() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (readdir(d) != nullptr) ++n;
  closedir(d);
  return n - 3;  // ".", ".." and the directory's own fd
}

std::uint32_t pattern(std::size_t i, std::uint32_t salt) { return static_cast<std::uint32_t>(i) * 2654435761u ^ salt; }

/// True when every element of `v` equals `want(i)`; prints the first mismatch.
template <class Want>
bool all_equal(const std::vector<std::uint32_t>& v, Want&& want) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != want(i)) {
      std::printf("  first mismatch at element %zu: 0x%08x, expected 0x%08x\n", i, v[i], want(i));
      return false;
    }
  }
  return true;
}

}  // namespace

int main() {
  // ---- CUDA: exportable device memory with a known pattern ----
  CU_REQUIRE(cuInit(0));
  CUdevice dev = 0;
  CU_REQUIRE(cuDeviceGet(&dev, 0));
  char cu_name[128] = {};
  CU_REQUIRE(cuDeviceGetName(cu_name, sizeof cu_name, dev));
  std::printf("INFO CUDA device 0: %s\n", cu_name);
  CUcontext cu_ctx = nullptr;
  CU_REQUIRE(cuDevicePrimaryCtxRetain(&cu_ctx, dev));
  CU_REQUIRE(cuCtxSetCurrent(cu_ctx));

  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  std::size_t granularity = 0;
  CU_REQUIRE(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const std::size_t want = std::size_t{4} << 20;
  const std::size_t bytes = (want + granularity - 1) / granularity * granularity;
  const std::size_t words = bytes / sizeof(std::uint32_t);
  std::printf("INFO allocation %zu bytes (granularity %zu)\n", bytes, granularity);

  CUmemGenericAllocationHandle handle = 0;
  CU_REQUIRE(cuMemCreate(&handle, bytes, &prop, 0));
  int fd = -1;
  CU_REQUIRE(cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  CUdeviceptr ptr = 0;
  CU_REQUIRE(cuMemAddressReserve(&ptr, bytes, 0, 0, 0));
  CU_REQUIRE(cuMemMap(ptr, bytes, 0, handle, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_REQUIRE(cuMemSetAccess(ptr, bytes, &access, 1));
  const std::uint32_t cuda_value = 0xC0DA0001u;
  CU_REQUIRE(cuMemsetD32(ptr, cuda_value, words));
  CU_REQUIRE(cuCtxSynchronize());

  // ---- edgemem on the OpenCL GPU device ----
  DeviceSelector sel;
  sel.type = DeviceType::gpu;
  auto ctx = Context::create(sel);
  if (!ctx) {
    print_error("Context::create(gpu)", ctx.error());
    return 2;
  }
  std::printf("INFO edgemem device: %s (backend %s), external_memory bits 0x%x\n", ctx->info().name,
              ctx->info().backend, ctx->info().caps.external_memory);
  check((ctx->info().caps.external_memory & external_opaque_fd) != 0,
        "the device lists cl_khr_external_memory_opaque_fd");
  auto q = Queue::create(*ctx);
  if (!q) {
    print_error("Queue::create", q.error());
    return 2;
  }

  const int fds_before = open_fds();
  {
    auto buf = Buffer::import(*ctx, ExternalMemory::opaque_fd(fd, bytes));
    if (!buf) {
      print_error("Buffer::import(opaque_fd)", buf.error());
      return 1;
    }
    check(true, "Buffer::import(opaque_fd)");
    std::printf("INFO import_path: %s\n", to_string(buf->import_path()));
    check(buf->import_path() == ImportPath::khr_opaque_fd, "import_path() == khr_opaque_fd");

    // edgemem sees CUDA's pattern.
    std::vector<std::uint32_t> host(words, 0);
    auto read = q->read(*buf, 0, host.data(), bytes);
    if (!read) print_error("Queue::read", read.error());
    else check(all_equal(host, [&](std::size_t) { return cuda_value; }), "edgemem reads CUDA's cuMemsetD32 pattern");

    // CUDA sees edgemem's blocking write, once finish() returns.
    for (std::size_t i = 0; i < words; ++i) host[i] = pattern(i, 0xED6E0001u);
    auto wrote = q->write(*buf, 0, host.data(), bytes);
    if (!wrote) print_error("Queue::write", wrote.error());
    auto finished = q->finish();
    if (!finished) print_error("Queue::finish", finished.error());
    std::vector<std::uint32_t> back(words, 0);
    CU_REQUIRE(cuMemcpyDtoH(back.data(), ptr, bytes));
    check(all_equal(back, [](std::size_t i) { return pattern(i, 0xED6E0001u); }), "CUDA reads edgemem's write");

    // An async write on the second half: its Event completes once the memory is handed back.
    for (std::size_t i = 0; i < words; ++i) host[i] = pattern(i, 0xA5A50002u);
    const std::size_t half = bytes / 2;
    auto ev = q->write_async(*buf, half, host.data() + words / 2, half);
    if (!ev) {
      print_error("Queue::write_async", ev.error());
    } else {
      auto waited = ev->wait();
      if (!waited) print_error("Event::wait", waited.error());
      CU_REQUIRE(cuMemcpyDtoH(back.data(), ptr, bytes));
      check(all_equal(back, [&](std::size_t i) { return pattern(i, i < words / 2 ? 0xED6E0001u : 0xA5A50002u); }),
            "CUDA reads edgemem's async write once its Event completed");
    }

    // CUDA writes again; a map for reading sees it, a write through a mapping reaches CUDA.
    CU_REQUIRE(cuMemsetD32(ptr, cuda_value + 1, words));
    CU_REQUIRE(cuCtxSynchronize());
    {
      auto m = q->map<std::uint32_t>(*buf, Access::write);
      if (!m) {
        print_error("Queue::map", m.error());
      } else {
        bool same = true;
        for (std::size_t i = 0; i < m->size() && same; ++i) same = (*m)[i] == cuda_value + 1;
        check(same, "a mapping sees CUDA's second pattern");
        for (std::size_t i = 0; i < m->size(); ++i) (*m)[i] = pattern(i, 0x4D415003u);
        auto unmapped = m->unmap();
        if (!unmapped) print_error("Mapping::unmap", unmapped.error());
      }
    }
    auto done = q->finish();
    if (!done) print_error("Queue::finish after the map", done.error());
    CU_REQUIRE(cuMemcpyDtoH(back.data(), ptr, bytes));
    check(all_equal(back, [](std::size_t i) { return pattern(i, 0x4D415003u); }), "CUDA reads a write through a mapping");

    // Your own OpenCL command on native(), between begin_native and end_native (which acquire and
    // release the imported memory): a raw clEnqueueFillBuffer, then CUDA reads it.
    {
      const cl_uint word = 0x0BADC0DEu;
      auto began = q->begin_native(*buf, Access::write);
      if (!began) print_error("Queue::begin_native", began.error());
      auto mem = buf->native();
      const cl_int rc = mem ? clEnqueueFillBuffer(q->native(), *mem, &word, sizeof word, 0, bytes, 0, nullptr, nullptr)
                            : CL_INVALID_VALUE;
      check(rc == CL_SUCCESS, "a raw clEnqueueFillBuffer on native() between begin_native and end_native");
      // edgemem's own write inside the bracket: the memory is held acquired, so it is not bracketed again.
      const std::uint32_t first = 0x600DF00Du;
      auto inner = q->write(*buf, 0, &first, sizeof first);
      check(static_cast<bool>(inner), "Queue::write inside begin_native .. end_native");
      auto ended = q->end_native(*buf, Access::write);
      if (!ended) print_error("Queue::end_native", ended.error());
      auto synced = q->finish();
      if (!synced) print_error("Queue::finish after the native command", synced.error());
      CU_REQUIRE(cuMemcpyDtoH(back.data(), ptr, bytes));
      check(all_equal(back, [&](std::size_t i) { return i == 0 ? first : word; }),
            "CUDA reads the raw fill and edgemem's write made inside the bracket");
    }

    // Issue #29 item (a): read mappings of the same bytes on two queues. Where the driver returns one
    // address they form one group, and the first to close passes its native map to the other: its
    // queue's hold must pass too (then be released on it), so both queues end holding nothing.
    {
      auto q2 = Queue::create(*ctx);
      detail::ExternalRef* ext = detail::HandleAccess::node(*buf)->root->external;
      const std::uint64_t s1 = detail::HandleAccess::node(*q)->serial;
      const std::uint64_t s2 = q2 ? detail::HandleAccess::node(*q2)->serial : 0;
      auto a = q->map<std::uint32_t>(*buf, Access::read);
      auto b = q2 ? q2->map<std::uint32_t>(*buf, Access::read) : Result<Mapping<std::uint32_t>>(fail(q2.error()));
      if (!a || !b) {
        print_error("two read maps on two queues", !a ? a.error() : b.error());
      } else {
        const bool same = a->data() == b->data();
        std::printf("INFO two read maps on two queues: %s address\n", same ? "one" : "two");
        check(detail::queue_holds(ext, s1) == 1 && detail::queue_holds(ext, s2) == 1, "each queue holds the import once");
        auto first = a->unmap();
        if (!first) print_error("Mapping::unmap (queue 1)", first.error());
        check(detail::queue_holds(ext, s1) == 0 && detail::queue_holds(ext, s2) == (same ? 2u : 1u),
              "queue 1's hold went (to queue 2 with its native map where the address was one)");
        auto second = b->unmap();
        if (!second) print_error("Mapping::unmap (queue 2)", second.error());
        check(detail::queue_holds(ext, s1) == 0 && detail::queue_holds(ext, s2) == 0, "neither queue holds the import");
        const std::uint32_t word = 0x0A0B0C0Du;
        std::uint32_t seen = 0;
        auto w = q->write(*buf, 4, &word, sizeof word);
        auto r = w ? q2->read(*buf, 4, &seen, sizeof seen) : Result<void>(fail(w.error()));
        check(w && r && seen == word, "a write on queue 1 then a read on queue 2, each bracketed on its own queue");
      }
    }

    auto released = buf->release();
    if (!released) print_error("Buffer::release", released.error());
  }
  const int fds_after = open_fds();
  std::printf("INFO open fds before the import %d, after its release %d%s\n", fds_before, fds_after,
              fds_after > fds_before ? " (more: the driver kept the fd it was given, or opened its own)" : "");

  (void)q->release();
  (void)ctx->release();
  close(fd);
  CU_REQUIRE(cuMemUnmap(ptr, bytes));
  CU_REQUIRE(cuMemAddressFree(ptr, bytes));
  CU_REQUIRE(cuMemRelease(handle));
  CU_REQUIRE(cuDevicePrimaryCtxRelease(dev));
  std::printf("%s: %d failure(s)\n", failures == 0 ? "PASS cuda_opaque_fd_test" : "FAIL cuda_opaque_fd_test", failures);
  return failures == 0 ? 0 : 1;
}
