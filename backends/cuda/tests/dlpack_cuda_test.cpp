// The CUDA backend's DLPack answers (its registry entry's 'conformance'): memory goes out as cuda.core's
// device types: device memory kDLCUDA (its device pointer), pinned kDLCUDAHost and managed
// kDLCUDAManaged (both reached by the host: the bytes are checked).
#include <edgemem/config.hpp>

#if EDGEMEM_HAS_DLPACK
#include <cstdint>
#include <cstring>

#include "conformance/dlpack_helpers.hpp"

using namespace edgemem;

TEST_CASE("dlpack (CUDA backend): device memory as kDLCUDA, pinned as kDLCUDAHost, managed as kDLCUDAManaged") {
  emt::Fixture f;
  emt::each_storage_tensor(f, [&](Storage st, Buffer& d, Result<DLManagedTensor*>& t) {
    REQUIRE_OK(t);
    auto native = d.native();
    REQUIRE_OK(native);
    const DLDevice dev = (*t)->dl_tensor.device;
    if (st == Storage::device) {
      CHECK(dev.device_type == kDLCUDA);
      CHECK(dev.device_id == f.ctx.native().device);
      CHECK(reinterpret_cast<std::uintptr_t>((*t)->dl_tensor.data) == native->device_ptr);
    } else {
      CHECK(dev.device_type == (st == Storage::host ? kDLCUDAHost : kDLCUDAManaged));
      const emt::Bytes data = emt::random_bytes(1024);
      CHECK_OK(f.q.write(d, 0, data.data(), data.size()));
      CHECK(std::memcmp((*t)->dl_tensor.data, data.data(), data.size()) == 0);
    }
  });
}
#endif
