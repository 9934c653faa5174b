// Hooks behind edgemem::live_objects(): compiled to nothing unless -Dlive_counters=true.
#pragma once
#include <edgemem/config.hpp>

namespace edgemem::detail {

/// What a live_add() call counts (one counter of LiveObjects each).
enum class Live : unsigned { context, queue, buffer, sub_buffer, mapping, event, image, sampler };

#if EDGEMEM_LIVE_COUNTERS
/// Adds `delta` (+1 created, -1 released) to the counter of `kind`.
void live_add(Live kind, int delta) noexcept;
#else
inline void live_add(Live, int) noexcept {}
#endif

}  // namespace edgemem::detail
