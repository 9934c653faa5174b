// Issue #30, items 12 and 13: an SVM allocation is host memory by address too. A fill whose pattern
// pointer lies in the filled range of the same Svm was accepted (the host backend then copied over
// overlapping bytes: ASan memcpy-param-overlap), and a copy between an Svm and a Buffer::wrap over
// that Svm's own bytes with overlapping ranges was accepted on host and PoCL. Both are Errc::overlap,
// nothing changes; disjoint ranges stay accepted (fine grains: coarse SVM is not the host's outside a
// map, so a wrap of it is only checked, never used). Every grain the device has.
#include <cstring>

#include "svm_helpers.hpp"

using namespace edgemem;
using emt::grain_name;
using emt::kSvmGrains;

TEST_CASE("svm aliasing: a fill pattern inside the filled range of the same Svm is overlap") {
  emt::Fixture f;
  constexpr std::size_t kBytes = 4096;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    if (f.ctx.info().caps.max_fill_pattern_bytes < 4) continue;
    auto s = Svm::create(f.ctx, kBytes, g);
    REQUIRE_OK(s);
    const emt::Bytes want = emt::random_bytes(kBytes);
    REQUIRE_OK(f.q.write(*s, 0, want.data(), kBytes));
    const auto* base = static_cast<const unsigned char*>(s->pointer());
    CHECK_ERRC(f.q.fill(*s, 0, 1024, base + 512, 4), Errc::overlap);
    CHECK_ERRC(emt::settle(f.q.fill_async(*s, 1024, 1024, base + 2044, 4)), Errc::overlap);  // its last 4 bytes
    auto view = s->sub(1024, 1024);  // through a view: its bytes are the allocation's
    REQUIRE_OK(view);
    CHECK_ERRC(f.q.fill(*view, 0, 1024, base + 1024, 4), Errc::overlap);
    CHECK(f.snapshot(*s) == want);
  }
}

TEST_CASE("svm aliasing: copies between an Svm and a Buffer::wrap of its own bytes overlap where they meet") {
  emt::Fixture f;
  constexpr std::size_t kBytes = 4096;
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto s = Svm::create(f.ctx, kBytes, g);
    REQUIRE_OK(s);
    const emt::Bytes want = emt::random_bytes(kBytes);
    REQUIRE_OK(f.q.write(*s, 0, want.data(), kBytes));
    REQUIRE_OK(f.q.finish());
    auto w = Buffer::wrap(f.ctx, s->pointer(), kBytes);
    if (!w) {
      MESSAGE("this device does not wrap SVM memory as a buffer: " << emt::describe(w));
      continue;
    }
    CHECK_ERRC(f.q.copy(*s, *w, 0, 256, 1024), Errc::overlap);   // SVM bytes 0.. onto 256..
    CHECK_ERRC(f.q.copy(*w, *s, 1024, 512, 1024), Errc::overlap);
    CopyRect rect;
    rect.region = Extent3{64, 4, 1};
    rect.src.row_pitch = rect.dst.row_pitch = 512;
    rect.dst.origin = Offset3{32, 2, 0};  // rows 2..5 of the destination meet rows 0..3 of the source
    const auto rr = f.q.copy_rect(*s, *w, rect);  // (rect copies of SVM are unsupported on OpenCL)
    CHECK((!rr && (rr.error().code == Errc::overlap || rr.error().code == Errc::unsupported)));
    CHECK(f.snapshot(*s) == want);
    if (g != SvmGrain::coarse) {  // (coarse SVM is not the host's outside a map: no wrap may touch it)
      CHECK_OK(f.q.copy(*s, *w, 0, 2048, 1024));  // disjoint bytes of one allocation: accepted
      CHECK_OK(f.q.finish());
    }
    CHECK_OK(w->release());
  }
}
