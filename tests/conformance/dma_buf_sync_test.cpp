// Every CPU access to an imported dma-buf is bracketed with DMA_BUF_IOCTL_SYNC (issue #29 item 5):
// read, write, fill, copy (both ways), the rect forms, async forms, maps, and the copy of an
// allow_copy import. There is no dma-buf exporter on CI (no /dev/udmabuf), so the cases use the test
// seam of dma_buf_observer.hpp: a memfd given as a dma-buf while an observer is installed is bracketed
// as a dma-buf would be, and the observer plays a non-coherent device. At SYNC_START it puts the
// device's bytes (`truth`) into the memory, so only a CPU access after a START sees them; at a
// writing SYNC_END it takes the memory's bytes as the device's, then scribbles over the memory (what
// the CPU's caches hold outside a bracket is anything), so only a CPU write before an END reaches the
// device. A path without its bracket reads the scribble or loses its write: these cases fail on it.
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <linux/dma-buf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <edgemem/dma_buf_observer.hpp>

#include "external_helpers.hpp"
#include "test_helpers.hpp"

using namespace edgemem;

namespace {

constexpr unsigned char kScribble = 0xEE;

/// A simulated non-coherent dma-buf over `memfd`: the device's bytes and the log of syncs.
struct NonCoherent {
  int memfd = -1;
  emt::Bytes truth;  ///< what the device holds
  std::vector<std::uint64_t> log;
  bool bad_fd = false;  ///< a sync named an fd that is no duplicate of the memfd
  NonCoherent() = default;
  NonCoherent(const NonCoherent&) = delete;
  NonCoherent& operator=(const NonCoherent&) = delete;
  ~NonCoherent() {
    if (memfd >= 0) close(memfd);
  }

  static void observe(void* user, int fd, std::uint64_t flags) noexcept {
    auto* self = static_cast<NonCoherent*>(user);
    self->log.push_back(flags);
    struct stat a {}, b {};
    if (fstat(fd, &a) != 0 || fstat(self->memfd, &b) != 0 || a.st_ino != b.st_ino) self->bad_fd = true;
    const std::size_t n = self->truth.size();
    if ((flags & DMA_BUF_SYNC_END) == 0) {
      (void)!pwrite(self->memfd, self->truth.data(), n, 0);  // the device's bytes become visible
      return;
    }
    if ((flags & DMA_BUF_SYNC_WRITE) != 0) (void)!pread(self->memfd, self->truth.data(), n, 0);  // flushed
    const emt::Bytes scribble(n, kScribble);
    (void)!pwrite(self->memfd, scribble.data(), n, 0);
  }

  /// Takes the log, checking it is one bracket: START then END, both reading or both writing.
  void expect_bracket(bool writes) {
    CAPTURE(writes);
    REQUIRE(log.size() == 2);
    const std::uint64_t dir = writes ? DMA_BUF_SYNC_RW : DMA_BUF_SYNC_READ;
    CHECK(log[0] == (DMA_BUF_SYNC_START | dir));
    CHECK(log[1] == (DMA_BUF_SYNC_END | dir));
    CHECK_FALSE(bad_fd);
    log.clear();
  }
};

/// Installs the observer for the scope of one case.
struct Observed {
  bool on = false;
  explicit Observed(NonCoherent& nc) { on = static_cast<bool>(observe_dma_buf_syncs(NonCoherent::observe, &nc)); }
  ~Observed() { (void)observe_dma_buf_syncs(nullptr, nullptr); }
  Observed(const Observed&) = delete;
  Observed& operator=(const Observed&) = delete;
};

}  // namespace

TEST_CASE("dma-buf sync: the observer seam is there in test builds, unsupported elsewhere") {
  const auto r = observe_dma_buf_syncs(nullptr, nullptr);
  if (live_objects_enabled) CHECK_OK(r);
  else CHECK_ERRC(r, Errc::unsupported);
}

