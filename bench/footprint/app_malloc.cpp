// Footprint app, baseline: the same program as app_edgemem.cpp over plain malloc (a 4-block pool
// with a free list, a pointer for the mapping, memcpy for write and read). bench/footprint.sh
// reports edgemem's text as the difference between the two.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct Pool {
  unsigned char* base = nullptr;
  int free_list[4] = {1, 2, 3, -1};
  int head = 0;
  bool init() {
    base = static_cast<unsigned char*>(std::malloc(4 * 256));
    return base != nullptr;
  }
  unsigned char* acquire() {
    if (head < 0) return nullptr;
    unsigned char* b = base + head * 256;
    head = free_list[head];
    return b;
  }
};

}  // namespace

int main() {
  Pool pool;
  if (!pool.init()) return 1;
  unsigned char* block = pool.acquire();
  if (block == nullptr) return 1;
  auto* m = reinterpret_cast<std::uint32_t*>(block);
  for (std::uint32_t i = 0; i < 64; ++i) m[i] = 0x9E3779B9u * (i + 1);
  const std::uint32_t tail = 0xFEEDBEEFu;
  std::memcpy(block + 252, &tail, sizeof tail);
  std::uint32_t back[64];
  std::memcpy(back, block, sizeof back);
  std::uint32_t sum = 0;
  for (std::uint32_t w : back) sum = sum * 31 + w;
  std::printf("malloc checksum %08x\n", static_cast<unsigned>(sum));
  std::free(pool.base);
  return 0;
}
