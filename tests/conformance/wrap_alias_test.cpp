// Issue #30, items 6-9: caller memory in odd places. Each case gave a different answer on CUDA than on
// the host backend (CUDA's cuMemsetD16/D32 refuse odd addresses; a rect from memory starting inside
// a registered page was refused; a second wrap of the same memory got its own device copy; a read
// map of a wrap over PROT_READ memory wrote into it: SIGSEGV). Every backend gives the host
// backend's answer: the bytes below are compared with a plain model.
#include <edgemem/config.hpp>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// `pages` pages of page-aligned memory, freed at the end.
struct Pages {
  static constexpr std::size_t kPage = 4096;
  unsigned char* p = nullptr;
  std::size_t n = 0;
  explicit Pages(std::size_t pages) : n(pages * kPage) {
    void* raw = nullptr;
    REQUIRE(posix_memalign(&raw, kPage, n) == 0);
    p = static_cast<unsigned char*>(raw);
    std::memset(p, 0, n);
  }
  ~Pages() { std::free(p); }
  Pages(const Pages&) = delete;
  Pages& operator=(const Pages&) = delete;
};

emt::Bytes read_back(Queue& q, const Buffer& b, std::size_t offset, std::size_t bytes) {
  emt::Bytes out(bytes);
  auto r = q.read(b, offset, out.data(), bytes);
  CHECK_MESSAGE(static_cast<bool>(r), "read -> " << emt::describe(r));
  return out;
}

}  // namespace

TEST_CASE("wrap at an odd address: fills with every pattern size give the host backend's bytes") {
  emt::Fixture f;
  constexpr std::size_t kBytes = 4096;
  Pages mem(2);
  const std::size_t widest = f.ctx.info().caps.max_fill_pattern_bytes;
  for (std::size_t skew : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{6}}) {
    auto w = Buffer::wrap(f.ctx, mem.p + skew, kBytes);
    REQUIRE_OK(w);
    for (std::size_t size = 1; size <= widest; size *= 2) {
      CAPTURE(skew);
      CAPTURE(size);
      emt::Bytes pattern = emt::random_bytes(size);
      // The whole wrap, then a range starting one pattern in (blocking and async).
      REQUIRE_OK(f.q.fill(*w, 0, kBytes, pattern.data(), size));
      emt::Bytes want(kBytes);
      for (std::size_t i = 0; i < kBytes; ++i) want[i] = pattern[i % size];
      CHECK(read_back(f.q, *w, 0, kBytes) == want);
      pattern = emt::random_bytes(size);
      auto e = f.q.fill_async(*w, size, kBytes - 2 * size, pattern.data(), size);
      REQUIRE_OK(e);
      REQUIRE_OK(e->wait());
      for (std::size_t i = size; i < kBytes - size; ++i) want[i] = pattern[i % size];
      CHECK(read_back(f.q, *w, 0, kBytes) == want);
    }
  }
  CHECK(mem.p[0] == 0);  // nothing before the wrap was touched
}

TEST_CASE("rects from and to host memory that starts inside another wrap's pages") {
  emt::Fixture f;
  Pages mem(4);
  emt::Bytes host = emt::random_bytes(mem.n);
  std::memcpy(mem.p, host.data(), mem.n);
  auto a = Buffer::wrap(f.ctx, mem.p, 2 * Pages::kPage);  // the first two pages (CUDA: registered)
  REQUIRE_OK(a);
  auto b = Buffer::create(f.ctx, 64 * 1024);
  REQUIRE_OK(b);
  REQUIRE_OK(f.q.fill(*b, 0, b->size(), "\0", 1));
  // 40 rows of 256 bytes, host row pitch 300, from byte 100 of the second page: into pages 3 and 4.
  Rect r;
  r.region = Extent3{256, 40, 1};
  r.host.origin = Offset3{100, 0, 0};
  r.host.row_pitch = 300;
  r.buffer.row_pitch = 512;
  unsigned char* const from = mem.p + Pages::kPage;
  REQUIRE_OK(f.q.write_rect(*b, r, from, mem.n - Pages::kPage));
  const emt::Bytes got = read_back(f.q, *b, 0, b->size());
  for (std::size_t y = 0; y < 40; ++y)
    CHECK(std::memcmp(got.data() + y * 512, from + 100 + y * 300, 256) == 0);
  // And back: a read_rect into the same place, only the region's rows written.
  const emt::Bytes fresh = emt::random_bytes(b->size());
  REQUIRE_OK(f.q.write(*b, 0, fresh.data(), fresh.size()));
  std::memcpy(host.data(), mem.p, mem.n);
  auto e = f.q.read_rect_async(*b, r, from, mem.n - Pages::kPage);
  REQUIRE_OK(e);
  REQUIRE_OK(e->wait());
  for (std::size_t y = 0; y < 40; ++y)
    std::memcpy(host.data() + Pages::kPage + 100 + y * 300, fresh.data() + y * 512, 256);
  CHECK(std::memcmp(mem.p, host.data(), mem.n) == 0);
}

