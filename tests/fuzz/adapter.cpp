// fz::Target over one build of edgemem. Compiled once per library build with
// -Dedgemem=edgemem_<build> -DFZ_TARGET_NS=fz_<build>: every `edgemem` token below names that build.
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include <edgemem/edgemem.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "target.hpp"

#ifndef FZ_TARGET_NS
#error "compile adapter.cpp with -DFZ_TARGET_NS=fz_<backend>"
#endif

namespace FZ_TARGET_NS {

namespace {

using namespace edgemem;

/// Driver-visible code of a Result.
template <class R>
int code_of(const R& r) noexcept {
  return r ? fz::kOk : static_cast<int>(r.error().code);
}

using fz::kEventIncomplete;
static_assert(fz::kInvalidArgument == static_cast<int>(Errc::invalid_argument) &&
                  fz::kOutOfRange == static_cast<int>(Errc::out_of_range) &&
                  fz::kExhausted == static_cast<int>(Errc::exhausted) && fz::kBusy == static_cast<int>(Errc::busy) &&
                  fz::kReleased == static_cast<int>(Errc::released) &&
                  fz::kAccessDenied == static_cast<int>(Errc::access_denied) &&
                  fz::kOverlap == static_cast<int>(Errc::overlap) &&
                  fz::kUnsupported == static_cast<int>(Errc::unsupported) &&
                  fz::kMisaligned == static_cast<int>(Errc::misaligned),
              "target.hpp's Errc values are out of date");

/// A buffer slot: a Buffer, a pool block, or an Svm object (an Svm is a Buffer: ref() gives it as one).
struct Slot {
  Buffer buf;
  PooledBuffer pooled;
  Svm svm;
  bool is_pooled = false;
  bool is_svm = false;
  Buffer& ref() noexcept { return is_pooled ? pooled.buffer() : is_svm ? svm : buf; }
  const Buffer& ref() const noexcept { return is_pooled ? pooled.buffer() : is_svm ? svm : buf; }
  void set(Buffer&& b) noexcept {
    clear();
    buf = std::move(b);
  }
  void set(PooledBuffer&& p) noexcept {
    clear();
    pooled = std::move(p);
    is_pooled = true;
  }
  void set(Svm&& s) noexcept {
    clear();
    svm = std::move(s);
    is_svm = true;
  }
  void clear() noexcept {
    buf = Buffer{};
    pooled = PooledBuffer{};
    svm = Svm{};
    is_pooled = false;
    is_svm = false;
  }
};

class EdgememTarget final : public fz::Target {
 public:
  const char* name() const noexcept override { return EDGEMEM_BACKEND_NAME; }

  bool open() noexcept override {
    DeviceSelector sel;
    for (unsigned i = 0; i < 2; ++i) {
      auto c = Context::create(sel);
      if (!c) {
        std::fprintf(stderr, "fuzz[%s]: Context::create: %s: %s\n", name(), to_string(c.error().code),
                     c.error().message);
        return false;
      }
      ctx_[i] = std::move(*c);
      auto q = Queue::create(ctx_[i]);
      if (!q) {
        std::fprintf(stderr, "fuzz[%s]: Queue::create: %s\n", name(), to_string(q.error().code));
        return false;
      }
      q_[i] = std::move(*q);
    }
    // Whether this backend adopts images at all (op_img_adopt): the host's answers unsupported.
    ImageDesc tiny;
    tiny.width = 1;
    tiny.format = ImageFormat{ChannelOrder::rgba, ChannelType::unorm_int8};
    if (auto own = Image::create(ctx_[0], tiny)) {
      auto probe = Image::adopt(ctx_[0], own->native(), AdoptMode::retain);
      adopts_images_ = probe || probe.error().code != Errc::unsupported;
    }
    baseline_ = static_cast<long>(DefaultAllocator::stats().allocations);
    return true;
  }

