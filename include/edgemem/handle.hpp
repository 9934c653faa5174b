/// @file handle.hpp  The lifetimes handles are written with, once. detail::Handle<Node> (Buffer,
/// Context, Queue, Image, Svm): one pointer to a reference-counted node. detail::NativeHandle<Kind>
/// (Event, Sampler): one native object of a context plus a reference to that context.
/// detail::UniqueFd (IpcHandle): one file descriptor. Moving takes any of them over (the source is left
/// released); destroying or move-assigning over one lets go of what it held, exactly once. Not for
/// direct use.
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

/// The move-only ownership of one native object of a context and a reference to that context. `Kind`
/// names the native type (`Kind::Native`) and how it is let go (`Kind::free(native, ctx)`: releases the
/// native object, then drops the context reference; never fails).
template <class Kind>
class NativeHandle {
 public:
  using Native = typename Kind::Native;  ///< the native object's type (NativeEvent, NativeSampler)

  NativeHandle(NativeHandle&& other) noexcept : native_(other.native_), ctx_(other.ctx_), valid_(other.valid_) {
    other.forget();
  }  ///< takes over `other`
  /// Lets go of this one's object, then takes over `other` (which is left released).
  NativeHandle& operator=(NativeHandle&& other) noexcept {
    if (this != &other) {
      reset();
      native_ = other.native_;
      ctx_ = other.ctx_;
      valid_ = other.valid_;
      other.forget();
    }
    return *this;
  }
  NativeHandle(const NativeHandle&) = delete;
  NativeHandle& operator=(const NativeHandle&) = delete;
  ~NativeHandle() { reset(); }  ///< lets go of the native object

  /// True until released or moved from.
  [[nodiscard]] bool valid() const noexcept { return valid_; }

 protected:
  NativeHandle() noexcept = default;
  /// Takes `native` of `ctx` (whose reference the caller has taken; may be null).
  void own(Native native, ContextNode* ctx) noexcept {
    reset();
    native_ = native;
    ctx_ = ctx;
    valid_ = true;
  }
  /// Lets go of the native object now; released afterwards.
  void reset() noexcept {
    if (valid_) Kind::free(native_, ctx_);
    forget();
  }
  Native native_{};             ///< the native object (empty when released)
  ContextNode* ctx_ = nullptr;  ///< a reference to its context while valid (may be null)

 private:
  void forget() noexcept {
    native_ = Native{};
    ctx_ = nullptr;
    valid_ = false;
  }
  bool valid_ = false;
};

/// Closes `fd` (>= 0), keeping errno.
void close_fd(int fd) noexcept;

/// The move-only ownership of one file descriptor (-1: none), closed once by reset() or the destructor.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;                  ///< no fd
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}  ///< takes `fd` (-1: none)
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }  ///< takes over `other`
  /// Closes this one's fd, then takes over `other` (left with none).
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = other.fd_;
      other.fd_ = -1;
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }  ///< closes the fd

  /// The fd (-1: none); still owned.
  [[nodiscard]] int get() const noexcept { return fd_; }
  /// Gives up the fd to the caller (-1 when none), leaving none.
  [[nodiscard]] int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  /// Closes the fd now; none afterwards.
  void reset() noexcept {
    if (fd_ >= 0) close_fd(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace detail
}  // namespace edgemem
