// ImageNode: the node behind an Image. Its own mapping slots and pending-command table live inside
// it, so making an image costs one allocation (a buffer root makes three).
#pragma once
#include "core/nodes.hpp"
#include "core/ordering.hpp"

namespace edgemem::detail {

/// An image or image view: a MemNode whose bytes are its pixels' span (a standalone image is its own
/// root, with tight virtual pitches; a view's bytes are its buffer root's) and whose `native` is the
/// image object commands use (for a view, made by image_from_buffer when the view is; its buffer,
/// held as `parent`, keeps the memory). `maps` points at own_maps for every image; a standalone
/// image's `pending` at own_pending (both `lent`: freed with the node, never on their own).
struct ImageNode : MemNode {
  ImageNode() noexcept {
    image = true;
    own_maps.lent = true;
    own_pending.lent = true;
    maps = &own_maps;
  }
  contract::ImageLayout layout{};
  MapSlots own_maps;
  PendingTable own_pending;
};

inline ImageNode* HandleAccess::node(const Image& i) noexcept { return static_cast<ImageNode*>(i.node_); }

}  // namespace edgemem::detail
