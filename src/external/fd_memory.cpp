#include "external/fd_memory.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

#include <edgemem/config.hpp>
#include <edgemem/dma_buf_observer.hpp>

#if defined(__linux__)
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#define EDGEMEM_HAS_FD_MEMORY 1
#else
#define EDGEMEM_HAS_FD_MEMORY 0
#endif

namespace edgemem::detail {

#if EDGEMEM_HAS_FD_MEMORY
namespace {

constexpr unsigned long kDmaBufMagic = 0x444d4142;     // DMA_BUF_MAGIC, "DMAB" (linux/magic.h)
constexpr unsigned long kAnonInodeMagic = 0x09041934;  // ANON_INODE_FS_MAGIC
constexpr unsigned long kHugetlbfsMagic = 0x958458f6;  // HUGETLBFS_MAGIC

Error os_error(const char* message) noexcept { return Error{Errc::backend_failure, errno, message}; }

#if EDGEMEM_LIVE_COUNTERS
std::atomic<DmaBufSyncObserver> g_sync_observer{nullptr};
std::atomic<void*> g_sync_user{nullptr};
#endif

/// Tells the installed DmaBufSyncObserver (test builds) of one sync of `fd`.
void notify_sync(int fd, std::uint64_t flags) noexcept {
#if EDGEMEM_LIVE_COUNTERS
  if (const DmaBufSyncObserver o = g_sync_observer.load(std::memory_order_acquire))
    o(g_sync_user.load(std::memory_order_acquire), fd, flags);
#else
  (void)fd, (void)flags;
#endif
}

std::uint64_t sync_flags(bool start, Access access) noexcept {
  return (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | (access == Access::read ? DMA_BUF_SYNC_READ : DMA_BUF_SYNC_RW);
}

/// DMA_BUF_IOCTL_SYNC around host access to a real dma-buf (errors are ignored: nothing to do about one).
void dma_buf_host_access(ExternalRef* self, bool start, Access access) noexcept {
  dma_buf_sync sync{};
  sync.flags = sync_flags(start, access);
  int rc;
  do {
    rc = ioctl(self->fd.get(), DMA_BUF_IOCTL_SYNC, &sync);
  } while (rc != 0 && (errno == EINTR || errno == EAGAIN));
  notify_sync(self->fd.get(), sync.flags);
}

#if EDGEMEM_LIVE_COUNTERS
/// The bracket of a memfd stand-in imported while an observer is installed: the observer only.
void observed_host_access(ExternalRef* self, bool start, Access access) noexcept {
  notify_sync(self->fd.get(), sync_flags(start, access));
}
#endif

void release_record(ExternalRef* self) noexcept {
  auto* r = static_cast<FdRecord*>(self);
  if (r->map_base != nullptr) munmap(r->map_base, r->map_bytes);
  destroy_node(r);
}

Result<FdRecord*> new_record(int owned_fd) noexcept {
  FdRecord* r = make_node<FdRecord>();
  if (r == nullptr) {
    close_fd(owned_fd);
    return fail(Errc::out_of_host_memory, "no memory for the import's record");
  }
  r->release = release_record;
  r->fd.reset(owned_fd);
  // The file's identity, so two roots over one file are seen to alias (ExternalRef::has_file).
  struct stat st {};
  if (owned_fd >= 0 && fstat(owned_fd, &st) == 0) {
    r->has_file = true;
    r->file_dev = static_cast<std::uint64_t>(st.st_dev);
    r->file_ino = static_cast<std::uint64_t>(st.st_ino);
  }
  return r;
}

}  // namespace

std::size_t page_bytes() noexcept {
  const long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? static_cast<std::size_t>(p) : 4096;
}

HostAccessFn host_access_for(const ExternalMemory& m, FdKind kind) noexcept {
  if (kind == FdKind::dma_buf) return dma_buf_host_access;
#if EDGEMEM_LIVE_COUNTERS
  if (m.type == HandleType::dma_buf && g_sync_observer.load(std::memory_order_acquire) != nullptr)
    return observed_host_access;
#endif
  (void)m;
  return nullptr;
}

void close_fd(int fd) noexcept {
  const int saved = errno;
  (void)close(fd);
  errno = saved;
}

std::uint64_t random_identity() noexcept {
  std::uint64_t v = 0;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof v)) {
    static std::atomic<std::uint64_t> counter{0};
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    v = static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
    v ^= reinterpret_cast<std::uintptr_t>(&v) ^ (static_cast<std::uint64_t>(getpid()) << 32) ^
         counter.fetch_add(0x9e3779b97f4a7c15u, std::memory_order_relaxed);
    v += 0x9e3779b97f4a7c15u;  // splitmix64's finaliser
    v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9u;
    v = (v ^ (v >> 27)) * 0x94d049bb133111ebu;
    v ^= v >> 31;
  }
  return v != 0 ? v : 1;
}

bool fd_sealed(int fd) noexcept {
  const int seals = fcntl(fd, F_GET_SEALS);
  return seals >= 0 && (seals & kRequiredSeals) == kRequiredSeals;
}

