// backends/opencl/bench/peers: measuring (interleaved repetitions), the table and the JSON output.
#include "harness.hpp"

#include <algorithm>
#include <utility>
#include <chrono>
#include <cstdint>
#include <cstdio>

namespace peers {

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// The careful peers a row's edgemem is held against: the others that ran (not raw naive).
double best_peer_p50(const Row& r) {
  double best = 0;
  for (int c : {raw, clhpp, boost})
    if (r.has[c] && (best == 0 || r.s[c].p50 < best)) best = r.s[c].p50;
  return best;
}

// A cell: microseconds per call, or frames per second (from the time per frame) on pipeline rows.
std::string cell(const Row& r, int c, double us) {
  if (!r.has[c]) return "-";
  char b[32];
  if (r.w->pipeline) std::snprintf(b, sizeof b, "%.1f", us > 0 ? 1e6 / us : 0.0);
  else std::snprintf(b, sizeof b, us < 100 ? "%.3f" : "%.1f", us);
  return b;
}

std::string ratio_cell(double ratio) {
  char b[32];
  std::snprintf(b, sizeof b, ratio < 0.1 ? "%.4f" : "%.3f", ratio);
  return b;
}

std::string met_cell(const Goal& goal, bool met, double ratio) {
  char b[48];
  if (goal.max_ratio <= 0 && ratio > 0 && ratio < 0.5) std::snprintf(b, sizeof b, "- (%.1fx faster)", 1.0 / ratio);
  else if (goal.max_ratio <= 0) std::snprintf(b, sizeof b, "-");
  else if (ratio > 0 && ratio < 0.5) std::snprintf(b, sizeof b, "%s (%.1fx faster)", met ? "yes" : "NO", 1.0 / ratio);
  else std::snprintf(b, sizeof b, "%s", met ? "yes" : "NO");
  return b;
}

}  // namespace

Stats stats_of(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.p50 = v[v.size() / 2];
  s.p90 = v[std::min(v.size() - 1, v.size() * 9 / 10)];
  return s;
}

double clock_floor_us() {
  std::vector<double> t;
  for (int i = 0; i < 10001; ++i) {
    const auto t0 = Clock::now();
    t.push_back(us_since(t0));
  }
  return stats_of(std::move(t)).p50;
}

bool measure(const Workload& w, Peer* const (&peers)[column_count], bool (*settle)(const Shared&),
             const Shared& shared, Row& row) {
  row.w = &w;
  int order[column_count];
  int n = 0;
  for (int c = 0; c < column_count; ++c) {
    if (peers[c] == nullptr || (c == raw_naive && !w.pipeline)) continue;
    order[n++] = c;
    row.has[c] = true;
  }
  bool ok = true;
  std::vector<double> samples[column_count];
  // One untimed repetition each first: first touches, driver caches, the pool's and ring's first use.
  for (int k = 0; k < n; ++k) {
    for (int b = 0; b < w.batch; ++b) ok = w.call(*peers[order[k]], static_cast<std::size_t>(b)) && ok;
    ok = settle(shared) && ok;
  }
  std::uint32_t seed = 0x9e3779b9u;  // the same orders in every run
  for (int rep = 0; rep < w.reps && ok; ++rep) {
    for (int k = n - 1; k > 0; --k) {  // Fisher-Yates with xorshift32
      seed ^= seed << 13;
      seed ^= seed >> 17;
      seed ^= seed << 5;
      std::swap(order[k], order[seed % static_cast<std::uint32_t>(k + 1)]);
    }
    for (int k = 0; k < n; ++k) {
      const int c = order[k];
      Peer& p = *peers[c];
      const std::size_t first = static_cast<std::size_t>(rep) * static_cast<std::size_t>(w.batch);
      const auto t0 = Clock::now();
      for (int b = 0; b < w.batch; ++b) ok = w.call(p, first + static_cast<std::size_t>(b)) && ok;
      samples[c].push_back(us_since(t0) / w.batch);
      ok = settle(shared) && ok;
    }
  }
  for (int c = 0; c < column_count; ++c) row.s[c] = stats_of(samples[c]);
  const double best = best_peer_p50(row);
  row.ratio = best > 0 ? row.s[edgemem].p50 / best : 0;
  row.met = row.ratio > 0 && row.ratio <= w.goal.max_ratio;  // an info row (max_ratio 0) is never met
  if (w.pipeline && row.has[raw_naive] && row.s[raw_naive].p50 > 0) {
    row.naive_ratio = row.s[edgemem].p50 / row.s[raw_naive].p50;
    row.naive_met = row.naive_ratio <= kNaiveGoal.max_ratio;
  }
  return ok;
}

