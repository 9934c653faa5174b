// H200 probe: why a read-only memfd import with allow_copy fails with out_of_device_memory on Vulkan.
#include <sys/mman.h>
#include <unistd.h>
#include <fcntl.h>
#include <cstdio>
#include <cstring>
#include <vector>
#include <edgemem/edgemem.hpp>
using namespace edgemem;
template <class R> void show(const char* what, const R& r) {
  if (r) std::printf("%-60s ok\n", what);
  else std::printf("%-60s %s (native %d): %s\n", what, to_string(r.error().code), r.error().native, r.error().message);
}
int main() {
  auto ctx = Context::create();
  if (!ctx) { show("Context::create", ctx); return 1; }
  std::printf("caps: caller_memory_in_place=%d read_only_caller_memory_in_place=%d\n", ctx->info().caps.caller_memory_in_place,
              ctx->info().caps.read_only_caller_memory_in_place);
  const std::size_t page = 4096, n = 4 * page;
  std::vector<unsigned char> plain(n, 7);
  show("1 from_host(device) of vector", Buffer::from_host(*ctx, plain.data(), n, Storage::device));
  show("2 from_host(device, read_only) of vector", Buffer::from_host(*ctx, plain.data(), n, Storage::device, MemFlags::read_only));
  int fd = memfd_create("probe", MFD_ALLOW_SEALING);
  if (ftruncate(fd, n) != 0) return 2;
  fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
  void* rw = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  std::memset(rw, 3, n);
  void* ro = mmap(nullptr, n, PROT_READ, MAP_SHARED, fd, 0);
  show("3 from_host(device) of PROT_READ memfd mapping", Buffer::from_host(*ctx, ro, n, Storage::device));
  show("4 from_host(device, read_only) of PROT_READ mapping", Buffer::from_host(*ctx, ro, n, Storage::device, MemFlags::read_only));
  ImportOptions o; o.flags = MemFlags::read_only; o.allow_copy = false;
  show("5 import memfd read_only (no copy)", Buffer::import(*ctx, ExternalMemory::memfd(fd, 0, n), o));
  show("6 from_host(device) of vector after 5", Buffer::from_host(*ctx, plain.data(), n, Storage::device));
  o.allow_copy = true;
  show("7 import memfd read_only allow_copy", Buffer::import(*ctx, ExternalMemory::memfd(fd, 0, n), o));
  show("8 from_host(device) of vector after 7", Buffer::from_host(*ctx, plain.data(), n, Storage::device));
  show("9 wrap of PROT_READ|WRITE mapping", Buffer::wrap(*ctx, rw, n));
  show("10 from_host(host) of PROT_READ mapping", Buffer::from_host(*ctx, ro, n, Storage::host));
  auto q = Queue::create(*ctx);
  auto b = Buffer::create(*ctx, n);
  if (q && b) show("11 write from PROT_READ mapping", q->write(*b, 0, ro, n));
  return 0;
}
