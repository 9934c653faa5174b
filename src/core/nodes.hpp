// Shared state behind the public handles. Reference counted, allocated through the allocator
// policy, so no handle operation touches the C++ heap with allocator=static.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>

#include <edgemem/allocator.hpp>
#include <edgemem/buffer.hpp>
#include <edgemem/config.hpp>
#include <edgemem/device.hpp>
#include <edgemem/error.hpp>
#include <edgemem/event.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/image.hpp>
#include <edgemem/queue.hpp>
#include <edgemem/sampler.hpp>
#include <edgemem/svm.hpp>

#include "contract/active.hpp"
#include "core/live.hpp"
#include "core/lock.hpp"
#include "pool/pool_core.hpp"

namespace edgemem::detail {

/// Constructs a T in allocator-policy memory; null when the policy is out of memory.
template <class T, class... Args>
T* make_node(Args&&... args) noexcept {
  void* p = DefaultAllocator::allocate(sizeof(T), alignof(T));
  return p ? new (p) T(std::forward<Args>(args)...) : nullptr;
}

/// Destroys a T made by make_node.
template <class T>
void destroy_node(T* node) noexcept {
  node->~T();
  DefaultAllocator::deallocate(node, sizeof(T), alignof(T));
}

struct ContextNode {
  std::atomic<std::uint32_t> refs{1};
  Backend::NativeContext native{};
  bool borrowed = false;  // adopted with AdoptMode::borrow: the native context is not released
  DeviceInfo info{};
  // Image formats by ImageType and FormatAccess, gathered at creation when info.caps.images.
  FormatSet formats[image_type_count][format_access_count] = {};
  // Errors a destructor could not return (e.g. a Mapping's unmap): counted, the last one kept.
  std::mutex unreported_lock;
  std::size_t unreported_count = 0;
  Error unreported_last{};
  // The queues of this context that edgemem owns natively (made by Queue::create or adopted with
  // retain) and whose nodes live: where the free of shared virtual memory whose last handle went with
  // commands still queued is enqueued (svm_root.cpp). Guarded by queues_lock.
  std::mutex queues_lock;
  QueueNode* queues = nullptr;
};

/// A queue. Its commands are numbered by `tickets` in their native order (docs/ordering.md): an async
/// command, a marker that stands for a command, takes its ticket under `submit_lock` right after its
/// enqueue, so a lower ticket was enqueued earlier; a blocking command reads the count before its
/// enqueue, and once it has completed so has every command whose ticket is at most that count.
struct QueueNode {
  std::atomic<std::uint32_t> refs{1};
  ContextNode* ctx = nullptr;  // a root holds a reference; a sub-buffer borrows its root's
  Backend::NativeQueue native{};
  bool borrowed = false;       // adopted with AdoptMode::borrow: the native queue is not released
  std::uint64_t serial = 0;    // unique per queue for the life of the process (ordering records)
  Lock submit_lock;            // held across an enqueue whose event the ordering table keeps, and its ticket
  std::atomic<std::uint64_t> tickets{0};  // tickets handed out (the last one given)
  QueueNode* next = nullptr;   // ContextNode::queues (owned queues only)
  QueueNode* prev = nullptr;
};

struct PendingTable;

/// Who takes a node back when its handles let go. Set before the node is shared; never changes.
enum class NodeOwnership : std::uint8_t {
  none,        ///< an ordinary buffer or view: the last reference frees it into the allocator policy
  pool_block,  ///< a pool block: the pool keeps one reference; when only that one is left, the block is
               ///< back (owner->take_back, under the pool's own spinlock only: a pool return takes no
               ///< mutex, as FixedPool promises; a pool dying while a block returns is a documented race)
  heap_run,    ///< a heap run whose node lives in its owner's storage: after the last reference the
               ///< native object goes, then owner->take_back, under root->return_lock (the heap, or after
               ///< the heap died its orphaned node storage, which only that lock guards), frees the pages
               ///< and destroys the node where it lives
};

/// One open mapping, as a byte range of the root buffer. Meaningful only while its bit is set in
/// MapSlots::used, so new slots are left unwritten. Every native map is of the root's
/// native object (sub-buffers are views), so mappings are grouped per root:
/// read mappings made on one queue over bytes an open read mapping of the same root already maps
/// share its native mapping (one native map, one native unmap by the last of them: drivers such as
/// NVIDIA's refuse a second unmap of a pointer mapped twice). Two native maps of one root that return
/// one address join one group too, and are unmapped together by its last member (the extra unmaps of
/// that address may be refused by such a driver, and that answer is expected).
struct MapSlot {
  std::size_t begin;         // this mapping's root-relative bytes
  std::size_t end;
  void* host;                // this mapping's first byte
  contract::Mapped native;   // the native mapping this one uses (shared by its group), as map returned it
  std::uint32_t native_id;   // its group, numbered per root: the native mappings it shares (see map_bytes)
  unsigned native_count;     // native maps this slot must undo when its group closes
  std::size_t native_begin;  // root-relative bytes of that native mapping
  std::size_t native_end;
  std::uint64_t queue;       // QueueNode::serial of the queue it was mapped on
  Access access;
  bool closing;              // its group is being unmapped natively: no new member may join
};

struct MemNode;

/// Foreign memory a root uses (an import's mapping and file descriptor, a DLPack producer's tensor):
/// made by whoever made the root, let go by `release` right after the root's native object, exactly once.
/// Lives in allocator-policy memory; `release` frees it.
struct ExternalRef {
  void (*release)(ExternalRef* self) noexcept = nullptr;  ///< undoes the import and frees this record
  /// Host access to the memory starts (`start`) or ends around a map of `access` (a dma-buf's
  /// DMA_BUF_IOCTL_SYNC); null when the memory needs no bracketing.
  void (*host_access)(ExternalRef* self, bool start, Access access) noexcept = nullptr;
  ImportPath path = ImportPath::none;  ///< how the root reached the memory (Buffer::import_path())
  bool bracketed = false;              ///< commands and maps on the root need external_acquire / release
  /// Open brackets that hold the memory acquired (mappings, begin_native .. end_native), per queue:
  /// cl_khr_external_memory acquires for one command-queue, so a command on queue B is not bracketed
  /// again only while B itself holds the memory (a mapping made on queue A does not acquire it for B);
  /// a queue's first hold acquires on it, its last releases on it (core/external_bracket.hpp). Guarded
  /// by holds_lock; at most max_hold_queues queues hold it at once.
  static constexpr unsigned max_hold_queues = 8;
  struct QueueHold {
    std::uint64_t queue = 0;  ///< QueueNode::serial of the holding queue
    unsigned count = 0;       ///< its open holds (0: the entry is free)
  };
  std::mutex holds_lock;
  QueueHold holds[max_hold_queues];
  /// The file the memory lives in (st_dev, st_ino of the fd's file) when the root was made over one
  /// (a memfd, dma-buf or opaque fd import, create_exportable): two roots over one file alias where
  /// their file ranges (fd_offset + root byte) meet (issue #29.7; core/checks.hpp, aliased_overlap).
  bool has_file = false;
  std::uint64_t file_dev = 0;
  std::uint64_t file_ino = 0;
  UniqueFd fd;                         ///< the root's own fd (sealed memfd exports, dma-buf sync), or none
  std::size_t fd_offset = 0;           ///< where the root's bytes start in `fd`
  bool sealed = false;                 ///< `fd` is a memfd no peer can resize (export_handle() may share it)
  /// Imported with MemFlags::read_only: the memory is mapped PROT_READ (or is a copy standing for such
  /// memory), so nothing edgemem does may write it; every write through the API is access_denied.
  bool read_only = false;
  /// A random number drawn when the root was made over a sealed memfd (create_exportable, a sealed
  /// import): a pool over it exports it as its IpcDescriptor::pool_id and in every BlockDescriptor, so
  /// two pools in one file are told apart; 0 for other roots.
  std::uint64_t identity = 0;
};

/// MemNode::native_state of a view: no native sub-object yet, one thread making it, made by native_of
/// (and `native` published by the release store that set it), or given (adopted, or an image view's):
/// at least kNativeReady means `native` is set. Only what native_of made may go on to a later view of
/// the same bytes (KeptView).
inline constexpr std::uint8_t kNativeNone = 0, kNativeMaking = 1, kNativeReady = 2, kNativeGiven = 3;

/// The mapping slots of one node: made on its first map, kept until the node dies (most views, pool
/// blocks and heap runs are never mapped, so a node stays small). Guarded by root->map_lock.
struct MapSlots {
  unsigned count = 0;         // open mappings
  std::uint64_t used = 0;     // bit i: slot[i] holds an open mapping
  MapSlot slot[EDGEMEM_MAX_MAPPINGS_PER_BUFFER];
  MemNode* next = nullptr;    // the root's list of its nodes that hold mappings
  MemNode* prev = nullptr;
  MapSlots* spare_next = nullptr;  // in the root's spare list (MemNode::spare_maps)
  bool lent = false;               // storage of a heap's node book: not freed with the node
  MapSlots() noexcept {}      // user-provided: the slots are left unwritten (see MapSlot)
};

struct RootNode;
struct KeptView;

/// A buffer's or view's record: what every handle on memory names. A view (Buffer::sub, a pool block, a
/// heap run, an image over a buffer) is only this: its root, its bytes there, its access and its lazily
/// made native sub-object. What belongs to the allocation itself lives once, in its RootNode.
struct MemNode {
  // User-provided, so `new MemNode()` runs the member initializers only: a sub-buffer is made per
  // call on hot paths.
  MemNode() noexcept {}
  ~MemNode() {
    if (maps != nullptr && !maps->lent) destroy_node(maps);
  }
  MemNode(const MemNode&) = delete;
  MemNode& operator=(const MemNode&) = delete;

