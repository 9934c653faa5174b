/// @file raw_alloc.hpp  pool_bench's baseline: one allocation made, touched and released through the
/// backend's own API, without edgemem. A backend that has one gives it in backends/<b>/bench/ (its
/// registry entry's 'pool_bench_raw'); raw_alloc_none.cpp stands in where it has none.
#pragma once
#include <cstddef>

#include <edgemem/edgemem.hpp>

namespace pool_bench {

/// A raw create + 4-byte blocking write + release, on edgemem's own context and queue.
struct RawAlloc {
  const char* description;  ///< what one call does, in the backend's API names
  /// One create + touch + release of `bytes` bytes; false on any native error.
  bool (*run)(const edgemem::Context& ctx, edgemem::Queue& q, std::size_t bytes);
};

/// The built backend's baseline, or nullptr when it has no native API to compare with.
const RawAlloc* raw_alloc() noexcept;

}  // namespace pool_bench
