// backends/opencl/bench/peers: edgemem. It makes the shared context, queue and buffers (the other peers use their
// native handles); its frame pipeline runs through a FrameRing<3> of Storage::shared frames.
#include <cstdio>
#include <cstring>

#include "peers.hpp"

using namespace edgemem;

namespace peers {
namespace {

bool ok(const Error& e, const char* what) {
  std::fprintf(stderr, "peers: edgemem %s: %s (%s, native %d)\n", what, to_string(e.code), e.message,
               static_cast<int>(e.native));
  return false;
}
#define PEERS_CHECK(expr, what)            \
  do {                                     \
    auto r_ = (expr);                      \
    if (!r_) return ok(r_.error(), what);  \
  } while (0)

class EdgememPeer final : public Peer {
 public:
  Result<void> init(Shared& s) noexcept {
    s_ = &s;
    EDGEMEM_TRY_ASSIGN(ctx_, Context::create());
    EDGEMEM_TRY_ASSIGN(q_, Queue::create(ctx_));
    EDGEMEM_TRY_ASSIGN(small_, Buffer::create(ctx_, Shared::small_bytes));
    EDGEMEM_TRY_ASSIGN(big_a_, Buffer::create(ctx_, Shared::big_bytes));
    EDGEMEM_TRY_ASSIGN(big_b_, Buffer::create(ctx_, Shared::big_bytes));
    EDGEMEM_TRY_ASSIGN(strip_, Buffer::create(ctx_, FrameGeometry::strip_bytes));
    EDGEMEM_TRY(pool_.init(ctx_, q_, Shared::alloc_bytes, 4));
    EDGEMEM_TRY(ring_.init(ctx_, q_, FrameGeometry::bytes, Overflow::refuse, Storage::shared));
    s.context = ctx_.native();
    s.queue = q_.native();
    s.base_align = ctx_.base_align();
    EDGEMEM_TRY_ASSIGN(s.small, small_.native());
    EDGEMEM_TRY_ASSIGN(s.big_a, big_a_.native());
    EDGEMEM_TRY_ASSIGN(s.big_b, big_b_.native());
    EDGEMEM_TRY_ASSIGN(s.strip, strip_.native());
    strip_rect_.src.origin = Offset3{FrameGeometry::strip_x, FrameGeometry::strip_y, 0};
    strip_rect_.src.row_pitch = FrameGeometry::pitch;
    strip_rect_.dst.row_pitch = FrameGeometry::strip_pitch;
    strip_rect_.region = Extent3{FrameGeometry::strip_pitch, FrameGeometry::strip_rows, 1};
    return {};
  }

  bool create_touch_release() override {
    auto b = Buffer::create(ctx_, Shared::alloc_bytes);
    if (!b) return ok(b.error(), "Buffer::create");
    PEERS_CHECK(q_.write(*b, 0, &s_->word, sizeof s_->word), "write (touch)");
    return true;  // released as `b` goes
  }
  bool pool_or_create_touch() override {
    auto b = pool_.acquire();
    if (!b) return ok(b.error(), "FixedPool::acquire");
    return true;  // returned as `b` goes
  }
  bool pool_or_create_untouched() override { return pool_or_create_touch(); }
  bool sub_create_release() override {
    auto v = small_.sub(s_->base_align, s_->base_align);
    if (!v) return ok(v.error(), "sub");
    return true;
  }
  bool sub_native_create_release() override {
    auto v = small_.sub(s_->base_align, s_->base_align);
    if (!v) return ok(v.error(), "sub");
    auto n = v->native();
    if (!n) return ok(n.error(), "native of a sub-buffer");
    return true;
  }
  bool write_small() override {
    PEERS_CHECK(q_.write(small_, 0, &s_->word, sizeof s_->word), "write 4 B");
    return true;
  }
  bool write_small_async() override {
    auto e = q_.write_async(small_, 0, &s_->word, sizeof s_->word);
    if (!e) return ok(e.error(), "write_async 4 B");
    return true;  // the event is released as `e` goes
  }
  bool write_big() override {
    PEERS_CHECK(q_.write(big_a_, 0, s_->host.data(), Shared::big_bytes), "write 64 MiB");
    return true;
  }
  bool read_big() override {
    PEERS_CHECK(q_.read(big_a_, 0, s_->host.data(), Shared::big_bytes), "read 64 MiB");
    return true;
  }
  bool map_big(bool read) override {
    auto m = q_.map<unsigned char>(big_a_, read ? Access::read : Access::write_discard);
    if (!m) return ok(m.error(), "map 64 MiB");
    if (read) g_sink = m->data()[0];
    else m->data()[0] = 1;
    PEERS_CHECK(m->unmap(), "unmap 64 MiB");  // unmaps and waits
    return true;
  }
  bool fill_big() override {
    PEERS_CHECK(q_.fill(big_a_, 0, Shared::big_bytes, &s_->word, sizeof s_->word), "fill 64 MiB");
    return true;
  }
  bool copy_big() override {
    PEERS_CHECK(q_.copy(big_a_, big_b_, 0, 0, Shared::big_bytes), "copy 64 MiB");
    return true;
  }

  // The producer fills a ring frame and publishes it; the consumer takes it, rect-copies the strip and
  // reads it back; the frame returns to the ring as `taken` goes. Written as the README recommends: the
  // guard's own unmap(), which edgemem's ordering lets go without a host wait, and an async copy whose
  // event is released at once (the queue is in order; the blocking read after them returns when all
  // three are done).
  bool frame(bool map, std::size_t n) override {
    const unsigned char* camera = s_->pixels[n % 2].data();
    {
      auto produced = ring_.acquire();
      if (!produced) return ok(produced.error(), "FrameRing::acquire");
      if (map) {
        auto m = q_.map<unsigned char>(*produced, Access::write_discard);
        if (!m) return ok(m.error(), "map frame");
        std::memcpy(m->data(), camera, FrameGeometry::bytes);
        PEERS_CHECK(m->unmap(), "unmap frame");
      } else {
        PEERS_CHECK(q_.write(*produced, 0, camera, FrameGeometry::bytes), "write frame");
      }
      PEERS_CHECK(ring_.publish(std::move(*produced)), "FrameRing::publish");
    }
    auto taken = ring_.take();
    if (!taken) return ok(taken.error(), "FrameRing::take");
    PEERS_CHECK(q_.copy_rect_async(*taken, strip_, strip_rect_), "copy_rect strip");
    PEERS_CHECK(q_.read(strip_, 0, s_->strip_host.data(), FrameGeometry::strip_bytes), "read strip");
    g_sink = s_->strip_host[0];
    return true;
  }

 private:
  Shared* s_ = nullptr;
  Context ctx_;
  Queue q_;
  Buffer small_, big_a_, big_b_, strip_;
  FixedPool<> pool_;
  FrameRing<3> ring_;
  CopyRect strip_rect_{};
};

}  // namespace

std::unique_ptr<Peer> make_edgemem(Shared& shared) {
  auto p = std::make_unique<EdgememPeer>();
  if (auto r = p->init(shared); !r) {
    ok(r.error(), "setup");
    return nullptr;
  }
  return p;
}

}  // namespace peers