  std::atomic<std::uint32_t> refs{1};
  ContextNode* ctx = nullptr;  // holds a reference
  MemNode* parent = nullptr;   // holds a reference; null for a root
  RootNode* root = nullptr;    // the root allocation (this, for a root)
  std::size_t origin = 0;      // byte offset within the root
  std::size_t bytes = 0;
  Storage storage = Storage::device;
  MemFlags flags = MemFlags::read_write;
  bool wrapped = false;
  bool borrowed = false;            // adopted with AdoptMode::borrow: the native object is not released
  bool image = false;               // an ImageNode (core/image_node.hpp)
  bool image_object = false;        // an image whose commands and maps use `native`, the image object;
                                    // false for a 1D-buffer image view: its pixels are its buffer's
                                    // bytes, and its commands run on the buffer (image_node.hpp)
  NodeOwnership ownership = NodeOwnership::none;  // pool blocks and heap runs (see NodeOwnership)
  std::atomic<std::uint8_t> native_state{0};  // view only: kNativeNone, kNativeMaking or kNativeReady
  std::uint32_t owner_slot = 0;               // the index of a pool block or heap run at its owner
  // A root's native object; a view's native sub-object, made only when first asked for (native_of)
  // and kept until the view dies. Commands on a view use the root's object at the view's origin.
  Backend::NativeMem native{};

