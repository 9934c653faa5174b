// The host backend's DLPack answers (its registry entry's 'conformance'): its native object is the
// bytes, so every storage exports as kDLCPU, with the queue's writes visible through the tensor.
#include <edgemem/config.hpp>

#if EDGEMEM_HAS_DLPACK
#include <cstring>

#include "conformance/dlpack_helpers.hpp"

using namespace edgemem;

TEST_CASE("dlpack (host backend): every storage exports as kDLCPU over its own bytes") {
  emt::Fixture f;
  emt::each_storage_tensor(f, [&](Storage, Buffer& d, Result<DLManagedTensor*>& t) {
    REQUIRE_OK(t);
    CHECK((*t)->dl_tensor.device.device_type == kDLCPU);
    const emt::Bytes data = emt::random_bytes(1024);
    CHECK_OK(f.q.write(d, 0, data.data(), data.size()));
    CHECK(std::memcmp((*t)->dl_tensor.data, data.data(), data.size()) == 0);
  });
}
#endif