  std::size_t base_align() const noexcept override { return ctx_[0].base_align(); }

  bool images() const noexcept override { return ctx_[0].info().caps.images; }
  bool image_from_sub_buffer() const noexcept override { return ctx_[0].info().caps.image_from_sub_buffer; }

  unsigned svm_caps() const noexcept override {
    const Capabilities& c = ctx_[0].info().caps;
    return (c.svm_coarse ? 1u << 0 : 0u) | (c.svm_fine_buffer ? 1u << 1 : 0u) | (c.svm_fine_system ? 1u << 2 : 0u) |
           (c.svm_migration ? fz::kSvmMigrationCap : 0u);
  }

  void begin() noexcept override {
    pool_.emplace();
    heap_.emplace();
    ext_begin();
  }

  long end() noexcept override {
    (void)q_[0].finish();  // kept async commands may still use wrapped memory freed below
    (void)q_[1].finish();
    for (auto& e : events_) e = Event{};
    for (auto& m : maps_) m = MappingBase{};
    for (auto& im : img_maps_) im = ImageMap{};
    for (auto& i : images_) i = Image{};
    for (auto& s : slots_) s.clear();
    pool_.reset();
    heap_.reset();
    wrapped_.clear();
    ext_end();
    return static_cast<long>(DefaultAllocator::stats().allocations) - baseline_;
  }

  const char* code_name(int code) const noexcept override {
    if (code == fz::kOk) return "ok";
    if (code == fz::kNotApplicable) return "n/a";
    if (code == kEventIncomplete) return "event-incomplete-after-wait";
    return to_string(static_cast<Errc>(code));
  }

  void snapshot(fz::Snapshot& s) const noexcept override {
    for (unsigned i = 0; i < fz::kBufferSlots; ++i) {
      const Buffer& b = slots_[i].ref();
      fz::SlotState& st = s.slot[i];
      st = fz::SlotState{};
      st.valid = b.valid();
      st.size = b.size();
      st.origin = b.origin();
      st.is_sub = b.is_sub();
      st.pooled = slots_[i].is_pooled && slots_[i].pooled.valid();
      st.pool_slot = slots_[i].is_pooled ? slots_[i].pooled.slot() : 0;
      for (unsigned j = 0; j < fz::kBufferSlots; ++j)
        if (b.shares_root_with(slots_[j].ref())) st.shares |= 1u << j;
    }
    for (unsigned i = 0; i < fz::kMappingSlots; ++i) {
      s.mapped[i] = maps_[i].mapped();
      s.map_bytes[i] = maps_[i].size_bytes();
    }
    const PoolStats p = pool_->stats();
    s.pool[0] = p.capacity;
    s.pool[1] = p.block_bytes;
    s.pool[2] = p.in_use;
    s.pool[3] = p.high_water;
    s.pool[4] = p.failed_acquires;
    s.heap[0] = heap_->page_size();
    s.heap[1] = heap_->page_count();
    s.heap[2] = heap_->free_pages();
    s.heap[3] = heap_->largest_free_run();
    for (unsigned i = 0; i < fz::kEventSlots; ++i) s.event_valid[i] = events_[i].valid();
    snapshot_images(s);
  }

  fz::Outcome run(const fz::Args& a, unsigned char* out) noexcept override {
    fz::Outcome o;
    o.code = dispatch(a, out, o.out_len);
    return o;
  }