  // Mappings made through this node; guarded by root->map_lock. Null until the first map of an
  // ordinary buffer or view (then from the root's spare list or the allocator); made at init() for a
  // pool block and lent by the heap's node book for a heap run, so pools and heaps map with no
  // allocation in the steady state.
  MapSlots* maps = nullptr;

  // Pool blocks and heap runs: who takes the node back. `owner` changes only when the owner dies first
  // and hands the node on (orphan()).
  std::atomic<NodeOwner*> owner{nullptr};
};

/// The record of one allocation (Buffer::create, wrap, adopt, an import, Svm::create, an image
/// object): its memory's kind and payload, the commands that may still reach it, its mappings and its
/// foreign memory, held once however many views it has. `root` is `this`.
struct RootNode : MemNode {
  RootNode() noexcept { root = this; }
  ~RootNode();  // frees the kept views' storage and the spare mapping slots (nodes.cpp)

  std::byte* svm = nullptr;         // shared virtual memory (Svm::create): the allocation's first byte,
                                    // else null (core/svm_root.hpp)
  SvmGrain svm_grain = SvmGrain::coarse;  // the grain when `svm` is set
  const std::byte* host = nullptr;  // made by Buffer::wrap or adopted over CL_MEM_USE_HOST_PTR: the
                                    // caller memory it uses (else null)
  PendingTable* pending = nullptr;  // commands that may still reach it (core/ordering.hpp)
  ExternalRef* external = nullptr;  // foreign memory it uses, let go after `native` (else null)

