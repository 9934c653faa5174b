// Bad inputs to shared virtual memory (Svm, svm.hpp): creation, views, the queue commands on SVM,
// host access by grain, maps, release, use after release, another context, and the calls SVM does not
// support. Every case is named "Svm..." (run them with -tc='bad_input: Svm*'). A device without the
// grain a case needs (PoCL without fine_system; the host backend with EDGEMEM_HOST_CAPS=svm_coarse=0,...)
// answers Errc::unsupported at Svm::create: the case then checks that answer, with nothing changed,
// and ends there; no case is skipped silently.
#include <cstdint>
#include <string>

#include "bad_input/svm_scene.hpp"

using namespace edgemem;
using emt::bad::Scene;
using namespace emt::bad::svm;

// ---- Svm::create, Svm::like, pools over SVM --------------------------------------------------------

BAD_INPUT("Svm::create: released context") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  auto gone = Context::create();
  REQUIRE_OK(gone);
  CHECK_OK(gone->release());
  s.expect(Errc::released, [&] { return Svm::create(*gone, kBytes); });
  s.expect(Errc::released, [&] { return Svm::create(Context{}, kBytes, SvmGrain::fine_buffer); });
  Context moved_to;
  {
    auto c = Context::create();
    REQUIRE_OK(c);
    moved_to = std::move(*c);
    s.expect(Errc::released, [&] { return Svm::create(*c, kBytes); });  // *c is moved-from
  }
  // released comes first: before the grain, the size and the alignment
  s.expect(Errc::released, [&] { return Svm::create(*gone, 0, static_cast<SvmGrain>(9), 3); });
}

BAD_INPUT("Svm::like: released Svm") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  Svm never;
  s.expect(Errc::released, [&] { return Svm::like(never); });
  SvmSet svms(f, s);
  Svm* a = svms.make(kBytes, any_grain(f.ctx), false);
  if (a == nullptr) return;
  Svm moved = std::move(*a);
  s.watch(moved);
  s.expect(Errc::released, [&] { return Svm::like(*a); });
}

BAD_INPUT("Svm::create: unknown SvmGrain value") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  s.expect(Errc::invalid_argument, [&] { return Svm::create(f.ctx, kBytes, static_cast<SvmGrain>(3)); });
  s.expect(Errc::invalid_argument, [&] { return Svm::create(f.ctx, kBytes, static_cast<SvmGrain>(200)); });
}

BAD_INPUT("Svm::create: a grain the device lacks answers unsupported, one it has succeeds") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  for (const SvmGrain g : kGrains) {
    CAPTURE(grain_name(g));
    if (!has(f.ctx, g)) {
      MESSAGE("no " << grain_name(g) << " SVM on this device: unsupported");
      s.expect(Errc::unsupported, [&] { return Svm::create(f.ctx, kBytes, g); });
      s.expect(Errc::unsupported, [&] { return Svm::create(f.ctx, kBytes, g, 64); });
      continue;
    }
    auto made = Svm::create(f.ctx, kBytes, g, 64);
    REQUIRE_OK(made);
    CHECK(made->is_svm());
    CHECK(made->grain() == g);
    CHECK(made->size() == kBytes);
    CHECK(reinterpret_cast<std::uintptr_t>(made->pointer()) % svm_max_alignment == 0);
    CHECK_OK(made->release());
  }
}

BAD_INPUT("Svm FixedPool::init and Heap::init: a grain the device lacks, bad sizes, released handles") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  FixedPool<4> pool;
  Heap heap;
  s.watch(pool);
  s.watch(heap);
  Queue dead_queue;
  for (const SvmGrain g : kGrains) {
    CAPTURE(grain_name(g));
    if (!has(f.ctx, g)) {  // checked at the allocation, after the arguments: nothing is left behind
      s.expect(Errc::unsupported, [&] { return pool.init(f.ctx, f.q, 256, 4, g); });
      s.expect(Errc::unsupported, [&] { return heap.init(f.ctx, f.q, f.align(), 4, g); });
    }
    s.expect(Errc::invalid_argument, [&] { return pool.init(f.ctx, f.q, 0, 4, g); });
    s.expect(Errc::out_of_range, [&] { return pool.init(f.ctx, f.q, 256, 5, g); });  // past FixedPool<4>
    s.expect(Errc::released, [&] { return pool.init(Context{}, f.q, 256, 4, g); });
    s.expect(Errc::invalid_argument, [&] { return heap.init(f.ctx, f.q, 0, 4, g); });
    s.expect(Errc::released, [&] { return heap.init(f.ctx, dead_queue, f.align(), 4, g); });
    if (f.align() > 1) s.expect(Errc::misaligned, [&] { return heap.init(f.ctx, f.q, f.align() + 1, 4, g); });
  }
  s.expect(Errc::released, [&] { return pool.acquire(); });
  s.expect(Errc::released, [&] { return heap.create_buffer(16); });
}

