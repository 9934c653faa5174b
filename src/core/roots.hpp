// What every new memory object checks and gets, buffers and images alike: access flags, and a
// root's mapping slots and pending-command table.
#pragma once
#include <cstdint>

#include <edgemem/flags.hpp>
#include <edgemem/result.hpp>

#include "core/live.hpp"
#include "core/nodes.hpp"
#include "core/ordering.hpp"

namespace edgemem::detail {

/// The device-access bits of MemFlags (read_only, write_only).
inline constexpr std::uint32_t kDeviceAccessBits = 3u;
/// The host-access bits of MemFlags (host_read_only, host_write_only, host_no_access).
inline constexpr std::uint32_t kHostAccessBits = 7u << 2;

/// invalid_argument for unknown bits, read_only with write_only, or two host-access flags.
Result<void> check_mem_flags(MemFlags flags) noexcept;

/// unsupported for host-access flags on a device without caps.host_access_flags.
Result<void> check_host_flags_supported(const ContextNode* ctx, MemFlags flags) noexcept;

/// True when `child` allows no more than `parent`: the same device access or any under read_write, and
/// the same host access, host_no_access, or any under no host flag (OpenCL's rule for sub-buffers).
bool flags_narrow(MemFlags parent, MemFlags child) noexcept;

/// invalid_argument unless `s` is a Storage value.
Result<void> check_storage(Storage s) noexcept;

/// Gives a new root `node` its mapping slots (roots are few and usually mapped, so their first map in a
/// steady-state loop allocates nothing; views get theirs on first map) and, on backends whose
/// commands outlive their enqueue, its table of pending commands. False (nothing attached that is not
/// freed with the node) when the allocator is out of memory.
bool attach_root_state(RootNode* node) noexcept;

/// A view of `bytes` bytes at byte `offset` of `node` with access `flags` (Buffer::sub's checks and
/// node; Svm::sub's too). Errc: invalid_argument, out_of_range, misaligned, unsupported (host-access
/// flags), out_of_host_memory.
Result<MemNode*> make_sub(MemNode* node, std::size_t offset, std::size_t bytes, MemFlags flags) noexcept;

/// A new root node on `cn` of `bytes` bytes whose memory `make(node)` provides (it sets node->native or
/// node->svm, and returns Result<void>): with its root state (attach_root_state), a reference to `cn`,
/// counted live as a buffer. On failure nothing is left allocated. Errc: out_of_host_memory (the
/// bookkeeping), or make's.
/// A root over `bytes` bytes of caller memory at `data` used zero-copy (Buffer::wrap). `host_read_only`:
/// the memory is mapped PROT_READ (a read-only import), so nothing may write it, a driver's write-back
/// at a map included; a backend that would write it answers unsupported. Errc: those of Buffer::wrap.
Result<RootNode*> wrap_root(ContextNode* cn, void* data, std::size_t bytes, MemFlags flags, bool host_read_only) noexcept;

template <class Make>
Result<RootNode*> make_root_node(ContextNode* cn, std::size_t bytes, Make&& make) noexcept {
  RootNode* node = make_node<RootNode>();
  Result<void> made = node != nullptr && attach_root_state(node)
                          ? make(node)
                          : Result<void>(fail(Errc::out_of_host_memory, "no memory for the bookkeeping of a new root"));
  if (!made) {
    if (node != nullptr) {
      destroy_pending_table(node->pending);
      destroy_mem_node(node);
    }
    return fail(made.error());
  }
  retain(cn);
  node->ctx = cn;
  node->bytes = bytes;
  live_add(Live::buffer, 1);
  return node;
}

/// busy when a mapping made through `n` is open (its handle must not be released).
Result<void> check_releasable(MemNode* n) noexcept;

/// What Buffer::release(const Queue&) and Image::release(const Queue&) do before dropping the handle:
/// checks `q` (released, invalid_argument for another context) and `n` (busy), then records a marker
/// of `q` on n's bytes, so later commands of other queues wait for q's work so far. Errc: those, and
/// Backend::marker's.
Result<void> order_release(QueueNode* q, MemNode* n) noexcept;

}  // namespace edgemem::detail
