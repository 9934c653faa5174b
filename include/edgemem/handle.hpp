/// @file handle.hpp  The lifetimes handles are written with, once. detail::Handle<Node> (Buffer,
/// Context, Queue, Image, Svm): one pointer to a reference-counted node. detail::Unique<Traits>: one
/// resource of any other kind: a native object of a context plus a reference to that context
/// (NativeTraits: Event, Sampler), a file descriptor (UniqueFd: IpcHandle), an open mapping
/// (MappingBase), a shared ring's consumer side (SharedFrameRing). Moving takes any of them over (the
/// source is left released); destroying or move-assigning over one lets go of what it held, exactly
/// once. Not for direct use.
#pragma once

namespace edgemem {

namespace detail {

struct ContextNode;
struct QueueNode;
struct MemNode;
struct HandleAccess;

/// Who takes a pool block or heap run back when its handles let go (a pool, a heap, a shared ring's
/// consumer): `take_back` is called with the node whose last outside reference went.
struct NodeOwner {
  void (*take_back)(NodeOwner* self, MemNode* node) noexcept = nullptr;  ///< `node` came back to `self`
};

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

/// The move-only ownership of one resource other than a node reference, written once. `Traits` names
/// it: `Traits::State`, a small value (a file descriptor, a native object with its context, an open
/// mapping); `Traits::none()`, the state that holds nothing; `Traits::holds(state)`; and
/// `Traits::free(state)`, which lets go of a state that holds something (never fails; called exactly
/// once per state held, by reset(), a move-assignment over it or the destructor).
template <class Traits>
class Unique {
 public:
  using State = typename Traits::State;  ///< what is held

  Unique() noexcept = default;                                   ///< holds nothing
  explicit Unique(const State& state) noexcept : state_(state) {}  ///< takes `state`
  Unique(Unique&& other) noexcept : state_(other.release()) {}     ///< takes over `other` (left empty)
  /// Lets go of this one's state, then takes over `other` (left empty).
  Unique& operator=(Unique&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  Unique(const Unique&) = delete;
  Unique& operator=(const Unique&) = delete;
  ~Unique() { reset(); }  ///< lets go of the state

  /// True while it holds something (not released, reset or moved from).
  [[nodiscard]] bool valid() const noexcept { return Traits::holds(state_); }
  /// The state held (Traits::none() when empty); still owned.
  [[nodiscard]] const State& get() const noexcept { return state_; }
  /// Gives up the state to the caller, leaving this empty.
  [[nodiscard]] State release() noexcept {
    const State state = state_;
    state_ = Traits::none();
    return state;
  }
  /// Lets go of the state held now (if any), then holds `state`.
  void reset(const State& state = Traits::none()) noexcept {
    const State old = state_;
    state_ = state;
    if (Traits::holds(old)) Traits::free(old);
  }

 private:
  State state_ = Traits::none();
};

/// Nothing kept beside a native object (NativeTraits::State::extra of an Event).
struct NoExtra {};

/// One native object of a context, a reference to that context, and what `Kind` keeps with it
/// (`Kind::Extra`: a Sampler's settings). `Kind::free(native, ctx)` releases the native object, then
/// drops the context reference. The lifetime of Event and Sampler (Unique<NativeTraits<Kind>>).
template <class Kind>
struct NativeTraits {
  /// A native object held (valid) or none.
  struct State {
    typename Kind::Native native{};  ///< the native object (empty when none)
    ContextNode* ctx = nullptr;      ///< a reference to its context (may be null)
    typename Kind::Extra extra{};    ///< kept with it (its default when none)
    bool valid = false;              ///< holds a native object
  };
  static State none() noexcept { return State{}; }                                  ///< holds nothing
  static bool holds(const State& s) noexcept { return s.valid; }                   ///< holds one
  static void free(const State& s) noexcept { Kind::free(s.native, s.ctx); }      ///< lets go of it
};

/// Closes `fd` (>= 0), keeping errno.
void close_fd(int fd) noexcept;

/// A file descriptor (-1: none), closed once (UniqueFd).
struct FdTraits {
  using State = int;                                          ///< the fd
  static int none() noexcept { return -1; }                   ///< no fd
  static bool holds(int fd) noexcept { return fd >= 0; }      ///< an fd is held
  static void free(int fd) noexcept { close_fd(fd); }         ///< closes it
};

/// The move-only ownership of one file descriptor (IpcHandle, the external group's records).
using UniqueFd = Unique<FdTraits>;

}  // namespace detail
}  // namespace edgemem