  // Guards the mappings of every node of this root: their MapSlots, `mapped_head`, `next_native_id`
  // and the spare slots (`spare_maps`). The pending table has its own lock (PendingTable::lock).
  Lock map_lock;
  // Guards a heap's node returns (NodeOwnership::heap_run) and its hand-over of live nodes when it
  // dies (orphan): the heap's storage may go with the last return, so the lock lives here.
  Lock return_lock;
  std::uint32_t next_native_id = 0;      // the numbering of its native mappings (MapSlot::native_id)
  std::atomic<unsigned> mapped_nodes{0};  // nodes of this root that hold mappings
  MemNode* mapped_head = nullptr;        // their list (MapSlots::next / prev)
  MapSlots* spare_maps = nullptr;  // slots of this root's dead views, for the next view's first map
                                   // (so pool blocks and heap runs mapped per frame allocate nothing)
  // The storage of this root's dead plain views (KeptView), for the next views' nodes, so views made
  // and dropped per frame cost no allocation (take_view_node, keep_view_storage): the last one in
  // `spare_view` (one atomic exchange to take; it may keep its native sub-object), up to
  // kMaxSpareViews more in two lists guarded by `spare_lock`: `spare_views` (storage only) and
  // `kept_natives`, oldest first (`kept_natives_tail` the newest), at most kMaxKeptNatives, each with the
  // native sub-object native_of made for it, for the next view of the same bytes and access.
  // `spare_count` (both lists) and `native_count` read without the lock are hints.
  std::atomic<KeptView*> spare_view{nullptr};
  SpinLock spare_lock;  // held for a few pointer swaps (and a look at the first kNativeSearch natives)
  std::atomic<std::uint32_t> spare_count{0};
  std::atomic<std::uint32_t> native_count{0};
  KeptView* spare_views = nullptr;
  KeptView* kept_natives = nullptr;
  KeptView* kept_natives_tail = nullptr;
};

/// The storage of a dead plain view kept by its root (the MemNode destroyed, this built in its place):
/// the list link and, in the root's `spare_view` slot or `kept_natives` list, the native sub-object
/// native_of made for it, handed to the next view of the same bytes and access so a frame loop that
/// asks its views' native() each frame makes no driver call after the first (the root releases them
/// when it goes).
/// Built with only `has_native` set (a view dropped per frame writes no more): `next` is set when it
/// goes on the list, the rest only when `has_native`.
struct KeptView {
  explicit KeptView(bool native_kept) noexcept : has_native(native_kept) {}
  KeptView* next;
  Backend::NativeMem native;
  std::size_t origin;
  std::size_t bytes;
  MemFlags flags;
  bool has_native;
};
static_assert(sizeof(KeptView) <= sizeof(MemNode) && alignof(KeptView) <= alignof(MemNode),
              "a kept view lives in a dead view's storage");

/// How many dead views' storage a root keeps beside `spare_view` (96 bytes each on a 64-bit target):
/// views made by the hundred per frame and dropped take no allocation; a root that once had more
/// frees the rest (and releases their native sub-objects).
inline constexpr std::uint32_t kMaxSpareViews = 256;
/// How many of a root's kept views keep their native sub-objects on its list (beside the slot's): the
/// oldest goes (its sub-object released, its storage kept for any view) when a newer one comes, so
/// natives never hold storage a view of other bytes would need: frames of up to
/// kMaxSpareViews - kMaxKeptNatives views allocate nothing in the steady state, whatever their bytes.
inline constexpr std::uint32_t kMaxKeptNatives = 64;
/// How deep a new view looks into its root's `kept_natives` (oldest first) for one of its bytes and
/// access: the views a frame makes in one order and drops in the same order are found at the front.
inline constexpr std::uint32_t kNativeSearch = 8;

struct ImageNode;  // core/image_node.hpp


/// The native object a command or map on `n` names: an image object's own; a buffer's root's (views
/// are the root at their origin), and so a 1D-buffer image view's.
inline const Backend::NativeMem& command_target(const MemNode* n) noexcept {
  return n->image_object ? n->native : n->root->native;
}

/// Mappings open through `n` now (read under root->map_lock).
inline unsigned open_mappings(const MemNode* n) noexcept { return n->maps != nullptr ? n->maps->count : 0; }

/// The common layer's access to the public handles' private parts (friend of each): their nodes, and
/// making handles from nodes and native events. Public headers carry no "internal" members.
struct HandleAccess {
  static MemNode* node(const Buffer& b) noexcept { return b.node_; }            ///< null when released
  /// The image node of `i` (null when released); defined in core/image_node.hpp.
  static ImageNode* node(const Image& i) noexcept;
  static ContextNode* node(const Context& c) noexcept { return c.node_; }       ///< null when released
  static QueueNode* node(const Queue& q) noexcept { return q.node_; }           ///< null when released
  static ContextNode* context(const Event& e) noexcept { return e.get().ctx; }       ///< null when released
  /// A Buffer adopting one reference already held on `n`.
  static Buffer buffer(MemNode* n) noexcept { return Buffer(n); }
  /// An Svm adopting one reference already held on `n` (a node of shared virtual memory).
  static Svm svm(MemNode* n) noexcept { return Svm(n); }
  /// A Context handle on `n`, taking a reference of its own.
  static Context context_handle(ContextNode* n) noexcept {
    n->refs.fetch_add(1, std::memory_order_relaxed);
    return Context(n);
  }
  /// The context a sampler holds (null when released).
  static ContextNode* context(const Sampler& s) noexcept { return s.get().ctx; }
  /// An Event owning `native`, an event of a command on `ctx` (takes a reference to `ctx`).
  static Event event(Backend::NativeEvent native, ContextNode* ctx) noexcept;
};

/// The node of a public handle (null when released).
template <class H>
auto node_of(const H& handle) noexcept -> decltype(HandleAccess::node(handle)) {
  return HandleAccess::node(handle);
}

inline void retain(ContextNode* n) noexcept { n->refs.fetch_add(1, std::memory_order_relaxed); }
inline void retain(QueueNode* n) noexcept { n->refs.fetch_add(1, std::memory_order_relaxed); }
inline void retain(MemNode* n) noexcept { n->refs.fetch_add(1, std::memory_order_relaxed); }

/// Counts an error that a destructor had to drop on `ctx` (Context::unreported_errors()).
void report_dropped(ContextNode* ctx, const Error& e) noexcept;

/// Destroys `n`, made by make_node (or its root's spare view storage), as what it is: an ImageNode, a
/// RootNode (root == n) or a view's MemNode, and frees it into the allocator policy.
void destroy_mem_node(MemNode* n) noexcept;

/// Initialises `n` (just constructed, in the allocator's or a heap's storage) as a view of `parent`:
/// `bytes` bytes at root byte `origin`, access `flags`; takes a reference to `parent` and counts a live
/// sub-buffer. Never fails: a view has no native sub-object until native_of() asks for one. Inline:
/// Buffer::sub's path.
inline void init_view(MemNode* n, MemNode* parent, std::size_t origin, std::size_t bytes, MemFlags flags) noexcept {
  retain(parent);  // the context is borrowed through the parent chain
  n->ctx = parent->ctx;
  n->parent = parent;
  n->root = parent->root;
  n->origin = origin;
  n->bytes = bytes;
  n->storage = parent->storage;
  n->flags = flags;
  n->wrapped = parent->wrapped;
  live_add(n->image ? Live::image : Live::sub_buffer, 1);
}
/// take_view_node past the root's last dead view: a kept native sub-object of the same bytes and
/// access with its storage, else the storage the root kept, else the allocator policy.
MemNode* take_kept_or_new_view_node(RootNode* root, std::size_t origin, std::size_t bytes, MemFlags flags) noexcept;
/// take_view_node with the last dead view `k` (taken from the slot) that kept its native sub-object:
/// the node with that sub-object when `k` had the same bytes and access, else `k` goes back.
MemNode* take_view_node_kept_native(RootNode* root, KeptView* k, std::size_t origin, std::size_t bytes,
                                    MemFlags flags) noexcept;
/// A fresh MemNode for a view of `root`'s bytes [origin, origin + bytes) with `flags`: a dead view's
/// storage the root kept when it has one (with its native sub-object, when it was of the same bytes
/// and access: native_state kNativeReady), else one from the allocator policy; null when that fails.
/// Inline: Buffer::sub's path.
inline MemNode* take_view_node(RootNode* root, std::size_t origin, std::size_t bytes, MemFlags flags) noexcept {
  if (root->spare_view.load(std::memory_order_relaxed) != nullptr) {
    if (KeptView* k = root->spare_view.exchange(nullptr, std::memory_order_acquire); k != nullptr) {
      if (k->has_native) return take_view_node_kept_native(root, k, origin, bytes, flags);
      k->~KeptView();
      return new (k) MemNode();
    }
  }
  return take_kept_or_new_view_node(root, origin, bytes, flags);
}
/// Keeps the storage of `n`, a plain view of `root` being destroyed (its native sub-object too when
/// native_of made it), for the next view; frees it into the allocator policy (releasing its native
/// sub-object) when the root keeps kMaxSpareViews + 1 already.
void keep_view_storage(RootNode* root, MemNode* n) noexcept;
/// Releases the native sub-objects dead views of `root` kept (before the root's own native object goes).
void drop_kept_native(RootNode* root) noexcept;

/// The native object of `n`: a root's own; for a view, its native sub-object, made on first use
/// (kernel arguments, migration, pool blocks at init) and kept until the view dies. Thread-safe.
/// Errc: those of Backend::mem_sub.
[[nodiscard]] Result<Backend::NativeMem> native_of(MemNode* n) noexcept;

/// The one orphan protocol of pools and heaps: an owner that dies while node `n` is still out hands it
/// to `heir`, holding the lock its take_back path runs under (a heap: root->return_lock; a pool: none). A
/// pool passes null: its block's node came from the allocator, so from then on it is freed like any
/// view. A heap passes its node storage, which takes the node back and frees itself with the last one.
inline void orphan(MemNode* n, NodeOwner* heir) noexcept { n->owner.store(heir, std::memory_order_release); }

/// Puts a new queue node (its ctx, native and borrowed set) on its context's list of owned queues
/// (borrowed ones stay off it).
void link_queue(QueueNode* n) noexcept;

/// One owned queue of `ctx` that is still alive, with a reference taken for the caller (unref it), or
/// null when there is none.
QueueNode* take_live_queue(ContextNode* ctx) noexcept;

/// Drops one reference; the last one releases the native object and the node.
void unref(ContextNode* n) noexcept;
void unref(QueueNode* n) noexcept;
void unref(MemNode* n) noexcept;

}  // namespace edgemem::detail
