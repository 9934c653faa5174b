/// @file live_objects.hpp  Live-object counters for test builds (Meson option `live_counters`,
/// default false; `scripts/edgemem.sh test` builds with it on). Each counter is the number of
/// handles' native objects created by edgemem and not yet released: a test that ends with a
/// non-zero counter leaked (or, below zero, released twice). Counting costs one relaxed atomic
/// add per create/release; pool acquire/release and heap runs reused in place are not creations.
#pragma once
#include <cstdint>

#include <edgemem/config.hpp>

namespace edgemem {

/// True when this build counts live objects (-Dlive_counters=true); otherwise live_objects() is all zero.
inline constexpr bool live_objects_enabled = EDGEMEM_LIVE_COUNTERS != 0;

/// Live native objects made through edgemem, by kind (counts, not bytes).
struct LiveObjects {
  std::int64_t contexts = 0;     ///< Context::create/adopt not yet released by the last reference
  std::int64_t queues = 0;       ///< Queue::create/adopt not yet released by the last reference
  std::int64_t buffers = 0;      ///< root buffers (create, from_host, wrap, like, adopt; pool/heap arenas)
  std::int64_t sub_buffers = 0;  ///< sub-buffers (sub(), pool blocks, heap buffers, adopted sub-buffers)
  std::int64_t mappings = 0;     ///< open mappings (Queue::map not yet unmapped)
  std::int64_t events = 0;       ///< Events returned by *_async calls and not yet released
  std::int64_t images = 0;       ///< images and image views (Image::create, from_host, like, view, adopt)
  std::int64_t samplers = 0;     ///< Sampler::create not yet released
  /// Sum of every counter (0 when nothing is live).
  [[nodiscard]] constexpr std::int64_t total() const noexcept {
    return contexts + queues + buffers + sub_buffers + mappings + events + images + samplers;
  }
};

/// The counters now (thread-safe, O(1), never fails); all zero when live_objects_enabled is false.
[[nodiscard]] LiveObjects live_objects() noexcept;

}  // namespace edgemem
