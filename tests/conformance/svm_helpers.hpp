// Shared helpers of the SVM conformance cases (svm_test.cpp, svm_map_test.cpp, svm_two_queue_test.cpp):
// the three grains, which of them the device has, and an Svm made for a case or checked unsupported.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "test_helpers.hpp"

namespace emt {

/// Every SvmGrain, in the order the cases try them.
inline constexpr edgemem::SvmGrain kSvmGrains[] = {edgemem::SvmGrain::coarse, edgemem::SvmGrain::fine_buffer,
                                                   edgemem::SvmGrain::fine_system};

/// The grain's name, for CAPTURE.
inline const char* grain_name(edgemem::SvmGrain g) {
  switch (g) {
    case edgemem::SvmGrain::coarse: return "coarse";
    case edgemem::SvmGrain::fine_buffer: return "fine_buffer";
    case edgemem::SvmGrain::fine_system: return "fine_system";
  }
  return "?";
}

/// True when the device behind `ctx` reports `g` (DeviceInfo::caps).
inline bool has_grain(const edgemem::Context& ctx, edgemem::SvmGrain g) {
  const edgemem::Capabilities& c = ctx.info().caps;
  switch (g) {
    case edgemem::SvmGrain::coarse: return c.svm_coarse;
    case edgemem::SvmGrain::fine_buffer: return c.svm_fine_buffer;
    case edgemem::SvmGrain::fine_system: return c.svm_fine_system;
  }
  return false;
}

/// True when the device has any SVM grain.
inline bool has_any_svm(const edgemem::Context& ctx) {
  for (auto g : kSvmGrains)
    if (has_grain(ctx, g)) return true;
  return false;
}

/// For a grain the device lacks: checks that Svm::create (several sizes and alignments) answers
/// Errc::unsupported and returns true (the case then goes on with the next grain). False when the
/// device has the grain.
inline bool lacks_grain_checked(const edgemem::Context& ctx, edgemem::SvmGrain g) {
  if (has_grain(ctx, g)) return false;
  CHECK_ERRC(edgemem::Svm::create(ctx, 4096, g), edgemem::Errc::unsupported);
  CHECK_ERRC(edgemem::Svm::create(ctx, 1, g, 128), edgemem::Errc::unsupported);
  CHECK_ERRC(edgemem::Svm::create(ctx, 64 * 1024, g, 16), edgemem::Errc::unsupported);
  return true;
}

/// `n` events of markers on `q` (wait lists that need no capability; f.events() needs fill).
inline std::vector<edgemem::Event> markers(edgemem::Queue& q, std::size_t n) {
  std::vector<edgemem::Event> out;
  for (std::size_t i = 0; i < n; ++i) {
    auto e = q.marker();
    CHECK_MESSAGE(static_cast<bool>(e), "marker -> " << describe(e));
    if (e) out.push_back(std::move(*e));
  }
  return out;
}

/// Words of `v` (n of them) that differ from `value`.
inline std::size_t wrong_words(const std::uint32_t* v, std::size_t n, std::uint32_t value) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += v[i] != value;
  return wrong;
}

}  // namespace emt
