// Helpers of the SVM cases of the bad-input catalogue (svm_test.cpp, svm_access.inc): which grains the
// device has, and the Svm objects of one case, recorded in its Scene. When the device lacks the grain a
// case asks for, making it checks Svm::create's Errc::unsupported answer instead (nothing changed), so
// a case on such a device ends there but never skips silently.
#pragma once
#include <cstdint>
#include <deque>
#include <string>

#include "bad_input/catalogue.hpp"

namespace emt::bad::svm {

using namespace edgemem;

inline constexpr std::size_t kBytes = 1024;
inline constexpr SvmGrain kGrains[] = {SvmGrain::coarse, SvmGrain::fine_buffer, SvmGrain::fine_system};

inline std::string grain_name(SvmGrain g) {
  return g == SvmGrain::coarse ? "coarse" : g == SvmGrain::fine_buffer ? "fine_buffer" : "fine_system";
}

inline bool has(const Context& ctx, SvmGrain g) {
  const Capabilities& c = ctx.info().caps;
  return g == SvmGrain::coarse ? c.svm_coarse : g == SvmGrain::fine_buffer ? c.svm_fine_buffer : c.svm_fine_system;
}

/// A grain for cases that take any: the first the device has; coarse when it has none (make() then
/// checks the unsupported answer).
inline SvmGrain any_grain(const Context& ctx) {
  for (const SvmGrain g : kGrains)
    if (has(ctx, g)) return g;
  return SvmGrain::coarse;
}

/// `e` when the device has `g`, else unsupported (Svm::create checks the grain before size and alignment).
inline Errc or_unsupported(const Context& ctx, SvmGrain g, Errc e) { return has(ctx, g) ? e : Errc::unsupported; }

/// The SVM of one case: allocations of random bytes, owned here (stable addresses for the scene).
class SvmSet {
 public:
  SvmSet(emt::Fixture& f, Scene& s) : f_(f), s_(s) {}

  /// An Svm of `n` random bytes of `grain` on the fixture's context, recorded in the scene (unless
  /// `watched` is false: for one a case maps for writing). When the device lacks `grain`, checks
  /// instead that Svm::create answers Errc::unsupported with nothing changed, and returns null.
  Svm* make(std::size_t n, SvmGrain grain, bool watched = true) { return make_on(f_.ctx, f_.q, n, grain, watched, true); }
  /// As make(), on another context (written and watched through its queue `q`).
  Svm* make_other(Context& ctx, Queue& q, std::size_t n, SvmGrain grain) {
    return make_on(ctx, q, n, grain, true, false);
  }

 private:
  Svm* make_on(Context& ctx, Queue& q, std::size_t n, SvmGrain grain, bool watched, bool own_queue) {
    if (!has(ctx, grain)) {
      MESSAGE("the device has no " << grain_name(grain) << " SVM: checking Svm::create's unsupported answer");
      s_.expect(Errc::unsupported, [&] { return Svm::create(ctx, n, grain); });
      return nullptr;
    }
    auto made = Svm::create(ctx, n, grain);
    CHECK_MESSAGE(static_cast<bool>(made), "Svm::create -> " << emt::describe(made));
    if (!made) return nullptr;
    owned_.push_back(std::move(*made));
    Svm& svm = owned_.back();
    const emt::Bytes bytes = emt::random_bytes(n);
    CHECK_OK(q.write(svm, 0, bytes.data(), n));
    if (watched && own_queue) s_.watch(svm);
    else if (watched) s_.watch(svm, q);
    return &svm;
  }

  emt::Fixture& f_;
  Scene& s_;
  std::deque<Svm> owned_;
};

/// The bytes a mapping shows, as text (so a scene can watch a range mapped for writing).
inline std::string seen(const Mapping<unsigned char>& m) {
  return std::string(reinterpret_cast<const char*>(m.data()), m.size_bytes());
}

}  // namespace emt::bad::svm
