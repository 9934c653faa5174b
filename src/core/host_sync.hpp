// CPU access to mmap'ed dma-buf imports (ExternalRef::host_access, issue #29 item 5): a command on the
// host backend, or on a CL_MEM_USE_HOST_PTR import, reads or writes the pages of the dma-buf with the
// CPU (a non-coherent Arm board's caches sit between them and the device that filled them). Each
// command on such memory therefore runs between DMA_BUF_SYNC_START and DMA_BUF_SYNC_END, as maps do;
// the END comes only after the command has completed. Other memory costs one pointer test per use.
#pragma once
#include <edgemem/flags.hpp>

#include "core/nodes.hpp"
#include "core/ordering.hpp"

namespace edgemem::detail {

/// The dma-buf brackets of one command's memory uses `a` and `b` (either node may be null): one per
/// root with a host_access hook, read for a reading use, read-write for a writing one (both uses of
/// one root: one bracket, read-write).
class HostSync {
 public:
  HostSync(const MemUse& a, const MemUse& b) noexcept {
    add(a);
    add(b);
  }
  HostSync(const HostSync&) = delete;
  HostSync& operator=(const HostSync&) = delete;

  /// True when the command touches a dma-buf's pages with the CPU (it must have completed before end()).
  [[nodiscard]] bool active() const noexcept { return count_ != 0; }
  /// DMA_BUF_SYNC_START of every bracket.
  void start() const noexcept {
    for (unsigned i = 0; i < count_; ++i) ext_[i]->host_access(ext_[i], true, access_[i]);
  }
  /// DMA_BUF_SYNC_END of every bracket, in reverse order.
  void end() const noexcept {
    for (unsigned i = count_; i-- > 0;) ext_[i]->host_access(ext_[i], false, access_[i]);
  }

 private:
  void add(const MemUse& u) noexcept {
    if (u.node == nullptr) return;
    ExternalRef* ext = u.node->root->external;
    if (ext == nullptr || ext->host_access == nullptr) return;
    const Access access = u.writes ? Access::write : Access::read;
    for (unsigned i = 0; i < count_; ++i) {
      if (ext_[i] == ext) {
        if (u.writes) access_[i] = Access::write;
        return;
      }
    }
    ext_[count_] = ext;
    access_[count_] = access;
    ++count_;
  }
  ExternalRef* ext_[2] = {};
  Access access_[2] = {Access::read, Access::read};
  unsigned count_ = 0;
};

}  // namespace edgemem::detail