TEST_CASE("two wraps of the same memory are the same bytes, whichever goes first") {
  emt::Fixture f;
  Pages mem(4);
  constexpr std::size_t kPage = Pages::kPage;
  auto whole = Buffer::wrap(f.ctx, mem.p, mem.n);
  auto same = Buffer::wrap(f.ctx, mem.p, mem.n);
  auto inner = Buffer::wrap(f.ctx, mem.p + kPage + 8, kPage);          // inside both
  REQUIRE_OK(whole);
  REQUIRE_OK(same);
  REQUIRE_OK(inner);
  const emt::Bytes data = emt::random_bytes(mem.n);
  REQUIRE_OK(f.q.write(*whole, 0, data.data(), data.size()));
  if (!emt::wraps_in_place(f.ctx)) {  // the rule: a map puts the bytes in the memory, a write_discard map takes them
    { auto m = f.q.map<unsigned char>(*whole, Access::read); REQUIRE_OK(m); }
    CHECK(std::memcmp(mem.p, data.data(), mem.n) == 0);
    for (Buffer* b : {&*same, &*inner}) { auto m = f.q.map<unsigned char>(*b, Access::write_discard); REQUIRE_OK(m); }
    CHECK(read_back(f.q, *same, 0, mem.n) == data);
    CHECK(read_back(f.q, *inner, 0, kPage) == emt::Bytes(data.begin() + kPage + 8, data.begin() + 2 * kPage + 8));
    return;
  }
  CHECK(read_back(f.q, *same, 0, mem.n) == data);
  CHECK(read_back(f.q, *inner, 0, kPage) == emt::Bytes(data.begin() + kPage + 8, data.begin() + 2 * kPage + 8));
  {  // a read map of one shows what was written through the other, and writes nothing back
    auto m = f.q.map<unsigned char>(*same, Access::read);
    REQUIRE_OK(m);
    CHECK(std::memcmp(m->data(), data.data(), mem.n) == 0);
  }
  CHECK(std::memcmp(mem.p, data.data(), mem.n) == 0);
  // Through the inner one, seen by the others and in the caller's memory.
  const emt::Bytes more = emt::random_bytes(kPage);
  REQUIRE_OK(f.q.write(*inner, 0, more.data(), kPage));
  emt::Bytes want = data;
  std::memcpy(want.data() + kPage + 8, more.data(), kPage);
  CHECK(read_back(f.q, *whole, 0, mem.n) == want);
  // The first wrap goes; the others still reach the memory (CUDA: the registration is shared).
  whole = Buffer{};
  REQUIRE_OK(f.q.fill(*same, 0, mem.n, "\x5a", 1));
  REQUIRE_OK(f.q.finish());
  CHECK(read_back(f.q, *inner, 0, kPage) == emt::Bytes(kPage, 0x5a));
  CHECK(mem.p[mem.n - 1] == 0x5a);
  same = Buffer{};
  REQUIRE_OK(f.q.fill(*inner, 0, kPage, "\x33", 1));
  REQUIRE_OK(f.q.finish());
  CHECK(mem.p[kPage + 8] == 0x33);
  CHECK(mem.p[kPage + 7] == 0x5a);
}

// CUDA registers a page once and one command may not cross two registrations: a wrap partly over
// another wrap's pages gets a device copy (backends/cuda/cu_register.cpp), and says so
// (is_caller_memory_in_place() false); caller memory's rule then holds for it as on a discrete OpenCL
// device (issue #30 item 8's partial case), which this case checks on every backend.
TEST_CASE("wraps of overlapping memory, neither inside the other, are the same bytes where they meet") {
  emt::Fixture f;
  Pages mem(4);
  constexpr std::size_t kPage = Pages::kPage;
  auto left = Buffer::wrap(f.ctx, mem.p, 2 * kPage);           // pages 0-1
  auto right = Buffer::wrap(f.ctx, mem.p + kPage, 3 * kPage);  // pages 1-3
  REQUIRE_OK(left);
  REQUIRE_OK(right);
  CHECK(left->is_caller_memory_in_place() == emt::wraps_in_place(f.ctx));  // the first wrap: as the device
  if (!emt::wraps_in_place(f.ctx)) CHECK_FALSE(right->is_caller_memory_in_place());
  const emt::Bytes data = emt::random_bytes(kPage);
  REQUIRE_OK(f.q.write(*left, kPage, data.data(), kPage));  // page 1 through the left one
  if (!left->is_caller_memory_in_place() || !right->is_caller_memory_in_place()) {
    // Each wrap is the device's own copy here; the caller-memory rule still meets them: a map of the
    // left one puts its bytes in the memory, a write_discard map of the right one takes them.
    { auto m = f.q.map<unsigned char>(*left, Access::read); REQUIRE_OK(m); }
    CHECK(std::memcmp(mem.p + kPage, data.data(), kPage) == 0);
    { auto m = f.q.map<unsigned char>(*right, Access::write_discard, 0, kPage); REQUIRE_OK(m); }
    CHECK(read_back(f.q, *right, 0, kPage) == data);
    // And back: through the right one, a read map of it puts page 1 in the memory, a write_discard map
    // of the left one takes it; the left one's page 0 is untouched.
    const emt::Bytes back = emt::random_bytes(kPage);
    REQUIRE_OK(f.q.write(*right, 0, back.data(), kPage));
    { auto m = f.q.map<unsigned char>(*right, Access::read, 0, kPage); REQUIRE_OK(m); }
    CHECK(std::memcmp(mem.p + kPage, back.data(), kPage) == 0);
    { auto m = f.q.map<unsigned char>(*left, Access::write_discard, kPage, kPage); REQUIRE_OK(m); }
    CHECK(read_back(f.q, *left, kPage, kPage) == back);
    CHECK(read_back(f.q, *left, 0, kPage) == emt::Bytes(kPage, 0));
    return;
  }
  CHECK(read_back(f.q, *right, 0, kPage) == data);
  left = Buffer{};
  REQUIRE_OK(f.q.fill(*right, 0, 3 * kPage, "\x11\x22", 2));
  REQUIRE_OK(f.q.finish());
  CHECK(mem.p[kPage] == 0x11);
  CHECK(mem.p[4 * kPage - 1] == 0x22);
  CHECK(mem.p[kPage - 1] == 0);
}

