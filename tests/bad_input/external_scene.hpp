// Helpers of the external-memory cases of the bad-input catalogue (external_test.cpp,
// external_ipc_test.cpp, shared_ring_test.cpp): a scene that, besides the Scene checks, records an
// import of a memfd of random bytes (its contents re-read through edgemem and through the fd after
// every bad call) and counts the process's open fds around each bad call, so no failed import,
// export or IPC call leaks or closes a descriptor. Linux only, like the API's fd paths.
#pragma once
#include <cstddef>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <sys/socket.h>
#include <unistd.h>

#include "bad_input/catalogue.hpp"
#include "conformance/external_helpers.hpp"

namespace emt::bad::ext {

using namespace edgemem;

/// A fixture, its scene, and a recorded memfd import (4 pages of random bytes, sealed against
/// shrinking only, so it imports but is not re-exportable).
struct ExtScene {
  emt::Fixture f;
  Scene s{f};
  std::size_t page = emt::page_size();
  int memfd = -1;   ///< the recorded memfd (owned; closed by the destructor)
  Buffer imported;  ///< Buffer::import of all of `memfd`, watched by the scene
  std::vector<int> owned;  ///< fds the case made (closed by the destructor)

  ExtScene() {
    s.make(64);
    memfd = emt::make_memfd(4 * page, emt::Seals::shrink);
    CHECK(memfd >= 0);
    const emt::Bytes bytes = emt::random_bytes(4 * page);
    CHECK(pwrite(memfd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()));
    auto b = Buffer::import(f.ctx, ExternalMemory::memfd(memfd, 0, 4 * page));
    CHECK_MESSAGE(static_cast<bool>(b), "Buffer::import of the recorded memfd -> " << emt::describe(b));
    if (b) imported = std::move(*b);
    if (imported.valid()) s.watch(imported);
    s.watch("the recorded memfd's bytes (pread)", [this] { return fd_text(memfd, 0, 4 * page); });
  }
  ~ExtScene() {
    imported = Buffer{};
    for (const int fd : owned) close(fd);
    if (memfd >= 0) close(memfd);
  }
  ExtScene(const ExtScene&) = delete;
  ExtScene& operator=(const ExtScene&) = delete;

  /// Scene::expect, plus: the process has `fd_delta` more open fds afterwards (0: none leaked, none
  /// closed; -1 where the call consumes an fd the case made before it, as Buffer::import(IpcHandle&&)).
  /// Every state tracked with track() must also read the same after the call as just before it.
  template <class Call>
  void expect(Errc errc, Call&& call, int fd_delta = 0) {
    std::vector<std::string> values;
    for (const auto& t : tracked) values.push_back(t.second());
    const int before = emt::open_fds();
    s.expect(errc, std::forward<Call>(call));
    CHECK_MESSAGE(emt::open_fds() == before + fd_delta, "the failed call leaked or closed an fd");
    for (std::size_t i = 0; i < tracked.size(); ++i) {
      CAPTURE(tracked[i].first);
      CHECK(tracked[i].second() == values[i]);
    }
  }
  /// State compared across each bad call (read just before it, unlike Scene::watch's, read once), for
  /// state the case changes between its bad calls (a ring's indices).
  void track(std::string what, std::function<std::string()> state) {
    tracked.emplace_back(std::move(what), std::move(state));
  }
  std::vector<std::pair<std::string, std::function<std::string()>>> tracked;

  /// `fd` kept for the case and closed at its end; returns it.
  int own(int fd) {
    CHECK(fd >= 0);
    if (fd >= 0) owned.push_back(fd);
    return fd;
  }
  /// A new memfd of `bytes` bytes carrying `seals`, owned by the case.
  int memfd_of(std::size_t bytes, emt::Seals seals) { return own(emt::make_memfd(bytes, seals)); }
  /// A connected UNIX stream socket pair, owned by the case.
  std::pair<int, int> socket_pair() {
    int sv[2] = {-1, -1};
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    return {own(sv[0]), own(sv[1])};
  }
  /// A pipe, owned by the case: {read end, write end}.
  std::pair<int, int> pipe_pair() {
    int p[2] = {-1, -1};
    CHECK(pipe2(p, O_CLOEXEC) == 0);
    return {own(p[0]), own(p[1])};
  }
  /// An fd number that is not open (a memfd, closed).
  static int closed_fd() {
    const int fd = emt::make_memfd(64, emt::Seals::none);
    close(fd);
    return fd;
  }
  /// A descriptor of `bytes` bytes at `offset`, naming this device.
  IpcDescriptor descriptor(std::size_t offset, std::size_t bytes) const {
    IpcDescriptor d;
    d.offset = offset;
    d.bytes = bytes;
    d.has_uuid = f.ctx.info().has_uuid ? 1 : 0;
    std::memcpy(d.uuid, f.ctx.info().uuid, sizeof d.uuid);
    return d;
  }
  /// A handle over a new memfd of `fd_bytes` bytes carrying `seals`, described by `d` (the handle owns it).
  IpcHandle handle_of(std::size_t fd_bytes, emt::Seals seals, const IpcDescriptor& d) {
    auto h = IpcHandle::adopt(emt::make_memfd(fd_bytes, seals), d);
    CHECK_MESSAGE(static_cast<bool>(h), "IpcHandle::adopt -> " << emt::describe(h));
    return h ? std::move(*h) : IpcHandle{};
  }
  /// True when the device makes exportable memory; otherwise checks create_exportable's unsupported
  /// answer (nothing changed) and says so, so a case on such a device ends there but never silently.
  bool exportable() {
    if (f.ctx.info().caps.unified_memory) return true;
    MESSAGE("the device has no unified memory: checking create_exportable's unsupported answer");
    expect(Errc::unsupported, [&] { return Buffer::create_exportable(f.ctx, 4096); });
    return false;
  }

  /// `n` bytes of `fd` at `offset` as text ("" when pread fails).
  static std::string fd_text(int fd, std::size_t offset, std::size_t n) {
    std::string out(n, '\0');
    if (pread(fd, out.data(), n, static_cast<off_t>(offset)) != static_cast<ssize_t>(n)) return {};
    return out;
  }
};

}  // namespace emt::bad::ext
