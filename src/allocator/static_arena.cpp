// The static allocator policy: one arena in .bss, an address-ordered list of blocks with boundary
// links, first fit, immediate coalescing. Never calls malloc or operator new.
#include <cstdint>
#include <mutex>

#include <edgemem/allocator.hpp>
#include <edgemem/config.hpp>

namespace edgemem {

namespace {

struct alignas(16) Block {
  std::size_t size;  // bytes of this block, header included
  Block* prev;       // block just below, or null
  std::size_t used;  // 1 when handed out
  std::size_t pad;
};
constexpr std::uintptr_t kHeader = sizeof(Block);
constexpr std::uintptr_t kGranule = 16;
constexpr std::uintptr_t kMinFree = kHeader + kGranule;
constexpr std::size_t kArenaBytes = (static_cast<std::size_t>(EDGEMEM_STATIC_ARENA_BYTES) / kGranule) * kGranule;
static_assert(sizeof(Block) % kGranule == 0, "header must keep 16-byte granules (32 bytes on LP64, 16 on ILP32)");

alignas(64) unsigned char g_arena[kArenaBytes];
std::mutex g_lock;
bool g_ready = false;
AllocatorStats g_stats{kArenaBytes, 0, 0, 0, 0, 0};

std::uintptr_t arena_end() noexcept { return reinterpret_cast<std::uintptr_t>(g_arena) + kArenaBytes; }

Block* next_of(Block* b) noexcept {
  const std::uintptr_t n = reinterpret_cast<std::uintptr_t>(b) + b->size;
  return n < arena_end() ? reinterpret_cast<Block*>(n) : nullptr;
}

Block* make_block(std::uintptr_t at, std::size_t size, Block* prev) noexcept {
  auto* b = reinterpret_cast<Block*>(at);
  b->size = size;
  b->prev = prev;
  b->used = 0;
  b->pad = 0;
  if (Block* after = next_of(b)) after->prev = b;
  return b;
}

void ensure_ready() noexcept {
  if (g_ready) return;
  make_block(reinterpret_cast<std::uintptr_t>(g_arena), kArenaBytes, nullptr);
  g_ready = true;
}

std::uintptr_t align_up(std::uintptr_t v, std::uintptr_t a) noexcept { return (v + a - 1) & ~(a - 1); }

}  // namespace

void* StaticArenaAllocator::allocate(std::size_t bytes, std::size_t align) noexcept {
  std::lock_guard<std::mutex> lock(g_lock);
  ensure_ready();
  if (bytes == 0 || bytes > kArenaBytes || align == 0 || align > kArenaBytes || (align & (align - 1)) != 0) {
    ++g_stats.failures;
    return nullptr;
  }
  if (align < kGranule) align = kGranule;
  const std::uintptr_t need = align_up(bytes, kGranule);
  for (Block* b = reinterpret_cast<Block*>(g_arena); b != nullptr; b = next_of(b)) {
    if (b->used) continue;
    const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(b);
    const std::uintptr_t end = start + b->size;
    std::uintptr_t payload = align_up(start + kHeader, align);
    if (payload - kHeader != start && payload - kHeader - start < kMinFree)
      payload = align_up(start + kHeader + kMinFree, align);  // leave room for a free lead block
    if (payload + need > end || payload + need < payload) continue;

    Block* u = b;
    if (payload - kHeader != start) {  // split off the lead as a free block
      const std::uintptr_t header = payload - kHeader;
      u = make_block(header, end - header, b);
      b->size = header - start;
    }
    const std::uintptr_t used_end = payload + need;
    if (end - used_end >= kMinFree) {  // split off the tail as a free block
      u->size = used_end - reinterpret_cast<std::uintptr_t>(u);
      make_block(used_end, end - used_end, u);
    }
    u->used = 1;
    ++g_stats.allocations;
    ++g_stats.total_allocations;
    g_stats.in_use_bytes += u->size;
    if (g_stats.in_use_bytes > g_stats.peak_bytes) g_stats.peak_bytes = g_stats.in_use_bytes;
    return reinterpret_cast<void*>(payload);
  }
  ++g_stats.failures;
  return nullptr;
}

void StaticArenaAllocator::deallocate(void* p, std::size_t, std::size_t) noexcept {
  if (p == nullptr) return;
  std::lock_guard<std::mutex> lock(g_lock);
  Block* b = reinterpret_cast<Block*>(reinterpret_cast<std::uintptr_t>(p) - kHeader);
  b->used = 0;
  --g_stats.allocations;
  g_stats.in_use_bytes -= b->size;
  if (Block* n = next_of(b); n != nullptr && !n->used) {
    b->size += n->size;
    if (Block* after = next_of(b)) after->prev = b;
  }
  if (Block* prev = b->prev; prev != nullptr && !prev->used) {
    prev->size += b->size;
    if (Block* after = next_of(prev)) after->prev = prev;
  }
}

AllocatorStats StaticArenaAllocator::stats() noexcept {
  std::lock_guard<std::mutex> lock(g_lock);
  return g_stats;
}

}  // namespace edgemem
