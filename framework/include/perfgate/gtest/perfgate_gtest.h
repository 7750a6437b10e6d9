// GoogleTest fixtures and one-line assertions for perf-regression suites.
//
//   class Hf2qDecode : public perfgate::testing::PerfSuiteFixture {
//     perfgate::testing::SuiteConfig Config() const override { return MySuite(); }
//   };
//   TEST_F(Hf2qDecode, Budget) { PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine("hf2q"), 45); }
//
// Each PERFGATE_EXPECT_* has a PERFGATE_ASSERT_* twin that ends the test on failure.
// Every failed assertion prints a table (metric, budget/limit/baseline, current, Δ, Δ%,
// tolerance, p-value, n, verdict) and its legend line with the recordings it read, in
// the source's words (kernels for trace-event JSON, submissions for Metal), and records
// its figures with RecordProperty, losslessly, so they reach the gtest XML/JSON output.
// No message ever contains gtest's skip marker, so CTest cannot mistake a failure for a
// skip.
#ifndef PERFGATE_GTEST_PERFGATE_GTEST_H_
#define PERFGATE_GTEST_PERFGATE_GTEST_H_

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "perfgate/attribution/summary.h"
#include "perfgate/gates/judge.h"
#include "perfgate/gates/verdict.h"
#include "perfgate/golden/golden.h"
#include "perfgate/gtest/kernel_report.h"
#include "perfgate/gtest/toks_ratio.h"
#include "perfgate/suite/suite.h"
#include "perfgate/gtest/internal/explained.h"

namespace perfgate::testing {

// Replays (or, where possible, records) the suite's recordings once per program and
// hands each test the per-engine summaries, whatever source they were recorded with.
// A bad recording fails; a missing one fails under CI and skips elsewhere (see
// perfgate/suite/suite.h).
class PerfSuiteFixture : public ::testing::Test {
 protected:
  // The suite's engines, baseline and directories.
  virtual SuiteConfig Config() const = 0;

  void SetUp() override;
  // Appends the test's run (every engine's figures and level tables) to the results
  // history when one is named (SuiteConfig::history, PERFGATE_HISTORY); under CI a
  // store that cannot be written fails the test. A fixture that overrides TearDown
  // calls this one.
  void TearDown() override;

  const SuiteData& data() const { return *data_; }
  // The engine's summary; an unknown name fails the test, listing the suite's engines
  // (and the empty summary returned fails every perfgate assertion too).
  const attribution::EngineSummary& engine(const std::string& name) const;
  // First engine versus the baseline; the test fails when the suite has no baseline.
  const attribution::Comparison& comparison() const;
  // golden/<suite>/<current test name>.json; PERFGATE_GOLDEN_DIR replaces golden/<suite>.
  std::string GoldenPath() const;
  // The golden file of one engine in the current test: <test>.json when it is that
  // engine's (its context names it) or the test's only check, else <test>.<engine>.json,
  // so each engine checked in one test has a file of its own.
  std::string GoldenPathFor(const std::string& engine_name) const;
  // Compares every figure of the engine with its golden under the catalogue's default
  // policies (metrics::EngineGolden); PERFGATE_UPDATE_GOLDEN=new|all writes it instead
  // (refused under CI unless forced). Checking one engine twice in a test fails.
  ::testing::AssertionResult MatchesGolden(const std::string& engine_name) const;

