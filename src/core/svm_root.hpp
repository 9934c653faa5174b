// Shared virtual memory in the common layer: an Svm is a root MemNode whose `svm` is set (views, maps,
// pools and ordering are the buffers' own); the Queue's commands ask is_svm() and use the svm group
// of the backend contract for it. Freeing waits for queued work on the device, never on the host.
#pragma once
#include <cstddef>

#include <edgemem/result.hpp>

#include "core/nodes.hpp"

namespace edgemem::detail {

/// True when `n` is shared virtual memory (an Svm root, or a view, pool block or heap run of one).
inline bool is_svm(const MemNode* n) noexcept { return n->root->svm != nullptr; }

/// The SVM address of byte `offset` of `n` (is_svm(n)).
inline contract::SvmAddress svm_at(const MemNode* n, std::size_t offset) noexcept {
  return contract::SvmAddress{n->root->svm, n->origin + offset, true};
}

/// Host memory as the host side of an svm command.
inline contract::SvmAddress host_at(const void* p) noexcept {
  return contract::SvmAddress{static_cast<std::byte*>(const_cast<void*>(p)), 0, false};
}

/// Refuses shared virtual memory where a call needs a buffer object (rect transfers, images, native()).
/// Errc: unsupported.
[[nodiscard]] Result<void> check_not_svm(const MemNode* n) noexcept;

/// Frees the allocation of SVM root `n`, whose last reference has gone (unref): at once when no
/// recorded command reaches it, else with svm_free_queued on a live queue edgemem owns, after every
/// recorded command (their events as its wait list); when no such queue is left or the free cannot be
/// enqueued, it waits for them on the host first (never frees under running work).
void free_svm_root(RootNode* n) noexcept;

}  // namespace edgemem::detail
