// Bad inputs of read-only sharing and view exports (issue #29 items 4 and 6, docs/security.md): a
// write of any kind to read-only imported memory, a read-write import of a read-only export, an
// export of a view of part of a buffer or of a pool block, an unknown PeerAccess. As in
// external_test.cpp, every case counts open fds around each bad call and re-reads a recorded import.
#include <utility>

#include <fcntl.h>

#include "bad_input/external_scene.hpp"

using namespace edgemem;
using emt::bad::ext::ExtScene;

BAD_INPUT("read-only import: a write of any kind (write, fill, copy, rects, maps, migrate) (#29.4)") {
  ExtScene e;
  ImportOptions ro;
  ro.flags = MemFlags::read_only;
  ro.allow_copy = true;  // a device that writes its copy back into the PROT_READ mapping: a read-only copy
  auto made = Buffer::import(e.f.ctx, ExternalMemory::memfd(e.memfd, 0, 4 * e.page), ro);
  REQUIRE_OK(made);
  Buffer b = std::move(*made);
  e.s.watch(b);
  auto view = b.sub(0, e.page, MemFlags::read_only);
  REQUIRE_OK(view);
  Buffer& other = e.s.make(4 * e.page);
  const emt::Bytes junk = emt::random_bytes(4 * e.page);
  const unsigned char zero = 0;
  for (Buffer* t : {&b, &*view}) {
    e.expect(Errc::access_denied, [&] { return e.f.q.write(*t, 0, junk.data(), 64); });
    e.expect(Errc::access_denied, [&] { return e.f.q.write_async(*t, 0, junk.data(), 64); });
    const bool fills = e.f.ctx.info().caps.max_fill_pattern_bytes >= 1;  // else unsupported, checked first
    e.expect(fills ? Errc::access_denied : Errc::unsupported, [&] { return e.f.q.fill(*t, 0, 64, &zero, 1); });
    e.expect(Errc::access_denied, [&] { return e.f.q.copy(other, *t, 0, 0, 64); });
    e.expect(Errc::access_denied, [&] { return e.f.q.copy_async(other, *t, 0, 0, 64); });
    const Rect rect{RectSide{}, RectSide{}, Extent3{32, 2, 1}};
    e.expect(Errc::access_denied, [&] { return e.f.q.write_rect(*t, rect, junk.data(), junk.size()); });
    const CopyRect crect{RectSide{}, RectSide{}, Extent3{32, 2, 1}};
    e.expect(Errc::access_denied, [&] { return e.f.q.copy_rect(other, *t, crect); });
    e.expect(Errc::access_denied, [&] { return e.f.q.map<unsigned char>(*t, Access::write); });
    e.expect(Errc::access_denied, [&] { return e.f.q.map<unsigned char>(*t, Access::write_discard, 0, 64); });
    if (e.f.ctx.info().caps.migration)
      e.expect(Errc::access_denied, [&] { return e.f.q.migrate(*t, Migration::to_host); });
  }
  // A view cannot widen the access back (OpenCL's narrowing rule).
  e.expect(Errc::invalid_argument, [&] { return b.sub(0, e.page, MemFlags::read_write); });
}

BAD_INPUT("Buffer::import(IpcHandle): a read-only export or write-sealed memfd imported read-write (#29.4)") {
  ExtScene e;
  const int sealed = e.memfd_of(e.page, emt::Seals::fixed);
  REQUIRE(fcntl(sealed, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) == 0);
  auto h = IpcHandle::adopt(fcntl(sealed, F_DUPFD_CLOEXEC, 0), e.descriptor(0, e.page));
  REQUIRE_OK(h);
  e.expect(Errc::access_denied, [&] { return Buffer::import(e.f.ctx, std::move(*h)); }, -1);
  CHECK_FALSE(h->valid());
  e.expect(Errc::access_denied, [&] { return Buffer::import(e.f.ctx, ExternalMemory::memfd(sealed, 0, e.page)); });
  if (!e.exportable()) return;
  auto a = Buffer::create_exportable(e.f.ctx, e.page, MemFlags::read_write, PeerAccess::read_only);
  REQUIRE_OK(a);
  auto ha = a->export_handle();
  REQUIRE_OK(ha);
  e.expect(Errc::access_denied, [&] { return Buffer::import(e.f.ctx, std::move(*ha)); }, -1);
}

