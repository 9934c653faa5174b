// The hostile-peer fuzz driver (issue #29; docs/security.md): everything another process can hand us,
// made from fuzz bytes, through the public API of one build of edgemem. It implements driver.hpp's
// interface, so fuzz_main.cpp (libFuzzer, edgemem_fuzz_peer) and replay_main.cpp
// (edgemem_fuzz_peer_replay, the meson test 'fuzz_peer_replay' over tests/fuzz/peer_corpus) drive it.
// An input is one of three attacks, chosen by its first byte:
//   0 message:    raw bytes sent on a UNIX socket pair (SEQPACKET, DGRAM or STREAM) with none, one or
//                 two fds of a kind the input picks (memfds of any size and seals, an eventfd, a pipe),
//                 then IpcHandle::receive and, when it takes the message, every use of the handle;
//   1 descriptor: raw IpcDescriptor bytes and such an fd given to IpcHandle::adopt, then the same uses;
//   2 ring:       a SharedFrameRing made here and attached here, driven by a sequence of producer and
//                 consumer calls while the "peer" writes any bytes into the ring's control block through
//                 its own mapping of the exported fd, and attaches again over what it wrote.
// The promise checked (docs/security.md): no crash (SIGBUS, SIGSEGV, a sanitizer report), every refusal an
// Errc the API documents for that call, every buffer handed out lies inside the memory and reads in full,
// and no fd leaked or closed: the process's open fds are counted after each input.
#include <dirent.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

#include <edgemem/buffer.hpp>
#include <edgemem/context.hpp>
#include <edgemem/imported_pool.hpp>
#include <edgemem/ipc_handle.hpp>
#include <edgemem/queue.hpp>
#include <edgemem/shared_frame_ring.hpp>

#include "driver.hpp"

