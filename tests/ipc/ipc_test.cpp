// Two processes (issue #17): the test process exports, a child process (this program again, run
// with --role) imports over a UNIX socket (IpcHandle::send / receive, SCM_RIGHTS).
//  1. buffer: a buffer exported by the parent is imported by the child; each sees the other's writes.
//  2. pool: a FixedPool exported once; 2,000 frames go to the child as block descriptors and back.
//  3. ring: the parent produces 10,000 frames into a SharedFrameRing; a consumer process checks every
//     frame (sequence number and all bytes: none lost, torn, duplicated or out of order); the first
//     consumer is killed (SIGKILL) a third of the way in and a new one attaches and finishes.
//  4. read-only: a buffer exported with PeerAccess::read_only; the child reads it, and neither edgemem
//     nor a plain mmap / write / reopen through /proc of the fd it received can write it (#29.4).
// Runs on every backend with exportable memory (the host backend, unified-memory OpenCL devices such
// as PoCL); elsewhere it reports itself skipped (exit 77). Exit 0: passed.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <edgemem/edgemem.hpp>

#include "ipc_expect.hpp"

using namespace edgemem;
using ipc::g_failures;
using ipc::why;

namespace {

constexpr std::uint64_t kFrames = 10000;
constexpr std::size_t kFrameBytes = 64 * 1024;
constexpr std::uint32_t kRingFrames = 8;
constexpr std::uint64_t kPoolFrames = 2000;

/// The content of frame `seq`: its sequence number, then bytes derived from it.
void fill_frame(std::vector<unsigned char>& f, std::uint64_t seq) {
  std::memcpy(f.data(), &seq, sizeof seq);
  for (std::size_t i = sizeof seq; i < f.size(); ++i) f[i] = static_cast<unsigned char>(seq * 31 + i * 7);
}

/// The first byte where `f` differs from frame `seq`'s content, or f.size().
std::size_t check_frame(const std::vector<unsigned char>& f, std::uint64_t seq) {
  std::vector<unsigned char> want(f.size());
  fill_frame(want, seq);
  for (std::size_t i = 0; i < f.size(); ++i)
    if (f[i] != want[i]) return i;
  return f.size();
}

/// Runs this program as `role` in a child process with `fd` (its socket end) inherited.
pid_t spawn(const char* self, const char* role, int fd) {
  const std::string fd_text = std::to_string(fd);
  const pid_t pid = fork();
  if (pid == 0) {
    execl(self, self, "--role", role, fd_text.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// ---- child roles ----

/// What every child does first: its own context and queue, and the handle the parent sends.
/// False (a failure counted) when any of them fails.
bool child_start(int sock, Context& ctx, Queue& q, IpcHandle& handle) {
  auto c = Context::create();
  auto qq = c ? Queue::create(*c) : Result<Queue>(fail(c.error()));
  EXPECT(qq, "context/queue: %s", why(qq));
  if (!qq) return false;
  auto h = IpcHandle::receive(sock);
  EXPECT(h, "receive: %s", why(h));
  if (!h) return false;
  ctx = std::move(*c);
  q = std::move(*qq);
  handle = std::move(*h);
  return true;
}

int buffer_child(int sock) {
  Context ctx;
  Queue queue;
  IpcHandle h;
  if (!child_start(sock, ctx, queue, h)) return 1;
  Queue* q = &queue;
  const std::size_t n = h.descriptor().bytes;
  auto b = Buffer::import(ctx, std::move(h));
  EXPECT(b, "import: %s", why(b));
  if (!b) return 1;
  std::vector<unsigned char> got(n / 2), want(n / 2);
  fill_frame(want, 1);
  EXPECT(q->read(*b, 0, got.data(), got.size()), "read");
  EXPECT(got == want, "the child does not see the parent's bytes");
  fill_frame(want, 2);
  EXPECT(q->write(*b, n / 2, want.data(), want.size()), "write");
  {
    auto m = q->map<unsigned char>(*b, Access::read);  // caller memory is up to date after the map
    EXPECT(m, "map: %s", why(m));
  }
  const char ack = 'k';
  EXPECT(::send(sock, &ack, 1, MSG_NOSIGNAL) == 1, "ack");
  return g_failures == 0 ? 0 : 1;
}

/// The peer of a read-only export: every way it has to write the bytes fails, reading works.
int readonly_child(int sock) {
  Context ctx;
  Queue queue;
  IpcHandle h;
  if (!child_start(sock, ctx, queue, h)) return 1;
  const std::size_t n = h.descriptor().bytes;
  const int fd = h.fd();
  void* w = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  EXPECT(w == MAP_FAILED, "a writable shared mapping of a read-only export was made");
  const unsigned char junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT(pwrite(fd, junk, sizeof junk, 0) < 0, "pwrite to a read-only export succeeded");
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  const int again = open(path.c_str(), O_RDWR | O_CLOEXEC);  // reopened read-write: still sealed
  EXPECT(again >= 0, "reopen through /proc");
  if (again >= 0) {
    w = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, again, 0);
    EXPECT(w == MAP_FAILED, "a writable mapping of the reopened fd was made");
    EXPECT(pwrite(again, junk, sizeof junk, 0) < 0, "pwrite to the reopened fd succeeded");
    close(again);
  }
  auto b = Buffer::import(ctx, std::move(h), MemFlags::read_only);
  EXPECT(b, "import read-only: %s", why(b));
  if (!b) return 1;
  std::vector<unsigned char> got(n), want(n);
  fill_frame(want, 3);
  EXPECT(queue.read(*b, 0, got.data(), got.size()), "read");
  EXPECT(got == want, "the child does not see the parent's bytes");
  auto refused = queue.write(*b, 0, junk, sizeof junk);
  EXPECT(!refused && refused.error().code == Errc::access_denied, "a write to a read-only import: %s", why(refused));
  const char ack = 'k';
  EXPECT(::send(sock, &ack, 1, MSG_NOSIGNAL) == 1, "ack");
  return g_failures == 0 ? 0 : 1;
}

int ring_child(int sock) {
  Context ctx;
  Queue queue;
  IpcHandle h;
  if (!child_start(sock, ctx, queue, h)) return 1;
  Queue* q = &queue;
  auto ring = SharedFrameRing::attach(ctx, std::move(h));
  EXPECT(ring, "attach: %s", why(ring));
  if (!ring) return 1;
  std::uint64_t expect = ring->consumed_count();  // a restarted consumer resumes here
  std::vector<unsigned char> f(ring->frame_bytes());
  while (expect < kFrames) {
    auto frame = ring->take(*q);
    if (!frame) {
      EXPECT(frame.error().code == Errc::exhausted, "take: %s", why(frame));
      if (frame.error().code != Errc::exhausted) return 1;
      std::this_thread::yield();
      continue;
    }
    EXPECT(ring->frame_index() == expect, "frame %llu where %llu was due",
           static_cast<unsigned long long>(ring->frame_index()), static_cast<unsigned long long>(expect));
    EXPECT(q->read(*frame, 0, f.data(), f.size()), "read");
    const std::size_t bad = check_frame(f, expect);
    EXPECT(bad == f.size(), "frame %llu torn or wrong at byte %zu", static_cast<unsigned long long>(expect), bad);
    (void)frame->release();
    auto done = ring->consumed(*q);
    EXPECT(done, "consumed: %s", why(done));
    if (g_failures != 0) return 1;
    ++expect;
  }
  return 0;
}

/// Reads exactly `n` bytes (false when the peer closed first).
bool read_all(int fd, void* p, std::size_t n) {
  return recv(fd, p, n, MSG_WAITALL) == static_cast<ssize_t>(n);
}

int pool_child(int sock) {
  Context ctx;
  Queue queue;
  IpcHandle h;
  if (!child_start(sock, ctx, queue, h)) return 1;
  Queue* q = &queue;
  auto pool = ImportedPool::attach(ctx, std::move(h));
  EXPECT(pool, "attach: %s", why(pool));
  if (!pool) return 1;
  std::vector<unsigned char> f(pool->block_bytes());
  for (std::uint64_t expect = 0;; ++expect) {
    BlockDescriptor d;
    if (!read_all(sock, &d, sizeof d)) return 1;
    if (d.index == UINT32_MAX) return expect == kPoolFrames && g_failures == 0 ? 0 : 1;
    auto block = pool->block(d);  // a view: no system call, no driver call
    EXPECT(block, "block: %s", why(block));
    if (!block) return 1;
    EXPECT(q->read(*block, 0, f.data(), f.size()), "read");
    const std::size_t bad = check_frame(f, expect);
    EXPECT(bad == f.size(), "pool frame %llu wrong at byte %zu", static_cast<unsigned long long>(expect), bad);
    if (g_failures != 0) return 1;
    // Done with it (the blocking read has completed): hand the descriptor back.
    if (::send(sock, &d, sizeof d, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof d)) return 1;
  }
}

// ---- the parent's scenarios ----

void buffer_scenario(const char* self, const Context& ctx, Queue& q) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
    EXPECT(false, "socketpair");
    return;
  }
  const pid_t child = spawn(self, "buffer", sv[1]);
  close(sv[1]);
  const std::size_t n = 1u << 20;
  auto b = Buffer::create_exportable(ctx, n);
  EXPECT(b, "create_exportable: %s", why(b));
  std::vector<unsigned char> half(n / 2);
  fill_frame(half, 1);
  if (b) EXPECT(q.write(*b, 0, half.data(), half.size()), "write");
  auto h = b ? b->export_handle() : Result<IpcHandle>(fail(b.error()));
  EXPECT(h, "export_handle: %s", why(h));
  if (h) EXPECT(h->send(sv[0]), "send");
  char ack = 0;
  EXPECT(recv(sv[0], &ack, 1, 0) == 1 && ack == 'k', "no ack from the child");
  if (b) {
    std::vector<unsigned char> got(n / 2);
    EXPECT(q.read(*b, n / 2, got.data(), got.size()), "read");
    fill_frame(half, 2);
    EXPECT(got == half, "the parent does not see the child's bytes");
  }
  close(sv[0]);
  EXPECT(wait_exit(child) == 0, "the buffer child failed");
  std::printf("buffer: parent and child share one buffer both ways: %s\n", g_failures == 0 ? "ok" : "FAILED");
}

/// A buffer exported read-only (PeerAccess::read_only): the child cannot change a byte of it.
void readonly_scenario(const char* self, const Context& ctx, Queue& q) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
    EXPECT(false, "socketpair");
    return;
  }
  const pid_t child = spawn(self, "readonly", sv[1]);
  close(sv[1]);
  const std::size_t n = 1u << 16;
  auto b = Buffer::create_exportable(ctx, n, MemFlags::read_write, PeerAccess::read_only);
  EXPECT(b, "create_exportable(PeerAccess::read_only): %s", why(b));
  std::vector<unsigned char> frame(n);
  fill_frame(frame, 3);
  if (b) EXPECT(q.write(*b, 0, frame.data(), frame.size()), "write");
  auto h = b ? b->export_handle() : Result<IpcHandle>(fail(b.error()));
  EXPECT(h, "export_handle: %s", why(h));
  if (h) EXPECT(h->send(sv[0]), "send");
  char ack = 0;
  EXPECT(recv(sv[0], &ack, 1, 0) == 1 && ack == 'k', "no ack from the child");
  if (b) {
    std::vector<unsigned char> got(n);
    EXPECT(q.read(*b, 0, got.data(), got.size()), "read");
    EXPECT(got == frame, "the child changed a read-only export");
  }
  close(sv[0]);
  EXPECT(wait_exit(child) == 0, "the read-only child failed");
  std::printf("read-only: the child reads the export and cannot write it: %s\n", g_failures == 0 ? "ok" : "FAILED");
}

