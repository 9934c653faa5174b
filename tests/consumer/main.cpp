// A firmware-like edgemem consumer: one context and queue, a FixedPool of frame blocks, a
// write_discard mapping, a blocking write and read back. Exits 0 and prints "consumer: ok" when
// every byte arrived; otherwise prints the failing call and its Errc.
#include <edgemem/edgemem.hpp>

#include <cstdint>
#include <cstdio>

using namespace edgemem;

namespace {

/// Prints the failed call and its error; returns the process exit code 1.
int report(const char* what, const Error& e) {
  std::printf("consumer: %s failed: %s: %s\n", what, to_string(e.code), e.message);
  return 1;
}

}  // namespace

int main() {
  auto ctx = Context::create();
  if (!ctx) return report("Context::create", ctx.error());
  auto q = Queue::create(*ctx);
  if (!q) return report("Queue::create", q.error());

  FixedPool<4> pool;  // 4 blocks of 256 bytes, bookkeeping inline
  if (auto r = pool.init(*ctx, *q, 256); !r) return report("FixedPool::init", r.error());
  auto block = pool.acquire();
  if (!block) return report("FixedPool::acquire", block.error());

  {
    auto m = q->map<std::uint32_t>(*block, Access::write_discard);
    if (!m) return report("Queue::map", m.error());
    std::uint32_t i = 0;
    for (std::uint32_t& w : *m) w = 0xC0DE0000u + i++;
  }  // unmapped here
  const std::uint32_t tail[2] = {0xFEEDu, 0xBEEFu};
  if (auto r = q->write(*block, block->size() - sizeof tail, tail, sizeof tail); !r)
    return report("Queue::write", r.error());

  std::uint32_t back[64] = {};
  if (auto r = q->read(*block, 0, back, sizeof back); !r) return report("Queue::read", r.error());
  unsigned bad = 0;
  for (std::uint32_t i = 0; i < 62; ++i) bad += back[i] != 0xC0DE0000u + i;
  bad += back[62] != tail[0];
  bad += back[63] != tail[1];

  const PoolStats s = pool.stats();
  std::printf("consumer: %s backend=%s expected=%s pool capacity=%zu in_use=%zu bytes=%zu\n",
              bad == 0 ? "ok" : "MISMATCH", EDGEMEM_BACKEND_NAME, EDGEMEM_EXPECTED_NAME, s.capacity, s.in_use,
              block->size());
  return bad == 0 ? 0 : 1;
}
