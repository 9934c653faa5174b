// The host backend's SVM under AddressSanitizer (its registry entry's 'conformance'): coarse SVM is
// poisoned outside maps, so a host access that skips map/unmap is reported; fine SVM never is.
#include <cstring>

#include "conformance/svm_helpers.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define EMT_SVM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMT_SVM_ASAN 1
#endif
#endif
#ifdef EMT_SVM_ASAN
#include <sanitizer/asan_interface.h>
#endif

using namespace edgemem;
using emt::grain_name;
using emt::kSvmGrains;

TEST_CASE("svm: AddressSanitizer poisons coarse SVM outside maps on the host backend; fine SVM never") {
  emt::Fixture f;
#ifdef EMT_SVM_ASAN
  const std::size_t A = f.align(), bytes = 8 * A;
  auto poisoned = [](const void* p) { return __asan_address_is_poisoned(p) != 0; };
  for (SvmGrain g : kSvmGrains) {
    CAPTURE(grain_name(g));
    if (emt::lacks_grain_checked(f.ctx, g)) continue;
    auto s = Svm::create(f.ctx, bytes, g);
    REQUIRE_OK(s);
    const std::byte* p = static_cast<const std::byte*>(s->pointer());
    const bool coarse = g == SvmGrain::coarse;
    CHECK(poisoned(p) == coarse);
    CHECK(poisoned(p + bytes - 1) == coarse);
    const emt::Bytes data = emt::random_bytes(bytes);
    CHECK_OK(f.q.write(*s, 0, data.data(), bytes));  // edgemem's own commands reach the bytes
    CHECK(poisoned(p + A) == coarse);
    {
      auto m = f.q.map(*s, Access::write, A, 2 * A);
      REQUIRE_OK(m);
      CHECK_FALSE(poisoned(p + A));
      CHECK_FALSE(poisoned(p + 3 * A - 1));
      CHECK(poisoned(p) == coarse);  // outside the map
      CHECK(poisoned(p + 4 * A) == coarse);
      (*m)[0] = std::byte{0x99};
      // Transfers to bytes outside the open map still work (edgemem's commands reach poisoned bytes).
      CHECK_OK(f.q.write(*s, 5 * A, data.data(), A));
      emt::Bytes back(A);
      CHECK_OK(f.q.read(*s, 6 * A, back.data(), A));
      CHECK(back == emt::Bytes(data.begin() + 6 * A, data.begin() + 7 * A));
      CHECK(poisoned(p + 7 * A) == coarse);  // untouched bytes outside the map
      CHECK_OK(m->unmap());
    }
    for (std::size_t at : {A, 3 * A - 1, 5 * A, 6 * A, bytes - 1}) CHECK(poisoned(p + at) == coarse);  // all again
    emt::Bytes want = data;
    want[A] = 0x99;
    std::memcpy(want.data() + 5 * A, data.data(), A);
    CHECK(f.snapshot(*s) == want);
    // Pool blocks of coarse SVM are poisoned too, outside maps.
    FixedPool<2> pool;
    auto init = pool.init(f.ctx, f.q, A, 2, g);
    REQUIRE_OK(init);
    auto block = pool.acquire();
    REQUIRE_OK(block);
    CHECK(poisoned(block->buffer().svm_pointer()) == coarse);
  }
#else
  EMT_SKIP("not an AddressSanitizer build: nothing is poisoned to check");
#endif
}
