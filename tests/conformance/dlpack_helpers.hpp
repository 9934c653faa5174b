/// @file dlpack_helpers.hpp  What the DLPack cases of every backend share (dlpack_test.cpp and each
/// backend's own, backends/<name>/tests/dlpack_*_test.cpp). Include only where EDGEMEM_HAS_DLPACK.
#pragma once
#include <cstdint>

#include <edgemem/dlpack.hpp>

#include "test_helpers.hpp"

namespace emt {

/// float32, one lane: the type every case exports as.
inline constexpr DLDataType kF32{kDLFloat, 32, 1};

/// Runs a made tensor's deleter when it goes out of scope (also when a REQUIRE ends the case early).
struct TensorGuard {
  edgemem::Result<DLManagedTensor*>& t;
  ~TensorGuard() {
    if (t && *t != nullptr) (*t)->deleter(*t);
  }
};

/// For a 1 KiB buffer of each Storage: calls `check(storage, buffer, to_dlpack(buffer as 256 floats))`;
/// the tensor's deleter runs afterwards when it was made.
template <class Check>
void each_storage_tensor(Fixture& f, Check&& check) {
  const std::int64_t shape[1] = {256};
  for (edgemem::Storage st : {edgemem::Storage::device, edgemem::Storage::host, edgemem::Storage::shared}) {
    CAPTURE(static_cast<int>(st));
    auto d = edgemem::Buffer::create(f.ctx, 1024, st);
    REQUIRE_OK(d);
    auto t = edgemem::to_dlpack(*d, kF32, shape, 1);
    const TensorGuard guard{t};
    check(st, *d, t);
  }
}

}  // namespace emt
