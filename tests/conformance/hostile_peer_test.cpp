// A hostile peer (issue #29, docs/security.md): another process that sends us fds, descriptors and
// messages and then does whatever plain system calls allow (ftruncate, F_ADD_SEALS) at any moment.
// Played here in one process with the public API and those calls, on every backend. Each case names
// the #29 item it covers. The bad calls with their fd counts are in tests/bad_input/hostile_peer_test.cpp.
#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>
#include <utility>

#include <sys/eventfd.h>

#include "external_helpers.hpp"
#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// The bytes of `fd` at `offset` (pread), `n` long; shorter when the file is.
emt::Bytes file_bytes(int fd, std::size_t offset, std::size_t n) {
  emt::Bytes out(n);
  const ssize_t got = pread(fd, out.data(), n, static_cast<off_t>(offset));
  out.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return out;
}

/// A memfd of `bytes` random bytes carrying `seals`; `content` receives them.
int memfd_with(std::size_t bytes, emt::Seals seals, emt::Bytes& content) {
  const int fd = emt::make_memfd(bytes, seals);
  content = emt::random_bytes(bytes);
  if (fd >= 0 && pwrite(fd, content.data(), bytes, 0) != static_cast<ssize_t>(bytes)) {
    close(fd);
    return -1;
  }
  return fd;
}

/// A descriptor of `bytes` bytes at `offset` naming `ctx`'s device.
IpcDescriptor descriptor_of(const Context& ctx, std::size_t offset, std::size_t bytes) {
  IpcDescriptor d;
  d.offset = offset;
  d.bytes = bytes;
  d.has_uuid = ctx.info().has_uuid ? 1 : 0;
  std::memcpy(d.uuid, ctx.info().uuid, sizeof d.uuid);
  return d;
}

/// What the peer does to the memfd of one round of the race below.
enum class Attack { shrink_then_seal, seal_only, shrink_only, zero_then_seal };

void attack(int fd, std::size_t bytes, Attack a) {
  const int fixed = F_SEAL_SHRINK | F_SEAL_GROW;
  switch (a) {
    case Attack::shrink_then_seal:  // the race: right size at the check, then 0 bytes, sealed
      (void)!ftruncate(fd, 0);
      (void)!fcntl(fd, F_ADD_SEALS, fixed);
      break;
    case Attack::seal_only:  // an honest producer, sealing late
      (void)!fcntl(fd, F_ADD_SEALS, fixed);
      break;
    case Attack::shrink_only:
      (void)!ftruncate(fd, 0);
      break;
    case Attack::zero_then_seal:  // other bytes at the same size (no crash; the peer may feed anything)
      (void)!ftruncate(fd, 0);
      (void)!ftruncate(fd, static_cast<off_t>(bytes));
      (void)!fcntl(fd, F_ADD_SEALS, fixed);
      break;
  }
}

}  // namespace

// ---- #29 item 1: seals before size; no SIGBUS --------------------------------------------------------

TEST_CASE("hostile peer: an unsealed memfd is refused, so the peer cannot shrink it under our mapping (#29.1)") {
  emt::Fixture f;
  const std::size_t n = 4 * emt::page_size();
  emt::Bytes content;
  const int fd = memfd_with(n, emt::Seals::none, content);
  REQUIRE(fd >= 0);
  const int fds = emt::open_fds();
  {
    auto b = Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, n));
    CHECK_ERRC(b, Errc::invalid_argument);
    if (b) {
      // Today's code took it: the peer truncates the file, and the first read of the buffer would be
      // SIGBUS. Show that the peer could, then give the bytes back so this run goes on.
      CHECK_MESSAGE(ftruncate(fd, 0) != 0, "the peer truncated a memfd we have mapped");
      REQUIRE(ftruncate(fd, static_cast<off_t>(n)) == 0);
    }
  }
  CHECK(emt::open_fds() == fds);
  // A memfd made without MFD_ALLOW_SEALING carries F_SEAL_SEAL alone: never sealable, refused too.
  const int plain = memfd_create("emt-plain", MFD_CLOEXEC);
  REQUIRE(plain >= 0);
  REQUIRE(ftruncate(plain, static_cast<off_t>(n)) == 0);
  {
    auto b = Buffer::import(f.ctx, ExternalMemory::memfd(plain, 0, n));
    CHECK_ERRC(b, Errc::invalid_argument);
    if (b) CHECK_MESSAGE(ftruncate(plain, 0) != 0, "the peer truncated a memfd we have mapped");
  }
  close(plain);
  CHECK(emt::open_fds() == fds);
  close(fd);
}

