// Shared virtual memory with real kernels through the raw OpenCL C API (issue 16): an Svm's pointer()
// as a kernel argument (clSetKernelArgSVMPointer), a kernel following pointers stored inside SVM
// (declared with clSetKernelExecInfo(CL_KERNEL_EXEC_INFO_SVM_PTRS)), SVM pool blocks as kernel
// arguments, and an Svm released while a raw kernel on another queue still uses it (freed in queue
// order, after end_native recorded the kernel). A device without SVM answers Svm::create unsupported.
#define CL_TARGET_OPENCL_VERSION 200
#include <cstdint>
#include <vector>

#include "raw_kernel.hpp"

using namespace edgemem;

namespace {

/// OpenCL C 2.0 where the device has it (SVM devices do), for pointers stored in global memory.
const char* kOptions = "-cl-std=CL2.0";

const char* kScale =
    "kernel void scale(global uint* a, uint k) { size_t i = get_global_id(0); a[i] = a[i] * k + 1u; }\n";

// table[j] points into one of two SVM allocations; out[i] = *(table[i % n] + i / n).
const char* kFollow =
    "kernel void follow(global uint* global* table, uint n, global uint* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = *(table[i % n] + i / n);\n"
    "}\n";

bool has_svm(const Context& ctx) {
  if (ctx.info().caps.svm_coarse) return true;
  CHECK_ERRC(Svm::create(ctx, 4096), Errc::unsupported);
  return false;
}

std::vector<std::uint32_t> iota_words(std::size_t n, std::uint32_t first) {
  std::vector<std::uint32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = first + static_cast<std::uint32_t>(i);
  return v;
}

void set_svm_arg(emt::RawKernel& k, cl_uint i, const void* p) {
  REQUIRE(clSetKernelArgSVMPointer(k.kernel, i, p) == CL_SUCCESS);
}

}  // namespace

TEST_CASE_FIXTURE(emt::Fixture, "svm interop: a raw kernel reads and writes an Svm through its pointer") {
  if (!has_svm(ctx)) return;
  const std::size_t words = emt::test_frame_bytes(4) / 4;
  for (SvmGrain grain : {SvmGrain::coarse, SvmGrain::fine_buffer}) {
    CAPTURE(static_cast<int>(grain));
    auto s = Svm::create(ctx, words * 4, grain);
    if (grain != SvmGrain::coarse && !ctx.info().caps.svm_fine_buffer) {
      CHECK_ERRC(s, Errc::unsupported);
      continue;
    }
    REQUIRE_OK(s);
    const auto src = iota_words(words, 7);
    REQUIRE_OK(q.write(*s, 0, src.data(), words * 4));
    emt::RawKernel k(ctx, kScale, "scale", kOptions);
    set_svm_arg(k, 0, s->pointer());
    k.arg(1, cl_uint{3});
    REQUIRE_OK(q.begin_native(*s, Access::write));
    k.enqueue(q.native(), words);
    REQUIRE_OK(q.end_native(*s, Access::write));
    std::vector<std::uint32_t> got(words);
    REQUIRE_OK(q.read(*s, 0, got.data(), words * 4));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < words; ++i) wrong += got[i] != src[i] * 3u + 1u;
    CHECK(wrong == 0);
  }
}

TEST_CASE_FIXTURE(emt::Fixture, "svm interop: a kernel follows pointers stored inside SVM") {
  if (!has_svm(ctx)) return;
  const std::size_t n = 2, words = 1024;
  auto a = Svm::create(ctx, words * 4);
  auto b = Svm::create(ctx, words * 4);
  auto table = Svm::create(ctx, n * sizeof(void*));
  auto out = Svm::create(ctx, 2 * words * 4);
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  REQUIRE_OK(table);
  REQUIRE_OK(out);
  const auto wa = iota_words(words, 0), wb = iota_words(words, 100000);
  REQUIRE_OK(q.write(*a, 0, wa.data(), words * 4));
  REQUIRE_OK(q.write(*b, 0, wb.data(), words * 4));
  {  // coarse grain: the host stores the pointers inside a map
    auto m = q.map<void*>(*table, Access::write_discard);
    REQUIRE_OK(m);
    (*m)[0] = a->pointer();
    (*m)[1] = b->pointer();
    REQUIRE_OK(m->unmap());
  }
  emt::RawKernel k(ctx, kFollow, "follow", kOptions);
  set_svm_arg(k, 0, table->pointer());
  k.arg(1, static_cast<cl_uint>(n));
  set_svm_arg(k, 2, out->pointer());
  void* reached[2] = {a->pointer(), b->pointer()};  // the allocations the kernel reaches only through `table`
  REQUIRE(clSetKernelExecInfo(k.kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached) == CL_SUCCESS);
  for (Svm* s : {&*a, &*b, &*table}) REQUIRE_OK(q.begin_native(*s, Access::read));
  REQUIRE_OK(q.begin_native(*out, Access::write));
  k.enqueue(q.native(), 2 * words);
  for (Svm* s : {&*a, &*b, &*table}) REQUIRE_OK(q.end_native(*s, Access::read));
  REQUIRE_OK(q.end_native(*out, Access::write));
  std::vector<std::uint32_t> got(2 * words);
  REQUIRE_OK(q.read(*out, 0, got.data(), got.size() * 4));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != (i % 2 == 0 ? wa[i / 2] : wb[i / 2]);
  CHECK(wrong == 0);
}

