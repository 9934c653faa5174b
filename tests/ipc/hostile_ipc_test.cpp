// Two processes, one of them hostile (issue #29; docs/security.md): this process is the victim, a
// child process (this program again, run with --peer ATTACK FD) is the peer and plays one attack per
// scenario over a UNIX socket, with plain system calls where a friendly peer would use edgemem. The
// victim does what the README tells a consumer or producer to do, and checks: no crash (SIGBUS,
// SIGSEGV), each refusal the documented Errc, every byte it was given readable, its open fds the same
// after each scenario.
//   1. shrink race: 300 memfds sent right-sized and unsealed, then shrunk to 0 and sealed at once;
//   2. hole punch: a sealed memfd whose pages the peer punches (fallocate) while the victim reads;
//   3. a dma-buf that is a plain memfd (unsealed), a regular file, an eventfd;
//   4. malformed messages: truncated (MSG_TRUNC), two fds, no fd, a short stream, a foreign descriptor;
//   5. foreign blocks: descriptors of another pool and past the end of an attached pool;
//   6. ring consumer writing the control block (head, tail, geometry) while the victim produces;
//   7. ring producer writing the control block while the victim consumes;
//   8. a peer that dies mid-protocol (SIGKILL): receive answers released, nothing blocks.
// Runs on every backend with exportable memory (host, unified-memory OpenCL devices such as PoCL);
// elsewhere it reports itself skipped (exit 77). Exit 0: passed.
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include <edgemem/edgemem.hpp>

#include "ipc_expect.hpp"

using namespace edgemem;
using ipc::g_failures;
using ipc::why;

namespace {


/// True when `r` succeeded or failed with one of `allowed`.
template <class R>
bool ok_or(const R& r, std::initializer_list<Errc> allowed) {
  if (r) return true;
  for (Errc e : allowed)
    if (r.error().code == e) return true;
  return false;
}

int open_fds() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (readdir(d) != nullptr) ++n;
  closedir(d);
  return n - 3;
}

constexpr std::size_t kBytes = 64 * 1024;

// ---- the peer's side: plain system calls ----

/// A memfd of `bytes` bytes that takes seals, or -1.
int new_memfd(std::size_t bytes) {
  const int fd = memfd_create("hostile-peer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd >= 0 && ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/// Sends `len` bytes of `data` with `nfds` fds of `fds` (SCM_RIGHTS). True when sent.
bool send_raw(int sock, const void* data, std::size_t len, const int* fds, int nfds) {
  alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))] = {};
  iovec iov{const_cast<void*>(data), len};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (nfds > 0) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(static_cast<unsigned>(nfds) * sizeof(int));
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(static_cast<unsigned>(nfds) * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds, static_cast<unsigned>(nfds) * sizeof(int));
  }
  return sendmsg(sock, &msg, MSG_NOSIGNAL) >= 0;
}

/// A buffer descriptor of `bytes` bytes from offset 0, as IpcHandle::send would write it.
IpcDescriptor buffer_descriptor(std::size_t bytes) {
  IpcDescriptor d;
  d.bytes = bytes;
  return d;
}

/// Waits for one byte from the other side (a step of the protocol). False when it closed.
bool wait_step(int sock) {
  char c = 0;
  return recv(sock, &c, 1, 0) == 1;
}

void step(int sock) {
  const char c = 's';
  (void)send(sock, &c, 1, MSG_NOSIGNAL);
}

constexpr int kShrinkRounds = 300;