 private:
  /// Runs a blocking command, or its async form with the events of mask a.m as its wait list, then
  /// keeps its event in slot a.b & 3 (a.keep and `can_keep`: no host memory written) or waits for it.
  template <class Blocking, class Async>
  int command(const fz::Args& a, bool can_keep, Blocking&& blocking, Async&& async_form) noexcept {
    if (!a.async) return code_of(blocking());
    Event list[fz::kEventSlots];
    unsigned from[fz::kEventSlots];
    std::size_t n = 0;
    for (unsigned i = 0; i < fz::kEventSlots; ++i) {
      if ((a.m >> i) & 1u) {
        list[n] = std::move(events_[i]);  // moves keep the native event: the list is the same events
        from[n++] = i;
      }
    }
    auto e = async_form(WaitList(list, n));
    for (std::size_t j = 0; j < n; ++j) events_[from[j]] = std::move(list[j]);
    if (!e) return code_of(e);
    if (a.keep && can_keep) {
      events_[a.b & 3u] = std::move(*e);
      return fz::kOk;
    }
    if (auto w = e->wait(); !w) return code_of(w);
    auto done = e->is_complete();
    if (!done) return code_of(done);
    return *done ? fz::kOk : kEventIncomplete;
  }

  static Rect rect_of(const fz::Args& a) noexcept {
    Rect r;
    r.buffer = side_of(a.side[0]);
    r.host = side_of(a.side[1]);
    r.region = Extent3{a.region[0], a.region[1], a.region[2]};
    return r;
  }
  static RectSide side_of(const fz::RectSideArgs& s) noexcept {
    RectSide r;
    r.origin = Offset3{s.x, s.y, s.z};
    r.row_pitch = s.row_pitch;
    r.slice_pitch = s.slice_pitch;
    return r;
  }

#include "adapter_image.inc"
#include "adapter_svm.inc"
#include "adapter_external.inc"

