/// @file handle.hpp  detail::Handle<Node>: what Buffer, Context and Queue share. One pointer to a
/// reference-counted node: moving takes it over (the source is left released), destroying or
/// move-assigning over a handle drops its reference. Not for direct use.
#pragma once

namespace edgemem {

namespace detail {

struct ContextNode;
struct QueueNode;
struct MemNode;
struct HandleAccess;

/// Drops one reference to a node (the last one releases its native object and the node).
void unref(ContextNode* n) noexcept;
/// Drops one reference to a node (the last one releases its native object and the node).
void unref(QueueNode* n) noexcept;
/// Drops one reference to a node (the last one releases its native object and the node).
void unref(MemNode* n) noexcept;

/// The move-only ownership of one node reference.
template <class Node>
class Handle {
 public:
  Handle(Handle&& other) noexcept : node_(other.node_) { other.node_ = nullptr; }  ///< takes over `other`
  /// Drops this handle's reference, then takes over `other` (which is left released).
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      Node* old = node_;
      node_ = other.node_;
      other.node_ = nullptr;
      unref(old);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { unref(node_); }  ///< drops the reference

  /// True until released or moved from.
  [[nodiscard]] bool valid() const noexcept { return node_ != nullptr; }

 protected:
  Handle() noexcept = default;
  explicit Handle(Node* node) noexcept : node_(node) {}
  /// Drops the reference now; the handle is released afterwards.
  void drop() noexcept {
    unref(node_);
    node_ = nullptr;
  }
  Node* node_ = nullptr;  ///< the shared state (null when released)

 private:
  friend struct HandleAccess;
};

}  // namespace detail
}  // namespace edgemem
