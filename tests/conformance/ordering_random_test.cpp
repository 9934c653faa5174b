/// Issue #28, case 7: randomized schedules against a sequential model. N threads (2-4) share M queues
/// (2, 8, 20: more than the table's 16 included) and one root: views of a Buffer (overlapping: one
/// or two chunks), blocks of one FixedPool, or views of an Svm. Each thread owns a set of chunks per
/// epoch and runs random async and blocking writes, reads, fills, copies, maps / unmaps (blocking or
/// async), releases (Buffer::release(queue); a pool block dropped and acquired again) on random
/// queues, some of them held for a few ms behind gates (tests/support/gate.hpp); at each epoch the
/// chunks move to another thread without any wait, so the next owner's commands must be ordered after
/// the last owner's still pending ones by edgemem alone. Every read, map and the final contents are
/// compared with the model (each word's value in program order). Seeded: the schedule of each thread
/// is fixed by the seed (timing is not); a failure prints the seed; EDGEMEM_TEST_SEED=<n> runs that
/// seed only, EDGEMEM_TEST_ROUNDS seeds per configuration (default 6). Frames from
/// emt::test_frame_bytes (default 1 MiB). Runs in the 'threads' suite under ThreadSanitizer too.
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "conformance/ordering_helpers.hpp"

using namespace edgemem;
using emt::Kind;

namespace {

using Words = std::vector<std::uint32_t>;

/// A simple reusable barrier (C++17 has none).
class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(m_);
    const int gen = gen_;
    if (++count_ == n_) {
      count_ = 0;
      ++gen_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return gen_ != gen; });
    }
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int n_, count_ = 0, gen_ = 0;
};

/// Opens gates a few ms after they were taken, from its own thread (so no thread of the schedule
/// can wait forever for a gate); the destructor opens what is left.
class Pumper {
 public:
  Pumper() : th_([this] { run(); }) {}
  ~Pumper() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    th_.join();
  }
  void hold(Queue& q, int ms) {
    auto g = emt::Gate::hold(q);
    if (!g) return;
    std::lock_guard<std::mutex> lock(m_);
    held_.push_back(Held{std::chrono::steady_clock::now() + std::chrono::milliseconds(ms), std::move(*g)});
    cv_.notify_all();
  }

 private:
  struct Held {
    std::chrono::steady_clock::time_point due;
    emt::Gate gate;
  };
  void run() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      const auto now = std::chrono::steady_clock::now();
      auto next = now + std::chrono::milliseconds(50);
      for (std::size_t i = 0; i < held_.size();) {
        if (stop_ || held_[i].due <= now) {
          held_[i].gate.open();
          held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
          if (held_[i].due < next) next = held_[i].due;
          ++i;
        }
      }
      if (stop_) return;
      cv_.wait_until(lock, next);
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Held> held_;
  bool stop_ = false;
  std::thread th_;  // last: starts after the members it uses
};

struct Config {
  int threads;
  int queues;
  Kind kind;
  std::uint32_t seed;
};

/// Everything the threads share. Chunk c (unit bytes) belongs in epoch e to thread ((c / per) + e) % threads.
struct World {
  emt::Fixture& f;
  Config cfg;
  std::vector<Queue> queues;
  Buffer root;
  Svm svm;
  FixedPool<> pool;
  std::vector<PooledBuffer> blocks;  // Kind::pool: one per chunk (slot)
  std::size_t unit = 0, chunks = 0, per = 0;
  Words model;  // word i of the root (Kind::pool: of slot i / (unit / 4))
  bool can_fill = false, gated = false;
  Barrier barrier;
  Pumper pumper;
  std::mutex report_m;
  std::size_t failures = 0;
  std::string first_failure;
  World(emt::Fixture& fx, Config c) : f(fx), cfg(c), barrier(c.threads) {}
  void report(const std::string& what) {
    std::lock_guard<std::mutex> lock(report_m);
    if (failures++ == 0) first_failure = what;
  }
};

/// Bytes an op works on: a handle (a view made for it, or a pool block) and where its words are.
struct Target {
  Buffer view;              // Kind::buffer / svm: made for this op
  Buffer* handle = nullptr; // view, or the slot's block
  std::size_t base = 0;     // the handle's first word in the model
  std::size_t words = 0;    // the handle's words
  std::size_t slot = 0;     // Kind::pool
};

class Worker {
 public:
  Worker(World& w, int t) : w_(w), t_(t), rng_(w.cfg.seed * 1000003u + static_cast<std::uint32_t>(t) * 7919u) {}

