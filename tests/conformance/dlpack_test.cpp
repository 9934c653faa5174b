// DLPack (dlpack.hpp): to_dlpack of host-addressable buffers (wrapped memory, sub-buffers,
// create_exportable, fine SVM; every buffer on the host backend) and of a Mapping; the deleter drops
// the tensor's reference once, from any thread; from_dlpack of hand-built tensors with a counting
// deleter that runs once after the last view; every Errc the header lists that can be provoked.
// Wrapped memory is the export every backend offers, so the same cases run on host and PoCL.
#include <edgemem/config.hpp>

#if EDGEMEM_HAS_DLPACK
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "dlpack_helpers.hpp"

using namespace edgemem;

namespace {

/// `n` bytes of page-aligned host memory (zero-copy for Buffer::wrap on every backend).
struct HostBlock {
  std::size_t n;
  unsigned char* p;
  explicit HostBlock(std::size_t bytes)
      : n(bytes), p(static_cast<unsigned char*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096))) {
    REQUIRE(p != nullptr);
    std::memset(p, 0, n);
  }
  ~HostBlock() { std::free(p); }
  HostBlock(const HostBlock&) = delete;
  HostBlock& operator=(const HostBlock&) = delete;
};

using emt::kF32;
constexpr DLDataType kU8{kDLUInt, 8, 1};

std::int64_t live_buffers() { return live_objects().buffers + live_objects().sub_buffers; }

/// A producer's tensor over caller memory, with a deleter that counts its calls.
struct Producer {
  std::int64_t shape[2] = {0, 0};
  std::int64_t strides[2] = {0, 0};
  std::atomic<int> deleted{0};
  DLManagedTensor t{};
  Producer(void* data, std::int64_t rows, std::int64_t cols, DLDataType dtype = kU8) {
    shape[0] = rows;
    shape[1] = cols;
    t.dl_tensor.data = data;
    t.dl_tensor.device = DLDevice{kDLCPU, 0};
    t.dl_tensor.ndim = 2;
    t.dl_tensor.dtype = dtype;
    t.dl_tensor.shape = shape;
    t.manager_ctx = this;
    t.deleter = [](DLManagedTensor* self) { static_cast<Producer*>(self->manager_ctx)->deleted.fetch_add(1); };
  }
};

}  // namespace

TEST_CASE("dlpack: to_dlpack of wrapped memory: fields, queue writes visible, the deleter releases the memory") {
  emt::Fixture f;
  HostBlock mem(4096);
  const std::int64_t base = live_buffers();
  auto buf = Buffer::wrap(f.ctx, mem.p, mem.n);
  REQUIRE_OK(buf);
  const std::int64_t shape[2] = {4, 8};
  auto t = to_dlpack(*buf, kF32, shape, 2, nullptr, 64);
  REQUIRE_OK(t);
  DLManagedTensor* m = *t;
  CHECK(m->dl_tensor.data == mem.p);
  CHECK(m->dl_tensor.byte_offset == 64);
  CHECK(m->dl_tensor.device.device_type == kDLCPU);
  CHECK(m->dl_tensor.device.device_id == 0);
  CHECK(m->dl_tensor.ndim == 2);
  CHECK(m->dl_tensor.dtype.code == kDLFloat);
  CHECK(m->dl_tensor.dtype.bits == 32);
  CHECK(m->dl_tensor.dtype.lanes == 1);
  CHECK(m->dl_tensor.shape[0] == 4);
  CHECK(m->dl_tensor.shape[1] == 8);
  REQUIRE(m->dl_tensor.strides != nullptr);
  CHECK(m->dl_tensor.strides[0] == 8);
  CHECK(m->dl_tensor.strides[1] == 1);
  CHECK((m->deleter != nullptr));
  // Bytes written through the queue are the tensor's elements.
  float values[32];
  for (int i = 0; i < 32; ++i) values[i] = 0.5f * static_cast<float>(i) - 3.0f;
  CHECK_OK(f.q.write(*buf, 64, values, sizeof values));
  {  // caller memory's rule (external.hpp): a map brings the device's bytes to the memory
    auto sync = f.q.map<unsigned char>(*buf, Access::read);
    REQUIRE_OK(sync);
  }
  const float* seen = reinterpret_cast<const float*>(static_cast<const unsigned char*>(m->dl_tensor.data) + 64);
  CHECK(std::memcmp(seen, values, sizeof values) == 0);
  // The tensor keeps the memory: the handle goes first, the root goes with the deleter.
  CHECK_OK(buf->release());
  if (live_objects_enabled) CHECK(live_buffers() == base + 1);
  m->deleter(m);
  CHECK(live_buffers() == base);
}