TEST_CASE("hostile peer: a memfd sealed against shrinking imports; the peer's shrink fails, growth is harmless (#29.1)") {
  emt::Fixture f;
  const std::size_t n = 4 * emt::page_size();
  emt::Bytes content;
  const int fd = memfd_with(n, emt::Seals::shrink, content);
  REQUIRE(fd >= 0);
  auto b = Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, n));
  REQUIRE_OK(b);
  errno = 0;
  CHECK(ftruncate(fd, 0) == -1);
  CHECK(errno == EPERM);
  CHECK(ftruncate(fd, static_cast<off_t>(n / 2)) == -1);
  CHECK(ftruncate(fd, static_cast<off_t>(2 * n)) == 0);  // growing cannot take our pages away
  emt::Bytes got(n);
  CHECK_OK(f.q.read(*b, 0, got.data(), n));
  CHECK(got == content);
  close(fd);
}

TEST_CASE("hostile peer: a peer racing shrink and seal against our imports never crashes us (#29.1)") {
  // The peer (a thread here: a process would do the same system calls on the same file) attacks each
  // round's memfd at a random moment while this thread imports it, through an IpcHandle (needs it sealed
  // against shrinking and growing) or as a plain memfd (needs it sealed against shrinking). Before the
  // fix the size was read before the seals, and a shrink + seal between the two let a 0-byte file in:
  // the read below was SIGBUS. Every 8th round the peer seals before the import, so some imports succeed.
  emt::Fixture f;
  const std::size_t n = 2 * emt::page_size();
  std::atomic<int> round_fd{-1};
  std::atomic<unsigned> round{0}, done{0};
  std::atomic<bool> stop{false};
  std::atomic<int> action{0};
  std::thread peer([&] {
    std::mt19937 rng(29);
    unsigned seen = 0;
    while (!stop.load(std::memory_order_acquire)) {
      const unsigned r = round.load(std::memory_order_acquire);
      if (r == seen) {
        std::this_thread::yield();
        continue;
      }
      const unsigned spin = rng() % 4000;
      std::atomic<unsigned> spun{0};  // a random delay the compiler keeps
      while (spun.fetch_add(1, std::memory_order_relaxed) < spin) {
      }
      attack(round_fd.load(), n, static_cast<Attack>(action.load()));
      seen = r;
      done.store(r, std::memory_order_release);
    }
  });
  auto wait_done = [&](unsigned r) {
    while (done.load(std::memory_order_acquire) != r) std::this_thread::yield();
  };
  const int fds = emt::open_fds();
  std::mt19937 rng(1729);
  unsigned imported = 0, refused = 0, rounds = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1000);
  while (std::chrono::steady_clock::now() < end && rounds < 200000) {
    ++rounds;
    emt::Bytes content;
    const int fd = memfd_with(n, emt::Seals::none, content);
    if (fd < 0) {
      CHECK_MESSAGE(false, "memfd_create failed in round " << rounds);
      break;
    }
    const bool early = rounds % 8 == 0;
    action.store(early ? static_cast<int>(Attack::seal_only) : static_cast<int>(rng() % 4));
    round_fd.store(fd);
    round.store(rounds, std::memory_order_release);
    if (early) wait_done(rounds);
    Result<Buffer> b = fail(Errc::released, "not yet");
    if (rounds % 2 == 0) {
      auto h = IpcHandle::adopt(fcntl(fd, F_DUPFD_CLOEXEC, 0), descriptor_of(f.ctx, 0, n));
      b = h ? Buffer::import(f.ctx, std::move(*h)) : Result<Buffer>(fail(h.error()));
    } else {
      b = Buffer::import(f.ctx, ExternalMemory::memfd(fd, 0, n));
    }
    wait_done(rounds);  // the attack is over: whatever the peer did is done
    bool good = true;
    if (b) {
      ++imported;
      emt::Bytes got(n);
      const auto read = f.q.read(*b, 0, got.data(), n);  // SIGBUS here if the file were shrunk
      const emt::Bytes now = file_bytes(fd, 0, n);
      CHECK_MESSAGE(now.size() == n, "an imported file was shrunk (round " << rounds << ")");
      CHECK_MESSAGE((read && got == now), "round " << rounds << ": the import does not read the file's bytes");
      good = now.size() == n && read && got == now && b->release();
    } else {
      ++refused;
      const Errc e = b.error().code;
      good = e == Errc::invalid_argument || e == Errc::out_of_range;
      CHECK_MESSAGE(good, "round " << rounds << ": " << emt::describe(b));
    }
    close(fd);
    if (!good) break;
  }
  stop.store(true, std::memory_order_release);
  peer.join();
  MESSAGE(rounds << " rounds: " << imported << " imported, " << refused << " refused");
  CHECK(imported >= rounds / 8);  // every early-sealed round imports
  CHECK(refused > 0);
  CHECK(emt::open_fds() == fds);
}

