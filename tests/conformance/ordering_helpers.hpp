/// @file ordering_helpers.hpp  Shared helpers of the ordering tests of issue #28 (ordering_*_test.cpp,
/// tests/ordering): two regions of one root in each kind of memory (two views of a Buffer, two blocks
/// of one FixedPool, two views of an Svm), frames of words, a second queue.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "conformance/test_helpers.hpp"
#include "support/gate.hpp"

namespace emt {

/// Bytes of one region: EDGEMEM_TEST_FRAME_MIB MiB (default 1), at most an eighth of the device's
/// largest allocation, a multiple of the base alignment.
inline std::size_t ordering_frame_bytes(const edgemem::Context& ctx) {
  const std::size_t align = ctx.base_align();
  const std::size_t cap = ctx.info().max_alloc_bytes / 8 / align * align;
  const std::size_t want = test_frame_bytes(1);
  return want < cap ? want : cap;
}

/// A new queue on `ctx` (a failed check and a released queue when that fails).
inline edgemem::Queue new_queue(const edgemem::Context& ctx) {
  auto q = edgemem::Queue::create(ctx);
  CHECK_MESSAGE(static_cast<bool>(q), "Queue::create -> " << describe(q));
  return q ? std::move(*q) : edgemem::Queue{};
}

inline std::vector<std::uint32_t> words(std::size_t bytes, std::uint32_t value) {
  return std::vector<std::uint32_t>(bytes / 4, value);
}

/// `w` in device memory (Buffer::from_host), kept alive by the caller until the gates open: the source
/// of a gated copy_async. A gated command moves no pageable host memory, as CUDA's async copies from or
/// to pageable memory may wait for the stream on the host (a held gate would then never open).
inline edgemem::Buffer staged(const edgemem::Context& ctx, const std::vector<std::uint32_t>& w) {
  auto b = edgemem::Buffer::from_host(ctx, w.data(), w.size() * 4);
  CHECK_MESSAGE(static_cast<bool>(b), "Buffer::from_host -> " << describe(b));
  return b ? std::move(*b) : edgemem::Buffer{};
}

/// The first SVM grain the device has (coarse first); false when it has none.
inline bool first_svm_grain(const edgemem::Context& ctx, edgemem::SvmGrain& out) {
  const edgemem::Capabilities& c = ctx.info().caps;
  if (c.svm_coarse) out = edgemem::SvmGrain::coarse;
  else if (c.svm_fine_buffer) out = edgemem::SvmGrain::fine_buffer;
  else if (c.svm_fine_system) out = edgemem::SvmGrain::fine_system;
  else return false;
  return true;
}

/// Which memory two regions of one root come from.
enum class Kind { buffer, pool, svm };

inline const char* kind_name(Kind k) {
  switch (k) {
    case Kind::buffer: return "two views of one Buffer";
    case Kind::pool: return "two blocks of one FixedPool";
    case Kind::svm: return "two views of one Svm";
  }
  return "?";
}

/// Two regions x and y of `bytes` bytes each that share one root (their commands share its ordering
/// table). Not movable (the pool); make() it in place.
struct TwoRegions {
  edgemem::Buffer root;  // Kind::buffer, Kind::svm (an Svm, held as its Buffer base)
  edgemem::Svm svm;
  edgemem::FixedPool<2> pool;
  edgemem::PooledBuffer bx, by;
  edgemem::Buffer vx, vy;
  Kind kind = Kind::buffer;

  /// Makes the regions (a Buffer or pool of `storage`); false (with a check failed) when that fails,
  /// false and `skipped` when the device lacks the kind (SVM).
  bool make(Kind k, const edgemem::Context& ctx, edgemem::Queue& q, std::size_t bytes, bool& skipped,
            edgemem::Storage storage = edgemem::Storage::device) {
    kind = k;
    skipped = false;
    if (k == Kind::pool) {
      auto init = pool.init(ctx, q, bytes, 2, storage);
      CHECK_MESSAGE(static_cast<bool>(init), "FixedPool::init -> " << describe(init));
      if (!init) return false;
      auto a = pool.acquire();
      auto b = pool.acquire();
      CHECK_MESSAGE((a && b), "FixedPool::acquire failed");
      if (!a || !b) return false;
      bx = std::move(*a);
      by = std::move(*b);
      return true;
    }
    if (k == Kind::svm) {
      edgemem::SvmGrain g{};
      if (!first_svm_grain(ctx, g)) {
        skipped = true;
        return false;
      }
      auto s = edgemem::Svm::create(ctx, 2 * bytes, g);
      CHECK_MESSAGE(static_cast<bool>(s), "Svm::create -> " << describe(s));
      if (!s) return false;
      svm = std::move(*s);
      auto a = svm.sub(0, bytes);
      auto b = svm.sub(bytes, bytes);
      CHECK_MESSAGE((a && b), "Svm::sub failed");
      if (!a || !b) return false;
      vx = std::move(*a);
      vy = std::move(*b);
      return true;
    }
    auto r = edgemem::Buffer::create(ctx, 2 * bytes, storage);
    CHECK_MESSAGE(static_cast<bool>(r), "Buffer::create -> " << describe(r));
    if (!r) return false;
    root = std::move(*r);
    auto a = root.sub(0, bytes);
    auto b = root.sub(bytes, bytes);
    CHECK_MESSAGE((a && b), "Buffer::sub failed");
    if (!a || !b) return false;
    vx = std::move(*a);
    vy = std::move(*b);
    return true;
  }
  edgemem::Buffer& x() { return kind == Kind::pool ? bx.buffer() : vx; }
  edgemem::Buffer& y() { return kind == Kind::pool ? by.buffer() : vy; }
};

}  // namespace emt