BAD_INPUT("Buffer::create_exportable: unknown PeerAccess") {
  ExtScene e;  // checked before the capability: the same answer on every device
  e.expect(Errc::invalid_argument,
           [&] { return Buffer::create_exportable(e.f.ctx, 4096, MemFlags::read_write, static_cast<PeerAccess>(2)); });
}

BAD_INPUT("Buffer::export_handle: a view of part of a buffer, a pool block, an import of part of a memfd (#29.6)") {
  ExtScene e;
  const int memfd = e.memfd_of(4 * e.page, emt::Seals::fixed);
  auto part = Buffer::import(e.f.ctx, ExternalMemory::memfd(memfd, e.page, e.page));
  REQUIRE_OK(part);
  e.expect(Errc::access_denied, [&] { return part->export_handle(); });
  auto whole = Buffer::import(e.f.ctx, ExternalMemory::memfd(memfd, 0, 4 * e.page));
  REQUIRE_OK(whole);
  auto view = whole->sub(e.page, e.page);
  REQUIRE_OK(view);
  e.expect(Errc::access_denied, [&] { return view->export_handle(); });
  if (!e.exportable()) return;
  auto a = Buffer::create_exportable(e.f.ctx, 4 * e.page);
  REQUIRE_OK(a);
  e.s.watch(*a);
  auto av = a->sub(0, e.page);
  REQUIRE_OK(av);
  e.expect(Errc::access_denied, [&] { return av->export_handle(); });
  FixedPool<2> pool;
  REQUIRE_OK(pool.init_exportable(e.f.ctx, e.f.q, 4096, 2));
  auto block = pool.acquire();
  REQUIRE_OK(block);
  e.expect(Errc::access_denied, [&] { return block->buffer().export_handle(); });
}

BAD_INPUT("read-only import: image views of it are written by no image command (#29.4)") {
  ExtScene e;
  ImportOptions ro;
  ro.flags = MemFlags::read_only;
  ro.allow_copy = true;  // a device that writes its copy back into the PROT_READ mapping: a read-only copy
  auto made = Buffer::import(e.f.ctx, ExternalMemory::memfd(e.memfd, 0, 4 * e.page), ro);
  REQUIRE_OK(made);
  Buffer b = std::move(*made);
  e.s.watch(b);
  ImageDesc desc;
  desc.type = ImageType::image1d_buffer;
  desc.format = ImageFormat{ChannelOrder::rgba, ChannelType::unorm_int8};
  desc.width = 64;
  auto view = Image::view(b, desc);
  if (!view) {  // a device without images: nothing to write through
    CHECK_ERRC(view, Errc::unsupported);
    return;
  }
  const ImageRegion region{{0, 0, 0}, {16, 1, 1}};
  const emt::Bytes px = emt::random_bytes(64 * 4);
  e.expect(Errc::access_denied, [&] { return e.f.q.write_image(*view, region, px.data(), px.size()); });
  e.expect(Errc::access_denied, [&] { return e.f.q.fill_image(*view, Color::floats(1, 0, 0, 1), region); });
  Buffer& other = e.s.make(4 * e.page);
  e.expect(Errc::access_denied, [&] { return e.f.q.copy_buffer_to_image(other, 0, *view, region); });
  e.expect(Errc::access_denied, [&] { return e.f.q.map_image(*view, Access::write, region); });
  emt::Bytes back(16 * 4);  // reading works
  CHECK_OK(e.f.q.read_image(*view, region, back.data(), back.size()));
}