TEST_CASE("dlpack: to_dlpack with strides, negative strides, scalars, empty tensors and sub-buffers") {
  emt::Fixture f;
  HostBlock mem(8192);
  auto buf = Buffer::wrap(f.ctx, mem.p, mem.n);
  REQUIRE_OK(buf);
  const std::int64_t base = live_buffers();
  // A transposed view of a 32 x 64 float matrix: the last element is at 31 * 64 + 63.
  const std::int64_t shape[2] = {64, 32}, strides[2] = {1, 64};
  auto t = to_dlpack(*buf, kF32, shape, 2, strides);
  REQUIRE_OK(t);
  CHECK((*t)->dl_tensor.strides[0] == 1);
  CHECK((*t)->dl_tensor.strides[1] == 64);
  (*t)->deleter(*t);
  // Reversed: element i at byte 4092 - 4 * i, the lowest at byte 0.
  const std::int64_t rshape[1] = {1024}, rstride[1] = {-1};
  auto r = to_dlpack(*buf, kF32, rshape, 1, rstride, 4092);
  REQUIRE_OK(r);
  (*r)->deleter(*r);
  CHECK_ERRC(to_dlpack(*buf, kF32, rshape, 1, rstride, 4088), Errc::out_of_range);
  // A broadcast (stride 0) and a scalar (ndim 0, null shape) at the last float.
  const std::int64_t bshape[2] = {1000, 4}, bstride[2] = {0, 1};
  auto b = to_dlpack(*buf, kF32, bshape, 2, bstride, 8192 - 16);
  REQUIRE_OK(b);
  (*b)->deleter(*b);
  auto s = to_dlpack(*buf, kF32, nullptr, 0, nullptr, 8188);
  REQUIRE_OK(s);
  CHECK((*s)->dl_tensor.ndim == 0);
  (*s)->deleter(*s);
  // No elements: any extent, the offset up to the end.
  const std::int64_t eshape[2] = {0, std::int64_t{1} << 40};
  auto e = to_dlpack(*buf, kF32, eshape, 2, nullptr, 8192);
  REQUIRE_OK(e);
  (*e)->deleter(*e);
  // A sub-buffer exports its own first byte, and keeps the root after both handles go.
  auto view = buf->sub(f.align(), 1024);
  REQUIRE_OK(view);
  const std::int64_t vshape[1] = {1024};
  auto v = to_dlpack(*view, kU8, vshape, 1);
  REQUIRE_OK(v);
  CHECK((*v)->dl_tensor.data == mem.p + f.align());
  CHECK_ERRC(to_dlpack(*view, kU8, vshape, 1, nullptr, 1), Errc::out_of_range);
  CHECK_OK(view->release());
  CHECK_OK(buf->release());
  if (live_objects_enabled) CHECK(live_buffers() == base + 1);  // the view's node holds the root
  (*v)->deleter(*v);
  if (live_objects_enabled) CHECK(live_buffers() == base - 1);
}

