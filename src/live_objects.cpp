// edgemem::live_objects(): relaxed atomic counters bumped by the common layer (src/core/live.hpp).
#include <edgemem/live_objects.hpp>

#include <atomic>

#include "core/live.hpp"

namespace edgemem {

#if EDGEMEM_LIVE_COUNTERS
namespace {
std::atomic<std::int64_t> g_live[8];
}  // namespace

void detail::live_add(Live kind, int delta) noexcept {
  g_live[static_cast<unsigned>(kind)].fetch_add(delta, std::memory_order_relaxed);
}

LiveObjects live_objects() noexcept {
  auto get = [](detail::Live k) { return g_live[static_cast<unsigned>(k)].load(std::memory_order_relaxed); };
  LiveObjects out;
  out.contexts = get(detail::Live::context);
  out.queues = get(detail::Live::queue);
  out.buffers = get(detail::Live::buffer);
  out.sub_buffers = get(detail::Live::sub_buffer);
  out.mappings = get(detail::Live::mapping);
  out.events = get(detail::Live::event);
  out.images = get(detail::Live::image);
  out.samplers = get(detail::Live::sampler);
  return out;
}
#else
LiveObjects live_objects() noexcept { return LiveObjects{}; }
#endif

}  // namespace edgemem
