// Pools and rings over external memory (issue #17) in one process: a FixedPool / FrameRing made
// exportable and attached as an ImportedPool (blocks travel as BlockDescriptors), pools and rings
// built once over imported buffers (a V4L2-style buffer queue) and a planar frame over an import,
// with every Errc. Two processes: tests/ipc.
#include <cstring>
#include <utility>

#include "external_helpers.hpp"
#include "test_helpers.hpp"

using namespace edgemem;

namespace {

/// `n` memfds of `bytes` bytes imported zero-copy, with their fds (closed by the caller).
struct Imports {
  std::vector<int> fds;
  std::vector<Buffer> buffers;
  Imports(const Context& ctx, std::size_t n, std::size_t bytes) {
    for (std::size_t i = 0; i < n; ++i) {
      fds.push_back(emt::make_memfd(bytes, emt::Seals::shrink));
      auto b = Buffer::import(ctx, ExternalMemory::memfd(fds.back(), 0, bytes));
      CHECK_MESSAGE(static_cast<bool>(b), "import -> " << emt::describe(b));
      buffers.push_back(b ? std::move(*b) : Buffer{});
    }
  }
  ~Imports() {
    buffers.clear();
    for (int fd : fds) close(fd);
  }
};

}  // namespace

TEST_CASE("pool export: an exportable pool's blocks reach an attached pool by descriptor") {
  emt::Fixture f;
  FixedPool<4> pool;
  auto made = pool.init_exportable(f.ctx, f.q, 3000, 4);
  if (!f.ctx.info().caps.unified_memory) {
    CHECK_ERRC(made, Errc::unsupported);
    return;
  }
  REQUIRE_OK(made);
  auto h = pool.export_handle();
  REQUIRE_OK(h);
  CHECK(h->descriptor().kind == ExportKind::pool);
  CHECK(h->descriptor().block_count == 4);
  CHECK(h->descriptor().block_bytes == pool.block_bytes());
  auto attached = ImportedPool::attach(f.ctx, std::move(*h));
  REQUIRE_OK(attached);
  CHECK(attached->capacity() == 4);
  CHECK(attached->block_bytes() == pool.block_bytes());
  for (int round = 0; round < 3; ++round) {
    std::vector<PooledBuffer> out;
    for (int i = 0; i < 4; ++i) {
      auto b = pool.acquire();
      REQUIRE_OK(b);
      const emt::Bytes bytes = emt::random_bytes(b->size());
      CHECK_OK(f.q.write(*b, 0, bytes.data(), bytes.size()));
      auto d = pool.descriptor(*b);
      REQUIRE_OK(d);
      CHECK(d->index == b->slot());
      auto view = attached->block(*d);
      REQUIRE_OK(view);
      CHECK(view->size() == pool.block_bytes());
      CHECK(f.snapshot(*view) == bytes);
      out.push_back(std::move(*b));
    }
  }
  // Errc: another pool's block, an index past the pool, a block of another pool given to descriptor.
  FixedPool<2> other;
  REQUIRE_OK(other.init_exportable(f.ctx, f.q, 256, 2));
  auto ob = other.acquire();
  REQUIRE_OK(ob);
  auto od = other.descriptor(*ob);
  REQUIRE_OK(od);
  CHECK_ERRC(attached->block(*od), Errc::invalid_argument);
  BlockDescriptor past = *od;
  auto first = pool.acquire();
  REQUIRE_OK(first);
  auto fd = pool.descriptor(*first);
  REQUIRE_OK(fd);
  past.pool = fd->pool;
  past.index = 4;
  CHECK_ERRC(attached->block(past), Errc::out_of_range);
  CHECK_ERRC(pool.descriptor(*ob), Errc::invalid_argument);
  CHECK_ERRC(pool.descriptor(PooledBuffer{}), Errc::released);
  CHECK_ERRC(ImportedPool{}.block(*fd), Errc::released);
}

