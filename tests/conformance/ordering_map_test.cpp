/// Issue #28, case 3: a map and unmap on queue Q after an async write on Q that is still held behind
/// a gate must not make the ordering table forget the write. A zero-copy map (CUDA: host and shared
/// storage) can return without waiting for Q; it must not erase Q's pending entries, so a read of the
/// written bytes on queue C still waits for the write (the gate opens 200 ms later from another
/// thread). Two forms: a write map of other bytes Y of the same root (unmapped async), and a read map
/// of the written bytes X on Q itself (it must show them). Buffers of host and shared storage and an
/// Svm; on every backend (on PoCL the map waits for the whole queue, so these pass there today).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "conformance/ordering_helpers.hpp"

using namespace edgemem;
using namespace std::chrono_literals;
using emt::Kind;

namespace {

constexpr std::uint32_t kOld = 0x0400aa00u, kFresh = 0x0500bb00u, kMapped = 0x0600cc00u;

const char* storage_name(Storage s) {
  switch (s) {
    case Storage::device: return "device";
    case Storage::host: return "host";
    case Storage::shared: return "shared";
  }
  return "?";
}

/// `map_written`: the read map of X on Q; else the write map of Y.
void map_after_held_write(Kind kind, Storage storage, bool map_written) {
  const std::string kind_s = emt::kind_name(kind);
  CAPTURE(kind_s);
  const std::string storage_s = storage_name(storage);
  CAPTURE(storage_s);
  CAPTURE(map_written);
  emt::Fixture f;
  Queue c = emt::new_queue(f.ctx);
  ENSURE(c.valid());
  const std::size_t bytes = emt::ordering_frame_bytes(f.ctx);
  emt::TwoRegions mem;
  bool skipped = false;
  if (!mem.make(kind, f.ctx, f.q, bytes, skipped, storage)) {
    if (skipped) MESSAGE("not applicable: the device has no SVM");
    return;
  }
  const auto old_words = emt::words(bytes, kOld), fresh = emt::words(bytes, kFresh);
  REQUIRE_OK(f.q.write(mem.x(), 0, old_words.data(), bytes));
  REQUIRE_OK(f.q.write(mem.y(), 0, old_words.data(), bytes));
  REQUIRE_OK(f.q.finish());

  Buffer fresh_src = emt::staged(f.ctx, fresh);  // the async write's bytes, copied in before the gate
  auto gate = emt::Gate::hold(f.q);
  auto written = f.q.copy_async(fresh_src, mem.x(), 0, 0, bytes);  // held (when gated)
  std::vector<std::uint32_t> got_x(bytes / 4), got_y(bytes / 4), mapped_x;
  Result<void> mapped_ok, unmapped_ok, read_x, read_y;
  Event unmap_event;
  {
    std::vector<emt::Gate*> later;
    if (gate) later.push_back(&*gate);
    emt::DelayedOpen open_gate(later, 200ms);
    if (map_written) {
      auto m = f.q.map<const std::uint32_t>(static_cast<const Buffer&>(mem.x()), Access::read);
      mapped_ok = m ? Result<void>{} : Result<void>(fail(m.error()));
      if (m) {
        mapped_x.assign(m->begin(), m->end());
        unmapped_ok = m->unmap();
      }
    } else {
      auto m = f.q.map<std::uint32_t>(mem.y(), Access::write);
      mapped_ok = m ? Result<void>{} : Result<void>(fail(m.error()));
      if (m) {
        for (auto& w : *m) w = kMapped;
        auto e = m->unmap_async();
        unmapped_ok = e ? Result<void>{} : Result<void>(fail(e.error()));
        if (e) unmap_event = std::move(*e);
      }
    }
    read_x = c.read(mem.x(), 0, got_x.data(), bytes);  // waits for X's write
    read_y = c.read(mem.y(), 0, got_y.data(), bytes);  // waits for the unmap of Y
  }
  CHECK_OK(written);
  if (written) CHECK_OK(written->wait());
  if (unmap_event.valid()) CHECK_OK(unmap_event.wait());
  CHECK_OK(mapped_ok);
  CHECK_OK(unmapped_ok);
  CHECK_OK(read_x);
  CHECK_OK(read_y);
  if (map_written)
    CHECK_MESSAGE(emt::wrong_words(mapped_x, kFresh) == 0,
                  "the read map of X on Q does not show Q's earlier write (" << emt::wrong_words(mapped_x, kFresh)
                  << " of " << mapped_x.size() << " words)");
  CHECK_MESSAGE(emt::wrong_words(got_x, kFresh) == 0,
                emt::wrong_words(got_x, kFresh) << " of " << got_x.size() << " words of X read on queue C are "
                << "not Q's held async write: the map/unmap on Q dropped its entry");
  CHECK(emt::wrong_words(got_y, map_written ? kOld : kMapped) == 0);
  if (!gate) MESSAGE("no gates on this backend (" << emt::describe(gate) << "): the ungated sequence was checked");
  CHECK_OK(f.q.finish());
}

}  // namespace

TEST_CASE("ordering: a map and unmap on Q keep Q's held async write for a reader on another queue") {
  for (bool map_written : {false, true}) {
    map_after_held_write(Kind::buffer, Storage::host, map_written);
    map_after_held_write(Kind::buffer, Storage::shared, map_written);
    map_after_held_write(Kind::pool, Storage::host, map_written);
    map_after_held_write(Kind::svm, Storage::device, map_written);
  }
}
