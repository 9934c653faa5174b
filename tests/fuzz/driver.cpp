// Differential fuzz driver: decodes an input into edgemem operations, runs each on every target
// (the host build and, with FZ_HAVE_OPENCL, the OpenCL build) and on a plain-memory model, and
// compares every result code, every byte read and the observable state after every operation.
// Any difference prints the operation sequence and aborts.
//
// Input format (all little-endian, a missing byte reads as 0): a sequence of operations, each
//   op  s1  s2  s3  s4  seed  n0:u16  n1:u16  n2:u16  [rect: 13 bytes, rect ops only]
// op % kOpCount picks the operation; s1 = slot a (bits 0-2), slot b (3-5), mapping m (6-7);
// s2 = async (bit 0), null host pointer (bits 1-3 all set), wide map (bit 4), context 1 (bits 5+6),
// queue 1 (bits 5+7); s3 = MemFlags (bit 7 set: bits 0-5 as raw flags, else read_write), keep the
// async event (bit 6; wait list of an async op: the event slots of mask m);
// s4 = storage (% 3 of bits 0-1), access (bits 2-3), migration (bits 4-5);
// seed picks the input bytes (a window of a fixed pseudo-random block); n0..n2 decode to sizes
// and offsets (see number()). Rect: per side x, y, z, row pitch, slice pitch bytes; region x, y, z.
#include "driver.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "target.hpp"

namespace fz {

namespace {

constexpr std::size_t kMaxOps = 200;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);
constexpr unsigned kMigrationToDeviceDiscard = 2;  ///< Migration::to_device_discard

// ---- input decoding ------------------------------------------------------------------------

struct Reader {
  const std::uint8_t* p;
  std::size_t left;
  std::uint8_t u8() noexcept {
    if (left == 0) return 0;
    --left;
    return *p++;
  }
  std::uint16_t u16() noexcept {
    const std::uint16_t lo = u8();
    return static_cast<std::uint16_t>(lo | (u8() << 8));
  }
};

/// 2^40 and 2^48 where size_t has 64 bits; on ILP32 (armhf) two other values past every device.
constexpr std::size_t kHuge40 = SIZE_MAX > 0xFFFFFFFFu ? static_cast<std::size_t>(std::uint64_t{1} << 40) : SIZE_MAX / 4 + 1;
constexpr std::size_t kHuge48 = SIZE_MAX > 0xFFFFFFFFu ? static_cast<std::size_t>(std::uint64_t{1} << 48) : SIZE_MAX / 8 * 7;
/// Sizes and offsets: raw 0..8191, multiples of 128, small values, or edge values (all edge values
/// above 8192 exceed every device's max allocation, so no host span is ever read past kHostBytes).
std::size_t number(std::uint16_t v) noexcept {
  static constexpr std::size_t kSpecial[16] = {
      0, 1, 64, 127, 128, 129, 255, 256, 1024, 4096, 8192, SIZE_MAX, SIZE_MAX - 127, SIZE_MAX / 2 + 1,
      kHuge40, kHuge48};
  switch (v >> 14) {
    case 0: return v & 0x1FFFu;
    case 1: return (v & 0x3Fu) * 128;
    case 2: return v & 0xFFu;
    default: return kSpecial[v & 15u];
  }
}

bool is_rect(Op op) noexcept { return op == op_write_rect || op == op_read_rect || op == op_copy_rect; }

RectSideArgs decode_side(Reader& r, std::size_t region_x) noexcept {
  RectSideArgs s;
  s.x = r.u8() & 63u;
  s.y = r.u8() & 7u;
  s.z = r.u8() & 3u;
  const std::uint8_t rp = r.u8(), sp = r.u8();
  s.row_pitch = (rp & 0x80u) ? (rp & 0x7Fu) * 2u : 0;
  const std::size_t row = s.row_pitch != 0 ? s.row_pitch : region_x;
  if (sp & 0x40u) s.slice_pitch = (sp & 0x3Fu) * 64u;             // any value, often invalid
  else if (sp & 0x80u) s.slice_pitch = row * ((sp & 0x0Fu) + 1u);  // a multiple of the row pitch
  return s;
}

std::vector<std::uint8_t>& data_block() noexcept {
  static std::vector<std::uint8_t> block = [] {
    std::vector<std::uint8_t> b(kHostBytes + 256 * 128);
    std::uint32_t x = 0x9E3779B9u;
    for (auto& v : b) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      v = static_cast<std::uint8_t>(x >> 24);
    }
    return b;
  }();
  return block;
}

Args decode(Reader& r) noexcept {
  Args a;
  a.op = static_cast<Op>(r.u8() % kOpCount);
  const std::uint8_t s1 = r.u8(), s2 = r.u8(), s3 = r.u8(), s4 = r.u8(), seed = r.u8();
  a.a = s1 & 7u;
  a.b = (s1 >> 3) & 7u;
  a.m = ((s1 >> 6) & 3u) | ((s4 >> 4) & 0x0Cu);
  a.async = s2 & 1u;
  a.null_ptr = (s2 & 0x0Eu) == 0x0Eu;
  a.wide = s2 & 0x10u;
  a.ctx = (s2 & 0x60u) == 0x60u ? 1 : 0;
  a.queue = (s2 & 0xA0u) == 0xA0u ? 1 : 0;
  a.flags = (s3 & 0x80u) ? (s3 & 0x3Fu) : 0u;
  a.keep = s3 & 0x40u;
  a.storage = (s4 & 3u) % 3u;
  a.access = (s4 >> 2) & 3u;
  a.migration = (s4 >> 4) & 3u;
  a.data = data_block().data() + std::size_t{seed} * 128;
  const std::uint16_t r0 = r.u16(), r1 = r.u16(), r2 = r.u16();
  a.n0 = number(r0);
  a.n1 = number(r1);
  a.n2 = number(r2);
  static constexpr std::size_t kPatterns[12] = {1, 2, 4, 8, 16, 32, 64, 128, 0, 3, 256, 4};
  a.pattern_bytes = kPatterns[r2 % 12u];
  const bool heap_init = a.op == op_heap_init || a.op == op_svm_heap_init;
  if (a.op == op_pool_init || a.op == op_svm_pool_init || heap_init) a.n1 = r1 % 17u;  // block / page count
  if (heap_init) a.n2 = r2 % 9u;  // max_buffers (0: page count)
  if (is_rect(a.op)) {
    std::uint8_t side_bytes[10];
    for (auto& v : side_bytes) v = r.u8();
    a.region[0] = r.u8() % 65u;
    a.region[1] = r.u8() % 9u;
    a.region[2] = r.u8() % 5u;
    Reader sr{side_bytes, sizeof side_bytes};
    a.side[0] = decode_side(sr, a.region[0]);
    a.side[1] = decode_side(sr, a.region[0]);
  }
  return a;
}