BAD_INPUT("Svm::create: zero bytes") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  const SvmGrain g = any_grain(f.ctx);
  s.expect(or_unsupported(f.ctx, g, Errc::invalid_argument), [&] { return Svm::create(f.ctx, 0, g); });
}

BAD_INPUT("Svm::create: one byte past the device's max allocation, and SIZE_MAX") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  const std::size_t max = f.ctx.info().max_alloc_bytes;
  ENSURE(max > 0);
  ENSURE(max < SIZE_MAX);
  const SvmGrain g = any_grain(f.ctx);
  s.expect(or_unsupported(f.ctx, g, Errc::out_of_range), [&] { return Svm::create(f.ctx, max + 1, g); });
  s.expect(or_unsupported(f.ctx, g, Errc::out_of_range), [&] { return Svm::create(f.ctx, SIZE_MAX, g); });
}

BAD_INPUT("Svm::create: alignment not a power of two") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  const SvmGrain g = any_grain(f.ctx);
  for (const std::size_t a : {std::size_t{3}, std::size_t{96}, std::size_t{129}, SIZE_MAX}) {
    CAPTURE(a);
    s.expect(or_unsupported(f.ctx, g, Errc::invalid_argument), [&] { return Svm::create(f.ctx, kBytes, g, a); });
  }
}

BAD_INPUT("Svm::create: alignment above svm_max_alignment") {
  emt::Fixture f;
  Scene s(f);
  s.make(64);
  const SvmGrain g = any_grain(f.ctx);
  for (const std::size_t a : {2 * svm_max_alignment, std::size_t{4096}, SIZE_MAX / 2 + 1}) {
    CAPTURE(a);
    s.expect(or_unsupported(f.ctx, g, Errc::out_of_range), [&] { return Svm::create(f.ctx, kBytes, g, a); });
  }
}

// ---- Svm::sub ---------------------------------------------------------------------------------------

BAD_INPUT("Svm::sub: zero bytes") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Svm* a = svms.make(4 * f.align(), any_grain(f.ctx));
  if (a == nullptr) return;
  s.expect(Errc::invalid_argument, [&] { return a->sub(0, 0); });
  s.expect(Errc::invalid_argument, [&] { return a->sub(f.align(), 0); });
}

BAD_INPUT("Svm::sub: offset + size past the end, or offset at the end") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Svm* a = svms.make(4 * f.align(), any_grain(f.ctx));
  if (a == nullptr) return;
  s.expect(Errc::out_of_range, [&] { return a->sub(2 * f.align(), 2 * f.align() + 1); });
  s.expect(Errc::out_of_range, [&] { return a->sub(4 * f.align(), 1); });
  auto half = a->sub(2 * f.align(), 2 * f.align());
  REQUIRE_OK(half);
  s.watch(*half);
  s.expect(Errc::out_of_range, [&] { return half->sub(f.align(), f.align() + 1); });  // inside the root, past the view
}

BAD_INPUT("Svm::sub: offset + size overflows SIZE_MAX") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Svm* a = svms.make(4 * f.align(), any_grain(f.ctx));
  if (a == nullptr) return;
  s.expect(Errc::out_of_range, [&] { return a->sub(f.align(), SIZE_MAX - f.align() + 1); });
  s.expect(Errc::out_of_range, [&] { return a->sub(SIZE_MAX - f.align() + 1, f.align()); });
}

BAD_INPUT("Svm::sub: origin not a multiple of the base alignment") {
  emt::Fixture f;
  Scene s(f);
  ENSURE(f.align() > 1);
  SvmSet svms(f, s);
  Svm* a = svms.make(4 * f.align(), any_grain(f.ctx));
  if (a == nullptr) return;
  s.expect(Errc::misaligned, [&] { return a->sub(1, f.align()); });
  auto mid = a->sub(f.align(), 2 * f.align());
  REQUIRE_OK(mid);
  s.watch(*mid);
  s.expect(Errc::misaligned, [&] { return mid->sub(f.align() / 2, f.align()); });
}

