// Noise-aware verdicts: is the current run the same as, worse than or better than the
// baseline, or can these trials not tell?
//
// Two metric classes (docs/gating.md §1 item 2, §2 "Statistics"):
//  * noisy metrics (GPU µs/token, tok/s, ratios) need an effect size AND significance:
//    a two-sided Mann-Whitney U test on the per-trial values, plus a minimum effect
//    max(rel · |baseline median|, abs floor) on the difference of medians;
//  * exact metrics (submissions/token, command buffers/token) are counts from a
//    deterministic decode window: compared exactly or within an explicit tolerance,
//    with no statistical test.
//
// The gate is fail-closed: too few trials to reach alpha, empty or non-finite inputs
// and invalid policies give kInconclusive, never kSame. An inconclusive metric may be
// rerun once, at NextTrialCount() trials per side; never `ctest --repeat until-pass`,
// which turns every false alarm into a pass and every real regression into a retry.
//
// Defaults, validated by tests/unit/gates/verdict_simulation_test.cc (5 vs 5 trials,
// 3 % CV lognormal noise, 2000 runs): a true 10 % regression is REGRESSED in 96.4 % of
// runs (SAME in 1.8 %), no change is REGRESSED in 0.65 % (SAME in 97 %). Use at least 5
// trials per side: 3 vs 3 can never reach alpha = 0.05 (smallest p = 0.1) and is
// always inconclusive.
#ifndef PERFGATE_GATES_VERDICT_H_
#define PERFGATE_GATES_VERDICT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::gates {

// The outcome for one metric.
enum class Verdict {
  kSame,          // no change of at least the minimum effect (or the tolerance)
  kRegressed,     // a significant change of at least the minimum effect, bad direction
  kImproved,      // the same, good direction
  kInconclusive,  // these trials cannot decide; rerun once with more trials
};

// "same", "regressed", "improved" or "inconclusive".
std::string_view VerdictName(Verdict verdict);

struct MetricVerdict;

// The word a table shows for a verdict: VerdictName, except for a limit check, which
// says "within" (never "improved" on a budget), "regressed" or, exceeded but not
// gated, "regressed (ungated)", so the word always agrees with pass or fail.
std::string VerdictWord(const MetricVerdict& verdict);

// Which way is bad: a larger µs/token is worse, a larger tok/s is better; for kBoth
// any change is (a count that changes is a finding).
enum class Direction { kLowerIsBetter, kHigherIsBetter, kBoth };

// The trial count per side the defaults were validated with; fewer is allowed but
// loses power (and 3 or fewer per side can never reach alpha = 0.05).
inline constexpr int kRecommendedTrialsPerSide = 5;

// more_trials_needed estimates stop here; a larger need is reported as
// kMoreTrialsCap + 1, meaning "more than 50".
inline constexpr int kMoreTrialsCap = 50;

// Flat result for one metric, ready for tables, goldens and gtest properties.
struct MetricVerdict {
  std::string metric;
  Verdict verdict = Verdict::kInconclusive;
  // What `baseline` holds, and the name of its table column: "baseline" (a baseline's
  // trials), "limit" (a value the median is held to) or "budget" (the most it may be).
  std::string reference = "baseline";
  // A limit check (JudgeLimit): `threshold` is how far beyond `baseline` still passes,
  // not the rank test's minimum effect.
  bool limit_check = false;
  // False for a limit check that is reported only: beyond the limit, it still passes.
  bool gated = true;
  Direction direction = Direction::kBoth;  // which way is bad
  double baseline = 0;               // median of the baseline trials (or the limit)
  double current = 0;                // median of the current trials
  double delta = 0;                  // current - baseline, in the metric's units
  std::optional<double> delta_pct;   // 100 · delta / |baseline|; none when baseline is 0
  double threshold = 0;              // minimum effect (noisy) or tolerance (exact), units
  std::optional<double> p_value;     // two-sided MWU p (Holm-adjusted in a family); noisy only
  std::optional<double> raw_p_value; // the unadjusted p when it differs from p_value
  std::optional<double> min_attainable_p;  // 2 / C(n_b + n_c, n_b); noisy only
  int n_baseline = 0;
  int n_current = 0;
  double baseline_spread = 0;        // max - min of the baseline trials
  double current_spread = 0;         // max - min of the current trials
  // For kInconclusive: estimated extra trials per side that would decide (at least 1;
  // kMoreTrialsCap + 1 means "more than 50"): enough to reach alpha and, when the
  // observed change reached the minimum effect, 80 % power for it at the pooled spread.
  // 0 for decided verdicts and for input that more trials cannot fix (invalid policy,
  // non-finite values).
  int more_trials_needed = 0;
  // One line: "<metric> <current> vs <baseline> (<Δ%>, limit <±x %>, p = .., n b vs c):
  // <verdict>[ (reason)]". Never contains the CTest skip marker.
  std::string explanation;
};

// Holm-Bonferroni adjusted p-values, in input order: sorted ascending, the i-th
// (1-based) of m becomes min(1, max over j <= i of (m - j + 1) · p_(j)). Reject where
// adjusted p <= alpha. NaN counts as 1.
std::vector<double> HolmAdjust(const std::vector<double>& p_values);

// The fixed rerun schedule: the per-side trial count for the single rerun after an
// inconclusive verdict (double, at least kRecommendedTrialsPerSide: 3 -> 6, 5 -> 10).
// Rerun once; a second inconclusive verdict is reported as inconclusive.
int NextTrialCount(int current_per_side);

// The smallest equal trial count per side whose smallest attainable p is <= alpha
// (alpha = 0.05 -> 4, 0.01 -> 5); check it before a run. 0 for alpha outside (0, 1).
int MinimumTrialsPerSide(double alpha);

// An aligned plain-text table: metric, the reference column (named by the rows'
// `reference`: "baseline", "limit" or "budget"; "baseline/limit" when rows differ),
// current, Δ, Δ%, tolerance, p-value, n ("3 vs 3"), verdict; one row per result, a
// header, then VerdictLegend's line. Never contains the CTest skip marker
// "[  SKIPPED ]" (docs/gating.md §4), even from metric names.
std::string FormatVerdictTable(const std::vector<MetricVerdict>& verdicts);

// One line ("legend: ..."), no newline, saying what the table's tolerance, p-value and
// n columns mean for these rows, with the first row's trial counts ("n 3 vs 3 = ...").
std::string VerdictLegend(const std::vector<MetricVerdict>& verdicts);

}  // namespace perfgate::gates

#endif  // PERFGATE_GATES_VERDICT_H_