const char* op_name(Op op) noexcept {
  static constexpr const char* kNames[kOpCount] = {
      "create", "from_host", "wrap", "like", "sub", "release", "drop", "move", "write", "read",
      "fill", "copy", "write_rect", "read_rect", "copy_rect", "map", "map_write", "unmap", "map_drop",
      "pool_init", "pool_acquire", "pool_release", "pool_destroy", "heap_init", "heap_create",
      "heap_from_host", "heap_release", "heap_destroy", "migrate", "finish", "event", "img_create",
      "img_from_host", "img_like", "img_view", "img_release", "img_drop", "img_write", "img_read", "img_copy",
      "img_fill", "img_to_buf", "buf_to_img", "img_map", "native", "svm_create", "svm_like", "svm_sub",
      "svm_span", "svm_pool_init", "svm_heap_init", "ext_import", "ext_exportable", "ext_handle", "ext_pwrite"};
  return op < kOpCount ? kNames[op] : "?";
}

// ---- the plain-memory model ----------------------------------------------------------------

struct MRoot {
  std::vector<std::uint8_t> bytes, defined;
  bool svm = false;    // shared virtual memory (driver_svm.inc)
  unsigned grain = 0;  // its SvmGrain value
};
enum Owner { owner_none, owner_pool, owner_heap };
struct MNode {
  int root = -1;       // index into roots
  int root_node = -1;  // the root node (shares_root_with)
  int parent = -1;
  std::size_t origin = 0, size = 0;
  int refs = 1;
  int maps = 0;  // open mappings made through this node
  Owner owner = owner_none;
  int keep = -1;  // reference count at which the owner takes it back
  std::size_t owner_slot = 0;
  unsigned ctx = 0;
};
struct MSlot {
  int node = -1;
  bool pooled = false;
  std::size_t pool_slot = 0;
  bool svm_obj = false;  // holds an Svm object (op_svm_create / like / sub), not only SVM memory
};
/// An image slot: its node (a root of its own, or a sub-node of the buffer it views) and shape.
struct MImage {
  int node = -1;
  unsigned type = 0, format = 0, storage = 0;
  std::size_t w = 1, h = 1, d = 1, arr = 1;
  std::size_t ext[3] = {0, 0, 0};     // image_extent (1D array: layers in y; 2D array: in z)
  std::size_t pixel = 0, row = 0, slice = 0, size = 0;
  std::uint32_t flags = 0;
  bool flags_known = true;  // a view's flags are its buffer's, which the model does not track
  bool is_view = false;
};
struct MMap {
  int node = -1;
  std::size_t begin = 0, size = 0;  // root-relative (an image map: size is the region's tight bytes)
  unsigned access = 0;
  bool image = false;       // an image mapping: the image's layout and the region below
  MImage img;
  std::size_t origin[3] = {0, 0, 0}, ext[3] = {0, 0, 0};
};
struct MPool {
  bool init = false;
  std::size_t count = 0, stride = 0, in_use = 0, high = 0, failed = 0;
  std::vector<int> blocks;
  std::vector<std::size_t> links;
  std::size_t head = kNone;
};
struct MHeap {
  bool init = false;
  unsigned ctx = 0;
  std::uint32_t flags = 0;
  int arena = -1;
  std::size_t page = 0, count = 0, free = 0;
  std::size_t max_buffers = 0, live = 0;  // node storage: live buffers at most max_buffers
  std::vector<bool> used;
};

struct Model {
  std::vector<MRoot> roots;
  std::vector<MNode> nodes;
  MSlot slots[kBufferSlots];
  MImage images[kImageSlots];
  MMap maps[kMappingSlots];
  MPool pool;
  MHeap heap;
  bool events[kEventSlots] = {};
  unsigned event_queue[kEventSlots] = {};  // the queue (so the context) whose command made the event

  void reset() {
    for (auto& e : events) e = false;
    roots.clear();
    nodes.clear();
    for (auto& s : slots) s = MSlot{};
    for (auto& i : images) i = MImage{};
    for (auto& m : maps) m = MMap{};
    pool = MPool{};
    heap = MHeap{};
  }

  int new_root(std::size_t bytes, const std::uint8_t* init, unsigned ctx) {
    MRoot r;
    r.bytes.assign(bytes, 0);
    r.defined.assign(bytes, init != nullptr);
    if (init != nullptr) std::memcpy(r.bytes.data(), init, bytes);
    roots.push_back(std::move(r));
    MNode n;
    n.root = static_cast<int>(roots.size() - 1);
    n.root_node = static_cast<int>(nodes.size());
    n.size = bytes;
    n.ctx = ctx;
    nodes.push_back(n);
    return n.root_node;
  }

  int new_sub(int parent, std::size_t offset, std::size_t bytes) {
    MNode n;
    const MNode& p = nodes[static_cast<std::size_t>(parent)];
    n.root = p.root;
    n.root_node = p.root_node;
    n.parent = parent;
    n.origin = p.origin + offset;
    n.size = bytes;
    n.ctx = p.ctx;
    nodes[static_cast<std::size_t>(parent)].refs++;
    nodes.push_back(n);
    return static_cast<int>(nodes.size() - 1);
  }

