// Hand-computed cases for every verdict branch. Exact Mann-Whitney p-values are
// counts of arrangements over C(10, 5) = 252 (5 vs 5) or C(6, 3) = 20 (3 vs 3).
#include "perfgate/gates/verdict.h"

#include "perfgate/gates/judge.h"
#include "gates/statistics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace perfgate::gates {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Built at run time so that a failed assertion never prints the CTest skip marker.
std::string SkipMarker() { return std::string("[  SKIP") + "PED ]"; }

// hf2q iter22 trial medians, with 5 tie-free trials around 9735.6 µs/token.
const std::vector<double> kBaseline = {9700.0, 9720.0, 9735.6, 9750.0, 9760.0};
// The same trials +10.265 % (every current trial above every baseline trial).
const std::vector<double> kRegressed = {10700.0, 10720.0, 10735.0, 10750.0, 10760.0};

NoisyPolicy GpuPolicy() {
  NoisyPolicy p;
  p.min_abs_effect = 20;  // µs/token
  return p;
}

TEST(VerdictName, AllFour) {
  EXPECT_EQ(VerdictName(Verdict::kSame), "same");
  EXPECT_EQ(VerdictName(Verdict::kRegressed), "regressed");
  EXPECT_EQ(VerdictName(Verdict::kImproved), "improved");
  EXPECT_EQ(VerdictName(Verdict::kInconclusive), "inconclusive");
}

TEST(JudgeNoisy, DefaultsAreDocumented) {
  NoisyPolicy p;
  EXPECT_EQ(p.alpha, 0.05);
  EXPECT_EQ(p.min_rel_effect, 0.05);
  EXPECT_EQ(p.min_abs_effect, 0);
  EXPECT_EQ(p.direction, Direction::kLowerIsBetter);
  EXPECT_EQ(kRecommendedTrialsPerSide, 5);
}

TEST(JudgeNoisy, SeparatedTenPercentIsRegressed) {
  MetricVerdict v = JudgeNoisy("gpu_us_per_token", kBaseline, kRegressed, GpuPolicy());
  EXPECT_EQ(v.verdict, Verdict::kRegressed);
  EXPECT_EQ(v.metric, "gpu_us_per_token");
  EXPECT_EQ(v.baseline, 9735.6);
  EXPECT_EQ(v.current, 10735.0);
  EXPECT_NEAR(v.delta, 999.4, 1e-9);
  ASSERT_TRUE(v.delta_pct.has_value());
  EXPECT_NEAR(*v.delta_pct, 100 * 999.4 / 9735.6, 1e-9);
  EXPECT_NEAR(v.threshold, 0.05 * 9735.6, 1e-9);  // rel beats the 20 µs floor
  ASSERT_TRUE(v.p_value.has_value());
  EXPECT_NEAR(*v.p_value, 2.0 / 252, 1e-12);  // 0.0079365: the only more extreme split is the mirror
  EXPECT_FALSE(v.raw_p_value.has_value());
  EXPECT_NEAR(*v.min_attainable_p, 2.0 / 252, 1e-12);
  EXPECT_EQ(v.n_baseline, 5);
  EXPECT_EQ(v.n_current, 5);
  EXPECT_EQ(v.baseline_spread, 60);
  EXPECT_EQ(v.current_spread, 60);
  EXPECT_EQ(v.more_trials_needed, 0);
  EXPECT_EQ(v.explanation,
            "gpu_us_per_token 10735 vs 9735.6 (+10.3 %, limit +5.0 %, p = 0.008, n 5 vs 5): regressed");
}

TEST(JudgeNoisy, SeparatedTenPercentFasterIsImproved) {
  MetricVerdict v = JudgeNoisy("gpu_us_per_token", kRegressed, kBaseline, GpuPolicy());
  EXPECT_EQ(v.verdict, Verdict::kImproved);
  EXPECT_NEAR(*v.p_value, 2.0 / 252, 1e-12);
  EXPECT_NEAR(*v.delta_pct, -100 * 999.4 / 10735.0, 1e-9);
  EXPECT_EQ(v.explanation,
            "gpu_us_per_token 9735.6 vs 10735 (-9.3 %, limit +5.0 %, p = 0.008, n 5 vs 5): improved");
}

