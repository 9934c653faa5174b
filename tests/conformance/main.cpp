// doctest's runner for the conformance suite (built with cpp_eh=none: doctest then runs without exceptions).
// With -Dlive_counters=true every test case (and every pass through its subcases) must end with
// edgemem::live_objects() all zero; a test that leaves a context, queue, buffer, sub-buffer, mapping
// or event alive is reported by name and the run exits non-zero.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <edgemem/live_objects.hpp>

#include "test_helpers.hpp"

#include <cstdio>
#include <cstdlib>
#if defined(__GLIBC__) || defined(__linux__)
#include <csignal>
#include <execinfo.h>
#include <unistd.h>
#define EMT_BACKTRACE 1
#endif

namespace {

int g_leaking_cases = 0;
int g_skipped_cases = 0;  // test cases that called EMT_SKIP
edgemem::LiveObjects g_reported{};  // the counters last reported (all zero until a leak)

bool same(const edgemem::LiveObjects& a, const edgemem::LiveObjects& b) {
  return a.contexts == b.contexts && a.queues == b.queues && a.buffers == b.buffers &&
         a.sub_buffers == b.sub_buffers && a.mappings == b.mappings && a.events == b.events;
}

/// Reports `where` in test case `tc` when the counters are not zero and have changed since the last
/// report (so one leak is reported once, by the test case that made it, not by every later one).
void check_live(const doctest::TestCaseData& tc, const char* where) {
  const edgemem::LiveObjects live = edgemem::live_objects();
  if (same(live, g_reported)) return;
  g_reported = live;
  if (same(live, edgemem::LiveObjects{})) return;
  ++g_leaking_cases;
  std::fprintf(stderr,
               "live objects after %s of test case \"%s\" (%s:%d): contexts %lld, queues %lld, buffers %lld, "
               "sub-buffers %lld, mappings %lld, events %lld (expected all 0)\n",
               where, tc.m_name, tc.m_file.c_str(), tc.m_line, static_cast<long long>(live.contexts),
               static_cast<long long>(live.queues), static_cast<long long>(live.buffers),
               static_cast<long long>(live.sub_buffers), static_cast<long long>(live.mappings),
               static_cast<long long>(live.events));
}

/// A doctest listener: checks the live-object counters whenever a test case (or a pass through
/// its subcases) has finished and its locals are gone.
struct LiveObjectListener : doctest::IReporter {
  explicit LiveObjectListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData& tc) override {
    current_ = &tc;
    skips_at_start_ = emt::g_run_time_skips;
  }
  void test_case_reenter(const doctest::TestCaseData& tc) override { check_live(tc, "a subcase pass"); }
  void test_case_end(const doctest::CurrentTestCaseStats&) override {
    if (current_ != nullptr) check_live(*current_, "the end");
    if (current_ != nullptr && emt::g_run_time_skips != skips_at_start_) {
      ++g_skipped_cases;
      std::printf("skipped at run time: \"%s\" (%s:%d)\n", current_->m_name, current_->m_file.c_str(),
                  current_->m_line);
    }
    current_ = nullptr;
  }
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}

 private:
  const doctest::TestCaseData* current_ = nullptr;
  int skips_at_start_ = 0;
};

REGISTER_LISTENER("edgemem_live_objects", 1, LiveObjectListener);

#if EMT_BACKTRACE
/// EDGEMEM_TEST_BACKTRACE=1 (for runs on machines without a debugger, in a build with
/// -DDOCTEST_CONFIG_NO_POSIX_SIGNALS so doctest leaves the signals alone): a crash prints its stack.
void print_backtrace(int sig) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  const char msg[] = "edgemem_conformance: fatal signal, stack:\n";
  (void)!write(2, msg, sizeof msg - 1);
  backtrace_symbols_fd(frames, n, 2);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
#endif

}  // namespace

int main(int argc, char** argv) {
#if EMT_BACKTRACE
  if (const char* bt = std::getenv("EDGEMEM_TEST_BACKTRACE"); bt != nullptr && bt[0] == '1') {
    std::signal(SIGSEGV, print_backtrace);
    std::signal(SIGABRT, print_backtrace);
    std::signal(SIGBUS, print_backtrace);
  }
#endif
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  const int result = context.run();
  if (context.shouldExit()) return result;
  if (g_skipped_cases != 0)
    std::printf("%d test case(s) skipped at run time (counted as passed by doctest; named above)\n", g_skipped_cases);
  if (edgemem::live_objects_enabled) {
    if (g_leaking_cases != 0) {
      std::fprintf(stderr, "%d test case pass(es) ended with live edgemem objects\n", g_leaking_cases);
      return result != 0 ? result : 1;
    }
    std::printf("live-object counters: every test case ended at zero\n");
  }
  return result;
}