  void reclaim(MNode& n) {
    if (n.owner == owner_pool) {
      pool.links[n.owner_slot] = pool.head;
      pool.head = n.owner_slot;
      pool.in_use--;
    } else if (n.owner == owner_heap) {
      const std::size_t pages = (n.size + heap.page - 1) / heap.page;
      for (std::size_t p = n.owner_slot; p < n.owner_slot + pages; ++p) heap.used[p] = false;
      heap.free += pages;
      heap.live--;
    }
  }

  void unref(int idx) {
    while (idx >= 0) {
      MNode& n = nodes[static_cast<std::size_t>(idx)];
      const int left = --n.refs;
      if (left == n.keep && n.owner != owner_none) reclaim(n);
      if (left != 0) return;
      idx = n.parent;
    }
  }

  MRoot& root_of(int node) { return roots[static_cast<std::size_t>(nodes[static_cast<std::size_t>(node)].root)]; }

  std::size_t find_run(std::size_t pages) const {
    std::size_t run = 0;
    for (std::size_t p = 0; p < heap.count; ++p) {
      run = heap.used[p] ? 0 : run + 1;
      if (run == pages) return p + 1 - pages;
    }
    return kNone;
  }
  std::size_t largest_run() const {
    std::size_t best = 0, run = 0;
    for (std::size_t p = 0; p < heap.count; ++p) {
      run = heap.used[p] ? 0 : run + 1;
      if (run > best) best = run;
    }
    return best;
  }

  void pool_teardown() {
    for (int b : pool.blocks) {
      nodes[static_cast<std::size_t>(b)].owner = owner_none;  // detach blocks still out
      unref(b);
    }
    pool = MPool{};
  }
  void heap_teardown() {
    for (auto& n : nodes)
      if (n.owner == owner_heap) n.owner = owner_none;
    if (heap.arena >= 0) unref(heap.arena);
    heap = MHeap{};
  }
};

// ---- state of the run ------------------------------------------------------------------------

struct Record {
  Args args;
  int code[2];
};

struct State {
  std::vector<Target*> targets;
  Model model;
  std::vector<Record> log;
  std::vector<std::uint8_t> out[2];
  const char* label = "(input)";
  std::uint64_t ops = 0;
  std::string names;
  std::size_t base_align = 0;
  unsigned svm_all = 0, svm_any = 0;  // Target::svm_caps() bits every target has / some target has
  bool trace = false;  // EDGEMEM_FUZZ_TRACE set: print every operation and its code
};

State& state() noexcept {
  static State s;
  return s;
}

void print_external(const Args& a);  // driver_external.inc

void print_args(const Args& a) {
  std::fprintf(stderr, "%-14s a=%u b=%u m=%u n0=%zu n1=%zu n2=%zu", op_name(a.op), a.a, a.b, a.m, a.n0, a.n1, a.n2);
  if (a.op == op_create || a.op == op_from_host || a.op == op_wrap || a.op == op_pool_init || a.op == op_heap_init)
    std::fprintf(stderr, " storage=%u flags=0x%x", a.storage, a.flags);
  if (a.op == op_svm_create || a.op == op_svm_pool_init || a.op == op_svm_heap_init)
    std::fprintf(stderr, " grain=%u", a.access);
  if (a.op == op_svm_create) std::fprintf(stderr, " alignment=%zu", kSvmAlignments[a.migration & 3u]);
  if (a.op == op_svm_span) std::fprintf(stderr, "%s%s", a.wide ? " u32" : "", a.keep ? " write" : "");
  if (a.op == op_map) std::fprintf(stderr, " access=%u%s", a.access, a.wide ? " u32" : "");
  if (a.op == op_native) std::fprintf(stderr, " %s access=%u", a.keep ? "end" : "begin", a.access);
  if (a.op == op_fill) std::fprintf(stderr, " pattern=%zu", a.pattern_bytes);
  if (a.op == op_migrate) std::fprintf(stderr, " to=%u", a.migration);
  if (is_rect(a.op))
    std::fprintf(stderr, " region=%zux%zux%zu side0={%zu,%zu,%zu rp=%zu sp=%zu} side1={%zu,%zu,%zu rp=%zu sp=%zu}",
                 a.region[0], a.region[1], a.region[2], a.side[0].x, a.side[0].y, a.side[0].z, a.side[0].row_pitch,
                 a.side[0].slice_pitch, a.side[1].x, a.side[1].y, a.side[1].z, a.side[1].row_pitch,
                 a.side[1].slice_pitch);
  if (a.ctx != 0) std::fprintf(stderr, " ctx=1");
  if (a.queue != 0) std::fprintf(stderr, " queue=1");
  if (a.op == op_event) std::fprintf(stderr, " %s", a.access == 0 ? "wait" : a.access == 1 ? "is_complete" : a.access == 2 ? "release" : "move");
  if (a.async) std::fprintf(stderr, " async waits=0x%x%s", a.m, a.keep ? " keep" : "");
  if (a.null_ptr) std::fprintf(stderr, " null");
  if (is_external_op(a.op)) print_external(a);
  if (is_image_op(a.op)) {
    const ImageArgs& i = a.img;
    if (a.op == op_img_create || a.op == op_img_from_host || a.op == op_img_view)
      std::fprintf(stderr, " type=%u format=%u desc=%zux%zux%zu[%zu] storage=%u flags=0x%x", i.type, i.format, i.width,
                   i.height, i.depth, i.array_size, a.storage, a.flags);
    else
      std::fprintf(stderr, " origin=%zu,%zu,%zu extent=%zu,%zu,%zu", i.origin[0], i.origin[1], i.origin[2],
                   i.extent[0], i.extent[1], i.extent[2]);
    if (a.op == op_img_copy) std::fprintf(stderr, " src=%zu,%zu,%zu", i.src_origin[0], i.src_origin[1], i.src_origin[2]);
    if (a.op == op_img_write || a.op == op_img_read || a.op == op_img_from_host)
      std::fprintf(stderr, " pitch=%zu/%zu", i.row_pitch, i.slice_pitch);
    if (a.op == op_img_fill)
      std::fprintf(stderr, " color(kind %u)=%08x,%08x,%08x,%08x", i.color_kind, i.color[0], i.color[1], i.color[2],
                   i.color[3]);
    if (a.op == op_img_map) std::fprintf(stderr, " access=%u", a.access);
  }
}

