// backends/opencl/bench/peers: what every peer adapter implements, and the objects they share.
//
// One process, one OpenCL context, one in-order queue and one set of memory objects: edgemem makes
// them (Context::create, so EDGEMEM_DEVICE picks the device), the raw C API uses their handles as
// they are, opencl.hpp and Boost.Compute wrap the same handles (retaining them). Each adapter lives in
// its own translation unit (peer_*.cpp), compiled with that library's own configuration macros; this
// header includes no OpenCL header, so it sees the handles as edgemem's native types.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <edgemem/edgemem.hpp>

namespace peers {

/// The frame pipeline's geometry: 1920x1080 RGBA8 frames; a 1024x256-pixel strip (1 MiB) from the
/// middle of each is rect-copied to a second buffer and read back.
struct FrameGeometry {
  static constexpr std::size_t width = 1920, height = 1080, pixel = 4;
  static constexpr std::size_t pitch = width * pixel;            // 7680 bytes per row
  static constexpr std::size_t bytes = pitch * height;           // 8,294,400 bytes per frame
  static constexpr std::size_t strip_rows = 256, strip_pixels = 1024;
  static constexpr std::size_t strip_pitch = strip_pixels * pixel;  // 4096 bytes per strip row
  static constexpr std::size_t strip_bytes = strip_pitch * strip_rows;  // 1 MiB
  static constexpr std::size_t strip_x = (width - strip_pixels) / 2 * pixel;  // bytes into a row
  static constexpr std::size_t strip_y = (height - strip_rows) / 2;           // rows
};

/// The shared objects (native handles owned by the edgemem peer) and the host memory every peer uses.
/// Frame memory is each pipeline's own (a careful loop's one frame buffer, edgemem's ring), made with
/// CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR (edgemem: Storage::shared) by every peer, so no peer finds
/// its frame in the CPU caches because another peer just wrote it.
struct Shared {
  edgemem::NativeContext context{};
  edgemem::NativeQueue queue = nullptr;
  std::size_t base_align = 0;       ///< sub-buffer origin alignment in bytes
  static constexpr std::size_t small_bytes = 4096;     ///< the 4-byte writes' buffer, parent of the sub-buffers
  static constexpr std::size_t alloc_bytes = 1u << 20;  ///< create/release and pool block size
  static constexpr std::size_t big_bytes = 64u << 20;   ///< the 64 MiB transfers
  edgemem::NativeMem small = nullptr;  ///< small_bytes, device storage
  edgemem::NativeMem big_a = nullptr;  ///< big_bytes, device storage (write, read, map, fill, copy source)
  edgemem::NativeMem big_b = nullptr;  ///< big_bytes, device storage (copy destination)
  edgemem::NativeMem strip = nullptr;  ///< FrameGeometry::strip_bytes, device storage
  std::vector<unsigned char> host;     ///< big_bytes of host data
  std::vector<unsigned char> pixels[2];  ///< two camera frames (FrameGeometry::bytes each), alternated
  std::vector<unsigned char> strip_host;  ///< where the strip is read back
  std::uint32_t word = 0x5a5a5a5au;       ///< the 4-byte writes' and the fill's pattern
};

/// One library's way of doing each workload. Every call returns false on an error (after printing it).
/// Calls that a peer does not make (a pool, the naive loop) are never asked of it.
class Peer {
 public:
  virtual ~Peer() = default;
  /// 1 MiB buffer: create, blocking 4-byte write (first touch), release.
  virtual bool create_touch_release() = 0;
  /// edgemem: FixedPool<> acquire + return of a 1 MiB block. The peers have no pool: they get their
  /// 1 MiB as create_touch_release() does (a pool block is memory allocated and touched at init()).
  virtual bool pool_or_create_touch() { return create_touch_release(); }
  /// edgemem: as pool_or_create_touch(). Peers: create a 1 MiB buffer and release it, unused (a driver
  /// that defers allocation to the first use, as PoCL does, allocates nothing here).
  virtual bool pool_or_create_untouched() = 0;
  /// A base_align-byte sub-buffer of `small` at byte base_align: create + release.
  virtual bool sub_create_release() = 0;
  /// As sub_create_release(), with the sub-buffer's cl_mem asked for (edgemem: native()).
  virtual bool sub_native_create_release() { return sub_create_release(); }
  /// 4 bytes into `small`, blocking.
  virtual bool write_small() = 0;
  /// 4 bytes into `small`, enqueued with an event (released); the harness drains the queue untimed.
  virtual bool write_small_async() = 0;
  /// 64 MiB from `host` into big_a, blocking.
  virtual bool write_big() = 0;
  /// 64 MiB from big_a into `host`, blocking.
  virtual bool read_big() = 0;
  /// Map all of big_a (read, or write_discard), touch one byte, unmap and wait.
  virtual bool map_big(bool read) = 0;
  /// Fill big_a with the 4-byte `word`, waiting for it.
  virtual bool fill_big() = 0;
  /// Copy big_a to big_b, waiting for it.
  virtual bool copy_big() = 0;
  /// One frame of the pipeline: put camera frame `n % 2` in (map write_discard + memcpy, or a
  /// blocking write when `map` is false), rect-copy the strip to `strip`, read the strip back (blocking).
  virtual bool frame(bool map, std::size_t n) = 0;
};

/// The adapters (peer_raw.cpp, peer_clhpp.cpp, peer_boost.cpp, peer_edgemem.cpp). The edgemem peer
/// makes the shared objects and fills `shared` (nullptr and a message on stderr on failure); the others
/// use them.
std::unique_ptr<Peer> make_edgemem(Shared& shared);
std::unique_ptr<Peer> make_raw(Shared& shared);
/// The naive raw loop: creates and releases its frame and strip buffers every frame (frame() only).
std::unique_ptr<Peer> make_raw_naive(Shared& shared);
std::unique_ptr<Peer> make_clhpp(Shared& shared);
std::unique_ptr<Peer> make_boost(Shared& shared);

/// The OpenCL platform, device and version names of the shared context (peer_raw.cpp).
struct DeviceNames {
  char platform[256] = {}, device[256] = {}, version[256] = {};
};
DeviceNames device_names(const Shared& shared);
/// clFinish on the shared queue (peer_raw.cpp): the harness's untimed drain after each repetition.
bool finish_queue(const Shared& shared);

/// Where reads of mapped and read-back bytes go, so they are not optimised away.
inline volatile unsigned char g_sink = 0;

}  // namespace peers
