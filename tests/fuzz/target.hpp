// The backend-neutral interface between the differential fuzz driver and one build of edgemem.
// adapter.cpp implements it and is compiled once per library build (host, OpenCL, CUDA), the renamed
// copies with the library's namespace renamed by the preprocessor (-Dedgemem=edgemem_<backend>), so
// several builds live in one process. This header names no edgemem type: plain ints
// and structs only.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fz {

/// Slots the operations address.
inline constexpr unsigned kBufferSlots = 8;   ///< Buffer / PooledBuffer handles
inline constexpr unsigned kMappingSlots = 16;  ///< Mapping guards (more than max_mappings_per_buffer)
inline constexpr unsigned kEventSlots = 4;     ///< Events kept from async commands
inline constexpr unsigned kImageSlots = 4;     ///< Image handles (slot a & 3, second image b & 3)
/// Image formats the ops use (both host and PoCL support them for every image type and access):
/// 0 RGBA unorm_int8, 1 RGBA unsigned_int8, 2 RGBA float32, 3 RGBA signed_int16.
inline constexpr unsigned kImageFormats = 4;
/// Bytes of the host buffers the driver hands to a target (data in, data out).
inline constexpr std::size_t kHostBytes = 64 * 1024;

/// Result code of one operation: 0 success, an edgemem::Errc value (1..), or kNotApplicable.
inline constexpr int kOk = 0;
inline constexpr int kNotApplicable = -1;  ///< the driver-side precondition of the op was not met
/// The edgemem::Errc values the model predicts (adapter.cpp checks them against the enum).
inline constexpr int kInvalidArgument = 1, kOutOfRange = 2, kExhausted = 5, kBusy = 9, kReleased = 10,
                     kOverlap = 4, kUnsupported = 8, kMisaligned = 3,
                     kAccessDenied = 12;
/// Code of an event that is not complete after its wait() succeeded (never expected).
inline constexpr int kEventIncomplete = 99;

