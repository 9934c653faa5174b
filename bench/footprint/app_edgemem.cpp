// Footprint app, edgemem version: what a small firmware does with edgemem on a board without a
// usable GPU (host backend). Context and queue, a FixedPool of 4 blocks of 256 bytes, a
// write_discard mapping, a blocking write and read back; prints a checksum. bench/footprint.sh
// compares its size with app_malloc.cpp, the same program over plain malloc.
#include <edgemem/edgemem.hpp>

#include <cstdint>
#include <cstdio>

using namespace edgemem;

int main() {
  auto ctx = Context::create();
  if (!ctx) return 1;
  auto q = Queue::create(*ctx);
  if (!q) return 1;
  FixedPool<4> pool;
  if (!pool.init(*ctx, *q, 256)) return 1;
  auto block = pool.acquire();
  if (!block) return 1;
  {
    auto m = q->map<std::uint32_t>(*block, Access::write_discard);
    if (!m) return 1;
    std::uint32_t i = 0;
    for (std::uint32_t& w : *m) w = 0x9E3779B9u * ++i;
  }
  const std::uint32_t tail = 0xFEEDBEEFu;
  if (!q->write(*block, 252, &tail, sizeof tail)) return 1;
  std::uint32_t back[64];
  if (!q->read(*block, 0, back, sizeof back)) return 1;
  std::uint32_t sum = 0;
  for (std::uint32_t w : back) sum = sum * 31 + w;
  std::printf("edgemem checksum %08x\n", static_cast<unsigned>(sum));
  return 0;
}