TEST_CASE("is_caller_memory_in_place: false for device memory and released handles, the device's answer for a wrap and its views") {
  emt::Fixture f;
  Pages mem(2);
  auto dev = Buffer::create(f.ctx, 4096);
  REQUIRE_OK(dev);
  CHECK_FALSE(dev->is_caller_memory_in_place());
  CHECK_FALSE(Buffer{}.is_caller_memory_in_place());
  auto w = Buffer::wrap(f.ctx, mem.p, mem.n);
  REQUIRE_OK(w);
  CHECK(w->is_caller_memory_in_place() == emt::wraps_in_place(f.ctx));
  auto view = w->sub(Pages::kPage, 64);
  REQUIRE_OK(view);
  CHECK(view->is_caller_memory_in_place() == w->is_caller_memory_in_place());
  *w = Buffer{};
  CHECK_FALSE(w->is_caller_memory_in_place());
}

#if EDGEMEM_HAS_DLPACK
TEST_CASE("a host-storage buffer through DLPack and back is the same bytes, not a copy") {
  emt::Fixture f;
  auto pinned = Buffer::create(f.ctx, 8192, Storage::host);
  REQUIRE_OK(pinned);
  const std::int64_t shape[1] = {8192};
  auto t = to_dlpack(*pinned, DLDataType{kDLUInt, 8, 1}, shape, 1);
  if (!t) {
    CHECK_ERRC(t, Errc::unsupported);  // OpenCL: reached only inside a map (dlpack_test.cpp)
    return;
  }
  auto back = from_dlpack(f.ctx, *t);
  REQUIRE_OK(back);
  const emt::Bytes data = emt::random_bytes(8192);
  REQUIRE_OK(f.q.write(*pinned, 0, data.data(), data.size()));
  CHECK(read_back(f.q, *back, 0, 8192) == data);
  REQUIRE_OK(f.q.fill(*back, 0, 4096, "\x77", 1));
  REQUIRE_OK(f.q.finish());
  CHECK(read_back(f.q, *pinned, 0, 1) == emt::Bytes(1, 0x77));
}
#endif

TEST_CASE("a wrap of memory the process may only read: reads, read maps and copies from it") {
  emt::Fixture f;
  constexpr std::size_t kBytes = 64 * 1024;
  void* raw = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(raw != MAP_FAILED);
  const emt::Bytes data = emt::random_bytes(kBytes);
  std::memcpy(raw, data.data(), kBytes);
  REQUIRE(mprotect(raw, kBytes, PROT_READ) == 0);
  if (!emt::wraps_in_place(f.ctx)) {  // the device would write its copy back into the pages at maps (NVIDIA: SIGSEGV)
    CHECK_ERRC(Buffer::wrap(f.ctx, raw, kBytes, MemFlags::read_only), Errc::unsupported);
    munmap(raw, kBytes);
    return;
  }
  {
    auto w = Buffer::wrap(f.ctx, raw, kBytes, MemFlags::read_only);
    REQUIRE_OK(w);
    CHECK(read_back(f.q, *w, 0, kBytes) == data);
    for (int i = 0; i < 2; ++i) {  // a read map writes nothing into the pages (CUDA: it did, SIGSEGV)
      auto m = f.q.map<unsigned char>(*w, Access::read, 4096, 8192);
      REQUIRE_OK(m);
      CHECK(std::memcmp(m->data(), data.data() + 4096, 8192) == 0);
    }
    auto copy = Buffer::create(f.ctx, kBytes);
    REQUIRE_OK(copy);
    REQUIRE_OK(f.q.copy(*w, *copy, 0, 0, kBytes));
    CHECK(read_back(f.q, *copy, 0, kBytes) == data);
    auto view = w->sub(f.ctx.base_align(), 4096);
    REQUIRE_OK(view);
    CHECK(read_back(f.q, *view, 0, 4096) == emt::Bytes(data.begin() + f.ctx.base_align(), data.begin() + f.ctx.base_align() + 4096));
    REQUIRE_OK(f.q.finish());
  }
  munmap(raw, kBytes);
}