bool fd_write_sealed(int fd) noexcept {
  const int seals = fcntl(fd, F_GET_SEALS);
  return seals >= 0 && (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) != 0;
}

bool fd_read_only(int fd) noexcept {
  const int fl = fcntl(fd, F_GETFL);
  return (fl >= 0 && (fl & O_ACCMODE) == O_RDONLY) || fd_write_sealed(fd);
}

std::uint64_t fd_size(int fd) noexcept {
  struct stat st {};
  return fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

namespace {

/// The size of the regular file `fd`, once it can no longer shrink. The seals are read first and the
/// size after them: F_SEAL_SHRINK is never removed once set, so the size read next is a lower bound for
/// as long as the file lives and no peer can take a byte of it away from under a mapping (SIGBUS).
/// Read the other way round, a peer shrinking and sealing the file between the two reads got a stale
/// size past. `fixed`: F_SEAL_GROW is needed too. Errc: invalid_argument (`unsealed` says why).
Result<std::uint64_t> sealed_size(int fd, bool fixed, const char* unsealed) noexcept {
  const int seals = fcntl(fd, F_GET_SEALS);  // -1 (EINVAL) for a file that takes no seals (not a memfd)
  if (seals < 0 || (seals & F_SEAL_SHRINK) == 0) return fail(Errc::invalid_argument, unsealed, seals < 0 ? errno : 0);
  if (fixed && (seals & F_SEAL_GROW) == 0)
    return fail(Errc::invalid_argument, "the memfd is not sealed against growing (F_SEAL_GROW): its size is not final");
  // A hugetlbfs memfd (MFD_HUGETLB) is sealable too, but a peer may punch holes in it (fallocate), and
  // a fault on a hole when the huge page pool is empty is SIGBUS: seals do not protect it.
  struct statfs fs {};
  if (fstatfs(fd, &fs) == 0 && static_cast<unsigned long>(fs.f_type) == kHugetlbfsMagic)
    return fail(Errc::invalid_argument,
                "a hugetlbfs memfd (MFD_HUGETLB): a peer could punch holes the huge page pool cannot refill (SIGBUS)");
  struct stat st {};
  if (fstat(fd, &st) != 0) return fail(Errc::invalid_argument, "the fd is not open", errno);
  return static_cast<std::uint64_t>(st.st_size);
}

/// True when `fd` is a dma-buf: a file of the kernel's dma-buf filesystem (DMA_BUF_MAGIC), or on
/// kernels before it had one (5.3) an anonymous inode that /proc/self/fd names "anon_inode:dmabuf".
/// Nothing else (a regular file, a memfd, another anonymous inode) is.
bool is_dma_buf(int fd) noexcept {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return false;
  if (static_cast<unsigned long>(fs.f_type) == kDmaBufMagic) return true;
  if (static_cast<unsigned long>(fs.f_type) != kAnonInodeMagic) return false;
  char path[40];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  static constexpr char kName[] = "anon_inode:dmabuf";
  char link[sizeof kName + 1] = {};
  const ssize_t n = readlink(path, link, sizeof link);
  return n == static_cast<ssize_t>(sizeof kName - 1) && std::memcmp(link, kName, sizeof kName - 1) == 0;
}

}  // namespace

Result<FdKind> check_fd_memory(const ExternalMemory& m, bool require_sealed) noexcept {
  if (m.fd < 0) return fail(Errc::invalid_argument, "the fd is negative");
  struct stat st {};  // what the fd is; a regular file's size is read only after its seals
  if (fstat(m.fd, &st) != 0) return fail(Errc::invalid_argument, "the fd is not open", errno);
  std::uint64_t size = 0;  // 64-bit, so a 32-bit size_t cannot wrap the check below
  FdKind kind = FdKind::sealed_file;
  if (m.type == HandleType::memfd) {
    if (!S_ISREG(st.st_mode)) return fail(Errc::invalid_argument, "a memfd handle's fd is not a regular file");
    EDGEMEM_TRY_ASSIGN(size, sealed_size(m.fd, require_sealed,
                                         "the memfd is not sealed against shrinking (F_SEAL_SHRINK): a peer could "
                                         "truncate it under the mapping"));
  } else if (m.type == HandleType::dma_buf) {
    if (is_dma_buf(m.fd)) {
      const off_t end = lseek(m.fd, 0, SEEK_END);  // its size, fixed by its exporter; no file offset to disturb
      if (end < 0) return fail(Errc::invalid_argument, "a dma-buf handle's fd has no size (lseek)", errno);
      size = static_cast<std::uint64_t>(end);
      kind = FdKind::dma_buf;
    } else if (S_ISREG(st.st_mode)) {  // a stand-in (a test's memfd): only if it cannot shrink
      EDGEMEM_TRY_ASSIGN(size, sealed_size(m.fd, require_sealed,
                                           "a regular file given as a dma-buf must be a memfd sealed against "
                                           "shrinking (F_SEAL_SHRINK): it is no dma-buf and a peer could "
                                           "truncate it under the mapping"));
    } else {
      return fail(Errc::invalid_argument, "a dma-buf handle's fd is not a dma-buf (nor a sealed memfd)");
    }
  } else {
    // An opaque fd's size is known only to its driver.
    return FdKind::opaque;
  }
  if (m.offset > size || m.bytes > size - m.offset)
    return fail(Errc::out_of_range, "offset + bytes is past the end of the fd's memory");
  return kind;
}

Result<int> dup_fd(int fd) noexcept {
  const int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) return fail(os_error("could not duplicate the fd"));
  return own;
}

