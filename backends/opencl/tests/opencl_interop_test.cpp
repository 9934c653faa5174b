// OpenCL interop: raw kernels on edgemem buffers and sub-buffers through native(), and Context/Queue/
// Buffer::adopt of objects made with the raw C API, with reference counts checked on both sides.
// Built only for the OpenCL backend (backends/opencl/tests/ is where tests use the raw C API).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "raw_kernel.hpp"

using edgemem::Buffer;
using edgemem::Context;
using edgemem::Errc;
using edgemem::Queue;

namespace {

const char* kSource =
    "kernel void add(global int* a, int v) { size_t i = get_global_id(0); a[i] = a[i] + v; }\n";

template <class T, class Info, class Obj>
T info_of(Info fn, Obj obj, cl_uint param) {
  T value{};
  REQUIRE(fn(obj, param, sizeof value, &value, nullptr) == CL_SUCCESS);
  return value;
}

cl_uint mem_refs(cl_mem m) { return info_of<cl_uint>(clGetMemObjectInfo, m, CL_MEM_REFERENCE_COUNT); }
cl_uint queue_refs(cl_command_queue q) {
  return info_of<cl_uint>(clGetCommandQueueInfo, q, CL_QUEUE_REFERENCE_COUNT);
}
cl_uint context_refs(cl_context c) { return info_of<cl_uint>(clGetContextInfo, c, CL_CONTEXT_REFERENCE_COUNT); }
cl_uint event_refs(cl_event e) { return info_of<cl_uint>(clGetEventInfo, e, CL_EVENT_REFERENCE_COUNT); }

/// The reference count `refs()` once it reaches `want`, or after 2 s its last value. A driver may drop
/// the references its finished commands hold on a worker thread of its own a moment after a blocking
/// call returns (PoCL does), so a count read at once can still include them.
template <class Refs>
cl_uint refs_settled_at(Refs&& refs, cl_uint want) {
  cl_uint now = refs();
  for (int i = 0; i < 2000 && now != want; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    now = refs();
  }
  return now;
}

/// The reference count `refs()` once it has stayed the same for 50 ms (at most 2 s of polling): the
/// references a driver keeps for good (PoCL holds the last event of a queue) without the ones its
/// worker thread is about to drop.
template <class Refs>
cl_uint refs_once_stable(Refs&& refs) {
  cl_uint last = refs();
  for (int i = 0, same = 0; i < 2000 && same < 50; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const cl_uint now = refs();
    same = now == last ? same + 1 : 0;
    last = now;
  }
  return last;
}

/// The `add` kernel built with the raw C API on the fixture's context and device.
struct AddKernel {
  emt::RawKernel k;
  explicit AddKernel(const Context& ctx) : k(ctx, kSource, "add") {}
  /// Runs a[i] += v over `count` ints of `mem` on `q` and waits.
  void run(cl_command_queue q, cl_mem mem, std::size_t count, cl_int v) {
    k.arg(0, mem);
    k.arg(1, v);
    k.enqueue(q, count);
    REQUIRE(clFinish(q) == CL_SUCCESS);
  }
};

std::vector<cl_int> iota_ints(std::size_t n, cl_int start) {
  std::vector<cl_int> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + static_cast<cl_int>(i) * 7;
  return v;
}

}  // namespace