[[noreturn]] void report(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

void report(const char* fmt, ...) {
  State& s = state();
  std::fprintf(stderr, "\n==== edgemem differential fuzz: MISMATCH in %s (%s)\n", s.label, s.names.c_str());
  std::fprintf(stderr, "operations (code per target: %s", s.targets[0]->name());
  for (std::size_t t = 1; t < s.targets.size(); ++t) std::fprintf(stderr, " / %s", s.targets[t]->name());
  std::fprintf(stderr, "):\n");
  for (std::size_t i = 0; i < s.log.size(); ++i) {
    std::fprintf(stderr, "  #%-3zu ", i);
    print_args(s.log[i].args);
    std::fprintf(stderr, "  -> %s", s.targets[0]->code_name(s.log[i].code[0]));
    for (std::size_t t = 1; t < s.targets.size(); ++t)
      std::fprintf(stderr, " / %s", s.targets[t]->code_name(s.log[i].code[t]));
    std::fprintf(stderr, "\n");
  }
  std::fprintf(stderr, "difference after the last operation: ");
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
  std::abort();  // fuzz_main.cpp makes ASan handle SIGABRT, so libFuzzer saves the input
}

// ---- comparisons -----------------------------------------------------------------------------

/// Compares `len` bytes a target produced against the model's root bytes at `begin` (defined ones only).
void expect_bytes(const char* what, std::size_t t, const std::uint8_t* got, const MRoot& root, std::size_t begin,
                  std::size_t len) {
  for (std::size_t i = 0; i < len; ++i) {
    if (root.defined[begin + i] && got[i] != root.bytes[begin + i])
      report("%s: %s byte %zu is 0x%02x, the model says 0x%02x", what, state().targets[t]->name(), i, got[i],
             root.bytes[begin + i]);
  }
}

void compare_images(const Snapshot& snap, const char* name);

void compare_snapshots() {
  State& s = state();
  Model& m = s.model;
  for (std::size_t t = 0; t < s.targets.size(); ++t) {
    Snapshot snap;
    s.targets[t]->snapshot(snap);
    const char* name = s.targets[t]->name();
    for (unsigned i = 0; i < kBufferSlots; ++i) {
      const MSlot& ms = m.slots[i];
      const SlotState& st = snap.slot[i];
      SlotState want;
      if (ms.node >= 0) {
        const MNode& n = m.nodes[static_cast<std::size_t>(ms.node)];
        want.valid = 1;
        want.size = n.size;
        want.origin = n.origin;
        want.is_sub = n.parent >= 0;
        want.pooled = ms.pooled;
        want.pool_slot = ms.pooled ? ms.pool_slot : 0;
        for (unsigned j = 0; j < kBufferSlots; ++j) {
          const int other = m.slots[j].node;
          if (other >= 0 && m.nodes[static_cast<std::size_t>(other)].root_node == n.root_node) want.shares |= 1u << j;
        }
      }
      if (st.valid != want.valid || st.size != want.size || st.origin != want.origin || st.is_sub != want.is_sub ||
          st.pooled != want.pooled || st.pool_slot != want.pool_slot || st.shares != want.shares)
        report("%s slot %u: valid=%" PRIu64 " size=%" PRIu64 " origin=%" PRIu64 " sub=%" PRIu64 " pooled=%" PRIu64
               " pool_slot=%" PRIu64 " shares=0x%" PRIx64 "; the model says valid=%" PRIu64 " size=%" PRIu64
               " origin=%" PRIu64 " sub=%" PRIu64 " pooled=%" PRIu64 " pool_slot=%" PRIu64 " shares=0x%" PRIx64,
               name, i, st.valid, st.size, st.origin, st.is_sub, st.pooled, st.pool_slot, st.shares, want.valid,
               want.size, want.origin, want.is_sub, want.pooled, want.pool_slot, want.shares);
    }
    for (unsigned i = 0; i < kMappingSlots; ++i) {
      const bool mapped = m.maps[i].node >= 0;
      // An image mapping's size_bytes() follows the pitches the target mapped with: not compared.
      if (snap.mapped[i] != mapped || (mapped && !m.maps[i].image && snap.map_bytes[i] != m.maps[i].size))
        report("%s mapping %u: mapped=%" PRIu64 " bytes=%" PRIu64 "; the model says mapped=%d bytes=%zu", name, i,
               snap.mapped[i], snap.map_bytes[i], mapped, m.maps[i].size);
    }
    const std::uint64_t pool[5] = {m.pool.count, m.pool.stride, m.pool.in_use, m.pool.high, m.pool.failed};
    for (unsigned k = 0; k < 5; ++k)
      if (snap.pool[k] != pool[k])
        report("%s pool stats[%u] (capacity, block_bytes, in_use, high_water, failed) is %" PRIu64
               ", the model says %" PRIu64,
               name, k, snap.pool[k], pool[k]);
    for (unsigned i = 0; i < kEventSlots; ++i)
      if (snap.event_valid[i] != m.events[i])
        report("%s event %u: valid=%" PRIu64 ", the model says %d", name, i, snap.event_valid[i], m.events[i]);
    const std::uint64_t heap[4] = {m.heap.page, m.heap.count, m.heap.free, m.largest_run()};
    for (unsigned k = 0; k < 4; ++k)
      if (snap.heap[k] != heap[k])
        report("%s heap[%u] (page_size, page_count, free_pages, largest_free_run) is %" PRIu64
               ", the model says %" PRIu64,
               name, k, snap.heap[k], heap[k]);
    compare_images(snap, name);
  }
}

bool in_range(std::size_t off, std::size_t len, std::size_t size) noexcept {
  return off <= size && len <= size - off;
}

/// Resolved rect side: pitches filled in, bounding extent checked against `limit`.
bool resolve(const RectSideArgs& in, const std::size_t (&region)[3], std::size_t limit, RectSideArgs& out) {
  out = in;
  if (out.row_pitch == 0) out.row_pitch = region[0];
  if (out.slice_pitch == 0) out.slice_pitch = region[1] * out.row_pitch;
  const std::size_t last = (out.z + region[2] - 1) * out.slice_pitch + (out.y + region[1] - 1) * out.row_pitch +
                           out.x + region[0];
  return last <= limit;
}

std::size_t row_at(const RectSideArgs& s, std::size_t y, std::size_t z) noexcept {
  return (s.z + z) * s.slice_pitch + (s.y + y) * s.row_pitch + s.x;
}

/// The slot's node, or a report when a target claimed success on an empty slot.
int node_of(unsigned slot, const char* what) {
  const int n = state().model.slots[slot].node;
  if (n < 0) report("%s succeeded on empty slot %u", what, slot);
  return n;
}

void set_slot(unsigned slot, int node, bool pooled = false, std::size_t pool_slot = 0) {
  Model& m = state().model;
  const int old = m.slots[slot].node;
  m.slots[slot] = MSlot{node, pooled, pool_slot};
  if (old >= 0) m.unref(old);
}

#include "driver_image.inc"
#include "driver_image_apply.inc"
#include "driver_svm.inc"
#include "driver_external.inc"

/// Codes the model can predict on its own (kNotApplicable: no prediction).
int predict(const Args& a) {
  Model& m = state().model;
  switch (a.op) {
    case op_release: {
      const int n = m.slots[a.a].node;
      return n >= 0 && m.nodes[static_cast<std::size_t>(n)].maps > 0 ? kBusy : kOk;
    }
    case op_drop:
    case op_move:
    case op_map_drop:
    case op_pool_destroy:
    case op_heap_destroy:
      return kOk;
    case op_unmap:
      return m.maps[a.m].node >= 0 ? kNotApplicable : kReleased;
    case op_event:
      if (a.access >= 2) return kOk;  // release, move
      return m.events[a.m & 3u] ? kOk : kReleased;
    case op_map_write: {
      const MMap& mm = m.maps[a.m];
      return mm.node < 0 || mm.access == 0 || mm.size == 0 ? kNotApplicable : kOk;
    }
    case op_native: {
      // Order of the checks: released, context, Access, then (begin only) open mappings.
      const int n = m.slots[a.a].node;
      if (n < 0) return kReleased;
      if (m.nodes[static_cast<std::size_t>(n)].ctx != a.queue || a.access > 2) return kInvalidArgument;
      if (a.keep) return kOk;
      for (const MMap& mm : m.maps)
        if (mm.node >= 0) return kNotApplicable;  // busy or not by the mapping rules: targets compared
      return kOk;
    }
    case op_pool_acquire:
      if (!m.pool.init) return kReleased;
      return m.pool.head == kNone ? kExhausted : kOk;
    case op_pool_release:
      return m.pool.init && m.pool.in_use != 0 ? kBusy : kOk;
    case op_heap_release:
      return m.heap.init && m.heap.free != m.heap.count ? kBusy : kOk;
    case op_heap_create:
    case op_heap_from_host: {
      constexpr std::uint32_t kNoHostWrite = 4u | 16u;  // host_read_only, host_no_access
      if (!m.heap.init) return kReleased;
      if (a.op == op_heap_from_host && (a.null_ptr || a.queue != m.heap.ctx)) return kInvalidArgument;
      if (a.op == op_heap_from_host && (m.heap.flags & kNoHostWrite) != 0) return kAccessDenied;
      if (a.n0 == 0) return kInvalidArgument;
      if (a.n0 > m.heap.page * m.heap.count) return kOutOfRange;
      const std::size_t pages = (a.n0 + m.heap.page - 1) / m.heap.page;
      if (pages > m.heap.free || m.find_run(pages) == kNone || m.heap.live == m.heap.max_buffers) return kExhausted;
      return kOk;
    }
    default:
      if (is_image_op(a.op)) return predict_image(a);
      if (is_external_op(a.op)) return predict_external(a);
      return is_svm_op(a.op) ? predict_svm(a) : predict_on_svm(a);
  }
}

/// Applies a successful operation to the model and checks what the targets read.
void apply(const Args& a) {
  State& s = state();
  Model& m = s.model;
  const std::size_t nt = s.targets.size();
  switch (a.op) {
    case op_create:
      set_slot(a.a, m.new_root(a.n0, nullptr, a.ctx));
      break;
    case op_from_host:
      if (a.n0 > kHostBytes) report("from_host of %zu bytes succeeded", a.n0);
      set_slot(a.a, m.new_root(a.n0, a.data, a.ctx));
      break;
    case op_wrap:
      if (a.n0 > kHostBytes) report("wrap of %zu bytes succeeded", a.n0);
      set_slot(a.a, m.new_root(a.n0, a.data, a.ctx));
      break;
    case op_like: {
      const int src = node_of(a.b, "like");
      const MNode& n = m.nodes[static_cast<std::size_t>(src)];
      set_slot(a.a, m.new_root(n.size, nullptr, n.ctx));
      break;
    }
    case op_sub: {
      const int src = node_of(a.b, "sub");
      if (!in_range(a.n0, a.n1, m.nodes[static_cast<std::size_t>(src)].size) || a.n1 == 0)
        report("sub(%zu, %zu) succeeded on a %zu-byte buffer", a.n0, a.n1, m.nodes[static_cast<std::size_t>(src)].size);
      set_slot(a.a, m.new_sub(src, a.n0, a.n1));
      break;
    }
    case op_release:
    case op_drop:
      set_slot(a.a, -1);
      break;
    case op_move:
      if (a.a != a.b) {
        const MSlot moved = m.slots[a.b];
        m.slots[a.b] = MSlot{};
        const int old = m.slots[a.a].node;
        m.slots[a.a] = moved;
        if (old >= 0) m.unref(old);
      }
      break;
    case op_write: {
      const int n = node_of(a.a, "write");
      const MNode& node = m.nodes[static_cast<std::size_t>(n)];
      if (!in_range(a.n0, a.n1, node.size)) report("write past the end succeeded");
      MRoot& r = m.root_of(n);
      std::memcpy(r.bytes.data() + node.origin + a.n0, a.data, a.n1);
      std::memset(r.defined.data() + node.origin + a.n0, 1, a.n1);
      break;
    }
    case op_read: {
      const int n = node_of(a.a, "read");
      const MNode& node = m.nodes[static_cast<std::size_t>(n)];
      if (!in_range(a.n0, a.n1, node.size)) report("read past the end succeeded");
      for (std::size_t t = 0; t < nt; ++t) expect_bytes("read", t, s.out[t].data(), m.root_of(n), node.origin + a.n0, a.n1);
      break;
    }
    case op_fill: {
      const int n = node_of(a.a, "fill");
      const MNode& node = m.nodes[static_cast<std::size_t>(n)];
      if (!in_range(a.n0, a.n1, node.size) || a.pattern_bytes == 0) report("fill past the end succeeded");
      MRoot& r = m.root_of(n);
      for (std::size_t i = 0; i < a.n1; ++i) {
        r.bytes[node.origin + a.n0 + i] = a.data[i % a.pattern_bytes];
        r.defined[node.origin + a.n0 + i] = 1;
      }
      break;
    }
    case op_copy: {
      const int sn = node_of(a.b, "copy"), dn = node_of(a.a, "copy");
      const MNode &src = m.nodes[static_cast<std::size_t>(sn)], &dst = m.nodes[static_cast<std::size_t>(dn)];
      if (!in_range(a.n0, a.n2, src.size) || !in_range(a.n1, a.n2, dst.size)) report("copy past the end succeeded");
      MRoot &sr = m.root_of(sn), &dr = m.root_of(dn);
      std::vector<std::uint8_t> b(sr.bytes.begin() + static_cast<long>(src.origin + a.n0),
                                  sr.bytes.begin() + static_cast<long>(src.origin + a.n0 + a.n2));
      std::vector<std::uint8_t> d(sr.defined.begin() + static_cast<long>(src.origin + a.n0),
                                  sr.defined.begin() + static_cast<long>(src.origin + a.n0 + a.n2));
      std::memcpy(dr.bytes.data() + dst.origin + a.n1, b.data(), a.n2);
      std::memcpy(dr.defined.data() + dst.origin + a.n1, d.data(), a.n2);
      break;
    }
    case op_write_rect:
    case op_read_rect:
    case op_copy_rect: {
      const bool copy = a.op == op_copy_rect;
      const int bn = node_of(a.op == op_copy_rect ? a.b : a.a, op_name(a.op));
      const MNode& bnode = m.nodes[static_cast<std::size_t>(bn)];
      RectSideArgs s0, s1;
      const std::size_t limit1 = copy ? m.nodes[static_cast<std::size_t>(node_of(a.a, "copy_rect"))].size
                                      : (a.n0 < kHostBytes ? a.n0 : kHostBytes);
      if (!resolve(a.side[0], a.region, bnode.size, s0) || !resolve(a.side[1], a.region, limit1, s1))
        report("%s past the end succeeded", op_name(a.op));
      MRoot& br = m.root_of(bn);
      if (a.op == op_write_rect) {
        for (std::size_t z = 0; z < a.region[2]; ++z)
          for (std::size_t y = 0; y < a.region[1]; ++y) {
            std::memcpy(br.bytes.data() + bnode.origin + row_at(s0, y, z), a.data + row_at(s1, y, z), a.region[0]);
            std::memset(br.defined.data() + bnode.origin + row_at(s0, y, z), 1, a.region[0]);
          }
      } else if (a.op == op_read_rect) {
        MRoot expect;
        expect.bytes.assign(kHostBytes, 0xA5);
        expect.defined.assign(kHostBytes, 1);
        for (std::size_t z = 0; z < a.region[2]; ++z)
          for (std::size_t y = 0; y < a.region[1]; ++y) {
            std::memcpy(expect.bytes.data() + row_at(s1, y, z), br.bytes.data() + bnode.origin + row_at(s0, y, z),
                        a.region[0]);
            std::memcpy(expect.defined.data() + row_at(s1, y, z), br.defined.data() + bnode.origin + row_at(s0, y, z),
                        a.region[0]);
          }
        for (std::size_t t = 0; t < nt; ++t) expect_bytes("read_rect", t, s.out[t].data(), expect, 0, kHostBytes);
      } else {
        const int dn = node_of(a.a, "copy_rect");
        const MNode& dnode = m.nodes[static_cast<std::size_t>(dn)];
        MRoot& dr = m.root_of(dn);
        MRoot src = br;  // regions do not overlap, but copy from a snapshot anyway
        for (std::size_t z = 0; z < a.region[2]; ++z)
          for (std::size_t y = 0; y < a.region[1]; ++y) {
            std::memcpy(dr.bytes.data() + dnode.origin + row_at(s1, y, z),
                        src.bytes.data() + bnode.origin + row_at(s0, y, z), a.region[0]);
            std::memcpy(dr.defined.data() + dnode.origin + row_at(s1, y, z),
                        src.defined.data() + bnode.origin + row_at(s0, y, z), a.region[0]);
          }
      }
      break;
    }
    case op_map: {
      const int n = node_of(a.a, "map");
      const MNode& node = m.nodes[static_cast<std::size_t>(n)];
      if (!in_range(a.n0, a.n1, node.size) || a.n1 == 0 || a.access > 2) report("map of a bad range succeeded");
      const std::size_t begin = node.origin + a.n0;
      MRoot& r = m.root_of(n);
      if (a.access != 2) {
        for (std::size_t t = 0; t < nt; ++t) expect_bytes("mapped bytes", t, s.out[t].data(), r, begin, a.n1);
      } else {
        std::memset(r.defined.data() + begin, 0, a.n1);  // write_discard: prior contents undefined
      }
      m.nodes[static_cast<std::size_t>(n)].refs++;
      m.nodes[static_cast<std::size_t>(n)].maps++;
      const MMap old = m.maps[a.m];
      MMap nm;
      nm.node = n;
      nm.begin = begin;
      nm.size = a.n1;
      nm.access = a.access;
      m.maps[a.m] = nm;
      if (old.node >= 0) {
        m.nodes[static_cast<std::size_t>(old.node)].maps--;
        m.unref(old.node);
      }
      break;
    }
    case op_map_write: {
      const MMap& mm = m.maps[a.m];
      if (mm.image) {
        image_map_write(a);
        break;
      }
      const std::size_t off = a.n0 % mm.size;
      const std::size_t len = a.n1 < mm.size - off ? a.n1 : mm.size - off;
      MRoot& r = m.root_of(mm.node);
      std::memcpy(r.bytes.data() + mm.begin + off, a.data, len);
      std::memset(r.defined.data() + mm.begin + off, 1, len);
      break;
    }
    case op_unmap:
    case op_map_drop: {
      const MMap old = m.maps[a.m];
      m.maps[a.m] = MMap{};
      if (old.node >= 0) {
        m.nodes[static_cast<std::size_t>(old.node)].maps--;
        m.unref(old.node);
      }
      break;
    }
    case op_pool_init: {
      const std::size_t align = s.base_align;
      const std::size_t stride = (a.n0 + align - 1) / align * align;
      const int parent = m.new_root(stride * a.n1, nullptr, a.ctx);
      MRoot& r = m.root_of(parent);
      std::memset(r.defined.data(), 1, r.defined.size());  // zero-filled at init
      m.pool.init = true;
      m.pool.count = a.n1;
      m.pool.stride = stride;
      m.pool.links.resize(a.n1);
      for (std::size_t i = 0; i < a.n1; ++i) {
        const int b = m.new_sub(parent, i * stride, stride);
        MNode& bn = m.nodes[static_cast<std::size_t>(b)];
        bn.owner = owner_pool;
        bn.keep = 1;
        bn.owner_slot = i;
        m.pool.blocks.push_back(b);
        m.pool.links[i] = i + 1 < a.n1 ? i + 1 : kNone;
      }
      m.pool.head = 0;
      m.unref(parent);  // the local parent handle in init() is gone; the blocks hold it
      break;
    }
    case op_pool_acquire: {
      const std::size_t slot = m.pool.head;
      m.pool.head = m.pool.links[slot];
      if (++m.pool.in_use > m.pool.high) m.pool.high = m.pool.in_use;
      const int b = m.pool.blocks[slot];
      m.nodes[static_cast<std::size_t>(b)].refs++;
      set_slot(a.a, b, true, slot);
      break;
    }
    case op_pool_release:
      if (m.pool.init) m.pool_teardown();
      break;
    case op_pool_destroy:
      if (m.pool.init) m.pool_teardown();
      break;
    case op_heap_init: {
      m.heap.init = true;
      m.heap.ctx = a.ctx;
      m.heap.flags = a.flags;
      m.heap.page = a.n0;
      m.heap.count = a.n1;
      m.heap.free = a.n1;
      m.heap.used.assign(a.n1, false);
      m.heap.max_buffers = a.n2 == 0 || a.n2 > a.n1 ? a.n1 : a.n2;
      m.heap.arena = m.new_root(a.n0 * a.n1, nullptr, a.ctx);
      MRoot& r = m.root_of(m.heap.arena);
      std::memset(r.defined.data(), 1, r.defined.size());
      break;
    }
    case op_heap_create:
    case op_heap_from_host: {
      const std::size_t pages = (a.n0 + m.heap.page - 1) / m.heap.page;
      const std::size_t first = m.find_run(pages);
      for (std::size_t p = first; p < first + pages; ++p) m.heap.used[p] = true;
      m.heap.free -= pages;
      m.heap.live++;
      const int b = m.new_sub(m.heap.arena, first * m.heap.page, a.n0);
      MNode& bn = m.nodes[static_cast<std::size_t>(b)];
      bn.owner = owner_heap;
      bn.keep = 0;
      bn.owner_slot = first;
      MRoot& r = m.root_of(b);
      if (a.op == op_heap_create) {
        std::memset(r.defined.data() + bn.origin, 0, a.n0);  // contents undefined
      } else {
        std::memcpy(r.bytes.data() + bn.origin, a.data, a.n0);
        std::memset(r.defined.data() + bn.origin, 1, a.n0);
      }
      set_slot(a.a, b);
      break;
    }
    case op_heap_release:
    case op_heap_destroy:
      if (m.heap.init) m.heap_teardown();
      break;
    case op_event:
      if (a.access == 2) m.events[a.m & 3u] = false;
      if (a.access == 3 && (a.m & 3u) != (a.b & 3u)) {
        m.events[a.b & 3u] = m.events[a.m & 3u];
        m.event_queue[a.b & 3u] = m.event_queue[a.m & 3u];
        m.events[a.m & 3u] = false;
      }
      break;
    case op_migrate:
      if (a.migration == kMigrationToDeviceDiscard) {
        // CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED: the contents are undefined afterwards (NVIDIA's
        // driver really drops them). The whole root allocation, not only the migrated range: the
        // spec says nothing about sub-buffers, and PoCL migrates a sub-buffer's parent instead.
        MRoot& r = m.root_of(node_of(a.a, "migrate"));
        std::fill(r.defined.begin(), r.defined.end(), std::uint8_t{0});
      }
      break;
    case op_finish:
    case op_native:  // orders commands; changes no byte
    case kOpCount:
      break;
    case op_svm_create:
    case op_svm_like:
    case op_svm_sub:
    case op_svm_span:
    case op_svm_pool_init:
    case op_svm_heap_init:
      apply_svm(a);
      break;
    case op_ext_import:
    case op_ext_exportable:
    case op_ext_handle:
    case op_ext_pwrite:
      apply_external(a);
      break;
    default:
      apply_image(a);
      break;
  }
  // An async command that may keep its event (no host memory written) and was asked to.
  const bool keeps = a.op == op_write || a.op == op_fill || a.op == op_copy || a.op == op_write_rect ||
                     a.op == op_copy_rect || a.op == op_migrate || a.op == op_img_write || a.op == op_img_copy ||
                     a.op == op_img_fill || a.op == op_img_to_buf || a.op == op_buf_to_img;
  if (a.async && a.keep && keeps) {
    m.events[a.b & 3u] = true;
    m.event_queue[a.b & 3u] = a.queue;
  }
}

/// Applies what a failed operation still does: a failed unmap leaves the guard unmapped; a refused
/// pool acquire is counted.
void apply_failure(const Args& a, int code) {
  if (a.op == op_unmap) apply(a);
  if (a.op == op_pool_acquire && code == kExhausted) state().model.pool.failed++;
}

}  // namespace