namespace fz {
namespace {

using edgemem::Errc;

struct State {
  edgemem::Context ctx;
  edgemem::Queue q;
  const char* label = "(libFuzzer input)";
  std::uint64_t operations = 0;
};

State& state() {
  static State s;
  return s;
}

[[noreturn]] void report(const char* what, const char* detail) {
  std::fprintf(stderr, "edgemem_fuzz_peer: %s: %s (input %s)\n", what, detail, state().label);
  std::abort();
}

/// EDGEMEM_FUZZ_PEER_TRACE=1: each call's outcome on stderr (to see how far an input gets).
bool tracing() {
  static const bool on = std::getenv("EDGEMEM_FUZZ_PEER_TRACE") != nullptr;
  return on;
}

/// Aborts unless `r` succeeded or failed with one of `allowed`.
template <class R>
void expect(const R& r, const char* call, std::initializer_list<Errc> allowed) {
  if (tracing())
    std::fprintf(stderr, "  %s -> %s%s%s\n", call, r ? "ok" : edgemem::to_string(r.error().code), r ? "" : ": ",
                 r ? "" : r.error().message);
  if (r) return;
  for (Errc e : allowed)
    if (r.error().code == e) return;
  char detail[256];
  std::snprintf(detail, sizeof detail, "Errc %d not documented for this call: %s", static_cast<int>(r.error().code),
                r.error().message != nullptr ? r.error().message : "");
  report(call, detail);
}

/// Bytes of the input, read front to back; zeros once it runs out.
struct Reader {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t u8() { return n != 0 ? (--n, *p++) : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{u8()} << (8 * i);
    return v;
  }
  void bytes(void* out, std::size_t k) {
    auto* o = static_cast<std::uint8_t*>(out);
    for (std::size_t i = 0; i < k; ++i) o[i] = u8();
  }
  bool empty() const { return n == 0; }
};

int open_fds() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (readdir(d) != nullptr) ++n;
  closedir(d);
  return n - 3;  // ".", ".." and the directory's own fd
}

/// An fd of the kind the input picks, or -1 (none). The sizes stay small: executions per second matter
/// more than size, and the checks do not depend on it.
int make_fd(Reader& in) {
  const std::uint8_t kind = in.u8() % 6;
  switch (kind) {
    case 0: return -1;
    case 1:
    case 2: {  // a memfd of any size (0 included), sealed as the input says (kind 1: all the export's seals)
      const int fd = memfd_create("fz-peer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
      if (fd < 0) return -1;
      const off_t size = static_cast<off_t>(in.u32() % (256u * 1024u));
      const std::uint8_t seals = in.u8();
      if (ftruncate(fd, size) != 0) {
        close(fd);
        return -1;
      }
      int s = kind == 1 ? (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) : 0;
      if (kind == 2) {
        if (seals & 1) s |= F_SEAL_SHRINK;
        if (seals & 2) s |= F_SEAL_GROW;
        if (seals & 4) s |= F_SEAL_WRITE;
        if (seals & 8) s |= F_SEAL_SEAL;
      }
      if (s != 0) (void)fcntl(fd, F_ADD_SEALS, s);
      return fd;
    }
    case 3: return eventfd(0, EFD_CLOEXEC);
    case 4: {
      int p[2];
      if (pipe2(p, O_CLOEXEC) != 0) return -1;
      close(p[1]);
      return p[0];
    }
    default: return open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
}

/// Reads every byte of `b` (on the queue, and through a blocking map): an access that faults is the bug.
void read_all(edgemem::Buffer& b, std::size_t expect_bytes) {
  if (b.size() != expect_bytes && expect_bytes != 0) report("a buffer handed out", "has the wrong size");
  if (b.size() > (64u << 20)) report("a buffer handed out", "is larger than any memory the input made");
  std::vector<unsigned char> host(b.size());
  auto r = state().q.read(b, 0, host.data(), host.size());
  expect(r, "Queue::read of imported memory", {Errc::busy});
  auto m = state().q.map<unsigned char>(b, edgemem::Access::read);
  expect(m, "Queue::map of imported memory", {Errc::busy, Errc::unsupported, Errc::exhausted});
  if (m) {
    unsigned sum = 0;
    for (unsigned char c : *m) sum += c;
    (void)sum;
    expect(m->unmap(), "unmap", {});
  }
  ++state().operations;
}

/// Every use a consumer makes of a handle it was given: import as a buffer, attach as a pool (then
/// blocks the input names), or attach as a ring.
void use(edgemem::IpcHandle h, Reader& in) {
  State& s = state();
  const edgemem::IpcDescriptor d = h.descriptor();
  switch (in.u8() % 3) {
    case 0: {
      auto b = edgemem::Buffer::import(s.ctx, std::move(h), in.u8() & 1 ? edgemem::MemFlags::read_only
                                                                         : edgemem::MemFlags::read_write);
      expect(b, "Buffer::import(IpcHandle)", {Errc::invalid_argument, Errc::out_of_range, Errc::misaligned,
                                              Errc::unsupported, Errc::backend_failure, Errc::released,
                                              Errc::access_denied});
      if (b) read_all(*b, static_cast<std::size_t>(d.bytes));
      break;
    }
    case 1: {
      auto p = edgemem::ImportedPool::attach(s.ctx, std::move(h));
      expect(p, "ImportedPool::attach", {Errc::invalid_argument, Errc::out_of_range, Errc::misaligned,
                                         Errc::unsupported, Errc::backend_failure, Errc::released,
                                         Errc::access_denied});
      if (!p) break;
      for (int i = in.u8() % 4; i >= 0; --i) {
        edgemem::BlockDescriptor bd;
        bd.pool = in.u8() & 1 ? d.pool_id : (std::uint64_t{in.u32()} << 32 | in.u32());
        bd.index = in.u8() & 1 ? in.u8() : in.u32();
        bd.reserved = in.u8() & 1 ? in.u32() : 0;
        auto b = p->block(bd);
        expect(b, "ImportedPool::block", {Errc::invalid_argument, Errc::out_of_range, Errc::out_of_host_memory});
        if (b) read_all(*b, p->block_bytes());
      }
      break;
    }
    default: {
      auto r = edgemem::SharedFrameRing::attach(s.ctx, std::move(h));
      expect(r, "SharedFrameRing::attach", {Errc::invalid_argument, Errc::out_of_range, Errc::misaligned,
                                            Errc::unsupported, Errc::backend_failure, Errc::released,
                                            Errc::access_denied});
      if (!r) break;
      auto f = r->take(s.q);
      expect(f, "SharedFrameRing::take", {Errc::exhausted, Errc::released});
      if (f) read_all(*f, r->frame_bytes());
      break;
    }
  }
}

/// Attack 0: a message of the input's bytes, with the input's fds, on a socket of the input's type.
void attack_message(Reader& in) {
  static constexpr int kTypes[] = {SOCK_SEQPACKET, SOCK_DGRAM, SOCK_STREAM};
  const int type = kTypes[in.u8() % 3];
  int sv[2];
  if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) != 0) return;
  int fds[2] = {make_fd(in), -1};
  if (in.u8() & 1) fds[1] = make_fd(in);
  std::vector<std::uint8_t> body(in.u8() % 2 ? sizeof(edgemem::IpcDescriptor) : in.u32() % 512u);
  in.bytes(body.data(), body.size());
  const int nfds = (fds[0] >= 0) + (fds[1] >= 0);
  const int send_fds[2] = {fds[0] >= 0 ? fds[0] : fds[1], fds[1]};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  iovec iov{body.data(), body.size()};
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
    std::memcpy(CMSG_DATA(c), send_fds, static_cast<unsigned>(nfds) * sizeof(int));
  }
  const bool sent = sendmsg(sv[0], &msg, MSG_NOSIGNAL | MSG_DONTWAIT) >= 0;
  for (int fd : fds)
    if (fd >= 0) close(fd);
  shutdown(sv[0], SHUT_WR);  // a short STREAM message ends (receive gets EOF, never blocks)
  if (sent || type == SOCK_STREAM) {
    auto h = edgemem::IpcHandle::receive(sv[1]);
    expect(h, "IpcHandle::receive", {Errc::invalid_argument, Errc::released});
    if (h) use(std::move(*h), in);
  }
  close(sv[0]);
  close(sv[1]);
  ++state().operations;
}

