// Handles released while the process exits (issue #32): a Context, Queues, Buffers and an Event held in
// a static made before the first Context (so destroyed after the Vulkan loader's layers and the driver
// have run their own destructors: the validation layer's object tables are gone by then), one Queue
// holding a batch behind a semaphore nobody signals (the device's flusher polls for it). The process
// must end cleanly: a Vulkan call from those releases crashed inside the validation layer. Run under
// the validation layer (backends/vulkan/ci.sh's vulkan_env), as the suite runs in CI.
#include <dlfcn.h>

#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>

#include <edgemem/edgemem.hpp>

using namespace edgemem;

namespace {

/// What the process holds until its exit handlers run.
struct Held {
  Context ctx;
  Queue q;
  Queue gated;
  Buffer buf;
  Buffer behind_gate;
  Event pending;
};

Held& held() {
  static Held h;
  return h;
}

int g_failures = 0;

void expect(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "edgemem_vulkan_exit: %s\n", what);
  ++g_failures;
}

/// A timeline semaphore of q's device, through the loader opened at run time (as the backend opens it).
std::uint64_t make_semaphore(const NativeQueue& n) {
  void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  auto proc = lib != nullptr ? reinterpret_cast<PFN_vkGetDeviceProcAddr>(dlsym(lib, "vkGetDeviceProcAddr")) : nullptr;
  auto create = proc != nullptr ? reinterpret_cast<PFN_vkCreateSemaphore>(proc(n.device, "vkCreateSemaphore")) : nullptr;
  if (create == nullptr) return 0;
  VkSemaphoreTypeCreateInfo type{};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  VkSemaphore s = VK_NULL_HANDLE;
  if (create(n.device, &info, nullptr, &s) != VK_SUCCESS) return 0;
  return reinterpret_cast<std::uint64_t>(s);
}

}  // namespace

int main() {
  Held& h = held();  // made before the first Context: destroyed after the loader's and layers' destructors
  auto ctx = Context::create();
  if (!ctx) {
    std::fprintf(stderr, "edgemem_vulkan_exit: no Vulkan device: %s\n", ctx.error().message);
    return 1;
  }
  h.ctx = std::move(*ctx);
  auto q = Queue::create(h.ctx);
  auto gated = Queue::create(h.ctx);
  auto buf = Buffer::create(h.ctx, 4096);
  auto behind = Buffer::create(h.ctx, 4096);
  if (!q || !gated || !buf || !behind) {
    std::fprintf(stderr, "edgemem_vulkan_exit: Queue or Buffer creation failed\n");
    return 1;
  }
  h.q = std::move(*q);
  h.gated = std::move(*gated);
  h.buf = std::move(*buf);
  h.behind_gate = std::move(*behind);
  // Work that runs: its bytes read back.
  const std::uint32_t word = 0x600dcafe;
  std::uint32_t back = 0;
  expect(h.q.write(h.buf, 0, &word, sizeof word).has_value(), "write");
  expect(h.q.read(h.buf, 0, &back, sizeof back).has_value() && back == word, "read back");
  // Work that never runs: held behind a semaphore handed to edgemem and never signalled.
  const std::uint64_t semaphore = make_semaphore(h.gated.native());
  expect(semaphore != 0, "vkCreateSemaphore");
  if (semaphore != 0) {
    expect(vulkan_queue_wait(h.gated.native(), semaphore, 1, true).has_value(), "vulkan_queue_wait");
    auto e = h.gated.write_async(h.behind_gate, 0, &word, sizeof word);
    expect(e.has_value(), "write_async behind the semaphore");
    if (e) {
      auto done = e->is_complete();
      expect(done.has_value() && !*done, "the held write is not complete");
      h.pending = std::move(*e);
    }
  }
  std::printf("edgemem_vulkan_exit: %s; the handles go with the process's exit handlers\n",
              g_failures == 0 ? "ok" : "FAILED");
  return g_failures == 0 ? 0 : 1;
}