TEST_CASE_FIXTURE(emt::Fixture, "svm interop: SVM pool blocks as kernel arguments") {
  if (!has_svm(ctx)) return;
  const std::size_t words = 4096;
  FixedPool<3> pool;
  REQUIRE_OK(pool.init(ctx, q, words * 4, 3, SvmGrain::coarse));
  emt::RawKernel k(ctx, kScale, "scale", kOptions);
  for (int round = 0; round < 6; ++round) {
    CAPTURE(round);
    auto blk = pool.acquire();
    REQUIRE_OK(blk);
    REQUIRE(blk->buffer().is_svm());
    const auto src = iota_words(words, static_cast<std::uint32_t>(round) * 1000u);
    REQUIRE_OK(q.write(*blk, 0, src.data(), words * 4));
    set_svm_arg(k, 0, blk->buffer().svm_pointer());
    k.arg(1, cl_uint{5});
    REQUIRE_OK(q.begin_native(*blk, Access::write));
    k.enqueue(q.native(), words);
    REQUIRE_OK(q.end_native(*blk, Access::write));
    std::vector<std::uint32_t> got(words);
    REQUIRE_OK(q.read(*blk, 0, got.data(), words * 4));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < words; ++i) wrong += got[i] != src[i] * 5u + 1u;
    CHECK(wrong == 0);
  }
  CHECK_OK(pool.release());
}

TEST_CASE_FIXTURE(emt::Fixture, "svm interop: an Svm released while a raw kernel on another queue uses it") {
  if (!has_svm(ctx)) return;
  auto qb = Queue::create(ctx);
  REQUIRE_OK(qb);
  const std::size_t words = emt::test_frame_bytes(16) / 4;
  emt::RawKernel k(ctx, kScale, "scale", kOptions);
  for (int round = 0; round < emt::test_rounds(4); ++round) {
    CAPTURE(round);
    std::vector<std::uint32_t> got(words);
    {
      auto s = Svm::create(ctx, words * 4);
      REQUIRE_OK(s);
      const std::uint32_t one = 1;
      REQUIRE_OK(q.fill(*s, 0, words * 4, &one, 4));
      // Several passes on queue B, not waited for; then the last handle goes at once.
      set_svm_arg(k, 0, s->pointer());
      k.arg(1, cl_uint{2});
      REQUIRE_OK(qb->begin_native(*s, Access::write));
      for (int pass = 0; pass < 4; ++pass) k.enqueue(qb->native(), words);
      REQUIRE_OK(qb->end_native(*s, Access::write));
      auto copy = Svm::create(ctx, words * 4);
      REQUIRE_OK(copy);
      auto copied = q.copy_async(*s, *copy, 0, 0, words * 4);  // waits for B's kernels by itself
      REQUIRE_OK(copied);
      CHECK_OK(s->release());  // freed after the kernels and the copy (clEnqueueSVMFree), never under them
      // New allocations while the old one's free is still queued: they must not see its bytes change.
      auto other = Svm::create(ctx, words * 4);
      REQUIRE_OK(other);
      const std::uint32_t seven = 7;
      REQUIRE_OK(q.fill(*other, 0, words * 4, &seven, 4));
      REQUIRE_OK(q.read(*copy, 0, got.data(), words * 4));
      std::vector<std::uint32_t> back(words);
      REQUIRE_OK(q.read(*other, 0, back.data(), words * 4));
      std::size_t wrong_other = 0;
      for (std::uint32_t w : back) wrong_other += w != 7u;
      CHECK(wrong_other == 0);
    }
    // 1 -> 3 -> 7 -> 15 -> 31 after four passes of a * 2 + 1.
    std::size_t wrong = 0;
    for (std::uint32_t w : got) wrong += w != 31u;
    CHECK(wrong == 0);
  }
  REQUIRE_OK(qb->finish());
  REQUIRE_OK(q.finish());
  CHECK(ctx.unreported_errors().count == 0);
}