int peer_shrink(int sock) {
  const IpcDescriptor d = buffer_descriptor(kBytes);
  for (int i = 0; i < kShrinkRounds; ++i) {
    const int fd = new_memfd(kBytes);
    if (fd < 0 || !send_raw(sock, &d, sizeof d, &fd, 1)) return 1;
    (void)ftruncate(fd, 0);  // at once: the victim may be anywhere in its import
    (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    close(fd);
  }
  return wait_step(sock) ? 0 : 1;
}

int peer_punch(int sock) {
  const int fd = new_memfd(kBytes);
  if (fd < 0) return 1;
  std::vector<unsigned char> ones(kBytes, 1);
  if (write(fd, ones.data(), ones.size()) != static_cast<ssize_t>(ones.size())) return 1;
  (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
  const IpcDescriptor d = buffer_descriptor(kBytes);
  if (!send_raw(sock, &d, sizeof d, &fd, 1)) return 1;
  int punched = 0;
  for (int i = 0; i < 2000; ++i) {  // punch holes while the victim reads; it reads zeros there, never faults
    punched += fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>((i % 16) * 4096), 4096) == 0;
    if (i % 16 == 15) usleep(100);
  }
  close(fd);
  if (punched == 0) std::fprintf(stderr, "peer: no hole punched: %s\n", std::strerror(errno));
  return wait_step(sock) ? 0 : 1;
}

int peer_dma_buf(int sock) {
  const IpcDescriptor d = buffer_descriptor(kBytes);
  const int memfd = new_memfd(kBytes);  // unsealed: it could shrink it under the import
  char path[] = "/tmp/edgemem-hostile-XXXXXX";
  const int file = mkstemp(path);
  if (file >= 0) {
    unlink(path);
    (void)ftruncate(file, kBytes);
  }
  const int ev = eventfd(0, EFD_CLOEXEC);
  for (int fd : {memfd, file, ev})
    if (fd < 0 || !send_raw(sock, &d, sizeof d, &fd, 1)) return 1;
  for (int fd : {memfd, file, ev}) close(fd);
  return wait_step(sock) ? 0 : 1;
}

int peer_messages(int sock) {
  const int fd = new_memfd(kBytes);
  if (fd < 0) return 1;
  (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
  const IpcDescriptor d = buffer_descriptor(kBytes);
  std::vector<unsigned char> big(4096, 0);
  std::memcpy(big.data(), &d, sizeof d);
  const int two[2] = {fd, fd};
  IpcDescriptor foreign = d;
  foreign.magic ^= 1u;
  IpcDescriptor past = d;
  past.offset = ~std::uint64_t{0} - 10;
  const bool sent = send_raw(sock, big.data(), big.size(), &fd, 1)      // longer than a handle
                    && send_raw(sock, &d, sizeof d, two, 2)             // two fds
                    && send_raw(sock, &d, sizeof d, nullptr, 0)         // no fd
                    && send_raw(sock, &d, sizeof d - 8, &fd, 1)         // shorter than a handle
                    && send_raw(sock, &foreign, sizeof foreign, &fd, 1)  // another magic
                    && send_raw(sock, &past, sizeof past, &fd, 1);      // offset + bytes overflowing
  close(fd);
  return sent && wait_step(sock) ? 0 : 1;
}

/// The peer maps the ring it was sent (as any process holding the fd can) and returns its control block.
unsigned char* map_ring(int sock, std::size_t& mapped) {
  auto h = IpcHandle::receive(sock);
  if (!h) return nullptr;
  mapped = static_cast<std::size_t>(h->descriptor().offset + h->descriptor().bytes);
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd(), 0);
  return p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p) + h->descriptor().offset;
}

/// Writes of the ring's control block a peer tries (byte offset, value): head, tail, frame_count,
/// frame_bytes, frames_offset and magic, to absurd and to plausible values.
struct ControlWrite {
  std::size_t at;
  std::uint64_t value;
  std::size_t width;
};
constexpr ControlWrite kControlWrites[] = {
    {32, ~std::uint64_t{0}, 8}, {40, ~std::uint64_t{0}, 8}, {32, 3, 8},        {40, 1000000, 8},
    {24, 0, 4},                 {24, 0xffffffffu, 4},      {8, 1, 8},         {8, ~std::uint64_t{0}, 8},
    {16, ~std::uint64_t{0} - 7, 8}, {0, 0, 4},             {40, 0, 8},        {32, 0, 8},
};

