// What a peer can reach through an export (issue #29 item 6, docs/external.md): the peer
// receives a whole memfd, so export_handle() exports only a buffer that is all of it. A view of part of
// a buffer, a pool block, or an import of part of a memfd is refused with access_denied (before #29
// the peer got the root's memfd and read and overwrote the producer's bytes outside the view); a whole
// buffer, a view covering all of it, a pool's export and a SharedFrameRing's give exactly their memory
// (and create_exportable's zero padding to the next page). Open fds are counted.
#include <cstring>
#include <utility>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "external_helpers.hpp"
#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// The size in bytes of the file behind the fd of `h` (what a peer holding it can map).
std::size_t file_bytes(const IpcHandle& h) {
  struct stat st {};
  return fstat(h.fd(), &st) == 0 ? static_cast<std::size_t>(st.st_size) : 0;
}

std::size_t round_up_page(std::size_t n) { return (n + emt::page_size() - 1) / emt::page_size() * emt::page_size(); }

}  // namespace

TEST_CASE("view export: a view of part of a buffer is refused; the whole buffer gives exactly its bytes") {
  emt::Fixture f;
  if (!f.ctx.info().caps.unified_memory) {
    CHECK_ERRC(Buffer::create_exportable(f.ctx, 4096), Errc::unsupported);
    return;
  }
  const std::size_t n = 4 * emt::page_size() + 100;
  const int fds = emt::open_fds();
  {
    auto a = Buffer::create_exportable(f.ctx, n);
    REQUIRE_OK(a);
    const emt::Bytes bytes = emt::random_bytes(n);
    CHECK_OK(f.q.write(*a, 0, bytes.data(), n));
    const auto live = live_objects();
    for (const std::size_t offset : {std::size_t{0}, f.align() * 4}) {
      CAPTURE(offset);
      auto view = a->sub(offset, 8192);
      REQUIRE_OK(view);
      const int before = emt::open_fds();
      CHECK_ERRC(view->export_handle(), Errc::access_denied);
      CHECK(emt::open_fds() == before);
    }
    auto tail = a->sub(f.align(), n - f.align());
    REQUIRE_OK(tail);
    CHECK_ERRC(tail->export_handle(), Errc::access_denied);
    if (live_objects_enabled) CHECK(live_objects().total() == live.total() + 1);  // only `tail` is new
    CHECK(f.snapshot(*a) == bytes);
    // A view covering all of it is the buffer: exported, as the buffer is.
    auto all = a->sub(0, n);
    REQUIRE_OK(all);
    for (const Buffer* b : {&*a, &*all}) {
      auto h = b->export_handle();
      REQUIRE_OK(h);
      CHECK(h->descriptor().offset == 0);
      CHECK(h->descriptor().bytes == n);
      CHECK(file_bytes(*h) == round_up_page(n));  // its bytes and the zero padding, nothing else
      void* p = mmap(nullptr, file_bytes(*h), PROT_READ, MAP_SHARED, h->fd(), 0);
      REQUIRE(p != MAP_FAILED);
      CHECK(std::memcmp(p, bytes.data(), n) == 0);
      const emt::Bytes zeros(round_up_page(n) - n, 0);
      CHECK(std::memcmp(static_cast<unsigned char*>(p) + n, zeros.data(), zeros.size()) == 0);
      munmap(p, file_bytes(*h));
    }
  }
  CHECK(emt::open_fds() == fds);
}

TEST_CASE("view export: pool blocks are not exported one by one; the pool's export is the pool") {
  emt::Fixture f;
  FixedPool<4> pool;
  auto made = pool.init_exportable(f.ctx, f.q, 3000, 4);
  if (!f.ctx.info().caps.unified_memory) {
    CHECK_ERRC(made, Errc::unsupported);
    return;
  }
  REQUIRE_OK(made);
  const int fds = emt::open_fds();
  {
    auto block = pool.acquire();
    REQUIRE_OK(block);
    CHECK_ERRC(block->buffer().export_handle(), Errc::access_denied);
    CHECK(emt::open_fds() == fds);
    auto h = pool.export_handle();
    REQUIRE_OK(h);
    CHECK(h->descriptor().offset == 0);
    CHECK(h->descriptor().bytes == pool.block_bytes() * 4);
    CHECK(file_bytes(*h) == round_up_page(pool.block_bytes() * 4));
  }
  CHECK(emt::open_fds() == fds);
}

TEST_CASE("view export: a SharedFrameRing exports its ring memory, nothing more") {
  emt::Fixture f;
  auto ring = SharedFrameRing::create(f.ctx, 4096, 4);
  if (!f.ctx.info().caps.unified_memory) {
    CHECK_ERRC(ring, Errc::unsupported);
    return;
  }
  REQUIRE_OK(ring);
  const int fds = emt::open_fds();
  {
    auto h = ring->export_handle();
    REQUIRE_OK(h);
    CHECK(h->descriptor().offset == 0);
    CHECK(h->descriptor().bytes >= 4 * 4096);
    CHECK(file_bytes(*h) == round_up_page(h->descriptor().bytes));
  }
  CHECK(emt::open_fds() == fds);
}

TEST_CASE("view export: an import of part of a memfd is not re-exported; an import of all of it is") {
  emt::Fixture f;
  const std::size_t page = emt::page_size();
  const int fds = emt::open_fds();
  {
    const int memfd = emt::make_memfd(4 * page, emt::Seals::fixed);
    REQUIRE(memfd >= 0);
    auto part = Buffer::import(f.ctx, ExternalMemory::memfd(memfd, page, 2 * page));
    REQUIRE_OK(part);
    CHECK_ERRC(part->export_handle(), Errc::access_denied);
    auto head = Buffer::import(f.ctx, ExternalMemory::memfd(memfd, 0, 4 * page - 100));
    REQUIRE_OK(head);
    CHECK_ERRC(head->export_handle(), Errc::access_denied);  // the file's last 100 bytes are not its own
    auto whole = Buffer::import(f.ctx, ExternalMemory::memfd(memfd, 0, 4 * page));
    REQUIRE_OK(whole);
    auto h = whole->export_handle();
    REQUIRE_OK(h);
    CHECK(h->descriptor().offset == 0);
    CHECK(h->descriptor().bytes == 4 * page);
    auto view = whole->sub(0, page);
    REQUIRE_OK(view);
    CHECK_ERRC(view->export_handle(), Errc::access_denied);
    close(memfd);
  }
  CHECK(emt::open_fds() == fds);
}