 private:
  std::shared_ptr<const SuiteData> data_;
  std::string golden_dir_;
  std::string suite_;
  std::string history_;  // SuiteConfig::history
  mutable std::map<std::string, std::string> golden_checked_;  // engine -> golden path, this test
};

// --- budgets on exact (count) metrics -------------------------------------------

// Median submissions per token over trials is at most `budget`.
::testing::AssertionResult SubmissionsPerTokenAtMost(const attribution::EngineSummary& engine, double budget);
// Median submissions per token equals `expected` within `tolerance`.
::testing::AssertionResult SubmissionsPerTokenExactly(const attribution::EngineSummary& engine, double expected,
                                                      double tolerance = 0);
// Per phase (normalised command-buffer label): submissions, CBs and GPU µs per token.
::testing::AssertionResult PhaseSubmissionsPerTokenAtMost(const attribution::EngineSummary& engine,
                                                          const std::string& phase, double budget);
::testing::AssertionResult PhaseCbsPerTokenAtMost(const attribution::EngineSummary& engine, const std::string& phase,
                                                  double budget);
::testing::AssertionResult PhaseGpuUsPerTokenAtMost(const attribution::EngineSummary& engine,
                                                    const std::string& phase, double budget_us);

// Any catalogued metric by its golden path ("buckets/md_8_32us/us_per_token",
// "phases/layer.attn/cbs_per_token", metrics/catalogue.h): its median is at most
// `limit`. An unknown metric fails, listing the engine's metrics of that scope.
::testing::AssertionResult MetricAtMost(const attribution::EngineSummary& engine, const std::string& metric,
                                        double limit);

// --- the engine's own counters (counters.txt beside each trial) -----------------

// The engine's own counter `counter` (its counter reports' median) at most `limit`,
// exact (no tolerance). Fails on an engine without counter reports, saying where a
// trial's counters.txt goes, and on an unknown counter, listing the engine's.
::testing::AssertionResult CounterAtMost(const attribution::EngineSummary& engine, const std::string& counter,
                                         double limit);
// Kernel dispatches per token at most `budget`: the engine's own count
// (counters/dispatches_per_token) where it has one, else the kernels per token of a
// kernel trace (extras/kernels_per_token). A Metal trace without counters fails: it
// counts submissions, not dispatches.
::testing::AssertionResult DispatchesPerTokenAtMost(const attribution::EngineSummary& engine, double budget);

// --- host launches (sources that record them: trace-event JSON) ----------------

// Median host launch calls per token (kernel launches plus graph launches,
// extras/launches_per_token) is at most `budget`. An engine whose source records no
// launches (Metal) fails, saying so and listing the figures it has.
::testing::AssertionResult LaunchesPerTokenAtMost(const attribution::EngineSummary& engine, double budget);
// Median CUDA-graph launches per token (extras/graph_launches_per_token) is at most
// `budget`; fails the same way where the source records none.
::testing::AssertionResult GraphLaunchesPerTokenAtMost(const attribution::EngineSummary& engine, double budget);

// --- what changed ------------------------------------------------------------------

// Every failing assertion and golden check appends the top movers of each level
// (bucket, family, phase, kernel) by |Δ µs/token|, headed by what explains most of
// the failing figure (perfgate/diff/diff.h): engine against baseline for deltas,
// against the golden for golden checks, and for budgets against the engine's golden
// in the suite's golden directory, else the suite's baseline.
inline constexpr size_t kDefaultTopMovers = 5;
// Movers per level from now on (0: none); nullopt: back to PERFGATE_TOP_MOVERS (a
// count for a run), else kDefaultTopMovers. A count set here wins over the variable.
void SetTopMovers(std::optional<size_t> n);

// Records a figure of a test (RecordProperty) in shortest round-trip form, as every
// assertion does, so the gtest XML/JSON output reads back as exactly `value`.
void RecordFigure(const std::string& key, double value);

// --- engine versus baseline (noisy metrics, per-trial rank test) ----------------

// The bucket's µs/token exceeds the baseline's by at most `max_delta_us` (absolute) ...
::testing::AssertionResult BucketDeltaAtMostUs(const attribution::EngineSummary& engine,
                                               const attribution::EngineSummary& baseline,
                                               const std::string& bucket, double max_delta_us);
// ... or by at most `max_delta_pct` percent of the baseline's.
::testing::AssertionResult BucketDeltaAtMostPercent(const attribution::EngineSummary& engine,
                                                    const attribution::EngineSummary& baseline,
                                                    const std::string& bucket, double max_delta_pct);
// A family's GPU µs/token (encoder family for Metal, kernel family for trace JSON)
// exceeds the baseline's by at most `max_delta_pct` percent (a family one side lacks
// counts as 0 there).
::testing::AssertionResult FamilyDeltaAtMostPercent(const attribution::EngineSummary& engine,
                                                    const attribution::EngineSummary& baseline,
                                                    const std::string& family, double max_delta_pct);
// Total GPU µs/token of engine over baseline is at most `max_ratio`.
::testing::AssertionResult GpuTimeRatioAtMost(const attribution::EngineSummary& engine,
                                              const attribution::EngineSummary& baseline, double max_ratio);
// The per-trial values `current` show no regression against `baseline` under
// `policy` (gates::Judge); INCONCLUSIVE fails too, saying how many trials decide.
::testing::AssertionResult NoRegression(const std::string& metric, const std::vector<double>& baseline,
                                        const std::vector<double>& current, const gates::Policy& policy);

// --- goldens ------------------------------------------------------------------------

// Every figure of an engine as golden values with the catalogue's default policies
// (metrics::EngineGolden): counts per token exact within 0.5; GPU µs/token noisy (5 %,
// floor 20 µs, lower is better); per bucket and phase µs/token noisy (10 %, floor
// 20 µs); kernel families exact. `context` is recorded and never compared.
golden::GoldenFile GoldenOf(const attribution::EngineSummary& engine,
                            std::map<std::string, std::string> context = {});

// Checks `actual` against the golden file under the update mode of the environment;
// failures state what changed in the golden's shape (golden::RootCauses), then list
// each field by name with the tolerance that failed. Under CI (core/environment.h)
// `<test>.actual.json` is written on every run, pass or fail, for upload as an
// artifact; elsewhere only on a mismatch or a missing golden.
::testing::AssertionResult MatchesGolden(const std::string& golden_path, const golden::GoldenFile& actual,
                                         const std::string& accept_command);

// The command a golden failure prints to accept the figures of one test, as the README
// gives it: PERFGATE_UPDATE_GOLDEN=all ctest --no-tests=error -R '<TestSuite>.<Test>'.
std::string GoldenAcceptCommand(const std::string& test_name);

// The golden directory in force: PERFGATE_GOLDEN_DIR when set, else `default_dir` (the
// suite's golden/<suite>). PerfSuiteFixture and suites of report files share it.
std::string GoldenDir(const std::string& default_dir);

// <GoldenDir(default_dir)>/<current test name>.json, the golden of the running test.
std::string CurrentTestGoldenPath(const std::string& default_dir);

// --- kernel registry --------------------------------------------------------------

::testing::AssertionResult KernelFamilyPresent(const attribution::EngineSummary& engine, const std::string& family);
::testing::AssertionResult KernelFamilyAbsent(const attribution::EngineSummary& engine, const std::string& family);

}  // namespace perfgate::testing

