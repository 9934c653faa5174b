#include <edgemem/event.hpp>

#include "core/live.hpp"
#include "core/nodes.hpp"

namespace edgemem {

using detail::Backend;

Event detail::HandleAccess::event(Backend::NativeEvent native, ContextNode* ctx) noexcept {
  Event e;
  e.native_ = native;
  if (ctx != nullptr) retain(ctx);
  e.ctx_ = ctx;
  e.valid_ = true;
  live_add(Live::event, 1);
  return e;
}

Event::Event(Event&& other) noexcept : native_(other.native_), ctx_(other.ctx_), valid_(other.valid_) {
  other.native_ = Backend::NativeEvent{};
  other.ctx_ = nullptr;
  other.valid_ = false;
}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    (void)release();
    native_ = other.native_;
    ctx_ = other.ctx_;
    valid_ = other.valid_;
    other.native_ = Backend::NativeEvent{};
    other.ctx_ = nullptr;
    other.valid_ = false;
  }
  return *this;
}

Event::~Event() { (void)release(); }

Result<void> Event::wait() const noexcept {
  if (!valid_) return fail(Errc::released, "event is released");
  return Backend::event_wait(native_);
}

Result<bool> Event::is_complete() const noexcept {
  if (!valid_) return fail(Errc::released, "event is released");
  return Backend::event_complete(native_);
}

Result<void> Event::release() noexcept {
  if (valid_) {
    Backend::event_release(native_);
    detail::live_add(detail::Live::event, -1);
  }
  detail::unref(ctx_);
  ctx_ = nullptr;
  native_ = Backend::NativeEvent{};
  valid_ = false;
  return {};
}

Result<void> wait_all(WaitList events) noexcept {
  for (const Event& e : events)
    if (!e.valid()) return fail(Errc::released, "event list holds a released event");
  Result<void> first{};
  for (const Event& e : events) {
    auto done = e.wait();
    if (!done && first) first = fail(done.error());
  }
  return first;
}

}  // namespace edgemem
