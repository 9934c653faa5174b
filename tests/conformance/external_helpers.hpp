// Helpers of the external-memory tests: memfds (sealed or not), open-fd counting, and a real
// dma-buf where the machine has /dev/udmabuf. Linux only (the tests that use them are too).
#pragma once
#include <cstddef>
#include <cstring>
#include <string>

#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#if __has_include(<linux/udmabuf.h>)
#include <linux/udmabuf.h>
#define EMT_HAS_UDMABUF_HEADER 1
#endif

namespace emt {

/// The seals a test memfd carries (more can be added: it is made with MFD_ALLOW_SEALING).
enum class Seals {
  none,    ///< no seal: anyone holding it may shrink it
  shrink,  ///< F_SEAL_SHRINK: importable, but it may still grow (so not re-exportable)
  fixed,   ///< F_SEAL_SHRINK | F_SEAL_GROW: its size is final (exportable, an IPC handle's memfd)
};

/// A memfd of `bytes` bytes carrying `seals`; -1 on failure.
inline int make_memfd(std::size_t bytes, Seals seals) {
  const int fd = memfd_create("emt", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return -1;
  const int add = seals == Seals::fixed ? F_SEAL_SHRINK | F_SEAL_GROW : seals == Seals::shrink ? F_SEAL_SHRINK : 0;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0 || (add != 0 && fcntl(fd, F_ADD_SEALS, add) != 0)) {
    close(fd);
    return -1;
  }
  return fd;
}

/// The number of open fds of this process (/proc/self/fd, less the directory's own).
inline int open_fds() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n - 1;
}

/// The system page size in bytes.
inline std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

/// A real dma-buf of `bytes` bytes (a multiple of the page size) made by /dev/udmabuf over a sealed
/// memfd (`memfd` receives it, for writing the contents), or -1 with `why` saying why not.
inline int make_udmabuf(std::size_t bytes, int& memfd, std::string& why) {
  memfd = -1;
#if defined(EMT_HAS_UDMABUF_HEADER)
  const int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
  if (dev < 0) {
    why = "no /dev/udmabuf on this machine (modprobe udmabuf); no dma-buf to test with";
    return -1;
  }
  memfd = make_memfd(bytes, Seals::shrink);  // udmabuf needs F_SEAL_SHRINK
  udmabuf_create create{};
  create.memfd = static_cast<__u32>(memfd);
  create.flags = UDMABUF_FLAGS_CLOEXEC;
  create.offset = 0;
  create.size = bytes;
  const int buf = memfd >= 0 ? ioctl(dev, UDMABUF_CREATE, &create) : -1;
  close(dev);
  if (buf < 0) {
    why = std::string("UDMABUF_CREATE failed: ") + std::strerror(errno);
    if (memfd >= 0) close(memfd);
    memfd = -1;
  }
  return buf;
#else
  (void)bytes;
  why = "no <linux/udmabuf.h>; no dma-buf to test with";
  return -1;
#endif
}

}  // namespace emt