TEST(JudgeNoisy, SignificantButTinyChangeIsSame) {
  // +1 % with full separation: p = 2/252 <= 0.05, but 1.0 < 5 % of 100.2 = 5.01.
  MetricVerdict v = JudgeNoisy("gpu_us_per_token", {100.0, 100.1, 100.2, 100.3, 100.4},
                               {101.0, 101.1, 101.2, 101.3, 101.4});
  EXPECT_EQ(v.verdict, Verdict::kSame);
  EXPECT_NEAR(*v.p_value, 2.0 / 252, 1e-12);
  EXPECT_NEAR(v.delta, 1.0, 1e-9);
  EXPECT_NEAR(v.threshold, 5.01, 1e-9);
  EXPECT_EQ(v.more_trials_needed, 0);
  EXPECT_EQ(v.explanation,
            "gpu_us_per_token 101.2 vs 100.2 (+1.0 %, limit +5.0 %, p = 0.008, n 5 vs 5): same "
            "(change below the minimum effect 5.01)");
}

TEST(JudgeNoisy, AbsoluteFloorRaisesTheMinimumEffect) {
  // +10 % of ~100 µs is 10 µs, below a 20 µs floor: significant, yet same.
  NoisyPolicy policy = GpuPolicy();
  MetricVerdict v = JudgeNoisy("phase_us_per_token", {100, 101, 102, 103, 104},
                               {110, 111, 112, 113, 114}, policy);
  EXPECT_EQ(v.verdict, Verdict::kSame);
  EXPECT_EQ(v.threshold, 20);
  EXPECT_THAT(v.explanation, HasSubstr("limit +19.6 %"));  // 20 / 102
  policy.min_abs_effect = 0;
  EXPECT_EQ(JudgeNoisy("phase_us_per_token", {100, 101, 102, 103, 104}, {110, 111, 112, 113, 114}, policy)
                .verdict,
            Verdict::kRegressed);
}

TEST(JudgeNoisy, ThreeVersusThreeIsAlwaysInconclusive) {
  // Fully separated 10 %: p = 2/20 = 0.1, the smallest 3 vs 3 can reach, > 0.05.
  MetricVerdict v = JudgeNoisy("gpu_us_per_token", {100, 101, 102}, {110, 111, 112});
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_NEAR(*v.p_value, 0.1, 1e-12);
  EXPECT_NEAR(*v.min_attainable_p, 0.1, 1e-12);
  // 4 vs 4 reaches 2/70 = 0.029, and at pooled sd 1 a 10-unit shift has ~100 % power.
  EXPECT_EQ(v.more_trials_needed, 1);
  EXPECT_EQ(v.explanation,
            "gpu_us_per_token 111 vs 101 (+9.9 %, limit +5.0 %, p = 0.100, n 3 vs 3): inconclusive "
            "(n 3 vs 3 cannot reach alpha = 0.05 (smallest possible p = 0.100), so no verdict, not even "
            "same; about 1 more trial per side)");

  // A tiny change is not "same" either: the sample could not have seen anything.
  MetricVerdict tiny = JudgeNoisy("gpu_us_per_token", {100, 101, 102}, {100.5, 101.5, 102.5});
  EXPECT_EQ(tiny.verdict, Verdict::kInconclusive);
  EXPECT_EQ(tiny.more_trials_needed, 1);
  EXPECT_THAT(tiny.explanation, HasSubstr("cannot reach alpha = 0.05"));
}

TEST(JudgeNoisy, OverlappingSmallChangeIsSame) {
  // Interleaved: U = 10 of 25, p = 174/252 = 0.690; Δ = 1 < 5.2.
  MetricVerdict v = JudgeNoisy("gpu_us_per_token", {100, 102, 104, 106, 108}, {101, 103, 105, 107, 109});
  EXPECT_EQ(v.verdict, Verdict::kSame);
  EXPECT_NEAR(*v.p_value, 174.0 / 252, 1e-12);
  EXPECT_THAT(v.explanation, HasSubstr("p = 0.690, n 5 vs 5): same (change below the minimum effect 5.2)"));
}