// The assertions, one per check above: PERFGATE_EXPECT_X continues the test after a
// failure, PERFGATE_ASSERT_X ends it. A failure's message is the check's own, first word
// first (perfgate/gtest/internal/explained.h).

// Any perfgate check, a call that returns ::testing::AssertionResult, e.g.
// PERFGATE_EXPECT(perfgate::testing::MatchesGolden(path, actual, accept)).
#define PERFGATE_EXPECT(check) PERFGATE_INTERNAL_EXPECT(check)
#define PERFGATE_ASSERT(check) PERFGATE_INTERNAL_ASSERT(check)
#define PERFGATE_EXPECT_COUNTER_AT_MOST(engine, counter, limit) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::CounterAtMost(engine, counter, limit))
#define PERFGATE_ASSERT_COUNTER_AT_MOST(engine, counter, limit) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::CounterAtMost(engine, counter, limit))
#define PERFGATE_EXPECT_DISPATCHES_PER_TOKEN_AT_MOST(engine, budget) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::DispatchesPerTokenAtMost(engine, budget))
#define PERFGATE_ASSERT_DISPATCHES_PER_TOKEN_AT_MOST(engine, budget) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::DispatchesPerTokenAtMost(engine, budget))
#define PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine, budget) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::SubmissionsPerTokenAtMost(engine, budget))
#define PERFGATE_ASSERT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine, budget) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::SubmissionsPerTokenAtMost(engine, budget))
#define PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_EXACTLY(engine, expected) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::SubmissionsPerTokenExactly(engine, expected))
#define PERFGATE_ASSERT_SUBMISSIONS_PER_TOKEN_EXACTLY(engine, expected) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::SubmissionsPerTokenExactly(engine, expected))
#define PERFGATE_EXPECT_PHASE_SUBMISSIONS_PER_TOKEN_AT_MOST(engine, phase, budget) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::PhaseSubmissionsPerTokenAtMost(engine, phase, budget))
#define PERFGATE_ASSERT_PHASE_SUBMISSIONS_PER_TOKEN_AT_MOST(engine, phase, budget) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::PhaseSubmissionsPerTokenAtMost(engine, phase, budget))
#define PERFGATE_EXPECT_PHASE_CBS_PER_TOKEN_AT_MOST(engine, phase, budget) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::PhaseCbsPerTokenAtMost(engine, phase, budget))
#define PERFGATE_ASSERT_PHASE_CBS_PER_TOKEN_AT_MOST(engine, phase, budget) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::PhaseCbsPerTokenAtMost(engine, phase, budget))
#define PERFGATE_EXPECT_PHASE_GPU_US_PER_TOKEN_AT_MOST(engine, phase, budget_us) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::PhaseGpuUsPerTokenAtMost(engine, phase, budget_us))
#define PERFGATE_ASSERT_PHASE_GPU_US_PER_TOKEN_AT_MOST(engine, phase, budget_us) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::PhaseGpuUsPerTokenAtMost(engine, phase, budget_us))
#define PERFGATE_EXPECT_LAUNCHES_PER_TOKEN_AT_MOST(engine, budget) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::LaunchesPerTokenAtMost(engine, budget))
#define PERFGATE_ASSERT_LAUNCHES_PER_TOKEN_AT_MOST(engine, budget) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::LaunchesPerTokenAtMost(engine, budget))
#define PERFGATE_EXPECT_GRAPH_LAUNCHES_PER_TOKEN_AT_MOST(engine, budget) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::GraphLaunchesPerTokenAtMost(engine, budget))
#define PERFGATE_ASSERT_GRAPH_LAUNCHES_PER_TOKEN_AT_MOST(engine, budget) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::GraphLaunchesPerTokenAtMost(engine, budget))
#define PERFGATE_EXPECT_METRIC_AT_MOST(engine, metric, limit) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::MetricAtMost(engine, metric, limit))
#define PERFGATE_ASSERT_METRIC_AT_MOST(engine, metric, limit) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::MetricAtMost(engine, metric, limit))
#define PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_US(engine, baseline, bucket, us) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::BucketDeltaAtMostUs(engine, baseline, bucket, us))
#define PERFGATE_ASSERT_BUCKET_DELTA_AT_MOST_US(engine, baseline, bucket, us) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::BucketDeltaAtMostUs(engine, baseline, bucket, us))
#define PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_PERCENT(engine, baseline, bucket, pct) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::BucketDeltaAtMostPercent(engine, baseline, bucket, pct))
#define PERFGATE_ASSERT_BUCKET_DELTA_AT_MOST_PERCENT(engine, baseline, bucket, pct) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::BucketDeltaAtMostPercent(engine, baseline, bucket, pct))
#define PERFGATE_EXPECT_FAMILY_DELTA_AT_MOST_PERCENT(engine, baseline, family, pct) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::FamilyDeltaAtMostPercent(engine, baseline, family, pct))
#define PERFGATE_ASSERT_FAMILY_DELTA_AT_MOST_PERCENT(engine, baseline, family, pct) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::FamilyDeltaAtMostPercent(engine, baseline, family, pct))
#define PERFGATE_EXPECT_GPU_TIME_RATIO_AT_MOST(engine, baseline, ratio) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::GpuTimeRatioAtMost(engine, baseline, ratio))
#define PERFGATE_ASSERT_GPU_TIME_RATIO_AT_MOST(engine, baseline, ratio) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::GpuTimeRatioAtMost(engine, baseline, ratio))
#define PERFGATE_EXPECT_MATCHES_GOLDEN(engine_name) PERFGATE_INTERNAL_EXPECT(MatchesGolden(engine_name))
#define PERFGATE_ASSERT_MATCHES_GOLDEN(engine_name) PERFGATE_INTERNAL_ASSERT(MatchesGolden(engine_name))
#define PERFGATE_EXPECT_KERNEL_FAMILY_PRESENT(engine, family) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::KernelFamilyPresent(engine, family))
#define PERFGATE_ASSERT_KERNEL_FAMILY_PRESENT(engine, family) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::KernelFamilyPresent(engine, family))
#define PERFGATE_EXPECT_KERNEL_FAMILY_ABSENT(engine, family) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::KernelFamilyAbsent(engine, family))
#define PERFGATE_ASSERT_KERNEL_FAMILY_ABSENT(engine, family) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::KernelFamilyAbsent(engine, family))

#endif  // PERFGATE_GTEST_PERFGATE_GTEST_H_