/// The operations, in input order (the opcode byte is taken modulo kOpCount).
enum Op : std::uint8_t {
  op_create,           ///< slot a = Buffer::create(ctx, n0, storage, flags)
  op_from_host,        ///< slot a = Buffer::from_host(ctx, data | null, n0, storage, flags)
  op_wrap,             ///< slot a = Buffer::wrap(ctx, target-owned copy of data | null, n0, flags), the copy
                       ///< wrap_offset() bytes past a page
  op_like,             ///< slot a = Buffer::like(slot b)
  op_sub,              ///< slot a = slot b .sub(n0, n1)
  op_release,          ///< slot a .release()
  op_drop,             ///< slot a = {} (the destructor: allowed while mapped)
  op_move,             ///< slot a = std::move(slot b)
  op_write,            ///< q.write(slot a, n0, data | null, n1)
  op_read,             ///< q.read(slot a, n0, out | null, n1)
  op_fill,             ///< q.fill(slot a, n0, n1, data | null, pattern)
  op_copy,             ///< q.copy(slot b, slot a, n0, n1, n2)
  op_write_rect,       ///< q.write_rect(slot a, rect, data | null, n0)
  op_read_rect,        ///< q.read_rect(slot a, rect, out | null, n0)
  op_copy_rect,        ///< q.copy_rect(slot b, slot a, copy rect)
  op_map,              ///< mapping m = q.map<T>(slot a, access, n0, n1)
  op_map_write,        ///< writes data into mapping m at n0, n1 bytes (clamped; write access only)
  op_unmap,            ///< mapping m .unmap()
  op_map_drop,         ///< mapping m = {} (the destructor unmaps)
  op_pool_init,        ///< pool.init(ctx, q, n0, n1, storage, flags)
  op_pool_acquire,     ///< slot a = pool.acquire()
  op_pool_release,     ///< pool.release()
  op_pool_destroy,     ///< destroys the pool object (blocks out are detached) and makes a new one
  op_heap_init,        ///< heap.init(ctx, q, n0, n1, storage, flags, n2 = max_buffers)
  op_heap_create,      ///< slot a = heap.create_buffer(n0)
  op_heap_from_host,   ///< slot a = heap.create_buffer_from_host(q, data | null, n0)
  op_heap_release,     ///< heap.release()
  op_heap_destroy,     ///< destroys the heap object (live buffers are detached) and makes a new one
  op_migrate,          ///< q.migrate(slot a, migration)
  op_finish,           ///< q.finish()
  op_event,            ///< on event m & 3: wait(), is_complete(), release() or move to b & 3 (by access)
  // Images (image slot a & 3, second image slot b & 3; the image block of Args::img). Mapping slots
  // are shared with buffers: op_map_write / op_unmap / op_map_drop work on image mappings too.
  op_img_create,       ///< image a = Image::create(ctx, desc, storage, flags)
  op_img_from_host,    ///< image a = Image::from_host(ctx, desc, data | null, host pitch, storage, flags)
  op_img_like,         ///< image a = Image::like(image b)
  op_img_view,         ///< image a = Image::view(buffer slot b, 1D-buffer desc) (2D views: PoCL has none)
  op_img_release,      ///< image a .release()
  op_img_drop,         ///< image a = {}
  op_img_write,        ///< q.write_image(image a, region, data | null, n0, host pitch)
  op_img_read,         ///< q.read_image(image a, region, out | null, n0, host pitch)
  op_img_copy,         ///< q.copy_image(image b, image a, src origin, region)
  op_img_fill,         ///< q.fill_image(image a, color, region)
  op_img_to_buf,       ///< q.copy_image_to_buffer(image a, region, buffer slot b, n1)
  op_buf_to_img,       ///< q.copy_buffer_to_image(buffer slot b, n1, image a, region)
  op_img_map,          ///< mapping m = q.map_image(image a, access, region); pixels copied out tightly
  // After the image ops, whose numbers the committed corpus inputs were written with.
  op_native,           ///< keep ? q.end_native(slot a, access) : q.begin_native(slot a, access)
  // Shared virtual memory (svm.hpp). An Svm lives in a buffer slot, so every buffer op above takes it
  // (write/read/fill/copy dispatch to SVM commands, rects and image views answer unsupported). Grain:
  // access (0 coarse, 1 fine_buffer, 2 fine_system, 3 not a grain); alignment: kSvmAlignments[migration].
  op_svm_create,       ///< slot a = Svm::create(ctx, n0, grain, alignment)
  op_svm_like,         ///< slot a = Svm::like(slot b) (n/a when slot b holds no Svm object)
  op_svm_sub,          ///< slot a = slot b (an Svm object) .sub(n0, n1) (n/a when slot b holds none)
  op_svm_span,         ///< host_span<T>() of slot a (an Svm object; T = u32 when wide, else bytes): its bytes
                       ///< copied out; keep: data written through the span at n0 % size, n1 bytes (clamped)
  op_svm_pool_init,    ///< pool.init(ctx, q, n0, n1, grain)
  op_svm_heap_init,    ///< heap.init(ctx, q, n0, n1, grain, n2 = max_buffers)
  // External memory (external.hpp, ipc_handle.hpp; driver_external.inc, adapter_external.inc). Each
  // target owns kExtMemfds memfds of kExtMemfdBytes bytes, zero-filled at begin(): memfd 0 unsealed,
  // memfd 1 sealed against shrinking and growing. Every op finishes both queues first.
  op_ext_import,       ///< slot a = Buffer::import(ctx, memory, {flags, allow_copy = keep, require_sealed = wide});
                       ///< memory by access: 0 memfd, 1 dma_buf (fd: memfd m & 1, or -1 when m & 2; offset n0),
                       ///< 2 host pointer (a target-owned copy of data, n0 % 256 bytes past a page; null), 3 an
                       ///< unknown HandleType; n1 bytes. out[0]: import_path()
  op_ext_exportable,   ///< slot a = Buffer::create_exportable(ctx, n0, flags). out[0]: import_path()
  op_ext_handle,       ///< slot a = Buffer::import(ctx, slot b .export_handle(), flags); ctx: slot b's (the
                       ///< driver sets it, so no memory is shared across contexts). out[0]: import_path()
  op_ext_pwrite,       ///< pwrite(memfd m & 1, data, min(n1, kExtMemfdBytes - off), off = n0 % kExtMemfdBytes)
  // After the external ops, whose numbers the committed corpus inputs were written with.
  op_img_pixel,        ///< read_pixel(image mapping m .pixels(), sampler, x, y, z): the sampler and coordinates
                       ///< as pixel_sampler() and pixel_coord() decode them; out[0..15]: the Color's bits,
                       ///< out[16]: its ColorKind (n/a when mapping m is not an image mapping)
  op_img_adopt,        ///< image a = Image::adopt(ctx, image b's native(), retain) after both queues finish, image b
                       ///< dropped before a is assigned; ctx: image b's (the driver sets it). A target whose backend
                       ///< adopts nothing (Image::adopt answers unsupported: the host) moves image b's handle
                       ///< to a instead, the same memory under one handle. The driver sends it only for an
                       ///< image on a root of its own that nothing else reaches (no other slot, no open
                       ///< mapping): an adopted image is a root edgemem does not relate to the first.
  kOpCount
};