TEST_CASE("dlpack: the deleter may run on another thread, several tensors of one buffer") {
  emt::Fixture f;
  HostBlock mem(4096);
  const std::int64_t base = live_buffers();
  auto buf = Buffer::wrap(f.ctx, mem.p, mem.n);
  REQUIRE_OK(buf);
  const std::int64_t shape[1] = {1024};
  DLManagedTensor* ts[4] = {};
  for (auto& t : ts) {
    auto r = to_dlpack(*buf, kF32, shape, 1);
    REQUIRE_OK(r);
    t = *r;
  }
  buf = Buffer{};
  std::thread a([&] { ts[0]->deleter(ts[0]), ts[1]->deleter(ts[1]); });
  std::thread b([&] { ts[2]->deleter(ts[2]); });
  a.join();
  b.join();
  if (live_objects_enabled) CHECK(live_buffers() == base + 1);
  std::thread c([&] { ts[3]->deleter(ts[3]); });
  c.join();
  CHECK(live_buffers() == base);
}

TEST_CASE("dlpack: which buffers export: create_exportable, SVM grains, device buffers") {
  emt::Fixture f;
  const std::int64_t base = live_buffers();
  const std::int64_t shape[1] = {256};
  const auto& caps = f.ctx.info().caps;
  {
    auto ex = Buffer::create_exportable(f.ctx, 1024);
    if (caps.unified_memory) {
      REQUIRE_OK(ex);
      auto t = to_dlpack(*ex, kF32, shape, 1);
      REQUIRE_OK(t);
      const emt::Bytes data = emt::random_bytes(1024);
      CHECK_OK(f.q.write(*ex, 0, data.data(), data.size()));
      CHECK(std::memcmp((*t)->dl_tensor.data, data.data(), data.size()) == 0);
      (*t)->deleter(*t);
    } else {
      CHECK_ERRC(ex, Errc::unsupported);
    }
  }
  for (SvmGrain g : {SvmGrain::coarse, SvmGrain::fine_buffer, SvmGrain::fine_system}) {
    auto s = Svm::create(f.ctx, 1024, g);
    if (!s) continue;  // a grain the device lacks (svm_test.cpp checks those answers)
    auto t = to_dlpack(*s, kF32, shape, 1);
    if (g == SvmGrain::coarse) {
      CHECK_ERRC(t, Errc::unsupported);
      continue;
    }
    REQUIRE_OK(t);
    CHECK((*t)->dl_tensor.data == s->pointer());
    (*t)->deleter(*t);
  }
  emt::each_storage_tensor(f, [&](Storage, Buffer& d, Result<DLManagedTensor*>& t) {
    if (!t) {
      CHECK_ERRC(t, Errc::unsupported);  // bytes reached only inside a map (OpenCL's buffers)
      return;
    }
    // Bytes the host reaches (kDLCPU; CUDA's pinned and managed memory) are checked through the pointer;
    // each backend's own conformance cases check which device types its storages export as.
    const DLDeviceType type = (*t)->dl_tensor.device.device_type;
    if (type == kDLCPU || type == kDLCUDAHost || type == kDLCUDAManaged) {
      const emt::Bytes data = emt::random_bytes(1024);
      CHECK_OK(f.q.write(d, 0, data.data(), data.size()));
      CHECK(std::memcmp((*t)->dl_tensor.data, data.data(), data.size()) == 0);
    } else {
      CHECK((*t)->dl_tensor.data != nullptr);
    }
  });
  CHECK(live_buffers() == base);
}

