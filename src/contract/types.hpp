/// @file contract/types.hpp  The types the backend operations exchange (see backend_contract.hpp).
/// Private: not installed. The native handle types come from the built backend's native.hpp.
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/external.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/image.hpp>
#include <edgemem/native.hpp>
#include <edgemem/pixel.hpp>
#include <edgemem/sampler.hpp>

namespace edgemem::contract {

/// Groups of backend operations. device and buffer are required; the others are optional and a
/// backend that declares one must provide all of its operations (checked by check_backend<B>()).
enum Group : unsigned {
  group_device = 1u << 0,    ///< devices, contexts, queues, events, marker
  group_buffer = 1u << 1,    ///< linear memory objects, transfers, maps
  group_image = 1u << 2,     ///< images and samplers (EDGEMEM_IMAGE_OPERATIONS)
  group_svm = 1u << 3,       ///< shared virtual memory (EDGEMEM_SVM_OPERATIONS)
  group_external = 1u << 4,  ///< the driver's own import paths for foreign memory (EDGEMEM_EXTERNAL_OPERATIONS)
};

/// Most events one command's CommandEvents::waits holds: the common layer folds a longer wait list
/// into markers (core/wait_list.hpp) and orders across queues with at most 32 more (core/ordering.hpp).
inline constexpr std::size_t max_command_waits = 64;

/// The events of one command: the events it waits for and, for an async command, where its own goes.
struct CommandEvents {
  const NativeEvent* waits = nullptr;  ///< events to wait for before the command starts
  std::size_t wait_count = 0;          ///< number of events in `waits`, at most max_command_waits
  NativeEvent* out = nullptr;          ///< null: blocking; otherwise receives the command's event (caller owns it)
  /// Blocking commands only, optional: a command that may still run on the device after its blocking
  /// call returns (OpenCL's blocking write, done once the host bytes are copied out) sets it to true
  /// instead of waiting; commands on the queue after it still run after it. Others leave it untouched.
  bool* still_running = nullptr;
  /// With still_running, optional: where a backend that sets *still_running puts an event that
  /// completes once the command has (its own, or one recorded right after it; the caller owns it).
  /// Left empty, the caller orders the command with a marker of its own.
  NativeEvent* running_event = nullptr;
};

/// One address for the svm operations: `offset` bytes into `base`, an allocation svm_alloc made
/// (`svm` true) or plain host memory (`svm` false, then `base` is the caller's pointer and `offset` 0).
struct SvmAddress {
  std::byte* base = nullptr;  ///< the allocation's first byte (svm), or the host memory
  std::size_t offset = 0;     ///< bytes into `base`
  bool svm = false;           ///< true: `base` came from svm_alloc
  /// The addressed byte.
  std::byte* at() const noexcept { return base + offset; }
};

/// What mem_create makes.
struct MemDesc {
  std::size_t bytes = 0;                  ///< size in bytes (> 0, <= DeviceInfo::max_alloc_bytes)
  Storage storage = Storage::device;      ///< placement (OpenCL: host and shared are CL_MEM_ALLOC_HOST_PTR)
  MemFlags flags = MemFlags::read_write;  ///< access flags, already checked for consistency
  const void* copy_from = nullptr;        ///< initial contents (`bytes` long), or null
  void* use_host = nullptr;               ///< caller memory used zero-copy (`bytes` long), or null
  /// use_host is mapped PROT_READ (a read-only import): nothing may write it, not even a driver's
  /// write-back of its own copy at a map; a backend that would answers unsupported.
  bool host_read_only = false;
};

/// What mem_import is asked to import through the driver's own paths (already checked: the fd is open,
/// `offset + bytes` fits it, the flags are consistent).
struct ImportDesc {
  HandleType type = HandleType::dma_buf;  ///< dma_buf or opaque_fd
  int fd = -1;                            ///< the caller's fd (the driver duplicates what it keeps)
  std::size_t offset = 0;                 ///< bytes into the fd
  std::size_t bytes = 0;                  ///< size in bytes
  MemFlags flags = MemFlags::read_write;  ///< access flags
};

/// What mem_adopt learned about a memory object made elsewhere.
struct AdoptedMem {
  std::size_t bytes = 0;                  ///< size in bytes
  Storage storage = Storage::device;      ///< placement: shared when the device allocated host memory, host over caller memory
  MemFlags flags = MemFlags::read_write;  ///< access flags
  bool wrapped = false;                   ///< true when it uses caller memory (OpenCL: CL_MEM_USE_HOST_PTR)
  bool is_sub = false;                    ///< true for a sub-buffer: `parent` and `origin` are set
  NativeMem parent{};                     ///< for a sub-buffer: the buffer it was made from (no reference taken)
  std::size_t origin = 0;                 ///< for a sub-buffer: byte offset in `parent`
  /// Caller memory it uses, for a sub-buffer its parent's (the sub-buffer's bytes start `origin` in); else null.
  void* host = nullptr;
};

/// Where a memory object's bytes stay reachable outside maps (mem_address), for exports (DLPack).
enum class MemPlace : std::uint8_t {
  none,     ///< no stable address outside a map (OpenCL buffers): exports go through a Mapping
  host,     ///< ordinary host memory (the host backend's allocations)
  device,   ///< device memory at a device address (CUDA cuMemAlloc: DLPack kDLCUDA)
  pinned,   ///< page-locked host memory the device maps (CUDA cuMemHostAlloc: kDLCUDAHost)
  managed,  ///< memory the driver migrates between host and device (CUDA managed: kDLCUDAManaged)
};

/// A memory object's stable address (mem_address): its first byte and where that byte lives.
struct MemAddress {
  std::byte* data = nullptr;        ///< first byte (host or device address, as `place` says); null with none
  MemPlace place = MemPlace::none;  ///< what `data` is
  int device = 0;                   ///< the device's ordinal for device memory (DLPack device_id)
};

/// One native mapping: the host address and whatever the backend needs back at unmap (a staging
/// allocation, a handle); the common layer stores it and hands it to unmap unchanged.
struct Mapped {
  void* host = nullptr;       ///< first mapped byte
  std::uintptr_t state = 0;   ///< backend-private per-mapping state (0 when it needs none)
};

/// Byte offset of pixel `o` in memory laid out with pitches `row` and `slice` (bytes) for an image
/// of `type` with `pixel_bytes`-byte pixels: x * pixel_bytes + y * row + z * slice, except that a 1D
/// array's y is its layer, `slice` apart (OpenCL's convention for host memory and for views).
constexpr std::size_t image_offset(ImageType type, std::size_t pixel_bytes, std::size_t row, std::size_t slice,
                                   const ImageOrigin& o) noexcept {
  return o.x * pixel_bytes + o.y * (type == ImageType::image1d_array ? slice : row) + o.z * slice;
}

/// An image's shape and storage layout: what every image operation is told about the image.
struct ImageLayout {
  ImageDesc desc{};             ///< type, format, extents (checked: valid, within the device's limits)
  std::size_t row_pitch = 0;    ///< bytes between rows of its storage (a view's pitch; else width * pixel bytes)
  std::size_t slice_pitch = 0;  ///< bytes between slices or layers (a 1D array: row_pitch; 1D and 2D: rows * row_pitch)
};

/// What image_create makes.
struct ImageCreate {
  ImageLayout layout{};                   ///< shape; pitches tight (the host backend allocates them)
  Storage storage = Storage::device;      ///< placement
  MemFlags flags = MemFlags::read_write;  ///< access flags, already checked
  const void* copy_from = nullptr;        ///< initial pixels, laid out with `host` pitches, or null
  HostPitch host{};                       ///< copy_from's pitches, resolved (never 0)
};

/// What image_adopt learned about an image made elsewhere.
struct AdoptedImage {
  ImageLayout layout{};                   ///< shape (pitches as the image reports them)
  Storage storage = Storage::device;      ///< placement
  MemFlags flags = MemFlags::read_write;  ///< access flags
  /// A 1D-buffer image: the buffer it is over (no reference taken), so edgemem runs its commands on
  /// that buffer as for its own views; null for other types (and where the backend has none).
  NativeMem buffer{};
};

/// One native image mapping: the mapping, and the pitches it really has.
struct MappedImage {
  Mapped mapped{};              ///< first pixel of the mapped region, and the backend's state
  std::size_t row_pitch = 0;    ///< bytes between mapped rows
  std::size_t slice_pitch = 0;  ///< bytes between mapped slices or layers (0 for 1D and 2D)
};

}  // namespace edgemem::contract