TEST(JudgeNoisy, NotSignificantWithPowerIsSame) {
  // Bimodal trials whose medians sit in different modes (Δ = -5.895, floor 5) while the
  // ranks balance: U = 221 of 441, z = (221 - 220.5 - 0.5) / σ = 0, p = 1. Pooled sd 3.07
  // at 21 per side gives ~100 % power for a 5-unit shift: SAME, not inconclusive.
  std::vector<double> base, cur;
  for (int i = 0; i < 10; ++i) base.push_back(97.0 + 0.01 * i);
  for (int i = 0; i < 11; ++i) base.push_back(103.0 + 0.01 * i);
  for (int i = 0; i < 11; ++i) cur.push_back(97.005 + 0.01 * i);
  for (int i = 0; i < 10; ++i) cur.push_back(103.005 + 0.01 * i);
  NoisyPolicy policy;
  policy.min_rel_effect = 0;
  policy.min_abs_effect = 5;
  MetricVerdict v = JudgeNoisy("bimodal", base, cur, policy);
  EXPECT_EQ(v.verdict, Verdict::kSame);
  EXPECT_NEAR(v.delta, -5.895, 1e-9);
  EXPECT_NEAR(*v.p_value, 1.0, 1e-12);
  EXPECT_THAT(v.explanation, HasSubstr("same (not significant, with 100 % power to detect the minimum effect 5)"));
}

TEST(JudgeNoisy, NotSignificantWithoutPowerIsInconclusive) {
  // Δ = 6 >= 5 but U = 7, p = 78/252 = 0.310. Pooled sd 6.546: power at 5 with 5/5 is
  // Φ(5 / (6.546 · sqrt(2/5) / sqrt(3/π)) - 1.96) = 22 %; 80 % for the observed 6 needs
  // 20 per side, 15 more.
  MetricVerdict v = JudgeNoisy("gpu_us_per_token", {92, 97, 100, 103, 108}, {95, 101, 106, 109, 113});
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_NEAR(*v.p_value, 78.0 / 252, 1e-12);
  EXPECT_EQ(v.more_trials_needed, 15);
  EXPECT_THAT(v.explanation,
              HasSubstr("inconclusive (not significant, but only 22 % power to detect the minimum effect 5 "
                        "at the measured spread; about 15 more trials per side)"));
}

TEST(JudgeNoisy, HugeSpreadNeedsMoreThanTheCap) {
  // Δ = 8, pooled sd 15.7: 80 % power needs ~63 per side.
  MetricVerdict v = JudgeNoisy("gpu_us_per_token", {80, 95, 100, 110, 120}, {90, 104, 108, 125, 130});
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_NEAR(*v.p_value, 106.0 / 252, 1e-12);
  EXPECT_EQ(v.more_trials_needed, kMoreTrialsCap + 1);
  EXPECT_THAT(v.explanation, HasSubstr("more than 50 more trials per side"));
}

TEST(JudgeNoisy, HigherIsBetterFlipsTheDirection) {
  NoisyPolicy policy;
  policy.direction = Direction::kHigherIsBetter;
  const std::vector<double> fast = {100, 101, 102, 103, 104};
  const std::vector<double> slow = {90, 91, 92, 93, 94};
  MetricVerdict worse = JudgeNoisy("tokens_per_s", fast, slow, policy);
  EXPECT_EQ(worse.verdict, Verdict::kRegressed);
  EXPECT_EQ(worse.explanation,
            "tokens_per_s 92 vs 102 (-9.8 %, limit -5.0 %, p = 0.008, n 5 vs 5): regressed");
  EXPECT_EQ(JudgeNoisy("tokens_per_s", slow, fast, policy).verdict, Verdict::kImproved);
}