TEST_CASE("dlpack: to_dlpack of a Mapping: the mapped bytes, valid while mapped") {
  emt::Fixture f;
  const std::int64_t base = live_buffers();
  auto buf = Buffer::create(f.ctx, 4096);
  REQUIRE_OK(buf);
  const std::int64_t shape[2] = {16, 64};
  {
    auto m = f.q.map<float>(*buf, Access::write_discard);
    REQUIRE_OK(m);
    auto t = to_dlpack(*m, kF32, shape, 2);
    REQUIRE_OK(t);
    CHECK((*t)->dl_tensor.data == m->data());
    float* p = static_cast<float*>((*t)->dl_tensor.data);
    for (int i = 0; i < 1024; ++i) p[i] = static_cast<float>(i);
    const std::int64_t big[2] = {17, 64};
    CHECK_ERRC(to_dlpack(*m, kF32, big, 2), Errc::out_of_range);
    CHECK_ERRC(to_dlpack(*m, kF32, shape, 2, nullptr, 2), Errc::out_of_range);  // the range, then alignment
    const std::int64_t small[1] = {16};
    CHECK_ERRC(to_dlpack(*m, kF32, small, 1, nullptr, 2), Errc::misaligned);
    CHECK_ERRC(to_dlpack(*m, DLDataType{kDLFloat, 32, 2}, small, 1), Errc::invalid_argument);
    (*t)->deleter(*t);
    CHECK_OK(m->unmap());
    CHECK_ERRC(to_dlpack(*m, kF32, shape, 2), Errc::released);
  }
  float back[1024];
  CHECK_OK(f.q.read(*buf, 0, back, sizeof back));
  bool same = true;
  for (int i = 0; i < 1024; ++i) same = same && back[i] == static_cast<float>(i);
  CHECK(same);
  {
    const Buffer& cbuf = *buf;
    auto m = f.q.map<const float>(cbuf, Access::read, 1024, 1024);
    REQUIRE_OK(m);
    const std::int64_t row[1] = {256};
    auto t = to_dlpack(*m, kF32, row, 1);
    REQUIRE_OK(t);
    CHECK(static_cast<const float*>((*t)->dl_tensor.data)[0] == 256.0f);
    (*t)->deleter(*t);
  }
  CHECK(live_objects().mappings == 0);
  buf = Buffer{};
  CHECK(live_buffers() == base);
}

TEST_CASE("dlpack: to_dlpack refuses bad input and changes nothing") {
  emt::Fixture f;
  HostBlock mem(4096);
  const std::int64_t base = live_buffers();
  auto buf = Buffer::wrap(f.ctx, mem.p, mem.n);
  REQUIRE_OK(buf);
  const std::int64_t s1[1] = {1024}, neg[2] = {4, -1};
  CHECK_ERRC(to_dlpack(Buffer{}, kF32, s1, 1), Errc::released);
  CHECK_ERRC(to_dlpack(*buf, kF32, s1, -1), Errc::invalid_argument);
  const std::int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK_ERRC(to_dlpack(*buf, kF32, nine, dlpack_max_ndim + 1), Errc::invalid_argument);
  auto eight = to_dlpack(*buf, kF32, nine, dlpack_max_ndim);
  REQUIRE_OK(eight);
  (*eight)->deleter(*eight);
  CHECK_ERRC(to_dlpack(*buf, kF32, nullptr, 1), Errc::invalid_argument);
  CHECK_ERRC(to_dlpack(*buf, kF32, neg, 2), Errc::invalid_argument);
  CHECK_ERRC(to_dlpack(*buf, DLDataType{kDLInt, 12, 1}, s1, 1), Errc::invalid_argument);
  CHECK_ERRC(to_dlpack(*buf, DLDataType{kDLInt, 0, 1}, s1, 1), Errc::invalid_argument);
  CHECK_ERRC(to_dlpack(*buf, DLDataType{kDLFloat, 32, 4}, s1, 1), Errc::invalid_argument);
  const std::int64_t past[1] = {1025};
  CHECK_ERRC(to_dlpack(*buf, kF32, past, 1), Errc::out_of_range);
  CHECK_ERRC(to_dlpack(*buf, kF32, s1, 1, nullptr, 4), Errc::out_of_range);
  CHECK_ERRC(to_dlpack(*buf, kF32, s1, 1, nullptr, SIZE_MAX - 2), Errc::out_of_range);
  const std::int64_t huge[2] = {INT64_MAX, 2}, hstride[2] = {INT64_MAX / 2, 1}, two[2] = {2, 2};
  CHECK_ERRC(to_dlpack(*buf, kF32, huge, 2), Errc::out_of_range);
  CHECK_ERRC(to_dlpack(*buf, kF32, two, 2, hstride), Errc::out_of_range);
  const std::int64_t big_elems[1] = {INT64_MAX / 2};
  CHECK_ERRC(to_dlpack(*buf, DLDataType{kDLFloat, 64, 1}, big_elems, 1), Errc::out_of_range);
  const std::int64_t back[1] = {2}, minus[1] = {-1};
  CHECK_ERRC(to_dlpack(*buf, kF32, back, 1, minus), Errc::out_of_range);  // element 1 before byte 0
  const std::int64_t s2[1] = {16};
  CHECK_ERRC(to_dlpack(*buf, kF32, s2, 1, nullptr, 2), Errc::misaligned);
  CHECK_ERRC(to_dlpack(*buf, DLDataType{kDLFloat, 64, 1}, s2, 1, nullptr, 4), Errc::misaligned);
  auto odd = Buffer::wrap(f.ctx, mem.p + 1, 1024);  // caller memory at an odd address
  if (odd) {
    CHECK_ERRC(to_dlpack(*odd, kF32, s2, 1), Errc::misaligned);
    auto bytes = to_dlpack(*odd, kU8, s2, 1);
    REQUIRE_OK(bytes);
    (*bytes)->deleter(*bytes);
  }
  if (f.ctx.info().caps.host_access_flags) {
    for (MemFlags fl : {MemFlags::host_no_access, MemFlags::host_write_only}) {
      auto hidden = Buffer::wrap(f.ctx, mem.p, 1024, fl);
      REQUIRE_OK(hidden);
      CHECK_ERRC(to_dlpack(*hidden, kF32, s2, 1), Errc::access_denied);
    }
    auto ro = Buffer::wrap(f.ctx, mem.p, 1024, MemFlags::host_read_only);
    REQUIRE_OK(ro);
    auto t = to_dlpack(*ro, kF32, s2, 1);  // DLPack 0.6 cannot mark it read-only (dlpack.hpp)
    REQUIRE_OK(t);
    (*t)->deleter(*t);
  }
  odd = Buffer{};
  // Nothing was retained: the buffer goes with its handle.
  CHECK_OK(buf->release());
  CHECK(live_buffers() == base);
}