// ---- the queue commands on SVM ------------------------------------------------------------------------

BAD_INPUT("Svm Queue::write: range past the end, offset + size overflowing") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Svm* a = svms.make(kBytes, any_grain(f.ctx));
  if (a == nullptr) return;
  const emt::Bytes src = emt::random_bytes(kBytes + 1);
  s.expect(Errc::out_of_range, [&] { return f.q.write(*a, 0, src.data(), kBytes + 1); });
  s.expect(Errc::out_of_range, [&] { return f.q.write_async(*a, kBytes - 8, src.data(), 9); });
  s.expect(Errc::out_of_range, [&] { return f.q.write(*a, 16, src.data(), SIZE_MAX - 8); });
  auto view = a->sub(0, f.align());
  REQUIRE_OK(view);
  s.expect(Errc::out_of_range, [&] { return f.q.write(*view, 0, src.data(), f.align() + 1); });
}

BAD_INPUT("Svm Queue::read: range past the end") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Svm* a = svms.make(kBytes, any_grain(f.ctx));
  if (a == nullptr) return;
  emt::Bytes dst(16, 0xEE);
  s.expect(Errc::out_of_range, [&] { return f.q.read(*a, kBytes + 1, dst.data(), 1); });
  s.expect(Errc::out_of_range, [&] { return f.q.read_async(*a, kBytes - 8, dst.data(), 16); });
  s.expect(Errc::out_of_range, [&] { return f.q.read(*a, SIZE_MAX, dst.data(), 1); });
  CHECK(dst == emt::Bytes(16, 0xEE));
}

BAD_INPUT("Svm Queue::write, read and fill: null host pointers") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Svm* a = svms.make(kBytes, any_grain(f.ctx));
  if (a == nullptr) return;
  s.expect(Errc::invalid_argument, [&] { return f.q.write(*a, 0, nullptr, 16); });
  s.expect(Errc::invalid_argument, [&] { return f.q.write_async(*a, 0, nullptr, 16); });
  s.expect(Errc::invalid_argument, [&] { return f.q.read(*a, 0, nullptr, 16); });
  s.expect(Errc::invalid_argument, [&] { return f.q.read_async(*a, 0, nullptr, 16); });
  s.expect(Errc::invalid_argument, [&] { return f.q.fill(*a, 0, 16, nullptr, 4); });
}

BAD_INPUT("Svm Queue::fill: misaligned, past the end, bad pattern sizes") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Svm* a = svms.make(kBytes, any_grain(f.ctx));
  if (a == nullptr) return;
  const std::uint64_t pat = 0x0123456789ABCDEFull;
  const emt::Bytes wide = emt::random_bytes(256);
  s.expect(Errc::misaligned, [&] { return f.q.fill(*a, 4, 16, &pat, 8); });
  s.expect(Errc::misaligned, [&] { return f.q.fill_async(*a, 0, 12, &pat, 8); });
  s.expect(Errc::out_of_range, [&] { return f.q.fill(*a, kBytes - 8, 16, &pat, 8); });
  s.expect(Errc::invalid_argument, [&] { return f.q.fill(*a, 0, 48, &pat, 3); });
  s.expect(Errc::invalid_argument, [&] { return f.q.fill(*a, 0, 512, wide.data(), 256); });
  s.expect(Errc::invalid_argument, [&] { return f.q.fill(*a, 0, 16, &pat, 0); });
}

BAD_INPUT("Svm Queue::copy: overlapping ranges of one Svm") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Svm* a = svms.make(4 * f.align(), any_grain(f.ctx));
  if (a == nullptr) return;
  s.expect(Errc::overlap, [&] { return f.q.copy(*a, *a, 0, 16, 64); });
  s.expect(Errc::overlap, [&] { return f.q.copy_async(*a, *a, 0, 0, f.align()); });
  auto lo = a->sub(0, 2 * f.align());
  auto hi = a->sub(f.align(), 2 * f.align());
  REQUIRE_OK(lo);
  REQUIRE_OK(hi);
  s.expect(Errc::overlap, [&] { return f.q.copy(*lo, *hi, f.align(), 0, f.align()); });  // the same root bytes
}

