// The records behind the handles (src/core/nodes.hpp), pinned by the compiler instead of prose: a view
// is only a view (its root, its bytes there, its access, its native sub-object and its owner), so it is
// a fraction of the root record that holds what belongs to the allocation once (kind and payload, the
// pending table, the mapping registry, the foreign memory, the spare storage). Every backend.
#include <cstdio>

#include <doctest/doctest.h>

#include "core/image_node.hpp"
#include "core/nodes.hpp"

using edgemem::detail::ImageNode;
using edgemem::detail::MemNode;
using edgemem::detail::RootNode;

// Two cache lines at most for a view on any backend (a native memory handle of up to 16 bytes);
// 96 bytes on a 64-bit target with an 8-byte handle (host, OpenCL, CUDA).
static_assert(sizeof(MemNode) <= 128, "a view's record grew past two cache lines");
static_assert(sizeof(void*) != 8 || sizeof(MemNode::native) > 8 || sizeof(MemNode) <= 96,
              "a view's record grew past 96 bytes on a 64-bit target");
// The root's own part is not carried by views.
static_assert(sizeof(RootNode) >= sizeof(MemNode) + 8 * sizeof(void*), "root-only state moved back into views");
static_assert(sizeof(ImageNode) > sizeof(RootNode), "an image node is a root node with its layout and slots");

TEST_CASE("records: a view's record is smaller than its root's (sizes printed for the docs)") {
  std::printf("sizeof MemNode (a view) %zu B, RootNode %zu B, ImageNode %zu B\n", sizeof(MemNode), sizeof(RootNode),
              sizeof(ImageNode));
  CHECK(sizeof(MemNode) < sizeof(RootNode));
  RootNode root;
  CHECK(root.root == &root);  // a root is its own root
  MemNode view;
  CHECK(view.root == nullptr);  // a view's root is set by init_view
  CHECK(view.parent == nullptr);
}