bool init_targets() noexcept {
  State& s = state();
  if (!s.targets.empty()) return true;
  // The host target always opens. The OpenCL one may not (a loader without a platform, or a device
  // whose base alignment differs from host_base_align): the replay test then compares host against
  // the model, saying so on stderr; EDGEMEM_FUZZ_REQUIRE_ALL=1 (scripts/fuzz_ci.sh) makes it an error.
  const bool require_all = std::getenv("EDGEMEM_FUZZ_REQUIRE_ALL") != nullptr;
  std::vector<Target*> candidates{fz_host::make_target()};
#if FZ_HAVE_OPENCL
  candidates.push_back(fz_ocl::make_target());
#endif
  for (Target* t : candidates) {
    if (!t->open()) {
      if (require_all || s.targets.empty()) return false;
      std::fprintf(stderr, "fuzz: %s target unavailable, comparing without it\n", t->name());
      continue;
    }
    if (!s.targets.empty() && t->base_align() != s.targets[0]->base_align()) {
      std::fprintf(stderr, "fuzz: base alignment differs (%s %zu, %s %zu); configure host_base_align to match\n",
                   s.targets[0]->name(), s.targets[0]->base_align(), t->name(), t->base_align());
      if (require_all) return false;
      continue;
    }
    s.targets.push_back(t);
    if (!s.names.empty()) s.names += "+";
    s.names += t->name();
  }
  s.names += "+model";
  s.base_align = s.targets[0]->base_align();
  s.svm_all = ~0u;
  for (const Target* t : s.targets) {
    s.svm_all &= t->svm_caps();
    s.svm_any |= t->svm_caps();
  }
  s.trace = std::getenv("EDGEMEM_FUZZ_TRACE") != nullptr;
  for (auto& o : s.out) o.assign(kHostBytes, 0);
  return true;
}