TEST_CASE("pool export: what is not an exportable pool says so") {
  emt::Fixture f;
  FixedPool<2> plain;
  REQUIRE_OK(plain.init(f.ctx, f.q, 256, 2));
  CHECK_ERRC(plain.export_handle(), Errc::unsupported);
  auto b = plain.acquire();
  REQUIRE_OK(b);
  CHECK_ERRC(plain.descriptor(*b), Errc::unsupported);
  FixedPool<2> uninit;
  CHECK_ERRC(uninit.export_handle(), Errc::released);
  if (!f.ctx.info().caps.unified_memory) return;
  auto buf = Buffer::create_exportable(f.ctx, 4096);
  REQUIRE_OK(buf);
  auto bh = buf->export_handle();
  REQUIRE_OK(bh);
  CHECK_ERRC(ImportedPool::attach(f.ctx, std::move(*bh)), Errc::invalid_argument);
  CHECK_FALSE(bh->valid());  // consumed either way
  CHECK_ERRC(ImportedPool::attach(f.ctx, std::move(*bh)), Errc::released);
  // A pool over separate buffers is not exported as one.
  Imports imports(f.ctx, 2, 4096);
  FixedPool<2> over;
  REQUIRE_OK(over.init_over(f.ctx, f.q, imports.buffers.data(), 2, 4096));
  CHECK_ERRC(over.export_handle(), Errc::unsupported);
  // Nor is one over views of one exportable buffer in another order than init() carves.
  auto whole = Buffer::create_exportable(f.ctx, 2 * 4096);
  REQUIRE_OK(whole);
  auto v1 = whole->sub(4096, 4096), v0 = whole->sub(0, 4096);
  REQUIRE_OK(v1);
  REQUIRE_OK(v0);
  Buffer swapped[2] = {std::move(*v1), std::move(*v0)};
  FixedPool<2> reordered;
  REQUIRE_OK(reordered.init_over(f.ctx, f.q, swapped, 2, 4096));
  CHECK_ERRC(reordered.export_handle(), Errc::unsupported);
  auto rb = reordered.acquire();
  REQUIRE_OK(rb);
  CHECK_ERRC(reordered.descriptor(*rb), Errc::unsupported);
}

TEST_CASE("pool export: a FrameRing is exported once and its frames described") {
  emt::Fixture f;
  if (!f.ctx.info().caps.unified_memory) return;
  FrameRing<3> ring;
  REQUIRE_OK(ring.init_exportable(f.ctx, f.q, 5000));
  auto h = ring.export_handle();
  REQUIRE_OK(h);
  auto attached = ImportedPool::attach(f.ctx, std::move(*h));
  REQUIRE_OK(attached);
  for (int i = 0; i < 7; ++i) {
    auto frame = ring.acquire();
    REQUIRE_OK(frame);
    const emt::Bytes bytes = emt::random_bytes(frame->size());
    CHECK_OK(f.q.write(*frame, 0, bytes.data(), bytes.size()));
    auto d = ring.descriptor(*frame);
    REQUIRE_OK(d);
    CHECK_OK(ring.publish(std::move(*frame)));
    auto taken = ring.take();
    REQUIRE_OK(taken);
    auto view = attached->block(*d);
    REQUIRE_OK(view);
    CHECK(f.snapshot(*view) == bytes);
  }
}

TEST_CASE("pool over buffers: a pool and a ring built once over imported buffers cycle them") {
  emt::Fixture f;
  const std::size_t bytes = 2 * emt::page_size();
  Imports imports(f.ctx, 4, bytes);
  FixedPool<4> pool;
  REQUIRE_OK(pool.init_over(f.ctx, f.q, imports.buffers.data(), 4, bytes));
  CHECK(pool.block_bytes() == bytes);
  CHECK(pool.capacity() == 4);
  for (int round = 0; round < 3; ++round) {
    std::vector<PooledBuffer> out;
    for (int i = 0; i < 4; ++i) {
      auto b = pool.acquire();
      REQUIRE_OK(b);
      const emt::Bytes data = emt::random_bytes(bytes);
      CHECK_OK(f.q.write(*b, 0, data.data(), data.size()));
      // The block is the imported memory: the fd sees the bytes (after a map, caller memory's rule).
      {
        auto m = f.q.map<unsigned char>(*b, Access::read);
        REQUIRE_OK(m);
      }
      emt::Bytes fd_view(bytes);
      REQUIRE(pread(imports.fds[b->slot()], fd_view.data(), bytes, 0) == static_cast<ssize_t>(bytes));
      CHECK(fd_view == data);
      out.push_back(std::move(*b));
    }
    CHECK_ERRC(pool.acquire(), Errc::exhausted);
  }
  // The camera pattern: a ring over the imported buffers, the buffers' handles dropped.
  FrameRing<4> ring;
  {
    Imports cams(f.ctx, 4, bytes);
    Buffer set[4] = {std::move(cams.buffers[0]), std::move(cams.buffers[1]), std::move(cams.buffers[2]),
                     std::move(cams.buffers[3])};
    REQUIRE_OK(ring.init_over(f.ctx, f.q, set, bytes));
  }
  for (int i = 0; i < 10; ++i) {
    auto frame = ring.acquire();
    REQUIRE_OK(frame);
    CHECK_OK(ring.publish(std::move(*frame)));
    auto taken = ring.take();
    REQUIRE_OK(taken);
  }
  CHECK(ring.stats().taken == 10);
}

