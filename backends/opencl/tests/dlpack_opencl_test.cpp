// The OpenCL backend's DLPack answer for plain buffers (its registry entry's 'conformance'): a cl_mem's
// bytes are reached by the host only inside a map, so to_dlpack of a buffer of any storage answers
// unsupported (wrapped memory, create_exportable and fine SVM export: dlpack_test.cpp).
#include <edgemem/config.hpp>

#if EDGEMEM_HAS_DLPACK
#include <edgemem/dlpack.hpp>

#include "conformance/test_helpers.hpp"

using namespace edgemem;

TEST_CASE("dlpack (OpenCL backend): a plain buffer of any storage answers unsupported") {
  emt::Fixture f;
  const std::int64_t shape[1] = {256};
  for (Storage st : {Storage::device, Storage::host, Storage::shared}) {
    auto d = Buffer::create(f.ctx, 1024, st);
    REQUIRE_OK(d);
    CHECK_ERRC(to_dlpack(*d, DLDataType{kDLFloat, 32, 1}, shape, 1), Errc::unsupported);
  }
}
#endif
