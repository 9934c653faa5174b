// The host backend's DLPack answers (its registry entry's 'conformance'): its native object is the
// bytes, so every storage exports as kDLCPU, with the queue's writes visible through the tensor.
#include <edgemem/config.hpp>

#if EDGEMEM_HAS_DLPACK
#include <cstring>

#include <edgemem/dlpack.hpp>

#include "conformance/test_helpers.hpp"

using namespace edgemem;

TEST_CASE("dlpack (host backend): every storage exports as kDLCPU over its own bytes") {
  emt::Fixture f;
  const std::int64_t shape[1] = {256};
  for (Storage st : {Storage::device, Storage::host, Storage::shared}) {
    auto d = Buffer::create(f.ctx, 1024, st);
    REQUIRE_OK(d);
    auto t = to_dlpack(*d, DLDataType{kDLFloat, 32, 1}, shape, 1);
    REQUIRE_OK(t);
    CHECK((*t)->dl_tensor.device.device_type == kDLCPU);
    const emt::Bytes data = emt::random_bytes(1024);
    CHECK_OK(f.q.write(*d, 0, data.data(), data.size()));
    CHECK(std::memcmp((*t)->dl_tensor.data, data.data(), data.size()) == 0);
    (*t)->deleter(*t);
  }
}
#endif
