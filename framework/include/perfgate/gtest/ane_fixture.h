// GoogleTest fixture and assertions for the ANE KernelDMA 1 MiB notch.
//
//   class AneDmaNotch : public perfgate::testing::AneNotchFixture {
//     perfgate::testing::AneSuiteConfig Config() const override { return MyConfig(); }
//   };
//   TEST_F(AneDmaNotch, M5) {
//     const perfgate::ane::NotchResult* r = Replay("m5");
//     ASSERT_NE(r, nullptr);
//     PERFGATE_EXPECT_NOTCH_CLASS(*r, "m3_class_notch");
//     PERFGATE_EXPECT_NOTCH_MATCHES_GOLDEN(*r);
//   }
//
// Replay() reads a recording (a native run's report.json or an eval-samples JSON)
// anywhere. RecordOrReplay() measures this machine on macOS with an Apple Neural
// Engine and replays elsewhere; with neither a device nor a recording it skips with
// the reason. Failed assertions print a table (metric, expected, actual, ratio,
// borderline, chip, source) and record the figures with RecordProperty. No message
// contains gtest's skip marker.
#ifndef PERFGATE_GTEST_ANE_FIXTURE_H_
#define PERFGATE_GTEST_ANE_FIXTURE_H_

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "perfgate/ane/notch.h"
#include "perfgate/ane/probe.h"
#include "perfgate/golden/golden.h"
#include "perfgate/gtest/internal/explained.h"

namespace perfgate::testing {

struct AneSuiteConfig {
  std::string suite;           // e.g. "ane_dma_notch"
  std::string recordings_dir;  // default; PERFGATE_RECORDINGS overrides
  std::string golden_dir;      // golden/<suite>; PERFGATE_GOLDEN_DIR overrides
  ane::Thresholds thresholds;  // the suite's class edges and borderline margins
  // Under CI (core/environment.h) a host measurement that can neither run nor replay
  // fails, like a suite's missing recording, unless this is set (a suite that measures
  // the host deliberately skips on machines without an ANE) or PERFGATE_ALLOW_SKIP=1.
  bool allow_skip = false;
};

class AneNotchFixture : public ::testing::Test {
 protected:
  virtual AneSuiteConfig Config() const = 0;

  void SetUp() override;

  // Replays <recordings>/<name>.json under the suite's thresholds. A missing or bad
  // recording fails the test and returns nullptr. Results are cached per program.
  const ane::NotchResult* Replay(const std::string& name);

  // This machine's notch for `scan`:
  //  - on macOS with an ANE (unless PERFGATE_RECORD=0): a native run in a fresh
  //    directory under PERFGATE_ANE_RUN_DIR (default: the temp directory); with
  //    PERFGATE_RECORD=1 its report.json is also kept as <recordings>/<name>.json;
  //  - elsewhere: <recordings>/<name>.json when it exists;
  //  - else the test is skipped with the reason, and nullptr returned: write
  //    `if (r == nullptr) return;` (an ASSERT after a skip would fail the test).
  //    Under CI that fails instead, unless AneSuiteConfig::allow_skip or
  //    PERFGATE_ALLOW_SKIP=1 allows the skip.
  // PERFGATE_RECORD=1 where recording is impossible fails the test (never a silent
  // replay).
  const ane::NotchResult* RecordOrReplay(const std::string& name, const ane::LatticeScan& scan = ane::StockScan());

  const AneSuiteConfig& config() const { return config_; }
  std::string RecordingPath(const std::string& name) const;
  // <golden_dir>/<current test name>.json.
  std::string GoldenPath() const;
  // Compares NotchGoldenOf(result) with GoldenPath(); PERFGATE_UPDATE_GOLDEN=new|all
  // writes it instead (refused under CI unless forced).
  ::testing::AssertionResult MatchesGolden(const ane::NotchResult& result) const;

 private:
  AneSuiteConfig config_;
};

// The class is exactly `expected` ("no_notch", "milder_1mib_slowdown",
// "m3_class_notch", "host_dominated_invalid"). An unknown name fails.
::testing::AssertionResult NotchClassIs(const ane::NotchResult& result, const std::string& expected);
// The class is at least `floor` on no_notch < milder_1mib_slowdown < m3_class_notch;
// host_dominated_invalid never satisfies it (as actual or as floor).
::testing::AssertionResult NotchClassAtLeast(const ane::NotchResult& result, const std::string& floor);
// The borderline flag is `expected`.
::testing::AssertionResult NotchBorderlineIs(const ane::NotchResult& result, bool expected);

// A result's figures as golden values: ratio_on_over_off (noisy, 5 %, both
// directions), class_rank (exact; 0 no_notch, 1 milder, 2 m3_class, 3
// host_dominated_invalid), borderline (exact 0/1), per side (on/off) median_eval_us
// (noisy 10 %, lower is better) with its samples, gbps_weight_payload (noisy 10 %,
// higher is better) and bytes_per_core (exact), and corrected_ratio when the run
// measured the dispatch overhead. Context (never compared): chip, hw_model,
// ane_cores, ane_subtype, os, timing_path, class_name, source file name, source note.
golden::GoldenFile NotchGoldenOf(const ane::NotchResult& result);

// The table failed assertions print: metric, expected, actual, ratio, borderline,
// chip, source; then the medians, the timing path and the thresholds.
std::string NotchTable(const ane::NotchResult& result, const std::string& metric, const std::string& expected,
                       const std::string& actual);

}  // namespace perfgate::testing

#define PERFGATE_EXPECT_NOTCH_CLASS(result, expected) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::NotchClassIs(result, expected))
#define PERFGATE_ASSERT_NOTCH_CLASS(result, expected) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::NotchClassIs(result, expected))
#define PERFGATE_EXPECT_NOTCH_CLASS_AT_LEAST(result, floor) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::NotchClassAtLeast(result, floor))
#define PERFGATE_ASSERT_NOTCH_CLASS_AT_LEAST(result, floor) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::NotchClassAtLeast(result, floor))
#define PERFGATE_EXPECT_NOTCH_BORDERLINE(result, expected) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::NotchBorderlineIs(result, expected))
#define PERFGATE_ASSERT_NOTCH_BORDERLINE(result, expected) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::NotchBorderlineIs(result, expected))
// Inside an AneNotchFixture test.
#define PERFGATE_EXPECT_NOTCH_MATCHES_GOLDEN(result) PERFGATE_INTERNAL_EXPECT(MatchesGolden(result))
#define PERFGATE_ASSERT_NOTCH_MATCHES_GOLDEN(result) PERFGATE_INTERNAL_ASSERT(MatchesGolden(result))

#endif  // PERFGATE_GTEST_ANE_FIXTURE_H_