  void run(int epochs, int ops_per_epoch) {
    for (int e = 0; e < epochs; ++e) {
      epoch_ = e;
      owned_.clear();
      for (std::size_t c = 0; c < w_.chunks; ++c)
        if (static_cast<int>((c / w_.per + static_cast<std::size_t>(e)) % static_cast<std::size_t>(w_.cfg.threads)) == t_)
          owned_.push_back(c);
      for (op_ = 0; op_ < ops_per_epoch; ++op_) step();
      w_.barrier.arrive_and_wait();  // the chunks move on with their commands still pending
    }
  }

  /// After every queue finished: the async reads' bytes against their snapshots.
  void check_reads() {
    for (auto& r : reads_)
      if (*r.got != r.want) w_.report(r.what + ": async read saw " + mismatch(*r.got, r.want));
  }

 private:
  struct Read {
    std::unique_ptr<Words> got;
    Words want;
    std::string what;
  };

  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  std::uint32_t word() { return static_cast<std::uint32_t>(rng_()); }

  static std::string mismatch(const Words& got, const Words& want) {
    std::size_t n = 0, first = got.size();
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i]) {
        ++n;
        if (first == got.size()) first = i;
      }
    std::ostringstream s;
    s << n << " of " << got.size() << " words wrong";
    if (n) s << " (first at word " << first << ": " << std::hex << got[first] << ", model " << want[first] << ")";
    return s.str();
  }

  std::string where(const char* op, std::size_t q, std::size_t base, std::size_t words) const {
    std::ostringstream s;
    s << "seed " << w_.cfg.seed << ", thread " << t_ << ", epoch " << epoch_ << ", op " << op_ << " (" << op
      << " on queue " << q << ", words " << base << ".." << base + words << ")";
    return s.str();
  }

  /// A target in one owned chunk or, for views, two adjacent chunks of one thread's group.
  bool target(Target& out) {
    const std::size_t c = owned_[pick(owned_.size())];
    const std::size_t uw = w_.unit / 4;
    if (w_.cfg.kind == Kind::pool) {
      out.slot = c;
      out.handle = &w_.blocks[c].buffer();
      out.base = c * uw;
      out.words = uw;
      return out.handle->valid();
    }
    const bool two = (c + 1) % w_.per != 0 && pick(3) == 0;  // c + 1 is in the same group: also owned
    out.base = c * uw;
    out.words = (two ? 2 : 1) * uw;
    auto v = w_.cfg.kind == Kind::svm ? w_.svm.sub(c * w_.unit, out.words * 4) : w_.root.sub(c * w_.unit, out.words * 4);
    if (!v) {
      w_.report(where("sub", 0, out.base, out.words) + ": " + emt::describe(v));
      return false;
    }
    out.view = std::move(*v);
    out.handle = &out.view;
    return true;
  }

  /// A word range [o, o + n) inside a target.
  void range(const Target& tg, std::size_t& o, std::size_t& n) {
    n = 1 + pick(tg.words);
    if (pick(4) == 0) n = tg.words;
    o = pick(tg.words - n + 1);
  }

  template <class R>
  bool ok(const R& r, const char* op, std::size_t q, std::size_t base, std::size_t n) {
    if (r) return true;
    w_.report(where(op, q, base, n) + ": " + emt::describe(r));
    return false;
  }

  /// An async call's Event, kept (some of them) for later waits; its error reported.
  void keep(Result<Event> e, const char* op, std::size_t q, std::size_t base, std::size_t n) {
    if (ok(e, op, q, base, n) && events_.size() < 32) events_.push_back(std::move(*e));
  }

  void step() {
    const std::size_t qi = pick(w_.queues.size());
    Queue& q = w_.queues[qi];
    const bool async = pick(2) == 0;
    Target tg;
    if (!target(tg)) return;
    std::size_t o = 0, n = 0;
    range(tg, o, n);
    Words* model = &w_.model;
    const std::size_t at = tg.base + o;  // model index of the range's first word
    switch (pick(16)) {
      case 0: case 1: case 2: {  // write
        auto src = std::make_unique<Words>(n);
        for (auto& x : *src) x = word();
        std::copy(src->begin(), src->end(), model->begin() + at);
        if (async) keep(q.write_async(*tg.handle, o * 4, src->data(), n * 4), "write_async", qi, at, n);
        else ok(q.write(*tg.handle, o * 4, src->data(), n * 4), "write", qi, at, n);
        sources_.push_back(std::move(src));
        if (async && tg.view.valid() && pick(3) == 0) ok(tg.view.release(q), "release(queue)", qi, at, n);
        break;
      }
      case 3: case 4: case 5: {  // read
        Words want(model->begin() + at, model->begin() + at + n);
        auto got = std::make_unique<Words>(n, 0xdeadbeefu);
        if (async) {
          auto e = q.read_async(*tg.handle, o * 4, got->data(), n * 4);
          if (!ok(e, "read_async", qi, at, n)) break;
          keep(std::move(e), "read_async", qi, at, n);
          reads_.push_back(Read{std::move(got), std::move(want), where("read_async", qi, at, n)});
        } else if (ok(q.read(*tg.handle, o * 4, got->data(), n * 4), "read", qi, at, n) && *got != want) {
          w_.report(where("read", qi, at, n) + ": " + mismatch(*got, want));
        }
        break;
      }
      case 6: case 7: {  // fill (a write where the device has no 4-byte fill)
        const std::uint32_t v = word();
        std::fill(model->begin() + at, model->begin() + at + n, v);
        if (!w_.can_fill) {
          auto src = std::make_unique<Words>(n, v);
          ok(q.write(*tg.handle, o * 4, src->data(), n * 4), "write", qi, at, n);
        } else if (async) {
          keep(q.fill_async(*tg.handle, o * 4, n * 4, &v, 4), "fill_async", qi, at, n);
        } else {
          ok(q.fill(*tg.handle, o * 4, n * 4, &v, 4), "fill", qi, at, n);
        }
        break;
      }
      case 8: case 9: {  // copy from another owned range of the same length, not overlapping
        Target from;
        if (!target(from) || from.words < n) break;
        const std::size_t so = pick(from.words - n + 1), s_at = from.base + so;
        if (s_at < at + n && at < s_at + n) break;  // overlapping in the root
        std::copy(model->begin() + s_at, model->begin() + s_at + n, model->begin() + at);
        if (async) keep(q.copy_async(*from.handle, *tg.handle, so * 4, o * 4, n * 4), "copy_async", qi, at, n);
        else ok(q.copy(*from.handle, *tg.handle, so * 4, o * 4, n * 4), "copy", qi, at, n);
        break;
      }
      case 10: case 11: {  // map: read (compare) or write (new words), unmap blocking or async
        const bool writes = pick(2) == 0;
        auto m = q.map<std::uint32_t>(*tg.handle, writes ? Access::write : Access::read, o * 4, n * 4);
        if (!ok(m, writes ? "map write" : "map read", qi, at, n)) break;
        if (writes) {
          for (std::size_t i = 0; i < n; ++i) (*m)[i] = (*model)[at + i] = word();
        } else {
          Words got(m->begin(), m->end());
          Words want(model->begin() + at, model->begin() + at + n);
          if (got != want) w_.report(where("map read", qi, at, n) + ": " + mismatch(got, want));
        }
        if (async) keep(m->unmap_async(), "unmap_async", qi, at, n);
        else ok(m->unmap(), "unmap", qi, at, n);
        break;
      }
      case 12: {  // pool: the block goes back (dropped, or release(queue)) and a block comes back
        if (w_.cfg.kind != Kind::pool) break;
        PooledBuffer& b = w_.blocks[tg.slot];
        if (async) ok(b.release(q), "release(queue)", qi, tg.base, tg.words);
        else b = PooledBuffer{};
        auto again = w_.pool.acquire();
        if (!ok(again, "acquire", qi, tg.base, tg.words)) break;
        b = std::move(*again);
        auto src = std::make_unique<Words>(tg.words);  // contents unknown: written whole at once
        for (auto& x : *src) x = word();
        std::copy(src->begin(), src->end(), model->begin() + tg.base);
        keep(q.write_async(b.buffer(), 0, src->data(), tg.words * 4), "write_async (new block)", qi, tg.base, tg.words);
        sources_.push_back(std::move(src));
        break;
      }
      case 13: {  // hold a queue for a few ms
        if (w_.gated) w_.pumper.hold(w_.queues[pick(w_.queues.size())], 1 + static_cast<int>(pick(4)));
        break;
      }
      case 14: {  // wait for one of this thread's events
        if (!events_.empty()) {
          const std::size_t i = pick(events_.size());
          ok(events_[i].wait(), "event wait", qi, at, n);
          events_.erase(events_.begin() + static_cast<std::ptrdiff_t>(i));
        }
        break;
      }
      default: {  // a marker now and then (the table's events come from markers too)
        keep(q.marker(), "marker", qi, at, n);
        break;
      }
    }
  }

  World& w_;
  int t_;
  std::mt19937 rng_;
  int epoch_ = 0, op_ = 0;
  std::vector<std::size_t> owned_;
  std::vector<std::unique_ptr<Words>> sources_;  // async writes' sources: alive until the end
  std::vector<Read> reads_;
  std::vector<Event> events_;
};