TEST_CASE("dma-buf sync: read, write, fill, copy, rects, async forms and maps of an imported dma-buf are bracketed") {
  if (!live_objects_enabled) return;  // the seam is compiled out (case above)
  emt::Fixture f;
  const std::size_t n = 2 * emt::page_size();
  const int fds = emt::open_fds();
  {
    NonCoherent nc;
    nc.memfd = emt::make_memfd(n, emt::Seals::fixed);
    REQUIRE(nc.memfd >= 0);
    nc.truth = emt::random_bytes(n);
    const emt::Bytes scribble(n, kScribble);
    REQUIRE(pwrite(nc.memfd, scribble.data(), n, 0) == static_cast<ssize_t>(n));
    Observed observed(nc);
    REQUIRE(observed.on);
    auto b = Buffer::import(f.ctx, ExternalMemory::dma_buf(nc.memfd, 0, n));
    REQUIRE_OK(b);
    if (b->import_path() != ImportPath::mmap_host_ptr) {
      MESSAGE("the device imported the memfd through its driver: no CPU access to bracket");
      return;
    }
    nc.expect_bracket(false);  // making the buffer over it (a driver may copy the pages in)
    // A device that keeps its own copy of caller memory (no unified memory: NVIDIA) writes the memory
    // only at maps (caller memory's rule, external.hpp): there, writes are checked by reading them back
    // and by their brackets, and the memory (`truth`) only after the map below.
    const bool in_place = emt::wraps_in_place(f.ctx);

    emt::Bytes out(n);
    CHECK_OK(f.q.read(*b, 0, out.data(), n));
    CHECK(out == nc.truth);
    nc.expect_bracket(false);

    const emt::Bytes data = emt::random_bytes(n);
    CHECK_OK(f.q.write(*b, 0, data.data(), n));
    if (in_place) CHECK(nc.truth == data);
    nc.expect_bracket(true);

    emt::Bytes expect = data;
    if (f.ctx.info().caps.max_fill_pattern_bytes >= 1) {
      const unsigned char seven = 7;
      CHECK_OK(f.q.fill(*b, 64, 128, &seven, 1));
      std::memset(expect.data() + 64, 7, 128);
      if (in_place) CHECK(nc.truth == expect);
      nc.expect_bracket(true);
    }

    auto plain = Buffer::create(f.ctx, n);
    REQUIRE_OK(plain);
    CHECK_OK(f.q.copy(*b, *plain, 0, 0, n));  // out of the dma-buf
    nc.expect_bracket(false);
    CHECK(f.snapshot(*plain) == expect);
    const emt::Bytes other = emt::random_bytes(n);
    CHECK_OK(f.q.write(*plain, 0, other.data(), n));
    CHECK(nc.log.empty());  // other memory: no sync
    CHECK_OK(f.q.copy(*plain, *b, 0, 0, n));  // into it
    if (in_place) CHECK(nc.truth == other);
    nc.expect_bracket(true);
    CHECK_OK(f.q.copy(*b, *b, 0, n / 2, n / 2));  // within it: one bracket, read-write
    std::memcpy(expect.data(), other.data(), n);
    std::memcpy(expect.data() + n / 2, other.data(), n / 2);
    if (in_place) CHECK(nc.truth == expect);
    nc.expect_bracket(true);

    // The async forms: the bracket closes only after the command completed.
    const emt::Bytes again = emt::random_bytes(n);
    auto ev = f.q.write_async(*b, 0, again.data(), n);
    REQUIRE_OK(ev);
    CHECK_OK(ev->wait());
    if (in_place) CHECK(nc.truth == again);
    nc.expect_bracket(true);
    auto rev = f.q.read_async(*b, 0, out.data(), n);
    REQUIRE_OK(rev);
    CHECK_OK(rev->wait());
    CHECK(out == again);
    nc.expect_bracket(false);

    // Rects.
    const Rect rect{RectSide{Offset3{16, 1, 0}, 256, 0}, RectSide{}, Extent3{32, 3, 1}};
    const emt::Bytes rows = emt::random_bytes(32 * 3);
    CHECK_OK(f.q.write_rect(*b, rect, rows.data(), rows.size()));
    nc.expect_bracket(true);
    emt::Bytes rows_back(rows.size());
    CHECK_OK(f.q.read_rect(*b, rect, rows_back.data(), rows_back.size()));
    nc.expect_bracket(false);
    CHECK(rows_back == rows);
    for (std::size_t y = 0; in_place && y < 3; ++y)
      CHECK(std::memcmp(nc.truth.data() + 256 * (1 + y) + 16, rows.data() + 32 * y, 32) == 0);

    // Maps (bracketed before #29 too; here so every path is in one place).
    {
      auto m = f.q.map<unsigned char>(*b, Access::write);
      REQUIRE_OK(m);
      CHECK(std::memcmp(m->data(), nc.truth.data(), n) == 0);
      (*m)[5] = 0x42;
      CHECK_OK(m->unmap());
    }
    CHECK(nc.truth[5] == 0x42);
    nc.expect_bracket(true);

    // Commands refused before the backend touch nothing and sync nothing.
    CHECK_ERRC(f.q.read(*b, n, out.data(), 1), Errc::out_of_range);
    CHECK(nc.log.empty());
  }
  CHECK(emt::open_fds() == fds);
}

TEST_CASE("dma-buf sync: the copy of an allow_copy import reads the dma-buf inside a bracket") {
  if (!live_objects_enabled) return;
  emt::Fixture f;
  const std::size_t n = 2 * emt::page_size();
  const std::size_t offset = 64;  // the mapping misses the base alignment: the import copies
  if (f.align() <= offset || f.align() > emt::page_size()) {
    MESSAGE("base alignment " << f.align() << ": a 64-byte offset does not force the copy path here");
    return;
  }
  const int fds = emt::open_fds();
  {
    NonCoherent nc;
    nc.memfd = emt::make_memfd(n, emt::Seals::fixed);
    REQUIRE(nc.memfd >= 0);
    nc.truth = emt::random_bytes(n);
    const emt::Bytes scribble(n, kScribble);
    REQUIRE(pwrite(nc.memfd, scribble.data(), n, 0) == static_cast<ssize_t>(n));
    Observed observed(nc);
    REQUIRE(observed.on);
    ImportOptions copy;
    copy.allow_copy = true;
    auto b = Buffer::import(f.ctx, ExternalMemory::dma_buf(nc.memfd, offset, n - offset), copy);
    REQUIRE_OK(b);
    if (b->import_path() != ImportPath::copy) {
      MESSAGE("the device imported the memfd through its driver: no copy");
      return;
    }
    nc.expect_bracket(false);
    CHECK(f.snapshot(*b) == emt::Bytes(nc.truth.begin() + offset, nc.truth.end()));
    CHECK(nc.log.empty());  // a copy is no dma-buf: later commands sync nothing
  }
  CHECK(emt::open_fds() == fds);
}