TEST_CASE("dlpack: from_dlpack wraps a tensor zero-copy; its deleter runs once after the last view") {
  emt::Fixture f;
  HostBlock mem(8192);
  const emt::Bytes data = emt::random_bytes(8192);
  std::memcpy(mem.p, data.data(), data.size());
  const std::int64_t base = live_buffers();
  Producer p(mem.p, 16, 512);
  auto buf = from_dlpack(f.ctx, &p.t);
  REQUIRE_OK(buf);
  CHECK(buf->size() == 8192);
  CHECK(buf->import_path() == ImportPath::host_ptr);
  CHECK(f.snapshot(*buf) == data);
  // Writes and copies through edgemem reach the producer's memory.
  const emt::Bytes patch = emt::random_bytes(256);
  CHECK_OK(f.q.write(*buf, 1024, patch.data(), patch.size()));
  {  // caller memory's rule (external.hpp): a map brings the device's bytes to the memory
    auto sync = f.q.map<unsigned char>(*buf, Access::read);
    REQUIRE_OK(sync);
  }
  CHECK(std::memcmp(mem.p + 1024, patch.data(), patch.size()) == 0);
  auto other = Buffer::create(f.ctx, 512);
  REQUIRE_OK(other);
  CHECK_OK(f.q.copy(*buf, *other, 1024, 0, 512));
  emt::Bytes copied(512);
  CHECK_OK(f.q.read(*other, 0, copied.data(), copied.size()));
  CHECK(std::memcmp(copied.data(), mem.p + 1024, 512) == 0);
  auto view = buf->sub(f.align(), 256);
  REQUIRE_OK(view);
  CHECK_OK(buf->release());
  CHECK(p.deleted.load() == 0);
  const unsigned char pattern = 0xa5;
  CHECK_OK(f.q.write(*view, 0, &pattern, 1));
  {
    auto sync = f.q.map<unsigned char>(*view, Access::read);
    REQUIRE_OK(sync);
  }
  CHECK(mem.p[f.align()] == 0xa5);
  view = Buffer{};
  CHECK(p.deleted.load() == 1);
  other = Buffer{};
  CHECK(live_buffers() == base);
}

