// The host backend's own conformance cases (its registry entry's 'conformance'): what only a backend
// whose storage comes from edgemem's allocator policy, and whose capabilities a test build can set from
// EDGEMEM_HOST_CAPS, can show. Linked into the conformance program of host builds.
#include <cstdlib>
#include <string>
#include <vector>

#include "conformance/test_helpers.hpp"

using namespace edgemem;

#if EDGEMEM_ALLOCATOR_STATIC
TEST_CASE("Buffer::create: out_of_host_memory when the static arena cannot hold the buffer") {
  // The host backend's max_alloc_bytes is the arena size; the arena already holds the context,
  // queue and this buffer's bookkeeping, so a full-size buffer cannot fit.
  emt::Fixture f;
  CHECK_ERRC(Buffer::create(f.ctx, f.ctx.info().max_alloc_bytes), Errc::out_of_host_memory);
  emt::Bytes data;
  Buffer still = f.filled(256, data);
  ENSURE(still.valid());
  CHECK(f.snapshot(still) == data);
}
#endif

#if EDGEMEM_ALLOCATOR_STATIC
TEST_CASE("static arena exhausted: create, sub and Queue::create report out_of_host_memory") {
  emt::Fixture f;
  const std::size_t max = f.ctx.info().max_alloc_bytes;
  std::vector<Buffer> hog;
  for (std::size_t sz = max / 2; sz >= 1; sz /= 2) {
    for (;;) {
      auto b = Buffer::create(f.ctx, sz);
      if (!b) {
        CHECK(b.error().code == Errc::out_of_host_memory);
        break;
      }
      hog.push_back(std::move(*b));
    }
  }
  ENSURE(!hog.empty());
  const emt::Bytes pattern = emt::random_bytes(64);
  CHECK_OK(f.q.write(hog.front(), 0, pattern.data(), pattern.size()));
  std::vector<Buffer> subs;
  bool sub_failed = false;
  for (int i = 0; i < 1000000 && !sub_failed; ++i) {
    auto s = hog.front().sub(0, 64);
    if (s) {
      subs.push_back(std::move(*s));
    } else {
      sub_failed = true;
      CHECK_ERRC(s, Errc::out_of_host_memory);
    }
  }
  CHECK(sub_failed);
  std::vector<Queue> queues;
  bool queue_failed = false;
  for (int i = 0; i < 1000000 && !queue_failed; ++i) {
    auto q = Queue::create(f.ctx);
    if (q) {
      queues.push_back(std::move(*q));
    } else {
      queue_failed = true;
      CHECK_ERRC(q, Errc::out_of_host_memory);
    }
  }
  CHECK(queue_failed);
  CHECK_ERRC(Buffer::create(f.ctx, 1), Errc::out_of_host_memory);
  // Nothing was damaged by the failures.
  CHECK(hog.front().valid());
  emt::Bytes back(64);
  CHECK_OK(f.q.read(hog.front(), 0, back.data(), back.size()));
  CHECK(back == pattern);
  // Freeing memory makes creation work again.
  hog.clear();
  subs.clear();
  queues.clear();
  CHECK_OK(Buffer::create(f.ctx, max / 2));
  CHECK_OK(Queue::create(f.ctx));
}
#endif

TEST_CASE("capabilities: a malformed EDGEMEM_HOST_CAPS is refused by the host backend") {
  auto probe = edgemem::Context::create();
  REQUIRE_OK(probe);
  if (!EDGEMEM_HOST_CAPS_ENV) return;  // -Dhost_caps_env=true builds only
  const char* saved = std::getenv("EDGEMEM_HOST_CAPS");
  const std::string keep = saved != nullptr ? saved : "";
  for (const char* bad : {"fill=3", "fill=256", "migration=2", "images=2", "svm=1", "fill", "fill=4;migration=0", "fill=x"}) {
    CAPTURE(bad);
    ::setenv("EDGEMEM_HOST_CAPS", bad, 1);
    CHECK_ERRC(edgemem::Context::create(), Errc::invalid_argument);
  }
  ::setenv("EDGEMEM_HOST_CAPS", "fill=16,migration=0,host_access_flags=1,unified_memory=0", 1);
  auto custom = edgemem::Context::create();
  if (saved != nullptr) ::setenv("EDGEMEM_HOST_CAPS", keep.c_str(), 1);
  else ::unsetenv("EDGEMEM_HOST_CAPS");
  REQUIRE_OK(custom);
  CHECK(custom->info().caps.max_fill_pattern_bytes == 16);
  CHECK(!custom->info().caps.migration);
  CHECK(custom->info().caps.host_access_flags);
  CHECK(!custom->info().caps.unified_memory);
}
