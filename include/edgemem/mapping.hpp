/// @file mapping.hpp  Mapping<T>: a guard over a mapped range of a buffer, with typed span-like access.
///
/// Mapping rules (identical on every backend, checked before the backend is called):
/// - two mappings of overlapping bytes of one root buffer may coexist only if both are Access::read;
///   otherwise map() returns Errc::busy;
/// - a transfer that writes bytes overlapping any open mapping, or reads bytes overlapping an open
///   write/write_discard mapping, returns Errc::busy (rect transfers use their bounding byte range);
/// - a mapping the buffer's host-access flags forbid (Access::read of a host_write_only or
///   host_no_access buffer, write or write_discard of a host_read_only or host_no_access one) returns
///   Errc::access_denied; through a const Buffer& only Access::read is allowed (Errc::invalid_argument);
/// - Buffer::release() on the handle a mapping was made through returns Errc::busy;
/// - the guard unmaps in its destructor; unmap() does it early and reports errors; unmap_async()
///   returns the unmap's Event;
/// - read mappings of one handle made on one queue over bytes an open read mapping of that handle
///   already maps share its native mapping (each still takes a slot): the native unmap happens once,
///   with the last of them, so every driver answers alike.
/// - ordering: a map waits for commands on other queues that still write its bytes (a write mapping
///   also for those still reading them); after an unmap, commands on any queue see the written bytes
///   (they wait for the unmap where it has not completed: unmap()).
#pragma once
#include <cstddef>
#include <type_traits>

#include <edgemem/event.hpp>
#include <edgemem/flags.hpp>
#include <edgemem/result.hpp>
#include <edgemem/span.hpp>

namespace edgemem {

class Queue;
namespace detail {
struct QueueNode;
struct MemNode;
/// An open mapping as its guard holds it: a reference to the queue it was made on and to the node it
/// was made through, its slot there, and the mapped bytes.
struct MappingState {
  QueueNode* queue = nullptr;   ///< holds a reference
  MemNode* node = nullptr;      ///< holds a reference; null: not mapped
  unsigned slot = 0;            ///< its MapSlot in node's slots
  void* raw = nullptr;          ///< the first mapped byte
  std::size_t bytes = 0;        ///< mapped bytes
  Access access = Access::read;  ///< what it was mapped for
};
/// How a mapping guard lets go (detail::Unique): unmaps as MappingBase::unmap(), counting an error it
/// cannot return in Context::unreported_errors().
struct MappingTraits {
  using State = MappingState;                                          ///< the open mapping
  static State none() noexcept { return State{}; }                     ///< not mapped
  static bool holds(const State& s) noexcept { return s.node != nullptr; }  ///< mapped
  static void free(const State& s) noexcept;                           ///< unmaps, reporting an error
};
}  // namespace detail

/// The untyped part of a mapping: ownership of one mapped range. Move-only.
class MappingBase : private detail::Unique<detail::MappingTraits> {
 public:
  /// An empty (unmapped) guard.
  MappingBase() noexcept = default;
  MappingBase(MappingBase&& other) noexcept = default;             ///< takes over `other`, leaving it unmapped
  MappingBase& operator=(MappingBase&& other) noexcept = default;  ///< unmaps this, then takes over `other`
  /// Unmaps if still mapped, as unmap(); an error it cannot return is counted in
  /// Context::unreported_errors() (call unmap() to see it).
  ~MappingBase() = default;

  /// Unmaps now: the host may no longer touch the bytes, and every later command of any queue that
  /// touches them sees what the host wrote. Where only edgemem's commands reach the memory (buffers,
  /// pool blocks, heap runs, ring frames and images edgemem allocated), the unmap is enqueued and
  /// ordered before those commands without a host wait (docs/ordering.md); where the host or another
  /// process may read the bytes directly (Buffer::wrap, imports and exportable memory, SVM) it waits
  /// until the write-back is done. To wait in every case, wait for unmap_async()'s Event. Errc: released
  /// (not mapped), backend_failure, out_of_host_memory. The guard is unmapped afterwards even on error.
  [[nodiscard]] Result<void> unmap() noexcept;
  /// Enqueues the unmap on the mapping's queue and returns its Event; commands on other queues that
  /// touch these bytes wait for it automatically. Errc: as unmap(). The guard is unmapped afterwards.
  [[nodiscard]] Result<Event> unmap_async() noexcept;
  /// True until unmapped or moved from.
  [[nodiscard]] bool mapped() const noexcept { return valid(); }
  /// Mapped size in bytes (0 when unmapped).
  [[nodiscard]] std::size_t size_bytes() const noexcept { return get().bytes; }
  /// The access the range was mapped with (Access::read once unmapped or moved from).
  [[nodiscard]] Access access() const noexcept { return get().access; }

 protected:
  /// The first mapped byte (null when unmapped).
  [[nodiscard]] void* raw() const noexcept { return get().raw; }

 private:
  friend class Queue;
  friend struct detail::MappingTraits;
  explicit MappingBase(const detail::MappingState& state) noexcept : Unique(state) {}
  static Result<void> close(const detail::MappingState& m, Event* out) noexcept;
};

/// A mapped range viewed as elements of T (trivially copyable). Obtained from Queue::map<T>().
template <class T>
class Mapping : public MappingBase {
  static_assert(std::is_trivially_copyable_v<T>, "Mapping<T> needs a trivially copyable T");

 public:
  /// An empty (unmapped) guard.
  Mapping() noexcept = default;
  /// First element (null when unmapped).
  [[nodiscard]] T* data() const noexcept { return static_cast<T*>(raw()); }
  /// Number of elements of T (0 when unmapped).
  [[nodiscard]] std::size_t size() const noexcept { return size_bytes() / sizeof(T); }
  /// Element i (i < size()).
  T& operator[](std::size_t i) const noexcept { return data()[i]; }
  /// Iterator to the first element.
  T* begin() const noexcept { return data(); }
  /// Iterator past the last element.
  T* end() const noexcept { return data() + size(); }
  /// The elements as a Span.
  [[nodiscard]] Span<T> span() const noexcept { return Span<T>(data(), size()); }

 private:
  friend class Queue;  // types the untyped mapping map() made, after checking size and alignment for T
  explicit Mapping(MappingBase&& raw) noexcept : MappingBase(std::move(raw)) {}
};

}  // namespace edgemem
