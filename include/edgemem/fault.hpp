/// @file fault.hpp  Test-only fault injection (Meson option `fault_injection`, default false; the
/// declarations below exist only when it is on). Every fallible backend primitive (through
/// src/contract/fault_injecting.hpp, generated from the backend contract) and every allocation of the allocator
/// policy is a numbered fault point; arm(k) makes the k-th point from now fail: a backend point
/// returns the Error a real driver could give for that call (Error::native == fault::native_code),
/// an allocation point returns null, which edgemem reports as Errc::out_of_host_memory.
/// Typical use: arm(0), run a scenario, n = count(); then for k in 1..n: arm(k), run it again and
/// check that it fails cleanly (the Error comes back, nothing leaks, other objects are unchanged).
/// The counter is process-wide (atomic); run one scenario at a time.
#pragma once
#include <cstddef>
#include <cstdint>

#include <edgemem/config.hpp>
#include <edgemem/error.hpp>

#if EDGEMEM_FAULT_INJECTION
namespace edgemem::fault {

/// The kind of a fault point.
enum class Point : std::uint8_t {
  backend,     ///< a fallible backend primitive (context, queue, memory, transfer, map, event)
  allocation,  ///< an allocate() of the allocator policy (bookkeeping nodes, host storage, pool arrays)
};

/// What the last injected fault was.
struct Injected {
  Point point = Point::backend;       ///< kind of the failed point
  Errc code = Errc::backend_failure;  ///< the Errc injected (allocation points: out_of_host_memory)
  const char* call = "";              ///< static name of the failed call, e.g. "mem_create", "allocate"
  std::uint64_t index = 0;            ///< its number k since arm()
};

/// Error::native of every injected backend failure.
inline constexpr std::int32_t native_code = -7777;
/// Error::message of every injected backend failure.
inline constexpr const char* message = "injected fault (edgemem/fault.hpp)";

/// Starts counting points from 0; the k-th point from now fails (k >= 1), k == 0 only counts.
void arm(std::uint64_t k) noexcept;
/// Stops counting and failing (count() and last() keep their values).
void disarm() noexcept;
/// Points passed since arm() (while armed and not paused).
[[nodiscard]] std::uint64_t count() noexcept;
/// Points of kind `p` passed since arm().
[[nodiscard]] std::uint64_t count(Point p) noexcept;
/// True when the armed point k was reached and failed.
[[nodiscard]] bool fired() noexcept;
/// The fault injected last (meaningful when fired()).
[[nodiscard]] Injected last() noexcept;
/// Pauses counting (nestable), e.g. while a test inspects objects between steps; resume() undoes it.
void pause() noexcept;
/// Undoes one pause().
void resume() noexcept;

/// Internal: called at every fault point; true when this one must fail with `code`.
[[nodiscard]] bool hit(Point p, const char* call, Errc code) noexcept;

}  // namespace edgemem::fault

namespace edgemem {

/// An allocator policy `Inner` whose every allocate() is a fault point (allocator.hpp selects it as
/// DefaultAllocator with the Meson option `fault_injection`). An injected failure returns null.
template <class Inner>
struct FaultInjectingAllocator {
  /// Inner::allocate(bytes, align), or null when this fault point fails.
  [[nodiscard]] static void* allocate(std::size_t bytes, std::size_t align) noexcept {
    if (fault::hit(fault::Point::allocation, "allocate", Errc::out_of_host_memory)) return nullptr;
    return Inner::allocate(bytes, align);
  }
  /// Inner::deallocate(p, bytes, align).
  static void deallocate(void* p, std::size_t bytes, std::size_t align) noexcept { Inner::deallocate(p, bytes, align); }
  /// Inner::stats() (injected failures are not counted in its `failures`).
  [[nodiscard]] static auto stats() noexcept { return Inner::stats(); }
};

}  // namespace edgemem
#endif
