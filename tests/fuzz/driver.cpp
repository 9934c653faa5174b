// Differential fuzz driver: decodes an input into edgemem operations, runs each on every target
// (this build's own library and renamed copies of the other backends whose registry entry allows one:
// FZ_TARGETS, target.hpp) and on a plain-memory model, and compares every result code, every byte read and
// the observable state after every operation. Any difference prints the operation sequence and
// aborts. Targets of different capabilities (base alignment, caps.images, caps.host_access_flags:
// Group) are each compared with a model of their own, which predicts from those capabilities, not
// with each other.
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
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "target.hpp"

namespace fz {

namespace {

constexpr std::size_t kMaxOps = 200;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);
constexpr unsigned kMigrationToDeviceDiscard = 2;  ///< Migration::to_device_discard

#include "driver_decode.inc"

// ---- the plain-memory model ----------------------------------------------------------------

#include "driver_model.inc"

// ---- state of the run ------------------------------------------------------------------------

/// Targets: this build's own library and every renamed copy linked (FZ_TARGETS, tests/fuzz/meson.build).
#define FZ_TARGET(ns) +1
constexpr std::size_t kMaxTargets = std::max<std::size_t>(1, 0 FZ_TARGETS);  // every linked build
#undef FZ_TARGET
constexpr int kSkipped = -2;  ///< Record::code of a target whose group did not run the op

/// One operation as each target ran it (targets of different groups may get different derived
/// arguments: image regions and export-handle contexts follow each group's model).
struct Record {
  Args args[kMaxTargets];
  int code[kMaxTargets];
  Record() noexcept {
    for (int& c : code) c = kSkipped;
  }
};

/// Targets the model treats as one device: the same base alignment, caps.images and
/// caps.host_access_flags (unsupported for a host-access flag, also where the model predicts nothing:
/// buffer creations, pool and heap init, left to the members' comparison). Its members
/// are compared with each other and with the group's own model (SVM and external-memory capabilities
/// may still differ between members: ops whose answer depends on one are skipped, skip_svm and
/// skip_external). Groups share only the input, so each target is compared with the model's
/// prediction for its own capabilities, never with a target of another group.
struct Group {
  std::vector<std::size_t> members;  // indices into State::targets
  Model model;
  std::size_t base_align = 0;
  bool images = true;
  bool host_flags = true;  // caps.host_access_flags
  unsigned svm_all = ~0u, svm_any = 0;  // Target::svm_caps() bits every member has / some member has
};

struct State {
  std::vector<Target*> targets;
  std::vector<Group> groups;
  std::size_t cur = 0;  // the group predict() and apply() work on
  std::vector<Record> log;
  std::vector<std::uint8_t> out[kMaxTargets];
  const char* label = "(input)";
  std::uint64_t ops = 0;
  std::string names;
  bool trace = false;  // EDGEMEM_FUZZ_TRACE set: print every operation and its code
};

State& state() noexcept {
  static State s;
  return s;
}
Group& group() noexcept { return state().groups[state().cur]; }
Model& model() noexcept { return group().model; }

[[noreturn]] void report(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// Target `t`'s name for result code `code` ("skipped": its group did not run the op).
const char* code_name(std::size_t t, int code) {
  return code == kSkipped ? "skipped" : state().targets[t]->code_name(code);
}

/// The arguments `rec` ran with in the current group, else in the first group that ran it.
const Args& args_of(const Record& rec) {
  const std::size_t first = group().members[0];
  if (rec.code[first] != kSkipped) return rec.args[first];
  for (std::size_t t = 0; t < state().targets.size(); ++t)
    if (rec.code[t] != kSkipped) return rec.args[t];
  return rec.args[first];
}

void report(const char* fmt, ...) {
  State& s = state();
  std::fprintf(stderr, "\n==== edgemem differential fuzz: MISMATCH in %s (%s)\n", s.label, s.names.c_str());
  std::fprintf(stderr, "operations (code per target: %s", s.targets[0]->name());
  for (std::size_t t = 1; t < s.targets.size(); ++t) std::fprintf(stderr, " / %s", s.targets[t]->name());
  std::fprintf(stderr, "):\n");
  for (std::size_t i = 0; i < s.log.size(); ++i) {
    std::fprintf(stderr, "  #%-3zu ", i);
    print_args(args_of(s.log[i]));
    std::fprintf(stderr, "  -> %s", code_name(0, s.log[i].code[0]));
    for (std::size_t t = 1; t < s.targets.size(); ++t) std::fprintf(stderr, " / %s", code_name(t, s.log[i].code[t]));
    std::fprintf(stderr, "\n");
  }
  std::fprintf(stderr, "difference after the last operation");
  if (s.groups.size() > 1) std::fprintf(stderr, " (the model of %s)", s.targets[group().members[0]]->name());
  std::fprintf(stderr, ": ");
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
  Model& m = model();
  for (const std::size_t t : group().members) {
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
  const int n = model().slots[slot].node;
  if (n < 0) report("%s succeeded on empty slot %u", what, slot);
  return n;
}

void set_slot(unsigned slot, int node, bool pooled = false, std::size_t pool_slot = 0) {
  Model& m = model();
  const int old = m.slots[slot].node;
  m.slots[slot] = MSlot{node, pooled, pool_slot};
  if (old >= 0) m.unref(old);
}

/// Buffer::sub and Svm::sub of node `n` (-1: an empty slot): released, size 0, range, then the
/// origin's alignment to the group's base alignment (the parent's flags always pass again).
int sub_code(int n, const Args& a) {
  if (n < 0) return kReleased;
  const MNode& node = model().nodes[static_cast<std::size_t>(n)];
  if (a.n1 == 0) return kInvalidArgument;
  if (!in_range(a.n0, a.n1, node.size)) return kOutOfRange;
  return (node.origin + a.n0) % group().base_align != 0 ? kMisaligned : kOk;
}

#include "driver_image.inc"
#include "driver_image_apply.inc"
#include "driver_svm.inc"
#include "driver_external.inc"

/// Codes the model can predict on its own (kNotApplicable: no prediction).
int predict(const Args& a) {
  Model& m = model();
  switch (a.op) {
    case op_release: {
      const int n = m.slots[a.a].node;
      return n >= 0 && m.nodes[static_cast<std::size_t>(n)].maps > 0 ? kBusy : kOk;
    }
    case op_sub:
      return sub_code(m.slots[a.b].node, a);
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
    case op_img_pixel:
      return m.maps[a.m].node >= 0 && m.maps[a.m].image ? kOk : kNotApplicable;
    case op_img_adopt:
      return m.images[a.b & 3u].node >= 0 ? kOk : kReleased;
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

#include "driver_apply.inc"

/// Runs op #i, `a` as decoded for the current group, on the group's targets and model: their codes
/// against each other and the model's prediction, then the model's effect and the state. False when
/// the group skips the op.
bool run_in_group(std::size_t i, const Args& a) {
  State& s = state();
  const Group& g = group();
  const int expected = predict(a);
  const char* skip = nullptr;
  if (is_image_op(a.op) && pocl_quirk(a, expected)) skip = "a known PoCL fault: no images of sub-buffers";
  else if (skip_svm(a) || skip_external(a)) skip = "an SVM or external-memory capability only some targets have";
  else if (skip_adopt(a)) skip = "an adoption edgemem could not relate to what else reaches the image";
  if (skip != nullptr) {
    if (s.trace)
      std::fprintf(stderr, "  #%-3zu %s skipped for %s (%s)\n", i, op_name(a.op), s.targets[g.members[0]]->name(), skip);
    return false;
  }
  Record& rec = s.log.back();
  for (const std::size_t t : g.members) {
    if (a.op == op_read_rect || a.op == op_img_read) std::memset(s.out[t].data(), 0xA5, kHostBytes);
    rec.args[t] = a;
    rec.code[t] = s.targets[t]->run(a, s.out[t].data()).code;
  }
  const std::size_t first = g.members[0];
  const int code = rec.code[first];
  const char* name = s.targets[first]->name();
  if (s.trace) {
    std::fprintf(stderr, "  #%-3zu ", i);
    print_args(a);
    std::fprintf(stderr, "  -> %s%s%s\n", code_name(first, code), s.groups.size() > 1 ? " on " : "",
                 s.groups.size() > 1 ? name : "");
  }
  for (const std::size_t t : g.members)
    if (rec.code[t] != code)
      report("result codes differ: %s says %s, %s says %s", name, code_name(first, code), s.targets[t]->name(),
             code_name(t, rec.code[t]));
  if (code == kEventIncomplete) report("an event was not complete after wait() succeeded");
  if (expected != kNotApplicable && a.op != op_unmap && code != expected)
    report("the model expected %s, %s says %s", code_name(first, expected), name, code_name(first, code));
  if (a.op == op_unmap && expected != kNotApplicable && code != expected)
    report("unmap of an unmapped guard: the model expected %s", code_name(first, expected));
  if (code == kOk) apply(a);
  else apply_failure(a, code);
  sync_external();
  compare_snapshots();
  return true;
}

}  // namespace

bool init_targets() noexcept {
  State& s = state();
  if (!s.targets.empty()) return true;
  // The first target (this build's own library; under -Dfuzz=enabled the first copy) must open. A
  // copy may not (an OpenCL loader without a platform): the replay test then compares without it,
  // saying so on stderr; EDGEMEM_FUZZ_REQUIRE_ALL=1 (scripts/fuzz_ci.sh) makes it an error.
  const bool require_all = std::getenv("EDGEMEM_FUZZ_REQUIRE_ALL") != nullptr;
  std::vector<Target*> candidates;
#define FZ_TARGET(ns) candidates.push_back(ns::make_target());
  FZ_TARGETS
#undef FZ_TARGET
  for (Target* t : candidates) {
    if (!t->open()) {
      if (require_all || s.targets.empty()) {
        std::fprintf(stderr, "fuzz: the %s target cannot start: nothing compared\n", t->name());
        return false;
      }
      std::fprintf(stderr, "fuzz: %s target unavailable, comparing without it\n", t->name());
      continue;
    }
    // Its group: the one of the same capabilities (Group), else a new one.
    const std::size_t index = s.targets.size();
    s.targets.push_back(t);
    Group like;
    like.base_align = t->base_align();
    like.images = t->images();
    like.host_flags = (t->external_caps() & kExtHostFlags) != 0;
    std::size_t g = 0;
    while (g < s.groups.size() && (s.groups[g].base_align != like.base_align || s.groups[g].images != like.images ||
                                   s.groups[g].host_flags != like.host_flags))
      ++g;
    if (g == s.groups.size()) s.groups.push_back(like);
    Group& gr = s.groups[g];
    gr.members.push_back(index);
    gr.svm_all &= t->svm_caps();
    gr.svm_any |= t->svm_caps();
  }
  // Names: "host+opencl+model" for one group; "host+model, opencl+model" when each has its own.
  for (const Group& g : s.groups) {
    if (!s.names.empty()) s.names += ", ";
    for (const std::size_t t : g.members) s.names += std::string(s.targets[t]->name()) + "+";
    s.names += "model";
  }
  if (s.groups.size() > 1) {
    std::fprintf(stderr, "fuzz: the targets' capabilities differ, each is compared with the model's prediction "
                         "for it:");
    for (const Group& g : s.groups)
      std::fprintf(stderr, " %s (base alignment %zu, %s images, %s host-access flags)", s.targets[g.members[0]]->name(),
                   g.base_align, g.images ? "with" : "no", g.host_flags ? "with" : "no");
    std::fprintf(stderr, "\n");
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
  for (s.cur = 0; s.cur < s.groups.size(); ++s.cur) {
    model().reset();
    reset_external();
  }
  s.log.clear();
  if (s.trace) std::fprintf(stderr, "input %s:\n", s.label);
  for (Target* t : s.targets) t->begin();
  Reader r{data, size};
  for (std::size_t i = 0; i < kMaxOps && r.left != 0; ++i) {
    const Args decoded = decode(r);
    std::uint8_t image_block[kImageBlockBytes] = {};
    if (is_image_op(decoded.op))
      for (auto& b : image_block) b = r.u8();
    s.log.emplace_back();
    bool ran = false;
    for (s.cur = 0; s.cur < s.groups.size(); ++s.cur) {
      // What the arguments derive from the model (image regions, an export handle's context) follows
      // each group's own model.
      Args a = decoded;
      if (is_image_op(a.op)) {
        Reader block{image_block, sizeof image_block};
        decode_image(block, a);
      }
      adjust_external(a);
      adjust_adopt(a);
      ran = run_in_group(i, a) || ran;
    }
    if (ran) ++s.ops;
    else s.log.pop_back();
  }
  for (s.cur = 0; s.cur < s.groups.size(); ++s.cur)
    for (const std::size_t t : group().members) {
      const long leaked = s.targets[t]->end();
      if (leaked != 0)
        report("%s: %ld allocator-policy allocations outlive every object of the input", s.targets[t]->name(), leaked);
    }
}

}  // namespace fz