TEST(JudgeNoisy, ZeroBaselineUsesAbsoluteUnits) {
  NoisyPolicy policy;
  policy.min_abs_effect = 0.5;
  MetricVerdict v = JudgeNoisy("drift", {-0.2, -0.1, 0, 0.1, 0.2}, {0.8, 0.9, 1.0, 1.1, 1.2}, policy);
  EXPECT_EQ(v.verdict, Verdict::kRegressed);
  EXPECT_FALSE(v.delta_pct.has_value());
  EXPECT_EQ(v.explanation, "drift 1 vs 0 (+1, limit +0.5, p = 0.008, n 5 vs 5): regressed");
}

TEST(JudgeNoisy, BadInputFailsClosed) {
  MetricVerdict empty = JudgeNoisy("m", {}, {1, 2, 3, 4, 5});
  EXPECT_EQ(empty.verdict, Verdict::kInconclusive);
  EXPECT_EQ(empty.more_trials_needed, 3);  // 3 vs 8 reaches 2/165 = 0.012
  EXPECT_EQ(empty.explanation, "m 3 vs 0 (n 0 vs 5): inconclusive (no baseline trials)");

  MetricVerdict nan = JudgeNoisy("m", {1, 2, std::numeric_limits<double>::quiet_NaN(), 4, 5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(nan.verdict, Verdict::kInconclusive);
  EXPECT_EQ(nan.more_trials_needed, 0);  // fix the input; more trials will not help
  EXPECT_EQ(nan.explanation, "m 3 vs 3 (n 5 vs 5): inconclusive (a trial value is not finite)");

  NoisyPolicy bad;
  bad.alpha = 0;
  MetricVerdict invalid = JudgeNoisy("m", kBaseline, kRegressed, bad);
  EXPECT_EQ(invalid.verdict, Verdict::kInconclusive);
  EXPECT_EQ(invalid.more_trials_needed, 0);
  EXPECT_THAT(invalid.explanation, HasSubstr("invalid policy"));
  bad = NoisyPolicy{};
  bad.min_rel_effect = -0.05;
  EXPECT_EQ(JudgeNoisy("m", kBaseline, kRegressed, bad).verdict, Verdict::kInconclusive);
}

TEST(JudgeNoisy, OneVersusOnePlansForAlphaOnly) {
  // No spread can be measured from one trial a side: plan for 4 vs 4 (2/70 <= 0.05).
  MetricVerdict v = JudgeNoisy("m", {100}, {120});
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_NEAR(*v.min_attainable_p, 1.0, 1e-12);
  EXPECT_EQ(v.more_trials_needed, 3);
}

TEST(JudgeNoisy, ExplanationIsOneLineWithoutSkipMarker) {
  MetricVerdict v = JudgeNoisy("x " + SkipMarker() + "\ny", kBaseline, kRegressed);
  EXPECT_EQ(v.explanation.find(SkipMarker()), std::string::npos) << "skip marker in the explanation";
  EXPECT_EQ(v.explanation.find('\n'), std::string::npos);
  EXPECT_THAT(v.explanation, HasSubstr("x [ SKIPPED ] y 10735"));
}

TEST(JudgeExact, EqualCountsAreSame) {
  MetricVerdict v = JudgeExact("submissions_per_token", {44, 44, 44}, {44, 44, 44});
  EXPECT_EQ(v.verdict, Verdict::kSame);
  EXPECT_FALSE(v.p_value.has_value());
  EXPECT_FALSE(v.min_attainable_p.has_value());
  EXPECT_EQ(v.more_trials_needed, 0);
  EXPECT_EQ(v.explanation, "submissions_per_token 44 vs 44 (+0.0 %, exact, n 3 vs 3): same");
}

TEST(JudgeExact, AnyChangeBeyondTheToleranceIsAFinding) {
  MetricVerdict up = JudgeExact("submissions_per_token", {44, 44, 44}, {46, 46, 46});
  EXPECT_EQ(up.verdict, Verdict::kRegressed);
  EXPECT_EQ(up.delta, 2);
  EXPECT_EQ(up.explanation, "submissions_per_token 46 vs 44 (+4.5 %, exact, n 3 vs 3): regressed");
  EXPECT_EQ(JudgeExact("submissions_per_token", {44}, {43}).verdict, Verdict::kImproved);

  ExactPolicy tol;
  tol.tolerance = 2;
  MetricVerdict within = JudgeExact("command_buffers_per_token", {44, 44, 44}, {46, 46, 46}, tol);
  EXPECT_EQ(within.verdict, Verdict::kSame);
  EXPECT_EQ(within.threshold, 2);
  EXPECT_EQ(within.explanation, "command_buffers_per_token 46 vs 44 (+4.5 %, exact within 2, n 3 vs 3): same");
  EXPECT_EQ(JudgeExact("command_buffers_per_token", {44}, {47}, tol).verdict, Verdict::kRegressed);

  ExactPolicy higher;
  higher.direction = Direction::kHigherIsBetter;
  EXPECT_EQ(JudgeExact("fused_ops", {10}, {9}, higher).verdict, Verdict::kRegressed);
  EXPECT_EQ(JudgeExact("fused_ops", {10}, {11}, higher).verdict, Verdict::kImproved);
}

TEST(JudgeExact, ReportsPerTrialSpread) {
  MetricVerdict v = JudgeExact("submissions_per_token", {44, 45, 44}, {44, 44, 44});
  EXPECT_EQ(v.verdict, Verdict::kSame);  // medians agree
  EXPECT_EQ(v.baseline_spread, 1);
  EXPECT_EQ(v.current_spread, 0);
  EXPECT_EQ(v.explanation,
            "submissions_per_token 44 vs 44 (+0.0 %, exact, n 3 vs 3): same (per-trial values differ: "
            "baseline 44..45; the decode window should be deterministic)");
}

TEST(JudgeExact, BadInputFailsClosed) {
  EXPECT_EQ(JudgeExact("m", {}, {1}).verdict, Verdict::kInconclusive);
  EXPECT_EQ(JudgeExact("m", {1}, {}).explanation, "m 0 vs 1 (exact, n 1 vs 0): inconclusive (no current trials)");
  EXPECT_EQ(JudgeExact("m", {1}, {std::nan("")}).verdict, Verdict::kInconclusive);
  ExactPolicy bad;
  bad.tolerance = -1;
  EXPECT_THAT(JudgeExact("m", {1}, {1}, bad).explanation, HasSubstr("invalid policy"));
}

TEST(HolmAdjust, HandValues) {
  // Sorted 0.01, 0.03, 0.04 -> 3·0.01, max(0.03, 2·0.03), max(0.06, 1·0.04).
  std::vector<double> adj = HolmAdjust({0.01, 0.04, 0.03});
  ASSERT_EQ(adj.size(), 3u);
  EXPECT_NEAR(adj[0], 0.03, 1e-15);
  EXPECT_NEAR(adj[1], 0.06, 1e-15);
  EXPECT_NEAR(adj[2], 0.06, 1e-15);
  EXPECT_TRUE(HolmAdjust({}).empty());
  EXPECT_EQ(HolmAdjust({0.2}), std::vector<double>{0.2});
  // Sorted 0.001, 0.02, 0.3, 0.5 -> 4·0.001, 3·0.02, 2·0.3, max(0.6, 1·0.5): monotone.
  adj = HolmAdjust({0.3, 0.001, 0.5, 0.02});
  EXPECT_NEAR(adj[1], 0.004, 1e-15);
  EXPECT_NEAR(adj[3], 0.06, 1e-15);
  EXPECT_NEAR(adj[0], 0.6, 1e-15);
  EXPECT_NEAR(adj[2], 0.6, 1e-15);
  // Capped at 1: 2·0.6 -> 1, then max(1, 0.7).
  EXPECT_EQ(HolmAdjust({0.6, 0.7}), (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(HolmAdjust({std::nan(""), 0.01}), (std::vector<double>{1.0, 0.02}));
}

TEST(JudgeNoisyFamily, HolmCorrectsTheFamily) {
  // Two 5 vs 5 metrics: one separated (p = 2/252), one interleaved (p = 174/252).
  std::vector<NoisyMetric> family = {
      {"gpu_us_per_token", kBaseline, kRegressed, GpuPolicy()},
      {"cpu_us_per_token", {100, 102, 104, 106, 108}, {101, 103, 105, 107, 109}, {}},
  };
  std::vector<MetricVerdict> v = JudgeNoisyFamily(family);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].verdict, Verdict::kRegressed);
  EXPECT_NEAR(*v[0].p_value, 4.0 / 252, 1e-12);  // 2 · 2/252
  EXPECT_NEAR(*v[0].raw_p_value, 2.0 / 252, 1e-12);
  EXPECT_THAT(v[0].explanation, HasSubstr("p = 0.016 (Holm; raw 0.008), n 5 vs 5): regressed"));
  EXPECT_EQ(v[1].verdict, Verdict::kSame);
  EXPECT_NEAR(*v[1].p_value, 174.0 / 252, 1e-12);  // max(2·2/252, 174/252)
  EXPECT_FALSE(v[1].raw_p_value.has_value());

  // Seven 5 vs 5 metrics: 7 · 2/252 = 0.056 > 0.05, so no metric can be judged, and the
  // estimate asks for 6 vs 6 (7 · 2/924 = 0.015).
  std::vector<NoisyMetric> seven(7, family[0]);
  for (const MetricVerdict& m : JudgeNoisyFamily(seven)) {
    EXPECT_EQ(m.verdict, Verdict::kInconclusive);
    EXPECT_EQ(m.more_trials_needed, 1);
    EXPECT_THAT(m.explanation, HasSubstr("cannot reach alpha = 0.00714"));
  }
  EXPECT_TRUE(JudgeNoisyFamily({}).empty());

  // A member with bad input is inconclusive and counts as p = 1 in the family.
  std::vector<NoisyMetric> with_bad = {family[0], {"broken", {1, std::nan(""), 3}, {1, 2, 3}, {}}, {"empty", {}, {}, {}}};
  std::vector<MetricVerdict> b = JudgeNoisyFamily(with_bad);
  EXPECT_NEAR(*b[0].p_value, 3 * 2.0 / 252, 1e-12);
  EXPECT_EQ(b[1].verdict, Verdict::kInconclusive);
  EXPECT_EQ(b[2].verdict, Verdict::kInconclusive);
}

TEST(Resampling, FixedScheduleOnce) {
  EXPECT_EQ(NextTrialCount(5), 10);
  EXPECT_EQ(NextTrialCount(3), 6);
  EXPECT_EQ(NextTrialCount(2), 5);
  EXPECT_EQ(NextTrialCount(0), 5);
  EXPECT_EQ(NextTrialCount(10), 20);
}

TEST(Resampling, MinimumTrialsPerSide) {
  EXPECT_EQ(MinimumTrialsPerSide(0.05), 4);   // 3/3: 0.1; 4/4: 2/70 = 0.029
  EXPECT_EQ(MinimumTrialsPerSide(0.01), 5);   // 2/252 = 0.0079
  EXPECT_EQ(MinimumTrialsPerSide(0.002), 7);  // 6/6: 2/924 = 0.0022; 7/7: 0.00058
  EXPECT_EQ(MinimumTrialsPerSide(0), 0);
  EXPECT_EQ(MinimumTrialsPerSide(1), 0);
}

TEST(FormatVerdictTable, AlignedColumns) {
  std::vector<MetricVerdict> rows = {
      JudgeNoisy("gpu_us_per_token", kBaseline, kRegressed, GpuPolicy()),
      JudgeNoisy("phase", {100, 101, 102}, {110, 111, 112}),
      JudgeExact("submissions_per_token", {44, 44, 44}, {46, 46, 46}),
  };
  EXPECT_EQ(FormatVerdictTable(rows),
            "metric                 baseline  current       Δ      Δ%  tolerance  p-value       n  verdict\n"
            "gpu_us_per_token         9735.6    10735  +999.4  +10.3%     486.78    0.008  5 vs 5  regressed\n"
            "phase                       101      111     +10   +9.9%       5.05    0.100  3 vs 3  inconclusive\n"
            "submissions_per_token        44       46      +2   +4.5%         +0    exact  3 vs 3  regressed\n"
            "legend: baseline = median of the baseline's trials; Δ = current - baseline; tolerance: minimum effect "
            "max(rel · |baseline|, floor) (timings), largest |Δ| still same (exact counts); p-value: two-sided "
            "Mann-Whitney U over per-trial values, exact = a count, no test; n 5 vs 5 = baseline vs current trials\n");
}

// The column that holds a budget or a limit is called that: a budget once appeared
// under "baseline", which reads as another engine's figure.
TEST(FormatVerdictTable, TheReferenceColumnIsNamedForWhatItHolds) {
  auto header = [](const std::vector<MetricVerdict>& rows) {
    const std::string table = FormatVerdictTable(rows);
    return table.substr(0, table.find('\n'));
  };
  const MetricVerdict budget =
      JudgeLimit("hf2q.submissions_per_token", 47.6, {47.6, 47.6, 47.6}, 46.5,
                 Policy::Exact(0, Direction::kLowerIsBetter), {}, "budget").verdict;
  const MetricVerdict limit = JudgeLimit("x", 2, {2, 2, 2}, 1, Policy::Exact(0)).verdict;
  const MetricVerdict baseline = JudgeExact("cbs", {3, 3, 3}, {4, 4, 4});
  EXPECT_EQ(header({budget}), "metric                      budget  current     Δ     Δ%  tolerance  p-value       n  verdict");
  EXPECT_EQ(header({limit}).find("baseline"), std::string::npos) << header({limit});
  EXPECT_NE(header({limit}).find("  limit  "), std::string::npos) << header({limit});
  EXPECT_NE(header({baseline}).find("  baseline  "), std::string::npos);
  EXPECT_NE(header({baseline, budget}).find("  baseline/budget  "), std::string::npos) << header({baseline, budget});
  // The packaging consumer and the gate-bites test read the row as name, budget, current.
  const std::string table = FormatVerdictTable({budget});
  EXPECT_NE(table.find("hf2q.submissions_per_token    46.5     47.6  +1.1  +2.4%         +0        -  0 vs 3  regressed"),
            std::string::npos) << table;
  EXPECT_NE(table.find("legend: budget = the most the median may be; Δ = current - budget"), std::string::npos)
      << table;
}

TEST(FormatVerdictTable, OneLegendLineExplainsTolerancesAndTrialCounts) {
  const std::vector<MetricVerdict> rows = {
      JudgeNoisy("gpu_us_per_token", {100, 101, 99}, {110, 111, 109}),
      JudgeLimit("us", 120, {119, 120, 121}, 100, Policy::Noisy(0.05, 0, Direction::kLowerIsBetter),
                 {99, 100, 101}).verdict,
  };
  const std::string table = FormatVerdictTable(rows);
  std::vector<std::string> legend;
  std::stringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("legend: ", 0) == 0) legend.push_back(line);
  }
  ASSERT_EQ(legend.size(), 1u) << table;
  EXPECT_NE(legend[0].find("n 3 vs 3 = baseline vs current trials"), std::string::npos) << legend[0];
  EXPECT_NE(legend[0].find("minimum effect max(rel · |baseline|, floor)"), std::string::npos) << legend[0];
  EXPECT_NE(legend[0].find("how far past the limit still passes"), std::string::npos) << legend[0];
  EXPECT_NE(legend[0].find("two-sided Mann-Whitney U"), std::string::npos) << legend[0];
  EXPECT_EQ(VerdictLegend({}), "legend: no metrics");
}

TEST(FormatVerdictTable, NeverPrintsTheSkipMarker) {
  MetricVerdict v = JudgeExact(SkipMarker(), {1}, {1});
  v.metric = "a" + SkipMarker() + "b";
  const std::string table = FormatVerdictTable({v});
  EXPECT_EQ(table.find(SkipMarker()), std::string::npos) << "skip marker in the table";
  EXPECT_NE(table.find("a[ SKIPPED ]b"), std::string::npos);
  EXPECT_EQ(FormatVerdictTable({}), "metric  baseline  current  Δ  Δ%  tolerance  p-value  n  verdict\n");
}

}  // namespace
}  // namespace perfgate::gates
