// Host backend: shared virtual memory. An allocation is aligned memory of the allocator policy, fine
// grain by nature, behind a small header (its size, grain and open maps). Coarse grain is made visible
// in AddressSanitizer builds: its bytes are poisoned outside maps, so a host store that would be lost
// on a coarse-only GPU fails under ASan here (edgemem's own commands unpoison what they touch).
#include <cstring>
#include <mutex>
#include <new>

#include <edgemem/allocator.hpp>
#include <edgemem/svm.hpp>

#include "backend.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define EDGEMEM_HOST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EDGEMEM_HOST_ASAN 1
#endif
#endif
#ifdef EDGEMEM_HOST_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace edgemem::backend {

namespace {

using contract::SvmAddress;

/// In front of every allocation, svm_max_alignment bytes before its first byte.
struct SvmHeader {
  std::size_t bytes = 0;
  SvmGrain grain = SvmGrain::coarse;
  // Coarse grain, ASan builds: who may touch the bytes now. Under `lock`, so the last one out (no
  // open svm_map, no command touching) poisons the whole allocation while nobody else can unpoison.
  std::mutex lock;
  unsigned maps = 0;      // open svm_map calls
  unsigned touching = 0;  // edgemem commands copying or filling its bytes now
};
constexpr std::size_t kHeaderBytes = svm_max_alignment;
static_assert(sizeof(SvmHeader) <= kHeaderBytes, "the SVM header must fit before the allocation");

SvmHeader* header_of(std::byte* base) noexcept { return reinterpret_cast<SvmHeader*>(base - kHeaderBytes); }

#ifdef EDGEMEM_HOST_ASAN
void poison(const void* p, std::size_t n) noexcept { ASAN_POISON_MEMORY_REGION(p, n); }
void unpoison(const void* p, std::size_t n) noexcept { ASAN_UNPOISON_MEMORY_REGION(p, n); }

/// Coarse SVM: its bytes are poisoned outside maps.
bool coarse(const SvmAddress& a) noexcept { return a.svm && header_of(a.base)->grain == SvmGrain::coarse; }

/// Makes `bytes` bytes at `at` of a coarse allocation addressable for one more user (a map or a touch).
void enter(SvmHeader* h, const std::byte* at, std::size_t bytes, bool map) noexcept {
  std::lock_guard<std::mutex> lock(h->lock);
  ++(map ? h->maps : h->touching);
  unpoison(at, bytes);
}

/// One user of a coarse allocation leaves; the last one out poisons all of it again (bytes earlier
/// users unpoisoned stay addressable until then: which bytes the open maps cover is not recorded).
void leave(SvmHeader* h, std::byte* base, bool map) noexcept {
  std::lock_guard<std::mutex> lock(h->lock);
  --(map ? h->maps : h->touching);
  if (h->maps == 0 && h->touching == 0) poison(base, h->bytes);
}

/// Runs `touch()` with `bytes` bytes at `a` addressable (edgemem's own access to coarse SVM, maps open
/// or not, from any thread).
template <class Touch>
void touching(const SvmAddress& a, std::size_t bytes, Touch&& touch) noexcept {
  const bool poisons = coarse(a);
  if (poisons) enter(header_of(a.base), a.at(), bytes, false);
  touch();
  if (poisons) leave(header_of(a.base), a.base, false);
}
#else  // without AddressSanitizer nothing is poisoned: no bookkeeping
void poison(const void*, std::size_t) noexcept {}
void unpoison(const void*, std::size_t) noexcept {}
void enter(SvmHeader*, const std::byte*, std::size_t, bool) noexcept {}
void leave(SvmHeader*, std::byte*, bool) noexcept {}
template <class Touch>
void touching(const SvmAddress&, std::size_t, Touch&& touch) noexcept {
  touch();
}
#endif

}  // namespace

Result<void*> Host::svm_alloc(const NativeContext&, std::size_t bytes, SvmGrain grain, std::size_t) noexcept {
  if (bytes > SIZE_MAX - kHeaderBytes) return fail(Errc::out_of_host_memory, "allocation size overflows");
  void* p = DefaultAllocator::allocate(kHeaderBytes + bytes, svm_max_alignment);
  if (p == nullptr) return fail(Errc::out_of_host_memory, "allocator could not provide the SVM's storage");
  auto* h = new (p) SvmHeader();
  h->bytes = bytes;
  h->grain = grain;
  std::byte* base = static_cast<std::byte*>(p) + kHeaderBytes;
  if (grain == SvmGrain::coarse) poison(base, bytes);
  return static_cast<void*>(base);
}

void Host::svm_free(const NativeContext&, void* base) noexcept {
  SvmHeader* h = header_of(static_cast<std::byte*>(base));
  const std::size_t bytes = h->bytes;
  unpoison(base, bytes);
  h->~SvmHeader();
  DefaultAllocator::deallocate(h, kHeaderBytes + bytes, svm_max_alignment);
}

Result<void> Host::svm_free_queued(NativeQueue q, void* base, const CommandEvents& sync) noexcept {
  EDGEMEM_TRY(marker(q, sync));  // every command has completed already
  svm_free(NativeContext{}, base);
  return {};
}

Result<void> Host::svm_memcpy(NativeQueue q, const SvmAddress& dst, const SvmAddress& src, std::size_t bytes,
                              const CommandEvents& sync) noexcept {
  touching(dst, bytes, [&] { touching(src, bytes, [&] { std::memcpy(dst.at(), src.at(), bytes); }); });
  return marker(q, sync);
}

Result<void> Host::svm_memfill(NativeQueue q, const SvmAddress& dst, std::size_t bytes, const void* pattern,
                               std::size_t pattern_bytes, const CommandEvents& sync) noexcept {
  Result<void> done{};
  touching(dst, bytes, [&] { done = fill(q, NativeMem{dst.base, 0}, dst.offset, bytes, pattern, pattern_bytes, sync); });
  return done;
}

Result<void> Host::svm_buffer_copy(NativeQueue q, const SvmAddress& svm, std::size_t, const NativeMem& mem,
                                   std::size_t offset, std::size_t bytes, bool to_svm,
                                   const CommandEvents& sync) noexcept {
  touching(svm, bytes, [&] {
    if (to_svm) std::memcpy(svm.at(), mem.data + offset, bytes);
    else std::memcpy(mem.data + offset, svm.at(), bytes);
  });
  return marker(q, sync);
}

Result<void> Host::svm_migrate(NativeQueue q, const SvmAddress&, std::size_t, Migration,
                               const CommandEvents& sync) noexcept {
  return marker(q, sync);
}

Result<void> Host::svm_map(NativeQueue q, const SvmAddress& at, std::size_t bytes, Access,
                           const CommandEvents& sync) noexcept {
  enter(header_of(at.base), at.at(), bytes, true);
  return marker(q, sync);
}

Result<void> Host::svm_unmap(NativeQueue q, const SvmAddress& at, const CommandEvents& sync) noexcept {
  leave(header_of(at.base), at.base, true);  // the last one out: out of the host's reach again
  return marker(q, sync);
}

}  // namespace edgemem::backend