int peer_ring(int sock) {
  std::size_t mapped = 0;
  unsigned char* control = map_ring(sock, mapped);
  if (control == nullptr) return 1;
  for (const ControlWrite& w : kControlWrites) {
    if (!wait_step(sock)) return 1;
    std::memcpy(control + w.at, &w.value, w.width);
    step(sock);
  }
  munmap(control, mapped);
  return wait_step(sock) ? 0 : 1;
}

int peer_dies(int sock) {
  (void)sock;
  raise(SIGKILL);
  return 1;
}

// ---- the victim's side ----

/// Runs this program as peer `attack` in a child process with `fd` (its socket end) inherited.
pid_t spawn(const char* self, const char* attack, int fd) {
  const std::string fd_text = std::to_string(fd);
  const pid_t pid = fork();
  if (pid == 0) {
    execl(self, self, "--peer", attack, fd_text.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// One scenario: a socket pair, the peer on one end, `victim` on the other; then the peer's exit status
/// (`expect_exit`), and this process's open fds as before.
template <class F>
void scenario(const char* self, const char* attack, int expect_exit, F&& victim) {
  const int fds_before = open_fds();
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
    EXPECT(false, "socketpair: %s", std::strerror(errno));
    return;
  }
  const int failures_before = g_failures;
  const pid_t pid = spawn(self, attack, sv[1]);
  close(sv[1]);
  victim(sv[0]);
  step(sv[0]);  // the peer may go
  EXPECT(wait_exit(pid) == expect_exit, "%s: the peer exited otherwise than expected", attack);
  close(sv[0]);
  EXPECT(open_fds() == fds_before, "%s: %d open fds before, %d after", attack, fds_before, open_fds());
  std::printf("%-9s %s\n", attack, g_failures == failures_before ? "ok" : "FAILED");
}

/// Every byte of `b`, on `q`: a fault here is the bug the suite looks for.
void read_all(Queue& q, Buffer& b, std::vector<unsigned char>& into) {
  into.assign(b.size(), 0);
  const auto r = q.read(b, 0, into.data(), into.size());
  EXPECT(r, "read of an imported buffer: %s", why(r));
}

void victim_shrink(Context& ctx, Queue& q, int sock) {
  int imported = 0, refused = 0;
  std::vector<unsigned char> bytes;
  for (int i = 0; i < kShrinkRounds; ++i) {
    auto h = IpcHandle::receive(sock);
    EXPECT(h, "receive: %s", why(h));
    if (!h) return;
    auto b = Buffer::import(ctx, std::move(*h));
    EXPECT(ok_or(b, {Errc::invalid_argument, Errc::out_of_range}), "import: %s", why(b));
    if (b) {
      ++imported;
      read_all(q, *b, bytes);
    } else {
      ++refused;
    }
  }
  std::printf("  shrink race: %d imported (all bytes read), %d refused\n", imported, refused);
}

void victim_punch(Context& ctx, Queue& q, int sock) {
  auto h = IpcHandle::receive(sock);
  EXPECT(h, "receive: %s", why(h));
  if (!h) return;
  auto b = Buffer::import(ctx, std::move(*h));
  EXPECT(b, "import: %s", why(b));
  if (!b) return;
  std::vector<unsigned char> bytes;
  std::size_t zeros = 0;
  for (int i = 0; i < 200; ++i) {
    read_all(q, *b, bytes);
    for (unsigned char c : bytes) zeros += c == 0;
    EXPECT(q.fill(*b, 0, b->size(), "\x02", 1), "fill");  // writing a punched page charges it to us: fine
  }
  std::printf("  hole punch: 200 reads and fills of %zu bytes (%zu zero bytes seen)\n", b->size(), zeros);
}

void victim_dma_buf(Context& ctx, Queue&, int sock) {
  for (const char* what : {"an unsealed memfd", "a regular file", "an eventfd"}) {
    auto h = IpcHandle::receive(sock);
    EXPECT(h, "receive: %s", why(h));
    if (!h) return;
    auto b = Buffer::import(ctx, ExternalMemory::dma_buf(h->fd(), 0, kBytes));
    EXPECT(!b && b.error().code == Errc::invalid_argument, "%s given as a dma-buf: %s", what, why(b));
  }
}

void victim_messages(Context&, Queue&, int sock) {
  const char* what[] = {"a message longer than a handle", "two fds", "no fd", "a short message",
                        "another magic", "an overflowing offset"};
  for (const char* w : what) {
    auto h = IpcHandle::receive(sock);
    EXPECT(!h && h.error().code == Errc::invalid_argument, "%s: %s", w, why(h));
  }
}

void victim_blocks(Context& ctx, Queue& q, int) {
  // The peer here is the other pool's owner: two exportable pools, the victim attaches one and is sent
  // descriptors of the other and past its end (as a peer's forged 16 bytes would be).
  FixedPool a, b;
  EXPECT(a.init_exportable(ctx, q, 4096, 4), "init_exportable a");
  EXPECT(b.init_exportable(ctx, q, 4096, 4), "init_exportable b");
  auto ha = a.export_handle();
  EXPECT(ha, "export a: %s", why(ha));
  if (!ha) return;
  auto attached = ImportedPool::attach(ctx, std::move(*ha));
  EXPECT(attached, "attach: %s", why(attached));
  auto blk = b.acquire();
  EXPECT(blk, "acquire b: %s", why(blk));
  if (!attached || !blk) return;
  auto foreign = b.descriptor(*blk);
  EXPECT(foreign, "descriptor: %s", why(foreign));
  if (!foreign) return;
  auto r = attached->block(*foreign);
  EXPECT(!r && r.error().code == Errc::invalid_argument, "a block of another pool: %s", why(r));
  auto own = a.acquire();
  EXPECT(own, "acquire a");
  if (!own) return;
  auto d = a.descriptor(*own);
  EXPECT(d, "descriptor a");
  if (!d) return;
  BlockDescriptor past = *d;
  past.index = 1u << 30;
  r = attached->block(past);
  EXPECT(!r && r.error().code == Errc::out_of_range, "a block past the pool's end: %s", why(r));
}

void victim_ring_producer(Context& ctx, Queue& q, int sock) {
  auto ring = SharedFrameRing::create(ctx, 4096, 4);
  EXPECT(ring, "create: %s", why(ring));
  if (!ring) return;
  auto h = ring->export_handle();
  EXPECT(h && h->send(sock), "send");
  int frames = 0;
  for (const ControlWrite& w : kControlWrites) {
    (void)w;
    step(sock);
    if (!wait_step(sock)) return;  // the peer wrote the control block
    for (int i = 0; i < 6; ++i) {
      auto f = ring->acquire();
      EXPECT(ok_or(f, {Errc::exhausted, Errc::busy}), "acquire after the peer's write: %s", why(f));
      if (!f) continue;
      EXPECT(f->size() == ring->frame_bytes(), "a frame of %zu bytes", f->size());
      EXPECT(q.fill(*f, 0, f->size(), "\x07", 1), "fill");
      EXPECT(ring->publish(q), "publish");
      ++frames;
    }
  }
  std::printf("  ring producer: %d frames published around %zu control-block writes\n", frames,
              sizeof kControlWrites / sizeof kControlWrites[0]);
}

void victim_ring_consumer(Context& ctx, Queue& q, int sock) {
  // The victim consumes a ring it attached; the peer (the producer's stand-in) writes its control block.
  auto ring = SharedFrameRing::create(ctx, 4096, 4);  // made here, as the peer would have
  EXPECT(ring, "create: %s", why(ring));
  if (!ring) return;
  auto mine = ring->export_handle();
  auto theirs = ring->export_handle();
  EXPECT(mine && theirs && theirs->send(sock), "export/send");
  if (!mine) return;
  auto consumer = SharedFrameRing::attach(ctx, std::move(*mine));
  EXPECT(consumer, "attach: %s", why(consumer));
  if (!consumer) return;
  int frames = 0;
  std::vector<unsigned char> bytes;
  for (const ControlWrite& w : kControlWrites) {
    (void)w;
    step(sock);
    if (!wait_step(sock)) return;
    for (int i = 0; i < 6; ++i) {
      // released: the peer's write of the consumer's word (count and epoch) reads as a newer consumer.
      auto f = consumer->take(q);
      EXPECT(ok_or(f, {Errc::exhausted, Errc::busy, Errc::released}), "take after the peer's write: %s", why(f));
      if (!f) continue;
      EXPECT(f->size() == consumer->frame_bytes(), "a frame of %zu bytes", f->size());
      read_all(q, *f, bytes);
      const auto done = consumer->consumed(q);
      EXPECT(ok_or(done, {Errc::released}), "consumed: %s", why(done));
      ++frames;
    }
    auto again = ring->export_handle();  // a consumer attaching over what the peer wrote (it replaces ours)
    if (again) {
      auto r = SharedFrameRing::attach(ctx, std::move(*again));
      EXPECT(ok_or(r, {Errc::invalid_argument, Errc::misaligned, Errc::out_of_range}), "attach again: %s", why(r));
      if (r) *consumer = std::move(*r);
    }
  }
  std::printf("  ring consumer: %d frames taken (contents are the peer's to spoil)\n", frames);
}

void victim_dies(Context&, Queue&, int sock) {
  auto h = IpcHandle::receive(sock);
  EXPECT(!h && h.error().code == Errc::released, "receive from a dead peer: %s", why(h));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--peer") == 0) {
    const int sock = std::atoi(argv[3]);
    const std::string a = argv[2];
    if (a == "shrink") return peer_shrink(sock);
    if (a == "punch") return peer_punch(sock);
    if (a == "dma-buf") return peer_dma_buf(sock);
    if (a == "messages") return peer_messages(sock);
    if (a == "ring-c" || a == "ring-p") return peer_ring(sock);
    if (a == "dies") return peer_dies(sock);
    return wait_step(sock) ? 0 : 1;  // "blocks": the victim plays both pools
  }
  auto ctx = Context::create();
  if (!ctx) return std::fprintf(stderr, "Context::create: %s\n", why(ctx)), 1;
  if (!ctx->info().caps.unified_memory) {
    std::printf("skipped: %s has no exportable memory (unified memory)\n", ctx->info().name);
    return 77;
  }
  auto q = Queue::create(*ctx);
  if (!q) return std::fprintf(stderr, "Queue::create: %s\n", why(q)), 1;
  std::string exe(4096, '\0');
  const ssize_t len = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  if (len > 0) exe.resize(static_cast<std::size_t>(len));
  const char* self = exe.c_str();
  Context& c = *ctx;
  Queue& qq = *q;
  scenario(self, "shrink", 0, [&](int s) { victim_shrink(c, qq, s); });
  scenario(self, "punch", 0, [&](int s) { victim_punch(c, qq, s); });
  scenario(self, "dma-buf", 0, [&](int s) { victim_dma_buf(c, qq, s); });
  scenario(self, "messages", 0, [&](int s) { victim_messages(c, qq, s); });
  scenario(self, "blocks", 0, [&](int s) { victim_blocks(c, qq, s); });
  scenario(self, "ring-p", 0, [&](int s) { victim_ring_producer(c, qq, s); });
  scenario(self, "ring-c", 0, [&](int s) { victim_ring_consumer(c, qq, s); });
  scenario(self, "dies", 128 + SIGKILL, [&](int s) { victim_dies(c, qq, s); });
  EXPECT(qq.finish(), "finish");
  return g_failures == 0 ? 0 : 1;
}