/// A FixedPool exported once; 2,000 frames go to the child as 16-byte block descriptors and come back
/// the same way before their block is reused.
void pool_scenario(const char* self, const Context& ctx, Queue& q) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
    EXPECT(false, "socketpair");
    return;
  }
  const pid_t child = spawn(self, "pool", sv[1]);
  close(sv[1]);
  FixedPool<4> pool;
  auto made = pool.init_exportable(ctx, q, kFrameBytes, 4);
  EXPECT(made, "init_exportable: %s", why(made));
  auto h = made ? pool.export_handle() : Result<IpcHandle>(fail(made.error()));
  EXPECT(h, "export_handle: %s", why(h));
  if (h) EXPECT(h->send(sv[0]), "send");
  PooledBuffer out[4];
  std::vector<unsigned char> f(pool.block_bytes());
  std::uint64_t seq = 0;
  while (h && seq < kPoolFrames && g_failures == 0) {
    auto b = pool.acquire();
    if (!b) {  // all four are with the child: wait for one back
      BlockDescriptor back;
      EXPECT(read_all(sv[0], &back, sizeof back), "no block came back");
      if (g_failures != 0) break;
      EXPECT(back.index < 4 && out[back.index].valid(), "a block came back twice or was never sent");
      if (back.index < 4) (void)out[back.index].release();
      continue;
    }
    fill_frame(f, seq);
    EXPECT(q.write(*b, 0, f.data(), f.size()), "write");
    {
      auto m = q.map<unsigned char>(*b, Access::read);  // the write has completed and reached the memory
      EXPECT(m, "map: %s", why(m));
    }
    auto d = pool.descriptor(*b);
    EXPECT(d, "descriptor: %s", why(d));
    if (!d) break;
    out[d->index] = std::move(*b);
    EXPECT(::send(sv[0], &*d, sizeof *d, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof *d), "send descriptor");
    ++seq;
  }
  BlockDescriptor end;
  end.index = UINT32_MAX;
  (void)::send(sv[0], &end, sizeof end, MSG_NOSIGNAL);
  EXPECT(wait_exit(child) == 0, "the pool child failed");
  close(sv[0]);
  std::printf("pool: a FixedPool exported once, %llu frames sent as block descriptors and returned: %s\n",
              static_cast<unsigned long long>(seq), g_failures == 0 ? "ok" : "FAILED");
}

