// Gate and native queues on the Vulkan backend (gate.hpp): the Queue's next command waits for a
// timeline semaphore of the test's that the host signals when the gate opens (vulkan_queue_wait, the
// interop call for the caller's fences), so every later command of that Queue waits too; edgemem
// holds those batches without submitting them, so other Queues on the same VkQueue run on. The
// semaphore is handed to edgemem, which destroys it once that command has run. Native queues: the
// context's own VkQueues (Vulkan makes none later), adopted as they are. The loader is opened at run
// time, as the backend opens it.
#include <dlfcn.h>

#include <vulkan/vulkan.h>

#include <atomic>

#include "support/gate.hpp"

namespace emt {

using edgemem::Errc;
using edgemem::fail;

namespace {

struct Entry {
  PFN_vkGetDeviceProcAddr device_proc = nullptr;
};

const Entry& loader() {
  static const Entry e = [] {
    Entry d;
    void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) d.device_proc = reinterpret_cast<PFN_vkGetDeviceProcAddr>(dlsym(lib, "vkGetDeviceProcAddr"));
    return d;
  }();
  return e;
}

template <class Fn>
Fn device_fn(VkDevice device, const char* name) {
  return loader().device_proc != nullptr ? reinterpret_cast<Fn>(loader().device_proc(device, name)) : nullptr;
}

}  // namespace

struct Gate::State {
  VkDevice device = VK_NULL_HANDLE;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  std::atomic<bool> opened{false};
};

edgemem::Result<Gate> Gate::hold(edgemem::Queue& q) noexcept {
  if (!q.valid()) return fail(Errc::released, "gate: the queue is released");
  const edgemem::NativeQueue n = q.native();
  auto create = device_fn<PFN_vkCreateSemaphore>(n.device, "vkCreateSemaphore");
  auto destroy = device_fn<PFN_vkDestroySemaphore>(n.device, "vkDestroySemaphore");
  if (create == nullptr || destroy == nullptr) return fail(Errc::unsupported, "gate: no Vulkan loader");
  VkSemaphoreTypeCreateInfo type{};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  auto* s = new State;
  s->device = n.device;
  if (create(n.device, &info, nullptr, &s->semaphore) != VK_SUCCESS) {
    delete s;
    return fail(Errc::backend_failure, "gate: vkCreateSemaphore failed");
  }
  // Handed to edgemem: destroyed once the command waiting for it has run, so a gate may go while a
  // gate before it on the same Queue still holds that command back.
  auto waited = edgemem::vulkan_queue_wait(n, reinterpret_cast<std::uint64_t>(s->semaphore), 1, true);
  if (!waited) {
    destroy(n.device, s->semaphore, nullptr);
    delete s;
    return fail(waited.error());
  }
  return Gate(s);
}

void Gate::open() noexcept {
  if (state_ == nullptr) return;
  auto signal = device_fn<PFN_vkSignalSemaphore>(state_->device, "vkSignalSemaphore");
  if (state_->opened.exchange(true)) return;  // one signal of value 1, whichever thread opens first
  VkSemaphoreSignalInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  info.semaphore = state_->semaphore;
  info.value = 1;
  (void)signal(state_->device, &info);
}

void Gate::reset() noexcept {
  if (state_ == nullptr) return;
  open();  // edgemem destroys the semaphore once the command that waits for it has run
  delete state_;
  state_ = nullptr;
}

edgemem::Result<edgemem::NativeQueue> make_native_queue(const edgemem::Context& ctx) noexcept {
  if (!ctx.valid()) return fail(Errc::released, "make_native_queue: the context is released");
  auto q = edgemem::Queue::create(ctx);  // its VkQueue is one of the context's: adopt gives it a Queue of its own
  if (!q) return fail(q.error());
  edgemem::NativeQueue n{};
  n.queue = q->native().queue;
  n.device = q->native().device;
  n.family = q->native().family;
  n.index = q->native().index;
  return n;
}

void destroy_native_queue(edgemem::NativeQueue) noexcept {}

}  // namespace emt