const char* target_names() noexcept { return state().names.c_str(); }
void set_input_label(const char* label) noexcept { state().label = label; }
std::uint64_t operations_run() noexcept { return state().ops; }

void run_input(const std::uint8_t* data, std::size_t size) noexcept {
  State& s = state();
  if (!init_targets()) std::abort();
  const std::size_t nt = s.targets.size();
  s.model.reset();
  reset_external();
  s.log.clear();
  if (s.trace) std::fprintf(stderr, "input %s:\n", s.label);
  for (Target* t : s.targets) t->begin();
  Reader r{data, size};
  for (std::size_t i = 0; i < kMaxOps && r.left != 0; ++i) {
    Args a = decode(r);
    if (is_image_op(a.op)) decode_image(r, a);
    adjust_external(a);
    Record rec{a, {0, 0}};
    const int expected = predict(a);
    if (is_image_op(a.op) && pocl_quirk(a, expected)) {
      if (s.trace) std::fprintf(stderr, "  #%-3zu %s skipped (a known PoCL fault, tests/fuzz/pocl)\n", i, op_name(a.op));
      continue;
    }
    if (skip_svm(a) || skip_external(a)) {
      if (s.trace) std::fprintf(stderr, "  #%-3zu %s skipped (an SVM or external-memory capability only some targets have)\n", i, op_name(a.op));
      continue;
    }
    for (std::size_t t = 0; t < nt; ++t) {
      if (a.op == op_read_rect || a.op == op_img_read) std::memset(s.out[t].data(), 0xA5, kHostBytes);
      rec.code[t] = s.targets[t]->run(a, s.out[t].data()).code;
    }
    s.log.push_back(rec);
    ++s.ops;
    if (s.trace) {
      std::fprintf(stderr, "  #%-3zu ", i);
      print_args(a);
      std::fprintf(stderr, "  -> %s\n", s.targets[0]->code_name(rec.code[0]));
    }
    for (std::size_t t = 1; t < nt; ++t)
      if (rec.code[t] != rec.code[0])
        report("result codes differ: %s says %s, %s says %s", s.targets[0]->name(),
               s.targets[0]->code_name(rec.code[0]), s.targets[t]->name(), s.targets[t]->code_name(rec.code[t]));
    if (rec.code[0] == kEventIncomplete) report("an event was not complete after wait() succeeded");
    if (expected != kNotApplicable && a.op != op_unmap && rec.code[0] != expected)
      report("the model expected %s", s.targets[0]->code_name(expected));
    if (a.op == op_unmap && expected != kNotApplicable && rec.code[0] != expected)
      report("unmap of an unmapped guard: the model expected %s", s.targets[0]->code_name(expected));
    if (rec.code[0] == kOk) apply(a);
    else apply_failure(a, rec.code[0]);
    sync_external();
    compare_snapshots();
  }
  for (std::size_t t = 0; t < nt; ++t) {
    const long leaked = s.targets[t]->end();
    if (leaked != 0) report("%s: %ld allocator-policy allocations outlive every object of the input", s.targets[t]->name(), leaked);
  }
}

}  // namespace fz