  int dispatch(const fz::Args& a, unsigned char* out, std::size_t& out_len) noexcept {
    if (fz::is_image_op(a.op)) return dispatch_image(a, out, out_len);
    if (fz::is_svm_op(a.op)) return dispatch_svm(a, out, out_len);
    if (fz::is_external_op(a.op)) return dispatch_external(a, out, out_len);
    if (a.op == fz::op_img_pixel) return image_pixel(a, out, out_len);
    if (a.op == fz::op_img_adopt) return image_adopt(a);
    Context& ctx = ctx_[a.ctx];
    Queue& q = q_[a.queue];
    Slot& sa = slots_[a.a];
    Slot& sb = slots_[a.b];
    const auto flags = static_cast<MemFlags>(a.flags);
    const auto storage = static_cast<Storage>(a.storage);
    const unsigned char* data = a.null_ptr ? nullptr : a.data;
    unsigned char* dst = a.null_ptr ? nullptr : out;

    switch (a.op) {
      case fz::op_create: {
        auto r = Buffer::create(ctx, a.n0, storage, flags);
        if (r) sa.set(std::move(*r));
        return code_of(r);
      }
      case fz::op_from_host: {
        auto r = Buffer::from_host(ctx, data, a.n0, storage, flags);
        if (r) sa.set(std::move(*r));
        return code_of(r);
      }
      case fz::op_wrap: {
        // Caller memory that outlives every buffer of this input; page-aligned, or fz::wrap_offset(a)
        // bytes past a page (a.wide: 8, 1, 2 or 3) so drivers that want aligned USE_HOST_PTR memory
        // take their copying path, and CUDA's fills and copies meet odd addresses (issue #30 item 6).
        unsigned char* mem = nullptr;
        if (!a.null_ptr) {
          const std::size_t bytes = a.n0 <= fz::kHostBytes ? a.n0 : 0;
          wrapped_.emplace_back(bytes + 8192);
          auto base = reinterpret_cast<std::uintptr_t>(wrapped_.back().data());
          mem = reinterpret_cast<unsigned char*>((base + 4095) & ~std::uintptr_t{4095}) + fz::wrap_offset(a);
          if (bytes != 0) std::memcpy(mem, a.data, bytes);
        }
        auto r = Buffer::wrap(ctx, mem, a.n0, flags);
        if (r) sa.set(std::move(*r));
        return code_of(r);
      }
      case fz::op_like: {
        auto r = Buffer::like(sb.ref());
        if (r) sa.set(std::move(*r));
        return code_of(r);
      }
      case fz::op_sub: {
        auto r = sb.ref().sub(a.n0, a.n1);
        if (r) sa.set(std::move(*r));
        return code_of(r);
      }
      case fz::op_release: {
        auto r = sa.is_pooled ? sa.pooled.release() : sa.is_svm ? sa.svm.release() : sa.buf.release();
        if (r) sa.clear();
        return code_of(r);
      }
      case fz::op_drop:
        sa.clear();
        return fz::kOk;
      case fz::op_move:
        if (a.a != a.b) {
          sa.buf = std::move(sb.buf);
          sa.pooled = std::move(sb.pooled);
          sa.svm = std::move(sb.svm);
          sa.is_pooled = sb.is_pooled;
          sa.is_svm = sb.is_svm;
          sb.is_pooled = false;
          sb.is_svm = false;
        }
        return fz::kOk;
      case fz::op_write:
        return command(
            a, true, [&] { return q.write(sa.ref(), a.n0, data, a.n1); },
            [&](WaitList w) { return q.write_async(sa.ref(), a.n0, data, a.n1, w); });
      case fz::op_read:
        out_len = a.n1 <= fz::kHostBytes ? a.n1 : 0;
        return command(
            a, false, [&] { return q.read(sa.ref(), a.n0, dst, a.n1); },
            [&](WaitList w) { return q.read_async(sa.ref(), a.n0, dst, a.n1, w); });
      case fz::op_fill:
        return command(
            a, true, [&] { return q.fill(sa.ref(), a.n0, a.n1, data, a.pattern_bytes); },
            [&](WaitList w) { return q.fill_async(sa.ref(), a.n0, a.n1, data, a.pattern_bytes, w); });
      case fz::op_copy:
        return command(
            a, true, [&] { return q.copy(sb.ref(), sa.ref(), a.n0, a.n1, a.n2); },
            [&](WaitList w) { return q.copy_async(sb.ref(), sa.ref(), a.n0, a.n1, a.n2, w); });
      case fz::op_write_rect: {
        const Rect r = rect_of(a);
        return command(
            a, true, [&] { return q.write_rect(sa.ref(), r, data, a.n0); },
            [&](WaitList w) { return q.write_rect_async(sa.ref(), r, data, a.n0, w); });
      }
      case fz::op_read_rect: {
        const Rect r = rect_of(a);
        out_len = fz::kHostBytes;
        return command(
            a, false, [&] { return q.read_rect(sa.ref(), r, dst, a.n0); },
            [&](WaitList w) { return q.read_rect_async(sa.ref(), r, dst, a.n0, w); });
      }
      case fz::op_copy_rect: {
        CopyRect r;
        r.src = side_of(a.side[0]);
        r.dst = side_of(a.side[1]);
        r.region = Extent3{a.region[0], a.region[1], a.region[2]};
        return command(
            a, true, [&] { return q.copy_rect(sb.ref(), sa.ref(), r); },
            [&](WaitList w) { return q.copy_rect_async(sb.ref(), sa.ref(), r, w); });
      }
      case fz::op_map: {
        const auto access = static_cast<Access>(a.access);
        // Typed as asked (the element type decides the alignment checks), kept untyped with its bytes.
        unsigned char* bytes = nullptr;
        auto map_as = [&](auto element) -> Result<MappingBase> {
          auto t = q.map<decltype(element)>(sa.ref(), access, a.n0, a.n1);
          if (!t) return fail(t.error());
          bytes = reinterpret_cast<unsigned char*>(t->data());
          return MappingBase(std::move(*t));
        };
        Result<MappingBase> r = a.wide ? map_as(std::uint32_t{}) : map_as(static_cast<unsigned char>(0));
        if (!r) return code_of(r);
        out_len = r->size_bytes() <= fz::kHostBytes ? r->size_bytes() : 0;
        if (out_len != 0) std::memcpy(out, bytes, out_len);
        maps_[a.m] = std::move(*r);
        map_bytes_[a.m] = bytes;
        img_maps_[a.m] = ImageMap{};
        return fz::kOk;
      }
      case fz::op_map_write: {
        MappingBase& m = maps_[a.m];
        if (!m.mapped() || m.access() == Access::read || m.size_bytes() == 0) return fz::kNotApplicable;
        if (img_maps_[a.m].active) return image_map_write(a);
        const std::size_t off = a.n0 % m.size_bytes();
        const std::size_t len = a.n1 < m.size_bytes() - off ? a.n1 : m.size_bytes() - off;
        std::memcpy(map_bytes_[a.m] + off, a.data, len);
        return fz::kOk;
      }
      case fz::op_unmap:
        return code_of(maps_[a.m].unmap());
      case fz::op_map_drop:
        maps_[a.m] = MappingBase{};
        img_maps_[a.m] = ImageMap{};
        return fz::kOk;
      case fz::op_pool_init:
        return code_of(pool_->init(ctx, q, a.n0, a.n1, storage, flags));
      case fz::op_pool_acquire: {
        auto r = pool_->acquire();
        if (r) sa.set(std::move(*r));
        return code_of(r);
      }
      case fz::op_pool_release:
        return code_of(pool_->release());
      case fz::op_pool_destroy:
        pool_.reset();
        pool_.emplace();
        return fz::kOk;
      case fz::op_heap_init:
        return code_of(heap_->init(ctx, q, a.n0, a.n1, storage, flags, a.n2));
      case fz::op_heap_create: {
        auto r = heap_->create_buffer(a.n0);
        if (r) sa.set(std::move(*r));
        return code_of(r);
      }
      case fz::op_heap_from_host: {
        auto r = heap_->create_buffer_from_host(q, data, a.n0);
        if (r) sa.set(std::move(*r));
        return code_of(r);
      }
      case fz::op_heap_release:
        return code_of(heap_->release());
      case fz::op_heap_destroy:
        heap_.reset();
        heap_.emplace();
        return fz::kOk;
      case fz::op_migrate: {
        const auto to = static_cast<Migration>(a.migration);
        return command(
            a, true, [&] { return q.migrate(sa.ref(), to); },
            [&](WaitList w) { return q.migrate_async(sa.ref(), to, w); });
      }
      case fz::op_finish:
        return code_of(q.finish());
      case fz::op_native: {
        const auto access = static_cast<Access>(a.access);  // 3: not an Access
        return code_of(a.keep ? q.end_native(sa.ref(), access) : q.begin_native(sa.ref(), access));
      }
      case fz::op_event: {
        Event& e = events_[a.m & 3u];
        switch (a.access) {
          case 0: return code_of(e.wait());
          case 1: return code_of(e.is_complete());  // true or false: only the code is compared
          case 2: return code_of(e.release());
          default:
            if ((a.m & 3u) != (a.b & 3u)) events_[a.b & 3u] = std::move(e);
            return fz::kOk;
        }
      }
      default:
        break;
    }
    return fz::kNotApplicable;
  }

  Context ctx_[2];
  Queue q_[2];
  Slot slots_[fz::kBufferSlots];
  MappingBase maps_[fz::kMappingSlots];
  unsigned char* map_bytes_[fz::kMappingSlots] = {};  // first byte of each open mapping
  Event events_[fz::kEventSlots];
  std::optional<FixedPool<>> pool_;
  std::optional<Heap> heap_;
  std::vector<std::vector<unsigned char>> wrapped_;
  long baseline_ = 0;
  bool adopts_images_ = false;  // Image::adopt works here (op_img_adopt)
};

}  // namespace

fz::Target* make_target() noexcept {
  // Never destroyed: the OpenCL driver may be torn down before static destructors run.
  static EdgememTarget* target = new EdgememTarget;
  return target;
}

}  // namespace FZ_TARGET_NS
