// The OpenCL backend's DLPack answer for plain buffers (its registry entry's 'conformance'): a cl_mem's
// bytes are reached by the host only inside a map, so to_dlpack of a buffer of any storage answers
// unsupported (wrapped memory, create_exportable and fine SVM export: dlpack_test.cpp).
#include <edgemem/config.hpp>

#if EDGEMEM_HAS_DLPACK
#include "conformance/dlpack_helpers.hpp"

using namespace edgemem;

TEST_CASE("dlpack (OpenCL backend): a plain buffer of any storage answers unsupported") {
  emt::Fixture f;
  emt::each_storage_tensor(f, [&](Storage, Buffer&, Result<DLManagedTensor*>& t) { CHECK_ERRC(t, Errc::unsupported); });
}
#endif