// ---- #29 item 2: only a real dma-buf is a dma-buf ----------------------------------------------------

TEST_CASE("hostile peer: a regular file or an unsealed memfd given as a dma-buf is refused (#29.2)") {
  emt::Fixture f;
  const std::size_t n = 2 * emt::page_size();
  const bool driver_dma_buf = (f.ctx.info().caps.external_memory & (external_dma_buf | external_arm_import)) != 0;
  emt::Bytes content;
  const int unsealed = memfd_with(n, emt::Seals::none, content);
  REQUIRE(unsealed >= 0);
  char path[] = "/tmp/emt-dmabuf-XXXXXX";
  const int file = mkstemp(path);
  REQUIRE(file >= 0);
  unlink(path);
  REQUIRE(ftruncate(file, static_cast<off_t>(n)) == 0);
  const int ev = eventfd(0, EFD_CLOEXEC);  // an anonymous inode that is no dma-buf
  REQUIRE(ev >= 0);
  const int fds = emt::open_fds();
  for (const int fd : {unsealed, file}) {
    auto b = Buffer::import(f.ctx, ExternalMemory::dma_buf(fd, 0, n));
    CHECK_ERRC(b, Errc::invalid_argument);
    if (b) {  // today: taken, and the peer can shrink it under the mapping
      CHECK_MESSAGE(ftruncate(fd, 0) != 0, "the peer truncated a \"dma-buf\" we have mapped");
      REQUIRE(ftruncate(fd, static_cast<off_t>(n)) == 0);
    }
  }
  // A file on disk cannot be sealed: refused as a memfd too (mmap it yourself and import the pointer).
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(file, 0, n)), Errc::invalid_argument);
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::dma_buf(ev, 0, 8)), Errc::invalid_argument);
  CHECK(emt::open_fds() == fds);
  // A memfd sealed against shrinking may stand in for a dma-buf (as udmabuf's memfds must be sealed):
  // it takes the mmap path and the peer cannot shrink it.
  const int sealed = memfd_with(n, emt::Seals::shrink, content);
  REQUIRE(sealed >= 0);
  if (!driver_dma_buf) {
    auto b = Buffer::import(f.ctx, ExternalMemory::dma_buf(sealed, 0, n));
    REQUIRE_OK(b);
    CHECK(b->import_path() == ImportPath::mmap_host_ptr);
    CHECK(ftruncate(sealed, 0) == -1);
    emt::Bytes got(n);
    CHECK_OK(f.q.read(*b, 0, got.data(), n));
    CHECK(got == content);
  }
  for (const int fd : {unsealed, file, ev, sealed}) close(fd);
}

TEST_CASE("hostile peer: a real dma-buf (udmabuf) is recognised as one (#29.2)") {
  emt::Fixture f;
  const std::size_t n = 16 * emt::page_size();
  int memfd = -1;
  std::string why;
  const int dmabuf = emt::make_udmabuf(n, memfd, why);
  if (dmabuf < 0) EMT_SKIP(why);
  auto b = Buffer::import(f.ctx, ExternalMemory::dma_buf(dmabuf, 0, n));
  CHECK_OK(b);
  // A dma-buf is no memfd: given as one it is refused.
  CHECK_ERRC(Buffer::import(f.ctx, ExternalMemory::memfd(dmabuf, 0, n)), Errc::invalid_argument);
  close(dmabuf);
  close(memfd);
}