/// Attack 1: the input's descriptor with the input's fd, given to adopt (as a process that received
/// them by its own means would).
void attack_descriptor(Reader& in) {
  edgemem::IpcDescriptor d;
  if (in.u8() & 1) {  // near a real one, so the checks past magic and version get exercised
    d.offset = in.u8() & 1 ? 0 : in.u32();
    d.bytes = in.u8() & 1 ? in.u32() % (512u * 1024u) : (std::uint64_t{in.u32()} << 32 | in.u32());
    d.kind = static_cast<edgemem::ExportKind>(in.u8() % 4);
    d.block_count = in.u8() & 1 ? in.u8() : in.u32();
    d.block_bytes = in.u8() & 1 ? std::uint64_t{in.u8()} * 64 : (std::uint64_t{in.u32()} << 32 | in.u32());
    d.pool_id = in.u8() & 1 ? 0 : in.u32() | 1u;
    d.has_uuid = in.u8() & 1;
    in.bytes(d.uuid, sizeof d.uuid);
  } else {
    in.bytes(&d, sizeof d);
  }
  const int fd = make_fd(in);
  auto h = edgemem::IpcHandle::adopt(fd, d);  // closes fd on failure
  expect(h, "IpcHandle::adopt", {Errc::invalid_argument});
  if (h) use(std::move(*h), in);
  ++state().operations;
}

