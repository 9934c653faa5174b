// backends/opencl/bench/peers: the measuring harness. Every workload runs on every peer interleaved: each repetition
// times each peer once, in an order shuffled anew for every repetition (a fixed seed), so drift hits
// all alike and no peer always follows the same one (whose leftovers in caches and allocators it would
// inherit every time); the queue is drained untimed after each. A repetition makes `batch` calls; its
// time over `batch` is one sample. Samples give min, p50 and p90 per peer.
#pragma once
#include <string>
#include <vector>

#include "peers.hpp"

namespace peers {

/// The columns, in print order. raw_naive takes part in the frame pipelines only.
enum Column : int { raw = 0, clhpp, boost, edgemem, raw_naive, column_count };
inline constexpr const char* kColumnNames[column_count] = {"raw", "opencl.hpp", "Boost.Compute", "edgemem",
                                                           "raw naive"};

/// Min, median and 90th percentile of a peer's samples (microseconds per call).
struct Stats {
  double min = 0, p50 = 0, p90 = 0;
};
Stats stats_of(std::vector<double> samples);

/// What edgemem must show on a row: edgemem/best (p50 time ratio) at most `max_ratio` (0: no goal,
/// a row for information, counted neither met nor missed).
struct Goal {
  double max_ratio;
  const char* text;  ///< how the README states it
};

/// One workload: its name, what it does, the call each peer makes, and how often.
struct Workload {
  const char* name;
  const char* what;
  bool (*call)(Peer& peer, std::size_t n);  ///< n: the call's index within the repetition's sequence
  int reps;
  int batch;
  bool pipeline;  ///< frames/s row; raw naive takes part and gets a row of its own
  Goal goal;
};

/// A measured workload.
struct Row {
  const Workload* w = nullptr;
  bool has[column_count] = {};
  Stats s[column_count];
  double ratio = 0;        ///< edgemem p50 / best peer p50 (times per call or frame)
  double naive_ratio = 0;  ///< pipelines: edgemem p50 / raw naive p50
  bool met = false, naive_met = false;
};

/// Runs `w` on `peers` (indexed by Column; null entries are skipped), calling `settle` untimed after
/// every timed repetition. Returns false when a call failed (the row is still filled).
bool measure(const Workload& w, Peer* const (&peers)[column_count], bool (*settle)(const Shared&),
             const Shared& shared, Row& row);

/// The median time of an empty timed repetition (the clock's own cost, in every sample), in us.
double clock_floor_us();

/// Prints the table header, one table line per row (two for a pipeline), and the spread table.
void print_table(const std::vector<Row>& rows);
/// Writes every row's samples summary as JSON to `path`. False when the file cannot be written.
bool write_json(const char* path, const std::vector<Row>& rows, const DeviceNames& names, double clock_floor);

/// The pipeline goal against the naive loop: edgemem at least twice as fast.
inline constexpr Goal kNaiveGoal{0.5, ">= 2x naive"};

}  // namespace peers