TEST_CASE("pool over buffers: bad buffer sets get their Errc and leave the pool uninitialised") {
  emt::Fixture f;
  Imports imports(f.ctx, 3, 8192);
  FixedPool<4> pool;
  CHECK_ERRC(pool.init_over(f.ctx, f.q, nullptr, 2, 8192), Errc::invalid_argument);
  CHECK_ERRC(pool.init_over(f.ctx, f.q, imports.buffers.data(), 0, 8192), Errc::invalid_argument);
  CHECK_ERRC(pool.init_over(f.ctx, f.q, imports.buffers.data(), 3, 4096), Errc::invalid_argument);
  CHECK_ERRC(pool.init_over(f.ctx, f.q, imports.buffers.data(), 5, 8192), Errc::out_of_range);
  Buffer with_hole[2] = {Buffer{}, Buffer{}};
  auto one = imports.buffers[0].sub(0, 8192);
  REQUIRE_OK(one);
  with_hole[0] = std::move(*one);
  CHECK_ERRC(pool.init_over(f.ctx, f.q, with_hole, 2, 8192), Errc::released);
  emt::OtherContext other(8192);
  Buffer mixed[2] = {std::move(with_hole[0]), std::move(other.buf)};
  CHECK_ERRC(pool.init_over(f.ctx, f.q, mixed, 2, 8192), Errc::invalid_argument);
  // Two buffers over the same bytes would be one block handed out twice.
  auto big = Buffer::import(f.ctx, ExternalMemory::memfd(imports.fds[0], 0, 8192));
  REQUIRE_OK(big);
  Buffer same[2];
  auto s0 = big->sub(0, 8192), s1 = big->sub(0, 8192);
  REQUIRE_OK(s0);
  REQUIRE_OK(s1);
  same[0] = std::move(*s0);
  same[1] = std::move(*s1);
  CHECK_ERRC(pool.init_over(f.ctx, f.q, same, 2, 8192), Errc::invalid_argument);
  CHECK(pool.capacity() == 0);
  CHECK_ERRC(pool.acquire(), Errc::released);
  REQUIRE_OK(pool.init_over(f.ctx, f.q, imports.buffers.data(), 3, 8192));
  CHECK_ERRC(pool.init_over(f.ctx, f.q, imports.buffers.data(), 3, 8192), Errc::invalid_argument);
}

TEST_CASE("external: a planar NV12 frame made directly over an imported memfd") {
  emt::Fixture f;
  auto layout = PlanarLayout::make(f.ctx, PlanarFormat::nv12, 640, 480);
  REQUIRE_OK(layout);
  const std::size_t bytes = (layout->bytes + emt::page_size() - 1) / emt::page_size() * emt::page_size();
  const int fd = emt::make_memfd(bytes, emt::Seals::shrink);
  const emt::Bytes content = emt::random_bytes(layout->bytes);
  REQUIRE(pwrite(fd, content.data(), content.size(), 0) == static_cast<ssize_t>(content.size()));
  auto imported = Buffer::import(f.ctx, ExternalMemory::dma_buf(fd, 0, layout->bytes));
  REQUIRE_OK(imported);
  auto frame = PlanarFrame::over(std::move(*imported), *layout);
  REQUIRE_OK(frame);
  for (unsigned p = 0; p < frame->plane_count(); ++p) {
    const PlaneLayout& pl = layout->planes[p];
    CHECK(f.snapshot(frame->plane(p)) ==
          emt::Bytes(content.begin() + static_cast<long>(pl.offset),
                     content.begin() + static_cast<long>(pl.offset + frame->plane(p).size())));
  }
  close(fd);
}