/// Attack 2: a ring made and attached here; the peer writes the control block at any step.
void attack_ring(Reader& in) {
  State& s = state();
  const std::size_t frame_bytes = 1 + in.u8() % 64 * 64;
  const std::uint32_t count = 1 + in.u8() % 6;
  auto producer = edgemem::SharedFrameRing::create(s.ctx, frame_bytes, count);
  expect(producer, "SharedFrameRing::create", {Errc::unsupported});
  if (!producer) return;
  auto h = producer->export_handle();
  expect(h, "SharedFrameRing::export_handle", {});
  const std::size_t mapped = static_cast<std::size_t>(h->descriptor().offset + h->descriptor().bytes);
  void* peer = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd(), 0);
  if (peer == MAP_FAILED) report("the peer's mmap of the ring", "failed");
  auto* control = static_cast<unsigned char*>(peer) + h->descriptor().offset;
  auto consumer = edgemem::SharedFrameRing::attach(s.ctx, std::move(*h));
  expect(consumer, "SharedFrameRing::attach", {});
  edgemem::Buffer acquired, taken;
  for (int steps = 0; steps < 64 && !in.empty(); ++steps) {
    switch (in.u8() % 7) {
      case 0: {
        auto f = producer->acquire();
        expect(f, "SharedFrameRing::acquire", {Errc::busy, Errc::exhausted});
        if (f) {
          read_all(*f, producer->frame_bytes());
          acquired = std::move(*f);
        }
        break;
      }
      case 1: expect(producer->publish(s.q), "SharedFrameRing::publish", {Errc::invalid_argument}); break;
      case 2: {
        auto f = consumer->take(s.q);  // released: the peer wrote the consumer's word (a newer epoch)
        expect(f, "SharedFrameRing::take", {Errc::busy, Errc::exhausted, Errc::released});
        if (f) {
          read_all(*f, consumer->frame_bytes());
          taken = std::move(*f);
        }
        break;
      }
      case 3: expect(consumer->consumed(s.q), "SharedFrameRing::consumed", {Errc::invalid_argument, Errc::released}); break;
      case 4:
      case 5: {  // the peer writes 1 to 8 bytes anywhere in the control block (48 bytes, and a little past)
        const std::size_t at = in.u8() % 64, k = 1 + in.u8() % 8;
        unsigned char bytes[8] = {};
        for (std::size_t i = 0; i < k && i < sizeof bytes; ++i) bytes[i] = in.u8();  // (g++ -O3 misjudges in.bytes here)
        std::memcpy(control + at, bytes, k);
        break;
      }
      default: {  // a consumer attaching again over whatever the peer wrote
        auto again = producer->export_handle();
        expect(again, "SharedFrameRing::export_handle", {});
        auto r = edgemem::SharedFrameRing::attach(s.ctx, std::move(*again));
        expect(r, "SharedFrameRing::attach", {Errc::invalid_argument, Errc::misaligned, Errc::out_of_range});
        if (r) {
          taken = edgemem::Buffer();
          *consumer = std::move(*r);
        }
        break;
      }
    }
    ++s.operations;
  }
  munmap(peer, mapped);
}

}  // namespace

bool init_targets() noexcept {
  State& s = state();
  auto c = edgemem::Context::create();
  if (!c) return false;
  s.ctx = std::move(*c);
  auto q = edgemem::Queue::create(s.ctx);
  if (!q) return false;
  s.q = std::move(*q);
  return true;
}

const char* target_names() noexcept { return "peer (" EDGEMEM_FUZZ_PEER_BACKEND ")"; }

void run_input(const std::uint8_t* data, std::size_t size) noexcept {
  const int fds_before = open_fds();
  {
    Reader in{data, size};
    switch (in.u8() % 3) {
      case 0: attack_message(in); break;
      case 1: attack_descriptor(in); break;
      default: attack_ring(in); break;
    }
  }
  if (!state().q.finish()) report("Queue::finish after the input", "failed");
  const int fds_after = open_fds();
  if (fds_after != fds_before) {
    char detail[96];
    std::snprintf(detail, sizeof detail, "%d open fds before the input, %d after", fds_before, fds_after);
    report("fds leaked or closed", detail);
  }
}

void set_input_label(const char* label) noexcept {
  state().label = label;
  if (tracing()) std::fprintf(stderr, "%s\n", label);
}

std::uint64_t operations_run() noexcept { return state().operations; }

}  // namespace fz