Result<FdRecord*> make_fd_record(int fd) noexcept {
  EDGEMEM_TRY_ASSIGN(const int own, dup_fd(fd));
  return new_record(own);
}

Result<FdRecord*> adopt_fd_record(int fd) noexcept { return new_record(fd); }

Result<std::byte*> map_fd(FdRecord* r, std::size_t offset, std::size_t bytes, bool read_only) noexcept {
  const std::size_t page = page_bytes();
  const std::size_t start = offset / page * page;
  const std::size_t len = offset - start + bytes;
  void* p = mmap(nullptr, len, read_only ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, r->fd.get(),
                 static_cast<off_t>(start));
  if (p == MAP_FAILED) return fail(os_error("could not mmap the fd"));
  r->map_base = p;
  r->map_bytes = len;
  return static_cast<std::byte*>(p) + (offset - start);
}

Result<int> make_sealed_memfd(std::size_t bytes) noexcept {
  const std::size_t page = page_bytes();
  const std::size_t rounded = (bytes + page - 1) / page * page;
  const int fd = memfd_create("edgemem-export", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return fail(os_error("memfd_create failed"));
  // fallocate, not just ftruncate: the pages are reserved now, so a lack of memory shows here and not
  // as SIGBUS at the first write of a frame.
  const int reserved = fallocate(fd, 0, 0, static_cast<off_t>(rounded));
  if (reserved != 0 && (errno == ENOSPC || errno == ENOMEM)) {
    close_fd(fd);
    return fail(Errc::out_of_host_memory, "no memory for the memfd's pages", ENOMEM);
  }
  if ((reserved != 0 && ftruncate(fd, static_cast<off_t>(rounded)) != 0) ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) {
    const Error e = os_error("could not size and seal the memfd");
    close_fd(fd);
    return fail(e);
  }
  return fd;
}

Result<void> finish_sealing(int fd, bool peer_read_only) noexcept {
  if (peer_read_only && fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) != 0) {
    if (errno == EINVAL) return fail(Errc::unsupported, "the kernel cannot seal a memfd against future writes (5.1+)", EINVAL);
    return fail(os_error("could not seal the memfd against writes"));
  }
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL) != 0) return fail(os_error("could not seal the memfd"));
  return {};
}


#else  // no POSIX file descriptors: every fd-based import and export is unsupported

void close_fd(int) noexcept {}
std::uint64_t random_identity() noexcept {
  static std::atomic<std::uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) + 1;
}
bool fd_sealed(int) noexcept { return false; }
bool fd_write_sealed(int) noexcept { return false; }
bool fd_read_only(int) noexcept { return false; }
std::uint64_t fd_size(int) noexcept { return 0; }
std::size_t page_bytes() noexcept { return 4096; }
HostAccessFn host_access_for(const ExternalMemory&, FdKind) noexcept { return nullptr; }
Result<void> finish_sealing(int, bool) noexcept { return fail(Errc::unsupported, "no memfd on this system"); }
Result<FdKind> check_fd_memory(const ExternalMemory&, bool) noexcept {
  return fail(Errc::unsupported, "no file descriptors on this system");
}
Result<int> dup_fd(int) noexcept { return fail(Errc::unsupported, "no file descriptors on this system"); }
Result<FdRecord*> make_fd_record(int) noexcept { return fail(Errc::unsupported, "no file descriptors on this system"); }
Result<FdRecord*> adopt_fd_record(int) noexcept { return fail(Errc::unsupported, "no file descriptors on this system"); }
Result<std::byte*> map_fd(FdRecord*, std::size_t, std::size_t, bool) noexcept {
  return fail(Errc::unsupported, "no mmap on this system");
}
Result<int> make_sealed_memfd(std::size_t) noexcept { return fail(Errc::unsupported, "no memfd on this system"); }

#endif

}  // namespace edgemem::detail

namespace edgemem {

Result<void> observe_dma_buf_syncs(DmaBufSyncObserver observer, void* user) noexcept {
#if EDGEMEM_HAS_FD_MEMORY && EDGEMEM_LIVE_COUNTERS
  detail::g_sync_user.store(user, std::memory_order_release);
  detail::g_sync_observer.store(observer, std::memory_order_release);
  return {};
#else
  (void)observer, (void)user;
  return fail(Errc::unsupported, "the dma-buf sync observer is compiled in only with -Dlive_counters=true (and fds)");
#endif
}

}  // namespace edgemem