TEST_CASE("dlpack: from_dlpack with byte_offset, compact strides, kDLCUDAHost, no deleter, and a round trip") {
  emt::Fixture f;
  HostBlock mem(4096);
  for (std::size_t i = 0; i < mem.n; ++i) mem.p[i] = static_cast<unsigned char>(i * 7);
  Producer p(mem.p, 3, 1, DLDataType{kDLFloat, 32, 2});  // 3 x 1 of 8-byte elements
  p.t.dl_tensor.byte_offset = 256;
  p.strides[0] = 1;
  p.strides[1] = 99;  // an extent-1 dimension's stride does not matter
  p.t.dl_tensor.strides = p.strides;
  p.t.dl_tensor.device = DLDevice{kDLCUDAHost, 0};
  {
    auto buf = from_dlpack(f.ctx, &p.t, MemFlags::read_only);
    REQUIRE_OK(buf);
    CHECK(buf->size() == 24);
    CHECK(buf->flags() == MemFlags::read_only);
    emt::Bytes got(24);
    CHECK_OK(f.q.read(*buf, 0, got.data(), got.size()));
    CHECK(std::memcmp(got.data(), mem.p + 256, 24) == 0);
  }
  CHECK(p.deleted.load() == 1);
  p.t.deleter = nullptr;
  CHECK(from_dlpack(f.ctx, &p.t).has_value());  // a null deleter is never called
  // edgemem's own tensor back into edgemem: the import holds the export, which holds the buffer.
  const std::int64_t base = live_buffers();
  auto src = Buffer::wrap(f.ctx, mem.p, mem.n);
  REQUIRE_OK(src);
  const std::int64_t shape[1] = {1024};
  auto t = to_dlpack(*src, kF32, shape, 1);
  REQUIRE_OK(t);
  src = Buffer{};
  auto again = from_dlpack(f.ctx, *t);
  REQUIRE_OK(again);
  CHECK(f.snapshot(*again) == emt::Bytes(mem.p, mem.p + mem.n));
  again = Buffer{};  // runs the export's deleter, which lets the wrapped root go
  CHECK(live_buffers() == base);
}

