// Touching a pool's or heap's whole allocation at creation, so that a device which defers allocation
// to first use fails there (Errc::out_of_device_memory) and not mid-frame.
#pragma once
#include <edgemem/buffer.hpp>
#include <edgemem/queue.hpp>
#include <edgemem/result.hpp>

#include "core/nodes.hpp"

namespace edgemem::detail {

/// Zero-fills all of root buffer `b` through `q` with the backend's fill primitive and waits for it.
/// The fill is a device command, so it is allowed for every host-access flag (host_read_only and
/// host_no_access included): Queue::fill's host-access check is deliberately not applied. A device
/// without fill (OpenCL < 1.2, which has no host-access flags either) gets blocking zero writes.
/// `q` and `b` must be live and on one context. Errc: out_of_device_memory, out_of_host_memory,
/// backend_failure.
inline Result<void> touch_zero(const Queue& q, const Buffer& b) noexcept {
  const auto qn = detail::node_of(q)->native;
  const auto& mem = detail::node_of(b)->native;
  const std::size_t bytes = b.size();
  static constexpr unsigned char kZeros[4096] = {};
  auto filled = Backend::fill(qn, mem, 0, bytes, kZeros, 1, Backend::CommandEvents{});
  if (filled || filled.error().code != Errc::unsupported) return filled;
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = bytes - done < sizeof kZeros ? bytes - done : sizeof kZeros;
    EDGEMEM_TRY(Backend::write(qn, mem, done, kZeros, n, Backend::CommandEvents{}));
    done += n;
  }
  return {};
}

}  // namespace edgemem::detail
