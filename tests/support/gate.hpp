/// @file gate.hpp  Test support for the ordering tests (issue #28): a Gate holds every later command of
/// one queue until it is opened, so a test can keep commands pending for as long as it needs and
/// decide when they may run; and native queues made outside edgemem (for Queue::adopt). One
/// implementation per backend (gate_opencl.cpp, gate_cuda.cpp, gate_host.cpp; tests/support/meson.build
/// picks it), all through the queue's native() handle, so edgemem's ordering table never sees them:
///  - OpenCL: a marker on the queue waiting for a user event, opened with clSetUserEventStatus;
///  - CUDA: a host function on the stream (cuLaunchHostFunc) that waits until opened (no driver:
///    unsupported);
///  - host backend: unsupported (its commands complete at enqueue: nothing can be held).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <edgemem/edgemem.hpp>

namespace emt {

/// Holds one queue's later commands until open(). Move-only; the destructor opens it.
class Gate {
 public:
  /// Enqueues, on `q`'s native handle, something that every command enqueued on `q` after it waits
  /// for until open(). Errc: unsupported (host backend; CUDA without a driver), released (q),
  /// backend_failure (the native call failed).
  [[nodiscard]] static edgemem::Result<Gate> hold(edgemem::Queue& q) noexcept;

  Gate() noexcept = default;
  Gate(Gate&& o) noexcept : state_(std::exchange(o.state_, nullptr)) {}
  Gate& operator=(Gate&& o) noexcept {
    if (this != &o) {
      reset();
      state_ = std::exchange(o.state_, nullptr);
    }
    return *this;
  }
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;
  ~Gate() { reset(); }

  /// Lets the held commands run. Idempotent, thread-safe (another thread may open it while its
  /// owner waits), no effect on an empty Gate.
  void open() noexcept;
  /// True when this Gate holds (or held) a queue.
  [[nodiscard]] bool valid() const noexcept { return state_ != nullptr; }

  struct State;  ///< per backend (gate_<backend>.cpp)

 private:
  explicit Gate(State* s) noexcept : state_(s) {}
  void reset() noexcept;  // open() and free the state
  State* state_ = nullptr;
};

/// True when gates work on this backend and device (one is held and opened on `q`).
inline bool gates_supported(edgemem::Queue& q) {
  auto g = Gate::hold(q);
  return static_cast<bool>(g);
}

/// A native queue made outside edgemem on `ctx`'s context and device (OpenCL:
/// clCreateCommandQueue, in order; CUDA: cuStreamCreate), for Queue::adopt. Errc: unsupported
/// (host backend), backend_failure.
[[nodiscard]] edgemem::Result<edgemem::NativeQueue> make_native_queue(const edgemem::Context& ctx) noexcept;
/// Releases a queue make_native_queue() made (clReleaseCommandQueue / cuStreamDestroy).
void destroy_native_queue(edgemem::NativeQueue q) noexcept;

/// Opens a set of gates from its own thread after `delay`, or earlier when open_now() is called; the
/// flag opened() is set just before the gates open, so a call that returned while opened() was false
/// returned before any of them opened. The destructor opens them (if not yet) and joins.
class DelayedOpen {
 public:
  DelayedOpen(std::vector<Gate*> gates, std::chrono::milliseconds delay)
      : gates_(std::move(gates)), thread_([this, delay] {
          std::unique_lock<std::mutex> lock(m_);
          cv_.wait_for(lock, delay, [this] { return now_; });
          opened_.store(true);
          for (Gate* g : gates_) g->open();
        }) {}
  DelayedOpen(const DelayedOpen&) = delete;
  DelayedOpen& operator=(const DelayedOpen&) = delete;
  ~DelayedOpen() {
    open_now();
    thread_.join();
  }
  /// Asks the thread to open the gates at once (it sets opened() first); returns without waiting.
  void open_now() {
    {
      std::lock_guard<std::mutex> lock(m_);
      now_ = true;
    }
    cv_.notify_all();
  }
  /// Opens at once and waits until the gates are open.
  void open_and_wait() {
    open_now();
    while (!opened_.load()) std::this_thread::yield();
    for (Gate* g : gates_) g->open();  // idempotent: returns once they are open
  }
  /// True once the gates are being (or have been) opened.
  [[nodiscard]] bool opened() const { return opened_.load(); }

 private:
  std::vector<Gate*> gates_;
  std::mutex m_;
  std::condition_variable cv_;
  bool now_ = false;
  std::atomic<bool> opened_{false};
  std::thread thread_;  // last: starts after the members it uses
};

/// Polls `done()` until it is true or `limit` has passed; returns its last answer. For waiting on
/// something that should happen soon without hanging the test when it does not.
template <class Done>
bool wait_until(Done&& done, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace emt