TEST_CASE("dlpack: from_dlpack refuses bad tensors and leaves them the caller's") {
  emt::Fixture f;
  HostBlock mem(4096);
  const std::int64_t base = live_buffers();
  CHECK_ERRC(from_dlpack(f.ctx, nullptr), Errc::invalid_argument);
  auto bad = [&](auto change, Errc errc, MemFlags flags = MemFlags::read_write) {
    Producer p(mem.p, 4, 1024);
    change(p);
    CHECK_ERRC(from_dlpack(f.ctx, &p.t, flags), errc);
    CHECK(p.deleted.load() == 0);
  };
  {
    Producer p(mem.p, 4, 1024);
    CHECK_ERRC(from_dlpack(Context{}, &p.t), Errc::released);
    CHECK(p.deleted.load() == 0);
  }
  bad([](Producer& p) { p.t.dl_tensor.device = DLDevice{kDLCUDA, 0}; }, Errc::unsupported);
  bad([](Producer& p) { p.t.dl_tensor.device = DLDevice{kDLOpenCL, 0}; }, Errc::unsupported);
  bad([](Producer& p) {
        p.strides[0] = 1;
        p.strides[1] = 4;  // column-major
        p.t.dl_tensor.strides = p.strides;
      },
      Errc::unsupported);
  bad([](Producer& p) { p.t.dl_tensor.data = nullptr; }, Errc::invalid_argument);
  bad([](Producer& p) { p.t.dl_tensor.ndim = -1; }, Errc::invalid_argument);
  bad([](Producer& p) { p.t.dl_tensor.shape = nullptr; }, Errc::invalid_argument);
  bad([](Producer& p) { p.shape[1] = -4; }, Errc::invalid_argument);
  bad([](Producer& p) { p.shape[0] = 0; }, Errc::invalid_argument);
  bad([](Producer& p) { p.t.dl_tensor.dtype = DLDataType{kDLInt, 4, 1}; }, Errc::invalid_argument);
  bad([](Producer& p) { p.t.dl_tensor.dtype = DLDataType{kDLInt, 8, 0}; }, Errc::invalid_argument);
  bad([](Producer& p) { p.shape[0] = p.shape[1] = INT64_MAX; }, Errc::out_of_range);
  bad([](Producer& p) { p.shape[0] = std::int64_t{1} << 62; p.t.dl_tensor.dtype = DLDataType{kDLFloat, 64, 1}; },
      Errc::out_of_range);
  const std::size_t max_alloc = f.ctx.info().max_alloc_bytes;
  if (static_cast<std::uint64_t>(max_alloc) < (std::uint64_t{1} << 40)) {  // (64-bit math: armhf's size_t)
    bad([&](Producer& p) { p.shape[0] = static_cast<std::int64_t>(max_alloc / 1024 + 1); }, Errc::out_of_range);
  }
  bad([](Producer&) {}, Errc::invalid_argument, MemFlags::read_only | MemFlags::write_only);
  if (!f.ctx.info().caps.host_access_flags)  // EDGEMEM_HOST_CAPS=host_access_flags=0 on the host backend
    bad([](Producer&) {}, Errc::unsupported, MemFlags::host_read_only);
  CHECK(live_buffers() == base);
}

#if EDGEMEM_FAULT_INJECTION
TEST_CASE("dlpack: each fault point of to_dlpack and from_dlpack fails cleanly (out_of_host_memory, driver errors)") {
  emt::Fixture f;
  HostBlock mem(4096);
  auto buf = Buffer::wrap(f.ctx, mem.p, mem.n);
  REQUIRE_OK(buf);
  const std::int64_t base = live_buffers();
  const std::int64_t shape[1] = {1024};
  fault::arm(0);
  auto t = to_dlpack(*buf, kF32, shape, 1);
  const std::uint64_t exports = fault::count();
  fault::disarm();
  REQUIRE_OK(t);
  (*t)->deleter(*t);
  CHECK(exports >= 1);  // the record
  for (std::uint64_t k = 1; k <= exports; ++k) {
    CAPTURE(k);
    fault::arm(k);
    auto r = to_dlpack(*buf, kF32, shape, 1);
    fault::disarm();
    CHECK(fault::fired());
    CHECK_ERRC(r, Errc::out_of_host_memory);
  }
  std::uint64_t imports = 0;
  {
    Producer p(mem.p, 4, 1024);
    fault::arm(0);
    auto in = from_dlpack(f.ctx, &p.t);
    imports = fault::count();
    fault::disarm();
    REQUIRE_OK(in);
    in = Buffer{};
    CHECK(p.deleted.load() == 1);
  }
  CHECK(imports >= 2);  // the record, the wrap's node and native object
  for (std::uint64_t k = 1; k <= imports; ++k) {
    CAPTURE(k);
    Producer p(mem.p, 4, 1024);
    fault::arm(k);
    auto r = from_dlpack(f.ctx, &p.t);
    fault::disarm();
    CHECK(fault::fired());
    CHECK_FALSE(r.has_value());
    if (!r) CHECK(r.error().code == fault::last().code);
    CHECK(p.deleted.load() == 0);  // not consumed
  }
  CHECK(live_buffers() == base);
}
#endif

#endif  // EDGEMEM_HAS_DLPACK