void print_table(const std::vector<Row>& rows) {
  std::printf("\n| workload | raw | opencl.hpp | Boost.Compute | edgemem | edgemem/best | goal | met |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %s [%s] | %s | %s | %s | %s | %s | %s | %s |\n", r.w->name, r.w->pipeline ? "frames/s" : "us",
                cell(r, raw, r.s[raw].p50).c_str(), cell(r, clhpp, r.s[clhpp].p50).c_str(),
                cell(r, boost, r.s[boost].p50).c_str(), cell(r, edgemem, r.s[edgemem].p50).c_str(),
                ratio_cell(r.ratio).c_str(), r.w->goal.text, met_cell(r.w->goal, r.met, r.ratio).c_str());
    if (r.w->pipeline && r.has[raw_naive])
      std::printf("| %s, naive raw [frames/s] | %s | - | - | %s | %s | %s | %s |\n", r.w->name,
                  cell(r, raw_naive, r.s[raw_naive].p50).c_str(), cell(r, edgemem, r.s[edgemem].p50).c_str(),
                  ratio_cell(r.naive_ratio).c_str(), kNaiveGoal.text,
                  met_cell(kNaiveGoal, r.naive_met, r.naive_ratio).c_str());
  }
  std::printf("\nspread: min / p50 / p90 of each peer's samples (us per call; frames/s: fastest / p50 / p90-slow)\n");
  for (const Row& r : rows) {
    std::printf("%s:", r.w->name);
    for (int c = 0; c < column_count; ++c) {
      if (!r.has[c]) continue;
      // For frames/s the fastest sample is the shortest time: min time <-> max frames/s.
      std::printf("  %s %s / %s / %s", kColumnNames[c], cell(r, c, r.s[c].min).c_str(), cell(r, c, r.s[c].p50).c_str(),
                  cell(r, c, r.s[c].p90).c_str());
    }
    std::printf("  (%d reps x %d calls)\n", r.w->reps, r.w->batch);
  }
  // The careful peers (raw, opencl.hpp, Boost.Compute) issue the same OpenCL calls on the frame and
  // map rows, so their own spread is the run's noise floor: edgemem/best is edgemem over the fastest
  // of three noisy peers, which sits above 1 by about this much even at parity.
  std::printf("\nnoise floor: slowest careful peer's p50 / fastest careful peer's p50\n");
  for (const Row& r : rows) {
    double lo = 0, hi = 0;
    for (int c : {raw, clhpp, boost}) {
      if (!r.has[c] || r.s[c].p50 <= 0) continue;
      if (lo == 0 || r.s[c].p50 < lo) lo = r.s[c].p50;
      if (r.s[c].p50 > hi) hi = r.s[c].p50;
    }
    if (lo > 0 && hi > lo) std::printf("%s: %s\n", r.w->name, ratio_cell(hi / lo).c_str());
  }
  int met = 0, missed = 0;
  std::string names;
  for (const Row& r : rows) {
    for (int k = 0; k < (r.w->pipeline && r.has[raw_naive] ? 2 : 1); ++k) {
      if (k == 0 && r.w->goal.max_ratio <= 0) continue;  // no goal
      const bool m = k == 0 ? r.met : r.naive_met;
      (m ? met : missed) += 1;
      if (!m) names += std::string(names.empty() ? "" : ",") + r.w->name + (k == 1 ? "_vs_naive" : "");
    }
  }
  std::printf("goals: %d met, %d missed%s%s\n", met, missed, names.empty() ? "" : ": ", names.c_str());
}

namespace {
// JSON string contents: the device strings may hold quotes or backslashes (unlikely) or control bytes.
std::string json_escape(const char* s) {
  std::string out;
  for (; *s != '\0'; ++s) {
    const unsigned char ch = static_cast<unsigned char>(*s);
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch < 0x20) continue;
    out += static_cast<char>(ch);
  }
  return out;
}
}  // namespace

bool write_json(const char* path, const std::vector<Row>& rows, const DeviceNames& names, double clock_floor) {
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr) return false;
  std::fprintf(f, "{\n  \"platform\": \"%s\",\n  \"device\": \"%s\",\n  \"version\": \"%s\",\n",
               json_escape(names.platform).c_str(), json_escape(names.device).c_str(),
               json_escape(names.version).c_str());
  std::fprintf(f, "  \"clock_floor_us\": %.4f,\n  \"rows\": [\n", clock_floor);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::fprintf(f,
                 "    {\"workload\": \"%s\", \"unit\": \"%s\", \"reps\": %d, \"batch\": %d, \"ratio\": %.6f, "
                 "\"goal_max_ratio\": %.4f, \"met\": %s",
                 r.w->name, r.w->pipeline ? "frames/s" : "us", r.w->reps, r.w->batch, r.ratio, r.w->goal.max_ratio,
                 r.met ? "true" : "false");
    if (r.w->pipeline)
      std::fprintf(f, ", \"naive_ratio\": %.6f, \"naive_met\": %s", r.naive_ratio, r.naive_met ? "true" : "false");
    std::fprintf(f, ",\n     \"us_per_call\": {");
    bool first = true;
    for (int c = 0; c < column_count; ++c) {
      if (!r.has[c]) continue;
      std::fprintf(f, "%s\"%s\": {\"min\": %.4f, \"p50\": %.4f, \"p90\": %.4f}", first ? "" : ", ", kColumnNames[c],
                   r.s[c].min, r.s[c].p50, r.s[c].p90);
      first = false;
    }
    std::fprintf(f, "}}%s\n", i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace peers
