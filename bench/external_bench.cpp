// external_bench: external memory against copying, in one run on one device (issue #17).
//   import_nv12_1080p     Buffer::import of a 1080p NV12 frame in a memfd (3,110,400 bytes) + release
//   write_nv12_1080p      the same frame copied into an existing device buffer with Queue::write
//                         (the baseline: what a camera frame costs without an import)
//   ring_frames_per_s     a SharedFrameRing of 8 NV12 frames between this process and a forked consumer
//                         process (producer writes each frame, consumer reads it)
//   pipe_frames_per_s     the same frames copied through a pipe to the same kind of consumer process
// Prints the medians and `import_vs_write=<write / import>` (above 1: the import is faster),
// `ring_vs_pipe=<ring fps / pipe fps>`, and the ring's p50 / p99 frame latency (from the producer
// starting the frame's write to the consumer taking it).
// Usage: external_bench [--quick]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <edgemem/edgemem.hpp>

#include "../examples/user_allocator_setup.hpp"

using namespace edgemem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kFrame = 1920 * 1080 * 3 / 2;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double us_since(Clock::time_point t) { return std::chrono::duration<double, std::micro>(Clock::now() - t).count(); }

double ns_now() { return std::chrono::duration<double, std::nano>(Clock::now().time_since_epoch()).count(); }

/// The consumer process of ring_fps (this program run with --consumer <socket fd> <frames>): takes
/// and reads every frame, then prints the latency from the producer starting a frame's write to the
/// consumer taking it.
int ring_consumer(int sock, int frames) {
  auto c = Context::create();
  auto cq = c ? Queue::create(*c) : Result<Queue>(fail(c.error()));
  auto h = IpcHandle::receive(sock);
  if (!cq || !h) return 1;
  auto consumer = SharedFrameRing::attach(*c, std::move(*h));
  if (!consumer) return 1;
  std::vector<unsigned char> f(kFrame);
  std::vector<double> lat;
  for (int i = 0; i < frames;) {
    auto frame = consumer->take(*cq);
    if (!frame) {
      std::this_thread::yield();
      continue;
    }
    const double taken = ns_now();
    if (!cq->read(*frame, 0, f.data(), f.size())) return 1;
    double sent;
    std::memcpy(&sent, f.data(), sizeof sent);
    lat.push_back((taken - sent) / 1000);
    (void)frame->release();
    if (!consumer->consumed(*cq)) return 1;
    ++i;
  }
  std::sort(lat.begin(), lat.end());
  std::printf("ring_latency_p50_us=%.1f ring_latency_p99_us=%.1f\n", lat[lat.size() / 2], lat[lat.size() * 99 / 100]);
  return 0;
}

/// Frames/s of `frames` frames through a SharedFrameRing to a consumer process (this program again,
/// started with fork + exec: a driver's threads do not survive a bare fork).
double ring_fps(const Context& ctx, Queue& q, int frames) {
  auto ring = SharedFrameRing::create(ctx, kFrame, 8);
  int sv[2];
  if (!ring || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 0;
  const std::string fd_text = std::to_string(sv[1]), frames_text = std::to_string(frames);
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/proc/self/exe", "external_bench", "--consumer", fd_text.c_str(), frames_text.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(sv[1]);
  auto h = ring->export_handle();
  if (!h || !h->send(sv[0])) return 0;
  close(sv[0]);
  std::vector<unsigned char> f(kFrame, 0x33);
  const auto t0 = Clock::now();
  for (int i = 0; i < frames;) {
    auto frame = ring->acquire();
    if (!frame) {
      std::this_thread::yield();
      continue;
    }
    const double start = ns_now();  // the frame carries when its producer started writing it
    std::memcpy(f.data(), &start, sizeof start);
    if (!q.write(*frame, 0, f.data(), f.size())) return 0;
    (void)frame->release();
    if (!ring->publish(q)) return 0;
    ++i;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? frames / (us_since(t0) / 1e6) : 0;
}

/// Frames/s of the same frames copied through a pipe to a forked consumer.
double pipe_fps(int frames) {
  int p[2];
  if (pipe(p) != 0) return 0;
  const pid_t pid = fork();
  if (pid == 0) {
    close(p[1]);
    std::vector<unsigned char> f(kFrame);
    for (int i = 0; i < frames; ++i) {
      std::size_t got = 0;
      while (got < kFrame) {
        const ssize_t n = read(p[0], f.data() + got, kFrame - got);
        if (n <= 0) _exit(1);
        got += static_cast<std::size_t>(n);
      }
    }
    _exit(0);
  }
  close(p[0]);
  std::vector<unsigned char> f(kFrame, 0x33);
  const auto t0 = Clock::now();
  for (int i = 0; i < frames; ++i) {
    std::size_t put = 0;
    while (put < kFrame) {
      const ssize_t n = write(p[1], f.data() + put, kFrame - put);
      if (n <= 0) return 0;
      put += static_cast<std::size_t>(n);
    }
  }
  close(p[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  return frames / (us_since(t0) / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  example::setup_user_allocator();
  if (argc == 4 && std::strcmp(argv[1], "--consumer") == 0) return ring_consumer(std::atoi(argv[2]), std::atoi(argv[3]));
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int reps = quick ? 50 : 400, frames = quick ? 300 : 3000;
  auto ctx = Context::create();
  auto q = ctx ? Queue::create(*ctx) : Result<Queue>(fail(ctx.error()));
  if (!q) return std::fprintf(stderr, "no context/queue\n"), 1;
  std::printf("external_bench on %s (%s backend)\n", ctx->info().name, ctx->info().backend);
  const int fd = memfd_create("nv12", MFD_CLOEXEC | MFD_ALLOW_SEALING);  // imports need F_SEAL_SHRINK
  if (fd < 0 || ftruncate(fd, kFrame) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) return 1;
  std::vector<unsigned char> host(kFrame, 0x5a);
  if (pwrite(fd, host.data(), kFrame, 0) != static_cast<ssize_t>(kFrame)) return 1;
  auto dst = Buffer::create(*ctx, kFrame);
  if (!dst) return 1;
  std::vector<double> imp, wr;
  for (int i = 0; i < reps; ++i) {
    auto t = Clock::now();
    auto b = Buffer::import(*ctx, ExternalMemory::memfd(fd, 0, kFrame));
    if (!b || !b->release()) return std::fprintf(stderr, "import failed\n"), 1;
    imp.push_back(us_since(t));
    t = Clock::now();
    if (!q->write(*dst, 0, host.data(), kFrame)) return 1;
    wr.push_back(us_since(t));
  }
  const double mi = median(imp), mw = median(wr);
  std::printf("case=import_nv12_1080p median_us=%.2f\ncase=write_nv12_1080p median_us=%.2f\nimport_vs_write=%.2f\n",
              mi, mw, mw / mi);
  close(fd);
  if (!ctx->info().caps.unified_memory) {
    std::printf("ring: skipped (no exportable memory on this device)\n");
    return 0;
  }
  std::fflush(stdout);
  const double rf = ring_fps(*ctx, *q, frames);
  const double pf = pipe_fps(frames);
  std::printf("case=ring_frames_per_s value=%.0f\ncase=pipe_frames_per_s value=%.0f\nring_vs_pipe=%.2f\n", rf, pf,
              pf > 0 ? rf / pf : 0);
  return rf > 0 && pf > 0 ? 0 : 1;
}