/// Starts a consumer process and sends it the ring's handle; returns its pid (or -1).
pid_t start_consumer(const char* self, const SharedFrameRing& ring) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return -1;
  const pid_t pid = spawn(self, "ring", sv[1]);
  close(sv[1]);
  auto h = ring.export_handle();
  EXPECT(h, "export_handle: %s", why(h));
  if (h) EXPECT(h->send(sv[0]), "send");
  close(sv[0]);
  return pid;
}

void ring_scenario(const char* self, const Context& ctx, Queue& q) {
  auto ring = SharedFrameRing::create(ctx, kFrameBytes, kRingFrames);
  EXPECT(ring, "create: %s", why(ring));
  if (!ring) return;
  pid_t consumer = start_consumer(self, *ring);
  bool killed = false;
  std::vector<unsigned char> f(kFrameBytes);
  std::uint64_t full = 0;
  for (std::uint64_t seq = 0; seq < kFrames && g_failures == 0;) {
    if (!killed && ring->consumed_count() >= kFrames / 3) {
      kill(consumer, SIGKILL);  // mid-run, possibly between take() and consumed()
      EXPECT(wait_exit(consumer) == 128 + SIGKILL, "the first consumer was not killed");
      killed = true;
      consumer = start_consumer(self, *ring);
    }
    auto frame = ring->acquire();
    if (!frame) {
      EXPECT(frame.error().code == Errc::exhausted, "acquire: %s", why(frame));
      ++full;
      std::this_thread::yield();
      continue;
    }
    EXPECT(ring->frame_index() == seq, "acquired frame %llu", static_cast<unsigned long long>(ring->frame_index()));
    fill_frame(f, seq);
    EXPECT(q.write(*frame, 0, f.data(), f.size()), "write");
    (void)frame->release();
    auto published = ring->publish(q);
    EXPECT(published, "publish: %s", why(published));
    ++seq;
  }
  EXPECT(wait_exit(consumer) == 0, "the second consumer failed");
  EXPECT(ring->published() == kFrames && ring->consumed_count() == kFrames, "published %llu, consumed %llu",
         static_cast<unsigned long long>(ring->published()), static_cast<unsigned long long>(ring->consumed_count()));
  EXPECT(killed, "the first consumer was never killed");
  std::printf("ring: %llu frames of %zu bytes through %u shared frames, consumer killed at a third and "
              "restarted, producer found the ring full %llu times: %s\n",
              static_cast<unsigned long long>(kFrames), kFrameBytes, kRingFrames,
              static_cast<unsigned long long>(full), g_failures == 0 ? "ok" : "FAILED");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--role") == 0) {
    const int sock = std::atoi(argv[3]);
    if (std::strcmp(argv[2], "buffer") == 0) return buffer_child(sock);
    if (std::strcmp(argv[2], "pool") == 0) return pool_child(sock);
    if (std::strcmp(argv[2], "readonly") == 0) return readonly_child(sock);
    return ring_child(sock);
  }
  auto ctx = Context::create();
  if (!ctx) return std::fprintf(stderr, "Context::create: %s\n", why(ctx)), 1;
  if (!ctx->info().caps.unified_memory) {
    std::printf("skipped: %s has no exportable memory (unified memory)\n", ctx->info().name);
    return 77;
  }
  auto q = Queue::create(*ctx);
  if (!q) return std::fprintf(stderr, "Queue::create: %s\n", why(q)), 1;
  const char* self = "/proc/self/exe";
  std::string exe(4096, '\0');
  const ssize_t len = readlink(self, exe.data(), exe.size() - 1);
  if (len > 0) exe.resize(static_cast<std::size_t>(len));
  buffer_scenario(exe.c_str(), *ctx, *q);
  readonly_scenario(exe.c_str(), *ctx, *q);
  pool_scenario(exe.c_str(), *ctx, *q);
  ring_scenario(exe.c_str(), *ctx, *q);
  return g_failures == 0 ? 0 : 1;
}
