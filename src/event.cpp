#include <edgemem/event.hpp>

#include "core/live.hpp"
#include "core/nodes.hpp"

namespace edgemem {

using detail::Backend;

Event detail::HandleAccess::event(Backend::NativeEvent native, ContextNode* ctx) noexcept {
  Event e;
  if (ctx != nullptr) retain(ctx);
  e.reset({native, ctx, {}, true});
  live_add(Live::event, 1);
  return e;
}

void detail::EventKind::free(NativeEvent native, ContextNode* ctx) noexcept {
  Backend::event_release(native);
  live_add(Live::event, -1);
  unref(ctx);
}

Result<void> Event::wait() const noexcept {
  if (!valid()) return fail(Errc::released, "event is released");
  return Backend::event_wait(get().native);
}

Result<bool> Event::is_complete() const noexcept {
  if (!valid()) return fail(Errc::released, "event is released");
  return Backend::event_complete(get().native);
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