TEST_CASE_FIXTURE(emt::Fixture, "interop: a raw kernel runs on an edgemem buffer and on a sub-buffer via native()") {
  AddKernel k(ctx);
  const std::size_t count = 4096;
  const auto init = iota_ints(count, 11);
  auto buf = Buffer::from_host(ctx, init.data(), count * sizeof(cl_int));
  REQUIRE_OK(buf);

  auto buf_native = buf->native();
  REQUIRE_OK(buf_native);
  k.run(q.native(), *buf_native, count, 5);
  std::vector<cl_int> out(count);
  REQUIRE_OK(q.read(*buf, 0, out.data(), count * sizeof(cl_int)));
  for (std::size_t i = 0; i < count; ++i) REQUIRE(out[i] == init[i] + 5);

  // A sub-buffer one base alignment in: only its ints change.
  const std::size_t origin = align();
  const std::size_t sub_ints = 256;
  REQUIRE(origin % sizeof(cl_int) == 0);
  REQUIRE(origin + sub_ints * sizeof(cl_int) <= count * sizeof(cl_int));
  auto sub = buf->sub(origin, sub_ints * sizeof(cl_int));
  REQUIRE_OK(sub);
  auto sub_native = sub->native();  // made now: the sub-buffer was a view until asked
  REQUIRE_OK(sub_native);
  k.run(q.native(), *sub_native, sub_ints, 100);
  REQUIRE_OK(q.read(*buf, 0, out.data(), count * sizeof(cl_int)));
  const std::size_t first = origin / sizeof(cl_int);
  for (std::size_t i = 0; i < count; ++i) {
    const bool in_sub = i >= first && i < first + sub_ints;
    REQUIRE(out[i] == init[i] + 5 + (in_sub ? 100 : 0));
  }
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: native handles are the ones edgemem holds, each released exactly once") {
  auto buf = Buffer::create(ctx, 1024);
  REQUIRE_OK(buf);
  auto native = buf->native();
  REQUIRE_OK(native);
  cl_mem mem = *native;
  REQUIRE(mem_refs(mem) == 1);  // edgemem's reference only
  REQUIRE(clRetainMemObject(mem) == CL_SUCCESS);
  {
    auto sub = buf->sub(0, 256);
    REQUIRE_OK(sub);
    // A driver may count a reference the sub-buffer holds on its parent; it goes away with the sub.
  }
  buf = Buffer{};
  // Only ours is left: edgemem released its reference once.
  CHECK(refs_settled_at([&] { return mem_refs(mem); }, 1) == 1);
  REQUIRE(clReleaseMemObject(mem) == CL_SUCCESS);

  // Events: edgemem holds exactly one reference to a command's cl_event, shared by the Event and the
  // ordering table's entry on the buffer (ClEvent counts them), and drops it once, with the last.
  auto b2 = Buffer::create(ctx, 64);
  REQUIRE_OK(b2);
  const unsigned char pattern = 0x3c;
  auto ev = q.fill_async(*b2, 0, 64, &pattern, 1);
  REQUIRE_OK(ev);
  cl_event e = ev->native()->event;
  REQUIRE_OK(ev->wait());
  REQUIRE_OK(q.finish());
  // A driver may keep references of its own (PoCL holds the queue's last event), so count edgemem's
  // as the difference its release makes, once the driver's transient ones are gone.
  REQUIRE(clRetainEvent(e) == CL_SUCCESS);
  const cl_uint before = refs_once_stable([&] { return event_refs(e); });
  REQUIRE(before >= 2);  // ours and edgemem's
  *ev = edgemem::Event{};
  *b2 = Buffer{};  // the table's entry goes with the buffer's root
  // edgemem's reference went (a driver's own may go too: releasing the buffer can move PoCL's hold),
  // and ours is still there: edgemem released once, not twice.
  const cl_uint after = refs_settled_at([&] { return event_refs(e); }, before - 1);
  CHECK(after <= before - 1);
  CHECK(after >= 1);
  REQUIRE(clReleaseEvent(e) == CL_SUCCESS);
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: a narrowed view's native sub-buffer carries the view's flags") {
  auto buf = Buffer::create(ctx, 4 * align());
  REQUIRE_OK(buf);
  auto ro = buf->sub(align(), align(), edgemem::MemFlags::read_only | edgemem::MemFlags::host_read_only);
  REQUIRE_OK(ro);
  auto same = buf->sub(2 * align(), align());
  REQUIRE_OK(same);
  auto ro_native = ro->native();
  auto same_native = same->native();
  REQUIRE_OK(ro_native);
  REQUIRE_OK(same_native);
  const auto ro_flags = info_of<cl_mem_flags>(clGetMemObjectInfo, *ro_native, CL_MEM_FLAGS);
  const auto same_flags = info_of<cl_mem_flags>(clGetMemObjectInfo, *same_native, CL_MEM_FLAGS);
  CHECK((ro_flags & CL_MEM_READ_ONLY) != 0);
  CHECK((ro_flags & CL_MEM_HOST_READ_ONLY) != 0);
  CHECK((same_flags & CL_MEM_READ_WRITE) != 0);
  CHECK((same_flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)) == 0);
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: a dead view's sub-buffer goes to the next view of its bytes and access only, "
                                 "and with the root") {
  const std::size_t a = align();
  auto buf = Buffer::create(ctx, 4 * a);
  REQUIRE_OK(buf);
  cl_mem root = *buf->native();
  cl_mem first = nullptr;
  {
    auto v = buf->sub(a, a);
    REQUIRE_OK(v);
    first = *v->native();
  }
  REQUIRE(clRetainMemObject(first) == CL_SUCCESS);  // ours, to read it after edgemem lets go
  // The same bytes and access again: the same sub-buffer (no driver call), still that view's.
  {
    auto again = buf->sub(a, a);
    REQUIRE_OK(again);
    cl_mem m = *again->native();
    CHECK(m == first);
    CHECK(info_of<std::size_t>(clGetMemObjectInfo, m, CL_MEM_OFFSET) == a);
    CHECK(info_of<std::size_t>(clGetMemObjectInfo, m, CL_MEM_SIZE) == a);
    CHECK(info_of<cl_mem>(clGetMemObjectInfo, m, CL_MEM_ASSOCIATED_MEMOBJECT) == root);
  }
  // Another view's bytes, or the same bytes with other access: a sub-buffer of their own, with their
  // own offset, size and flags.
  {
    auto other = buf->sub(2 * a, a);
    REQUIRE_OK(other);
    cl_mem m = *other->native();
    CHECK(m != first);
    CHECK(info_of<std::size_t>(clGetMemObjectInfo, m, CL_MEM_OFFSET) == 2 * a);
    CHECK(info_of<std::size_t>(clGetMemObjectInfo, m, CL_MEM_SIZE) == a);
    auto narrowed = buf->sub(a, a, edgemem::MemFlags::read_only);
    REQUIRE_OK(narrowed);
    cl_mem r = *narrowed->native();
    CHECK(r != first);
    CHECK(r != m);
    CHECK((info_of<cl_mem_flags>(clGetMemObjectInfo, r, CL_MEM_FLAGS) & CL_MEM_READ_ONLY) != 0);
  }
  // Two views of the same bytes alive at once: two sub-buffers (one may be the kept one).
  {
    auto x = buf->sub(a, a);
    auto y = buf->sub(a, a);
    REQUIRE_OK(x);
    REQUIRE_OK(y);
    CHECK(*x->native() != *y->native());
  }
  // When the root goes, so does edgemem's reference to the kept sub-buffer: only ours is left.
  buf = Buffer{};
  CHECK(refs_settled_at([&] { return mem_refs(first); }, 1) == 1);
  REQUIRE(clReleaseMemObject(first) == CL_SUCCESS);
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: the views a frame makes and drops in one order get their sub-buffers "
                                 "back the next frame, and the root releases every one it kept") {
  const std::size_t a = align();
  auto buf = Buffer::create(ctx, 8 * a);
  REQUIRE_OK(buf);
  constexpr std::size_t kStrips = 4;  // distinct bytes (within kNativeSearch of each other)
  constexpr std::size_t kSame = 3;    // views of one range alive at once
  cl_mem strips[kStrips] = {};
  std::vector<cl_mem> same;
  for (int frame = 0; frame < 3; ++frame) {
    std::vector<Buffer> views;
    std::vector<cl_mem> same_now;
    for (std::size_t i = 0; i < kStrips; ++i) {
      auto v = buf->sub(i * a, a);
      REQUIRE_OK(v);
      auto n = v->native();
      REQUIRE_OK(n);
      if (frame == 0) strips[i] = *n;
      CHECK(*n == strips[i]);  // no driver call after the first frame: its own sub-buffer again
      CHECK(info_of<std::size_t>(clGetMemObjectInfo, *n, CL_MEM_OFFSET) == i * a);
      views.push_back(std::move(*v));
    }
    for (std::size_t i = 0; i < kSame; ++i) {
      auto v = buf->sub(5 * a, a);
      REQUIRE_OK(v);
      auto n = v->native();
      REQUIRE_OK(n);
      same_now.push_back(*n);
      views.push_back(std::move(*v));
    }
    // Views alive at once never share a sub-buffer; the next frame gets the same ones back.
    std::sort(same_now.begin(), same_now.end());
    CHECK(std::adjacent_find(same_now.begin(), same_now.end()) == same_now.end());
    if (frame == 0) same = same_now;
    CHECK(same_now == same);
    for (Buffer& v : views) v = Buffer{};  // dropped in the order they were made
  }
  for (cl_mem m : strips) REQUIRE(clRetainMemObject(m) == CL_SUCCESS);
  for (cl_mem m : same) REQUIRE(clRetainMemObject(m) == CL_SUCCESS);
  // When the root goes, so do edgemem's references to every sub-buffer it kept: only ours are left.
  buf = Buffer{};
  for (cl_mem m : strips) CHECK(refs_settled_at([&] { return mem_refs(m); }, 1) == 1);
  for (cl_mem m : same) CHECK(refs_settled_at([&] { return mem_refs(m); }, 1) == 1);
  for (cl_mem m : strips) REQUIRE(clReleaseMemObject(m) == CL_SUCCESS);
  for (cl_mem m : same) REQUIRE(clReleaseMemObject(m) == CL_SUCCESS);
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: AdoptMode::borrow takes no reference and releases nothing") {
  const std::size_t bytes = 4 * align();
  auto contents = emt::random_bytes(bytes);
  cl_int status = CL_SUCCESS;
  cl_mem raw = clCreateBuffer(ctx.native().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, contents.data(),
                              &status);
  REQUIRE(status == CL_SUCCESS);
  const auto n = ctx.native();
  const cl_uint ctx_before = context_refs(n.context);
  cl_command_queue raw_q = q.native();
  // A command first: PoCL keeps the last event of a queue, and that event holds the queue.
  std::vector<unsigned char> probe(align());
  REQUIRE(clEnqueueReadBuffer(raw_q, raw, CL_TRUE, 0, probe.size(), probe.data(), 0, nullptr, nullptr) == CL_SUCCESS);
  const cl_uint q_before = refs_once_stable([&] { return queue_refs(raw_q); });
  {
    auto c = edgemem::Context::adopt(n, edgemem::AdoptMode::borrow);
    REQUIRE_OK(c);
    auto bq = edgemem::Queue::adopt(*c, raw_q, edgemem::AdoptMode::borrow);
    REQUIRE_OK(bq);
    auto b = Buffer::adopt(*c, raw, edgemem::AdoptMode::borrow);
    REQUIRE_OK(b);
    CHECK(mem_refs(raw) == 1);
    CHECK(context_refs(n.context) == ctx_before);
    CHECK(queue_refs(raw_q) == q_before);
    // It works as any buffer: views, transfers, a native sub-object made on demand and released.
    auto view = b->sub(align(), align());
    REQUIRE_OK(view);
    std::vector<unsigned char> got(align());
    REQUIRE_OK(bq->read(*view, 0, got.data(), got.size()));
    CHECK(std::equal(got.begin(), got.end(), contents.begin() + static_cast<std::ptrdiff_t>(align())));
    auto view_native = view->native();
    REQUIRE_OK(view_native);
    CHECK(*view_native != raw);
    CHECK_ERRC(Buffer::adopt(*c, raw, static_cast<edgemem::AdoptMode>(7)), edgemem::Errc::invalid_argument);
    REQUIRE_OK(bq->finish());
  }
  CHECK(refs_settled_at([&] { return mem_refs(raw); }, 1) == 1);  // still the caller's alone
  CHECK(refs_settled_at([&] { return context_refs(n.context); }, ctx_before) == ctx_before);
  CHECK(refs_settled_at([&] { return queue_refs(raw_q); }, q_before) == q_before);
  REQUIRE(clReleaseMemObject(raw) == CL_SUCCESS);
}

