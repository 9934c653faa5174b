// ImageNode: the node behind an Image. Its mapping slots live inside it, so making an image costs
// one allocation (two with the pending-command table of a backend that keeps one; a buffer root
// makes three). Both stay under glibc's per-thread cache size (1032 bytes), which keeps a create and
// release pair off malloc's slow path.
#pragma once
#include "core/nodes.hpp"

namespace edgemem::detail {

/// An image or image view: a MemNode whose bytes are its pixels' span (a standalone image is its own
/// root, with tight virtual pitches; a view's bytes are its buffer root's) and whose `native` is the
/// image object commands use (for a view, made by image_from_buffer when the view is; its buffer,
/// held as `parent`, keeps the memory). `maps` points at own_maps (`lent`: freed with the node).
struct ImageNode : RootNode {
  ImageNode() noexcept {
    image = true;
    own_maps.lent = true;
    maps = &own_maps;
  }
  contract::ImageLayout layout{};
  MapSlots own_maps;
};

inline ImageNode* HandleAccess::node(const Image& i) noexcept { return static_cast<ImageNode*>(i.node_); }

}  // namespace edgemem::detail
