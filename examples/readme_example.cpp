// The README's usage example, compiled and run by the test suite so the README stays true.
#include <cstdint>
#include <cstdio>
#include <vector>

// ---- begin README example ----
#include <edgemem/edgemem.hpp>
using namespace edgemem;

Result<std::uint64_t> brightest_strip(const std::uint8_t* frame, std::size_t bytes) {
  EDGEMEM_TRY_ASSIGN(Context ctx, Context::create());            // EDGEMEM_DEVICE=p:d overrides
  EDGEMEM_TRY_ASSIGN(Queue q, Queue::create(ctx));
  EDGEMEM_TRY_ASSIGN(Buffer buf, Buffer::from_host(ctx, frame, bytes, Storage::shared));
  const std::size_t half = bytes / 2 / ctx.base_align() * ctx.base_align();
  EDGEMEM_TRY_ASSIGN(Buffer top, buf.sub(0, half));              // Errc::misaligned if not aligned
  EDGEMEM_TRY_ASSIGN(Buffer bottom, buf.sub(half, bytes - half));
  EDGEMEM_TRY_ASSIGN(Event e, q.copy_async(bottom, top, 0, 0, 64));
  EDGEMEM_TRY(e.wait());
  EDGEMEM_TRY_ASSIGN(auto view, q.map<const std::uint8_t>(top, Access::read));
  std::uint64_t sum = 0;
  for (std::uint8_t v : view) sum += v;                          // unmapped when `view` dies
  return sum;
}
// ---- end README example ----

#include "user_allocator_setup.hpp"

int main() {
  example::setup_user_allocator();  // allocator=user builds: callbacks before any edgemem call
  std::vector<std::uint8_t> frame(1 << 16);
  for (std::size_t i = 0; i < frame.size(); ++i) frame[i] = static_cast<std::uint8_t>(i * 31 + 7);
  auto r = brightest_strip(frame.data(), frame.size());
  if (!r) {
    std::printf("%s: %s\n", to_string(r.error().code), r.error().message);
    return 1;
  }
  // Expected: the top half after its first 64 bytes were overwritten by the bottom half's first 64.
  const std::size_t half = frame.size() / 2;  // a multiple of every base alignment in use
  std::uint64_t want = 0;
  for (std::size_t i = 0; i < half; ++i) want += i < 64 ? frame[half + i] : frame[i];
  std::printf("sum=%llu expected=%llu\n", static_cast<unsigned long long>(*r), static_cast<unsigned long long>(want));
  return *r == want ? 0 : 1;
}