TEST_CASE("interop: a borrowed context alone keeps its event records for reuse: async commands allocate nothing") {
  // The only edgemem context alive is the borrowed one (the context edgemem made first is gone; the raw
  // cl_context lives on by the caller's own reference), so nothing else keeps the record cache pooled.
  cl_context raw_ctx = nullptr;
  cl_device_id raw_dev = nullptr;
  {
    auto made = Context::create();
    REQUIRE_OK(made);
    raw_ctx = made->native().context;
    raw_dev = made->native().device;
    REQUIRE(clRetainContext(raw_ctx) == CL_SUCCESS);
  }
  {
    auto c = Context::adopt(edgemem::NativeContext{raw_ctx, raw_dev}, edgemem::AdoptMode::borrow);
    REQUIRE_OK(c);
    auto q1 = Queue::create(*c);
    auto q2 = Queue::create(*c);
    REQUIRE_OK(q1);
    REQUIRE_OK(q2);
    auto b = Buffer::create(*c, 64);
    REQUIRE_OK(b);
    int failures = 0;
    auto rounds = [&](int n) {
      for (int i = 0; i < n; ++i) {
        const std::uint32_t word = static_cast<std::uint32_t>(i) * 7u;
        std::uint32_t back = ~word;
        auto w = q1->write_async(*b, 0, &word, sizeof word);
        auto r = q2->read_async(*b, 0, &back, sizeof back);
        if (!w || !r || !r->wait() || back != word) ++failures;
      }
    };
    rounds(50);
    const auto before = edgemem::DefaultAllocator::stats().total_allocations;
    rounds(500);
    CHECK(failures == 0);
    CHECK(edgemem::DefaultAllocator::stats().total_allocations - before == 0);
  }
  REQUIRE(clReleaseContext(raw_ctx) == CL_SUCCESS);
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: Buffer::adopt retains a raw cl_mem and releases it once") {
  const std::size_t bytes = 2048;
  auto contents = emt::random_bytes(bytes);
  cl_int status = CL_SUCCESS;
  cl_mem raw = clCreateBuffer(ctx.native().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, contents.data(),
                              &status);
  REQUIRE(status == CL_SUCCESS);
  REQUIRE(mem_refs(raw) == 1);
  {
    auto adopted = Buffer::adopt(ctx, raw);
    REQUIRE_OK(adopted);
    CHECK(mem_refs(raw) == 2);
    auto adopted_native = adopted->native();
    REQUIRE_OK(adopted_native);
    CHECK(*adopted_native == raw);
    CHECK(adopted->size() == bytes);
    CHECK(!adopted->is_sub());
    CHECK(adopted->storage() == edgemem::Storage::device);
    CHECK(snapshot(*adopted) == contents);

    // Writes through edgemem are seen by the raw API.
    auto fresh = emt::random_bytes(256);
    REQUIRE_OK(q.write(*adopted, 512, fresh.data(), fresh.size()));
    std::vector<unsigned char> raw_read(256);
    REQUIRE(clEnqueueReadBuffer(q.native(), raw, CL_TRUE, 512, 256, raw_read.data(), 0, nullptr, nullptr) ==
            CL_SUCCESS);
    CHECK(raw_read == fresh);

    // sub() and the mapping rules work on an adopted buffer.
    auto sub = adopted->sub(align(), 128);
    REQUIRE_OK(sub);
    auto m = q.map<unsigned char>(*adopted, edgemem::Access::write, 0, 256);
    REQUIRE_OK(m);
    CHECK_ERRC(adopted->release(), Errc::busy);
    CHECK_OK(m->unmap());
  }
  REQUIRE_OK(q.finish());  // a pending unmap command holds a reference until it completes
  CHECK(refs_settled_at([&] { return mem_refs(raw); }, 1) == 1);
  REQUIRE(clReleaseMemObject(raw) == CL_SUCCESS);
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: adopting a raw sub-buffer brings its parent along as the root") {
  const std::size_t bytes = 8 * align() + 4096;
  auto contents = emt::random_bytes(bytes);
  cl_int status = CL_SUCCESS;
  cl_mem parent =
      clCreateBuffer(ctx.native().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, contents.data(), &status);
  REQUIRE(status == CL_SUCCESS);
  const cl_buffer_region region{2 * align(), 4 * align()};
  cl_mem raw_sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
  REQUIRE(status == CL_SUCCESS);
  const cl_uint parent_refs = mem_refs(parent);
  const cl_uint sub_refs = mem_refs(raw_sub);
  {
    auto adopted = Buffer::adopt(ctx, raw_sub);
    REQUIRE_OK(adopted);
    CHECK(mem_refs(raw_sub) == sub_refs + 1);
    CHECK(mem_refs(parent) == parent_refs + 1);
    CHECK(adopted->is_sub());
    CHECK(adopted->origin() == region.origin);
    CHECK(adopted->size() == region.size);
    const std::vector<unsigned char> expect(contents.begin() + static_cast<std::ptrdiff_t>(region.origin),
                                            contents.begin() + static_cast<std::ptrdiff_t>(region.origin + region.size));
    CHECK(snapshot(*adopted) == expect);

    // A sub of the adopted sub resolves against the parent: its writes land in the raw parent.
    auto inner = adopted->sub(align(), align());
    REQUIRE_OK(inner);
    CHECK(inner->origin() == region.origin + align());
    auto fresh = emt::random_bytes(align());
    REQUIRE_OK(q.write(*inner, 0, fresh.data(), fresh.size()));
    std::vector<unsigned char> raw_read(align());
    REQUIRE(clEnqueueReadBuffer(q.native(), parent, CL_TRUE, region.origin + align(), align(), raw_read.data(), 0,
                                nullptr, nullptr) == CL_SUCCESS);
    CHECK(raw_read == fresh);

    // Mapping rules span the adopted sub and its adopted root.
    auto m = q.map<unsigned char>(*inner, edgemem::Access::write, 0, 64);
    REQUIRE_OK(m);
    unsigned char byte = 0;
    CHECK_ERRC(q.write(*adopted, align(), &byte, 1), Errc::busy);
    CHECK_OK(m->unmap());
  }
  REQUIRE_OK(q.finish());  // a pending unmap command holds a reference until it completes
  CHECK(refs_settled_at([&] { return mem_refs(raw_sub); }, sub_refs) == sub_refs);
  CHECK(refs_settled_at([&] { return mem_refs(parent); }, parent_refs) == parent_refs);
  REQUIRE(clReleaseMemObject(raw_sub) == CL_SUCCESS);
  REQUIRE(clReleaseMemObject(parent) == CL_SUCCESS);
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: an adopted CL_MEM_USE_HOST_PTR buffer or sub-buffer knows its caller memory") {
  const std::size_t bytes = 8 * align();
  std::vector<unsigned char> host = emt::random_bytes(bytes);
  cl_int status = CL_SUCCESS;
  cl_mem raw = clCreateBuffer(ctx.native().context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host.data(), &status);
  REQUIRE(status == CL_SUCCESS);
  const cl_buffer_region region{2 * align(), 4 * align()};
  cl_mem raw_sub = clCreateSubBuffer(raw, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
  REQUIRE(status == CL_SUCCESS);
  {
    auto adopted = Buffer::adopt(ctx, raw);
    REQUIRE_OK(adopted);
    CHECK(adopted->storage() == edgemem::Storage::host);
    const std::vector<unsigned char> before = snapshot(*adopted);
    // Host memory inside the buffer's own memory, at the bytes transferred: overlap, nothing moves.
    CHECK_ERRC(q.write(*adopted, 0, host.data() + 64, 128), Errc::overlap);
    CHECK_ERRC(q.read(*adopted, 128, host.data() + 64, 128), Errc::overlap);
    CHECK_ERRC(emt::settle(q.write_async(*adopted, 256, host.data() + 300, 64)), Errc::overlap);
    CHECK(snapshot(*adopted) == before);
    {  // Another buffer over the same caller memory: copies between them that alias are refused too.
      auto w = Buffer::wrap(ctx, host.data(), bytes);
      REQUIRE_OK(w);
      CHECK_ERRC(q.copy(*adopted, *w, 0, 32, 64), Errc::overlap);
    }

    auto sub = Buffer::adopt(ctx, raw_sub);
    REQUIRE_OK(sub);
    CHECK(sub->is_sub());
    // The sub-buffer's bytes are host[2A, 6A).
    CHECK_ERRC(q.write(*sub, 0, host.data() + 2 * align() + 16, 32), Errc::overlap);
    CHECK_ERRC(q.read(*sub, align(), host.data() + 3 * align() + 8, 16), Errc::overlap);
    CHECK(snapshot(*adopted) == before);
    // Host memory elsewhere: the transfer runs.
    std::vector<unsigned char> head(64);
    CHECK_OK(q.read(*sub, 0, head.data(), head.size()));
    CHECK(head == std::vector<unsigned char>(before.begin() + static_cast<std::ptrdiff_t>(2 * align()),
                                             before.begin() + static_cast<std::ptrdiff_t>(2 * align() + 64)));
  }
  REQUIRE_OK(q.finish());
  REQUIRE(clReleaseMemObject(raw_sub) == CL_SUCCESS);
  REQUIRE(clReleaseMemObject(raw) == CL_SUCCESS);
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: Queue::adopt and Context::adopt retain raw objects and release them once") {
  const auto n = ctx.native();
  cl_int status = CL_SUCCESS;
  cl_command_queue raw_q = clCreateCommandQueue(n.context, n.device, 0, &status);
  REQUIRE(status == CL_SUCCESS);
  {
    auto adopted = Queue::adopt(ctx, raw_q);
    REQUIRE_OK(adopted);
    CHECK(queue_refs(raw_q) == 2);
    CHECK(adopted->native() == raw_q);
    auto data = emt::random_bytes(512);
    auto b = Buffer::create(ctx, 512);
    REQUIRE_OK(b);
    REQUIRE_OK(adopted->write(*b, 0, data.data(), data.size()));
    std::vector<unsigned char> back(512);
    REQUIRE_OK(adopted->read(*b, 0, back.data(), back.size()));
    CHECK(back == data);
  }
  CHECK(refs_settled_at([&] { return queue_refs(raw_q); }, 1) == 1);
  REQUIRE(clReleaseCommandQueue(raw_q) == CL_SUCCESS);

  cl_context raw_ctx = clCreateContext(nullptr, 1, &n.device, nullptr, nullptr, &status);
  REQUIRE(status == CL_SUCCESS);
  {
    auto adopted = Context::adopt({raw_ctx, n.device});
    REQUIRE_OK(adopted);
    CHECK(context_refs(raw_ctx) == 2);
    CHECK(std::strcmp(adopted->info().name, ctx.info().name) == 0);
    CHECK(adopted->base_align() == ctx.base_align());
    auto q2 = Queue::create(*adopted);
    REQUIRE_OK(q2);
    auto data = emt::random_bytes(300);
    auto b = Buffer::from_host(*adopted, data.data(), data.size());
    REQUIRE_OK(b);
    std::vector<unsigned char> back(300);
    REQUIRE_OK(q2->read(*b, 0, back.data(), back.size()));
    CHECK(back == data);
    // An edgemem buffer of the adopted context is foreign to the fixture's queue.
    CHECK_ERRC(q.read(*b, 0, back.data(), back.size()), Errc::invalid_argument);
  }
  CHECK(refs_settled_at([&] { return context_refs(raw_ctx); }, 1) == 1);
  REQUIRE(clReleaseContext(raw_ctx) == CL_SUCCESS);
}

TEST_CASE_FIXTURE(emt::Fixture, "interop: adopt refuses null, foreign and unsupported objects and retains nothing") {
  const auto n = ctx.native();
  CHECK_ERRC(Buffer::adopt(ctx, nullptr), Errc::invalid_argument);
  CHECK_ERRC(Queue::adopt(ctx, nullptr), Errc::invalid_argument);
  CHECK_ERRC(Context::adopt({}), Errc::invalid_argument);
  CHECK_ERRC(Context::adopt({n.context, nullptr}), Errc::invalid_argument);
  CHECK_ERRC(Buffer::adopt(Context{}, nullptr), Errc::released);
  CHECK_ERRC(Queue::adopt(Context{}, q.native()), Errc::released);

  // Objects of another context.
  cl_int status = CL_SUCCESS;
  cl_context other = clCreateContext(nullptr, 1, &n.device, nullptr, nullptr, &status);
  REQUIRE(status == CL_SUCCESS);
  cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, 256, nullptr, &status);
  REQUIRE(status == CL_SUCCESS);
  cl_command_queue foreign_q = clCreateCommandQueue(other, n.device, 0, &status);
  REQUIRE(status == CL_SUCCESS);
  CHECK_ERRC(Buffer::adopt(ctx, foreign), Errc::invalid_argument);
  CHECK_ERRC(Queue::adopt(ctx, foreign_q), Errc::invalid_argument);
  CHECK(mem_refs(foreign) == 1);
  CHECK(queue_refs(foreign_q) == 1);

  // An out-of-order queue cannot back an in-order edgemem Queue.
  const auto props = info_of<cl_command_queue_properties>(clGetDeviceInfo, n.device, CL_DEVICE_QUEUE_PROPERTIES);
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
    cl_command_queue ooo = clCreateCommandQueue(n.context, n.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &status);
    REQUIRE(status == CL_SUCCESS);
    CHECK_ERRC(Queue::adopt(ctx, ooo), Errc::unsupported);
    CHECK(queue_refs(ooo) == 1);
    clReleaseCommandQueue(ooo);
  }

  // An image is not a buffer.
  if (info_of<cl_bool>(clGetDeviceInfo, n.device, CL_DEVICE_IMAGE_SUPPORT) == CL_TRUE) {
    const cl_image_format fmt{CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc{};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 16;
    desc.image_height = 16;
    cl_mem image = clCreateImage(n.context, CL_MEM_READ_WRITE, &fmt, &desc, nullptr, &status);
    REQUIRE(status == CL_SUCCESS);
    CHECK_ERRC(Buffer::adopt(ctx, image), Errc::unsupported);
    CHECK(mem_refs(image) == 1);
    clReleaseMemObject(image);
  }
  clReleaseCommandQueue(foreign_q);
  clReleaseMemObject(foreign);
  clReleaseContext(other);
}