/// True for the image ops (image slots, the image block of Args::img).
constexpr bool is_image_op(Op op) noexcept { return op >= op_img_create && op <= op_img_map; }
/// True for the SVM ops.
constexpr bool is_svm_op(Op op) noexcept { return op >= op_svm_create && op < op_ext_import; }
/// True for the external-memory ops.
constexpr bool is_external_op(Op op) noexcept { return op >= op_ext_import && op <= op_ext_pwrite; }
/// op_img_pixel's sampler: normalised coordinates when keep, linear filtering when wide, AddressMode
/// `access` (0 none .. 3 repeat), mirrored_repeat when migration is 3.
struct PixelSampler {
  bool normalized = false, linear = false;
  unsigned address = 0;  ///< AddressMode value
};
/// op_img_pixel's coordinate from n0 / n1 / n2: quarter pixels from -16 (unnormalised), or 1/256ths
/// from -0.25 (normalised), so layer coordinates such as 0.5, 0.75 and 1.0 occur.
inline float pixel_coord(std::size_t n, bool normalized) noexcept {
  const float steps = static_cast<float>(n & 0x3FFu) - 64.0f;
  return normalized ? steps / 256.0f : steps / 4.0f;
}
/// Bytes op_img_pixel writes to `out`.
inline constexpr std::size_t kPixelOutBytes = 17;

/// The external-memory ops' memfds per target and their size in bytes.
inline constexpr unsigned kExtMemfds = 2;
inline constexpr std::size_t kExtMemfdBytes = 8192;
/// Target::external_caps() bits.
inline constexpr unsigned kExtUnifiedMemory = 1u << 0;  ///< caps.unified_memory (create_exportable works)
inline constexpr unsigned kExtDriverImport = 1u << 1;   ///< caps.external_memory != 0 (a driver import path)
inline constexpr unsigned kExtHostFlags = 1u << 2;      ///< caps.host_access_flags
/// Svm::create's alignment argument by Args::migration: default, valid, not a power of two, too large.
inline constexpr std::size_t kSvmAlignments[4] = {0, 64, 96, 256};
/// Target::svm_caps() bits: 1 << grain for each SvmGrain the device has, and svm_migration.
inline constexpr unsigned kSvmMigrationCap = 1u << 3;

/// One rectangle side as decoded from the input (pitches 0 mean "packed").
struct RectSideArgs {
  std::size_t x = 0, y = 0, z = 0;                  ///< origin: bytes, rows, slices
  std::size_t row_pitch = 0, slice_pitch = 0;       ///< bytes
};

/// The image part of an operation (image ops only).
struct ImageArgs {
  unsigned type = 0;              ///< ImageType value 0..5
  unsigned format = 0;            ///< index into the kImageFormats list
  std::size_t width = 1, height = 1, depth = 1, array_size = 1;
  std::size_t origin[3] = {0, 0, 0};      ///< region origin (pixels)
  std::size_t extent[3] = {1, 1, 1};      ///< region extent (pixels)
  std::size_t src_origin[3] = {0, 0, 0};  ///< copy_image source origin
  std::size_t row_pitch = 0, slice_pitch = 0;  ///< host pitch (0: tight)
  unsigned color_kind = 0;        ///< ColorKind value of the fill color
  std::uint32_t color[4] = {0, 0, 0, 0};  ///< the fill color's bits (floats as their bit patterns)
};

/// One decoded operation. Both targets receive the same Args.
struct Args {
  Op op = op_finish;
  unsigned a = 0, b = 0, m = 0;   ///< buffer slots a, b; mapping slot m
  unsigned ctx = 0;               ///< context 0 or 1 (buffers and pools/heaps on context 1 are "foreign")
  unsigned queue = 0;             ///< queue 0 (context 0) or 1 (context 1)
  std::uint32_t flags = 0;        ///< raw MemFlags bits (invalid combinations included)
  unsigned storage = 0;           ///< Storage value 0..2
  unsigned access = 0;            ///< Access value 0..2, or 3 (invalid)
  unsigned migration = 0;         ///< Migration value 0..2, or 3 (invalid)
  bool async = false;             ///< use the *_async form (wait list: the events of mask m) and wait
  bool keep = false;              ///< async write/fill/copy/rects/migrate: keep the event in slot b & 3
  bool null_ptr = false;          ///< pass a null host pointer
  bool wide = false;              ///< map as std::uint32_t instead of bytes
  std::size_t n0 = 0, n1 = 0, n2 = 0;  ///< sizes and offsets in bytes (meaning per Op)
  std::size_t pattern_bytes = 1;  ///< fill pattern size (invalid sizes included)
  RectSideArgs side[2];           ///< rect: [0] buffer (copy: src), [1] host (copy: dst)
  std::size_t region[3] = {1, 1, 1};  ///< rect region: bytes, rows, slices
  const unsigned char* data = nullptr;  ///< kHostBytes of input bytes (driver-owned)
  ImageArgs img;                  ///< image ops only
};