BAD_INPUT("Svm Queue::copy: past the end, Svm to Buffer and Buffer to Svm") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Buffer& b = s.make(kBytes);
  Svm* a = svms.make(kBytes, any_grain(f.ctx));
  if (a == nullptr) return;
  s.expect(Errc::out_of_range, [&] { return f.q.copy(*a, b, 512, 0, 513); });
  s.expect(Errc::out_of_range, [&] { return f.q.copy(b, *a, 0, 768, 512); });
  s.expect(Errc::out_of_range, [&] { return f.q.copy_async(*a, b, 0, SIZE_MAX - 4, 8); });
  s.expect(Errc::invalid_argument, [&] { return f.q.copy(*a, b, 0, 0, 0); });
}

BAD_INPUT("Svm Queue::migrate: unknown Migration value") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Svm* a = svms.make(kBytes, any_grain(f.ctx));
  if (a == nullptr) return;
  s.expect(Errc::invalid_argument, [&] { return f.q.migrate(*a, static_cast<Migration>(9)); });
}

BAD_INPUT("Svm: use after release (released and moved-from handles)") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Buffer& b = s.make(kBytes);
  const SvmGrain g = any_grain(f.ctx);
  Svm* a = svms.make(kBytes, g, false);
  if (a == nullptr) return;
  Svm* kept = svms.make(kBytes, g, false);
  ENSURE(kept != nullptr);
  Svm taker = std::move(*kept);  // *kept is moved-from; taker owns it
  s.watch(taker);
  CHECK_OK(a->release());
  CHECK_OK(a->release());  // idempotent
  emt::Bytes host = emt::random_bytes(64);
  const std::uint32_t pat = 7;
  for (Svm* dead : {a, kept}) {
    s.expect(Errc::released, [&] { return f.q.write(*dead, 0, host.data(), 64); });
    s.expect(Errc::released, [&] { return f.q.read(*dead, 0, host.data(), 64); });
    s.expect(Errc::released, [&] { return f.q.fill(*dead, 0, 64, &pat, 4); });
    s.expect(Errc::released, [&] { return f.q.copy(*dead, b, 0, 0, 64); });
    s.expect(Errc::released, [&] { return f.q.copy(b, *dead, 0, 0, 64); });
    s.expect(Errc::released, [&] { return f.q.map(*dead, Access::read, 0, 64); });
    s.expect(Errc::released, [&] { return f.q.migrate(*dead, Migration::to_host); });
    s.expect(Errc::released, [&] { return dead->sub(0, f.align()); });
    s.expect(Errc::released, [&] { return dead->host_span<unsigned char>(); });
    s.expect(Errc::released, [&] { return dead->native(); });
    s.expect(Errc::released, [&] { return Svm::like(*dead); });
    CHECK(dead->pointer() == nullptr);
    CHECK_FALSE(dead->is_svm());
  }
}

BAD_INPUT("Svm: an Svm of another context") {
  emt::Fixture f;
  Scene s(f);
  SvmSet svms(f, s);
  Buffer& b = s.make(kBytes);
  emt::OtherContext other(64);
  const SvmGrain g = any_grain(other.ctx);
  Svm* mine = svms.make(kBytes, g);
  Svm* theirs = svms.make_other(other.ctx, other.q, kBytes, g);
  if (mine == nullptr || theirs == nullptr) return;
  emt::Bytes host = emt::random_bytes(64);
  const std::uint32_t pat = 7;
  s.expect(Errc::invalid_argument, [&] { return f.q.write(*theirs, 0, host.data(), 64); });
  s.expect(Errc::invalid_argument, [&] { return f.q.read(*theirs, 0, host.data(), 64); });
  s.expect(Errc::invalid_argument, [&] { return f.q.fill(*theirs, 0, 64, &pat, 4); });
  s.expect(Errc::invalid_argument, [&] { return f.q.copy(*theirs, *mine, 0, 0, 64); });
  s.expect(Errc::invalid_argument, [&] { return f.q.copy(*mine, *theirs, 0, 0, 64); });
  s.expect(Errc::invalid_argument, [&] { return f.q.copy(*theirs, b, 0, 0, 64); });
  s.expect(Errc::invalid_argument, [&] { return f.q.map(*theirs, Access::read, 0, 64); });
  s.expect(Errc::invalid_argument, [&] { return f.q.migrate(*theirs, Migration::to_host); });
  s.expect(Errc::invalid_argument, [&] { return theirs->release(f.q); });
  s.expect(Errc::invalid_argument, [&] { return f.q.begin_native(*theirs, Access::write); });
  CHECK(other.unchanged());
}

// Host access, maps, release and the calls SVM does not support (a namespace of their own: BAD_INPUT
// names its registration after __LINE__).
namespace svm_access {
#include "bad_input/svm_access.inc"
}  // namespace svm_access