// ---- #29 item 8: pools carry an identity of their own ------------------------------------------------

namespace {

/// Caller memory's rule (external.hpp), for devices that keep their own copy of an import (no unified
/// memory: NVIDIA): the bytes `from` holds on the device reach its memory at a map, and that memory
/// reaches `to`'s device copy at a write_discard map and unmap. Free where imports are used in place.
void hand_over(Queue& q, Buffer& from, Buffer& to) {
  { auto m = q.map<unsigned char>(from, Access::read); REQUIRE_OK(m); }
  { auto m = q.map<unsigned char>(to, Access::write_discard); REQUIRE_OK(m); }
}

}  // namespace

TEST_CASE("hostile peer: two exportable pools in one memfd refuse each other's block descriptors (#29.8)") {
  emt::Fixture f;
  const std::size_t block = 4096, count = 4;
  if (block % f.align() != 0) EMT_SKIP("base alignment " << f.align() << " is over 4096 bytes");
  // One memfd, sealed for export, holding two pools: blocks [0, 4) and [4, 8), each over its own import.
  const int fd = emt::make_memfd(2 * count * block, emt::Seals::fixed);
  REQUIRE(fd >= 0);
  FixedPool<4> pools[2];
  ImportedPool attached[2];
  for (int p = 0; p < 2; ++p) {
    auto imp = Buffer::import(f.ctx, ExternalMemory::memfd(fd, p * count * block, count * block));
    REQUIRE_OK(imp);
    Buffer views[count];
    for (std::size_t i = 0; i < count; ++i) {
      auto v = imp->sub(i * block, block);
      REQUIRE_OK(v);
      views[i] = std::move(*v);
    }
    auto made = pools[p].init_over(f.ctx, f.q, views, count, block);
    REQUIRE_OK(made);
    auto h = pools[p].export_handle();
    REQUIRE_OK(h);
    auto a = ImportedPool::attach(f.ctx, std::move(*h));
    REQUIRE_OK(a);
    attached[p] = std::move(*a);
  }
  auto b0 = pools[0].acquire();
  auto b1 = pools[1].acquire();
  REQUIRE_OK(b0);
  REQUIRE_OK(b1);
  const std::uint8_t one = 1, two = 2;
  CHECK_OK(f.q.fill(*b0, 0, block, &one, 1));
  CHECK_OK(f.q.fill(*b1, 0, block, &two, 1));
  auto d0 = pools[0].descriptor(*b0);
  auto d1 = pools[1].descriptor(*b1);
  REQUIRE_OK(d0);
  REQUIRE_OK(d1);
  CHECK(d0->pool != d1->pool);
  // Each attached pool takes its own pool's descriptors...
  auto v0 = attached[0].block(*d0);
  auto v1 = attached[1].block(*d1);
  REQUIRE_OK(v0);
  REQUIRE_OK(v1);
  hand_over(f.q, *b0, *v0);
  hand_over(f.q, *b1, *v1);
  CHECK(f.snapshot(*v0) == emt::Bytes(block, 1));
  CHECK(f.snapshot(*v1) == emt::Bytes(block, 2));
  // ... and refuses the other's, though both live in the same file.
  CHECK_ERRC(attached[1].block(*d0), Errc::invalid_argument);
  CHECK_ERRC(attached[0].block(*d1), Errc::invalid_argument);
  // A second attachment of the same pool is the same pool: its descriptors are good there.
  auto again = pools[0].export_handle();
  REQUIRE_OK(again);
  auto a0 = ImportedPool::attach(f.ctx, std::move(*again));
  REQUIRE_OK(a0);
  auto v0b = a0->block(*d0);
  REQUIRE_OK(v0b);
  hand_over(f.q, *b0, *v0b);
  CHECK(f.snapshot(*v0b) == emt::Bytes(block, 1));
  close(fd);
}