/// op_img_pixel's sampler (PixelSampler).
inline PixelSampler pixel_sampler(const Args& a) noexcept {
  PixelSampler p;
  p.normalized = a.keep;
  p.linear = a.wide;
  p.address = a.migration == 3 ? 4u : a.access;
  return p;
}

/// op_wrap's caller memory: this many bytes past a page. 0, or with `wide` 8, 1, 2 or 3 (n1 & 3): an
/// unaligned pointer, odd ones included.
inline std::size_t wrap_offset(const Args& a) noexcept {
  static constexpr std::size_t kOffsets[4] = {8, 1, 2, 3};
  return a.wide ? kOffsets[a.n1 & 3u] : 0;
}

/// Observable state of one buffer slot after an operation.
struct SlotState {
  std::uint64_t valid = 0, size = 0, origin = 0, is_sub = 0, pooled = 0, pool_slot = 0;
  std::uint64_t shares = 0;  ///< bit j: shares_root_with(slot j)
};

/// Observable state of one image slot after an operation.
struct ImageState {
  std::uint64_t valid = 0, type = 0, format = 0, size = 0, is_view = 0;
  std::uint64_t extent[3] = {0, 0, 0};
  std::uint64_t array_size = 0;
  std::uint64_t shares = 0;  ///< bit j: shares_root_with(buffer slot j)
};

/// Observable state of a target after an operation.
struct Snapshot {
  ImageState image[kImageSlots];
  SlotState slot[kBufferSlots];
  std::uint64_t mapped[kMappingSlots] = {};     ///< mapped()
  std::uint64_t map_bytes[kMappingSlots] = {};  ///< size_bytes()
  std::uint64_t pool[5] = {};   ///< capacity, block_bytes, in_use, high_water, failed_acquires
  std::uint64_t heap[4] = {};   ///< page_size, page_count, free_pages, largest_free_run
  std::uint64_t event_valid[kEventSlots] = {};  ///< Event::valid()
};

/// What one operation produced.
struct Outcome {
  int code = kOk;             ///< kOk, an Errc value, or kNotApplicable
  std::size_t out_len = 0;    ///< bytes of `out` filled (read, read_rect, map contents; image maps: pixels, tight)
};

/// One build of edgemem driven by the fuzzer. No exceptions; every call is noexcept.
class Target {
 public:
  virtual ~Target() = default;
  /// The backend's name (DeviceInfo::backend: its folder under backends/).
  virtual const char* name() const noexcept = 0;
  /// Opens contexts and queues once per process; false (with a message on stderr) when it cannot.
  virtual bool open() noexcept = 0;
  /// Base alignment of context 0, bytes.
  virtual std::size_t base_align() const noexcept = 0;
  /// Whether context 0 has images (caps.images; without them every image is refused as unsupported).
  virtual bool images() const noexcept = 0;
  /// Whether context 0 makes images over sub-buffers (caps.image_from_sub_buffer; the model assumes it).
  virtual bool image_from_sub_buffer() const noexcept = 0;
  /// Shared virtual memory capabilities of context 0 (kSvmMigrationCap and 1 << SvmGrain bits).
  virtual unsigned svm_caps() const noexcept = 0;
  /// External-memory capabilities of context 0 (kExt* bits).
  virtual unsigned external_caps() const noexcept = 0;
  /// Starts an input: every slot empty, pool and heap uninitialised.
  virtual void begin() noexcept = 0;
  /// Runs one operation; read-like operations fill `out` (kHostBytes long, pre-filled by the driver).
  virtual Outcome run(const Args& args, unsigned char* out) noexcept = 0;
  /// Current observable state.
  virtual void snapshot(Snapshot& s) const noexcept = 0;
  /// Ends an input: destroys every object; returns the allocator policy's live allocations left
  /// beyond those at open() (0 when nothing leaked).
  virtual long end() noexcept = 0;
  /// Name of an Errc value ("out_of_range"), or "ok" / "n/a".
  virtual const char* code_name(int code) const noexcept = 0;
};

}  // namespace fz

// Each adapter build defines make_target() in its own namespace, fz_<backend> (FZ_TARGET_NS on its
// command line). The driver is compiled with FZ_TARGETS, FZ_TARGET(fz_<backend>) once per linked build
// (tests/fuzz/meson.build, from the backend registry): this build's own library first.
#ifndef FZ_TARGETS
#define FZ_TARGETS
#endif
#define FZ_TARGET(ns)                                                 \
  namespace ns {                                                      \
  /** The build of edgemem over that backend. */ fz::Target* make_target() noexcept; \
  }
FZ_TARGETS
#undef FZ_TARGET