/// Sets up the world, runs the threads, finishes every queue and checks reads and final contents.
void run_schedule(Config cfg) {
  emt::Fixture f;
  World w(f, cfg);
  std::ostringstream name;
  name << "seed " << cfg.seed << ", " << cfg.threads << " threads, " << cfg.queues << " queues, "
       << emt::kind_name(cfg.kind);
  const std::string label = name.str();
  CAPTURE(label);
  SvmGrain grain{};
  if (cfg.kind == Kind::svm && !emt::first_svm_grain(f.ctx, grain)) return;  // no SVM: nothing to run
  const std::size_t align = f.ctx.base_align();
  w.per = 4;
  w.chunks = w.per * static_cast<std::size_t>(cfg.threads);
  const std::size_t frame = emt::ordering_frame_bytes(f.ctx);
  w.unit = frame / w.chunks / align * align;
  if (w.unit < align) w.unit = align;
  w.model.assign(w.chunks * w.unit / 4, 0);
  w.can_fill = f.ctx.info().caps.max_fill_pattern_bytes >= 4;
  for (int i = 0; i < cfg.queues; ++i) w.queues.push_back(emt::new_queue(f.ctx));
  w.gated = emt::gates_supported(f.q);
  const Words zero(w.model.size(), 0);
  if (cfg.kind == Kind::pool) {
    REQUIRE_OK(w.pool.init(f.ctx, f.q, w.unit, w.chunks));  // zero-filled
    for (std::size_t c = 0; c < w.chunks; ++c) {
      auto b = w.pool.acquire();
      REQUIRE_OK(b);
      w.blocks.push_back(std::move(*b));
    }
  } else if (cfg.kind == Kind::svm) {
    auto s = Svm::create(f.ctx, w.chunks * w.unit, grain);
    REQUIRE_OK(s);
    w.svm = std::move(*s);
    REQUIRE_OK(f.q.write(w.svm, 0, zero.data(), zero.size() * 4));
  } else {
    auto r = Buffer::create(f.ctx, w.chunks * w.unit);
    REQUIRE_OK(r);
    w.root = std::move(*r);
    REQUIRE_OK(f.q.write(w.root, 0, zero.data(), zero.size() * 4));
  }
  REQUIRE_OK(f.q.finish());
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < cfg.threads; ++t) workers.push_back(std::make_unique<Worker>(w, t));
  {
    std::vector<std::thread> threads;
    for (auto& wk : workers) threads.emplace_back([p = wk.get()] { p->run(4, 16); });
    for (auto& th : threads) th.join();
  }
  for (auto& q : w.queues) CHECK_OK(q.finish());
  CHECK_OK(f.q.finish());
  for (auto& wk : workers) wk->check_reads();
  Words got(w.model.size());
  if (cfg.kind == Kind::pool) {
    for (std::size_t c = 0; c < w.chunks; ++c)
      CHECK_OK(f.q.read(w.blocks[c], 0, got.data() + c * w.unit / 4, w.unit));
  } else {
    CHECK_OK(f.q.read(cfg.kind == Kind::svm ? static_cast<const Buffer&>(w.svm) : w.root, 0, got.data(), got.size() * 4));
  }
  std::size_t wrong = 0, first = got.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != w.model[i]) {
      ++wrong;
      if (first == got.size()) first = i;
    }
  if (wrong != 0) {
    std::ostringstream s;
    s << "final contents: " << wrong << " of " << got.size() << " words differ from the model (first: word " << first
      << ", chunk " << first / (w.unit / 4) << ")";
    w.report(s.str());
  }
  CHECK_MESSAGE(w.failures == 0, label << ": " << w.failures << " check(s) failed; the first: " << w.first_failure
                                       << " (rerun with EDGEMEM_TEST_SEED=" << cfg.seed << ")");
  CHECK(f.ctx.unreported_errors().count == 0);
}

/// The seeds to run: EDGEMEM_TEST_SEED alone, else EDGEMEM_TEST_ROUNDS (default 6) fixed ones.
std::vector<std::uint32_t> seeds(std::uint32_t salt) {
  if (const char* s = std::getenv("EDGEMEM_TEST_SEED"); s != nullptr && *s != '\0')
    return {static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10))};
  std::vector<std::uint32_t> out;
  const int n = emt::test_rounds(6);
  for (int i = 0; i < n; ++i) out.push_back(salt * 100u + static_cast<std::uint32_t>(i) + 1u);
  return out;
}

void all_kinds(int threads, int queues) {
  for (std::uint32_t seed : seeds(static_cast<std::uint32_t>(queues)))
    for (Kind k : {Kind::buffer, Kind::pool, Kind::svm}) run_schedule(Config{threads, queues, k, seed});
}

}  // namespace

TEST_CASE("ordering: randomized schedules, 2 threads on 2 queues (threads)") { all_kinds(2, 2); }

TEST_CASE("ordering: randomized schedules, 3 threads on 8 queues (threads)") { all_kinds(3, 8); }

TEST_CASE("ordering: randomized schedules, 4 threads on 20 queues (threads)") { all_kinds(4, 20); }
