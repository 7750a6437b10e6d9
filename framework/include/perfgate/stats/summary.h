// Order statistics, interval arithmetic and the one comparison of a figure's trials,
// used by attribution, the diff, the movers and the gates.
#ifndef PERFGATE_STATS_SUMMARY_H_
#define PERFGATE_STATS_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace perfgate::stats {

// The median (mean of the two middle values for an even count); 0 for no values.
double Median(std::vector<double> values);

// True when every value is finite (no NaN, no infinity); true for none.
bool AllFinite(const std::vector<double>& values);
// The finite values, in order: NaN breaks the ordering medians and rank tests sort by.
std::vector<double> FiniteOnly(const std::vector<double>& values);

// The arithmetic mean; 0 for no values.
double Mean(const std::vector<double>& values);

// Nearest-rank percentile of `values` (p in [0, 100]): the smallest value with at
// least p % of the values at or below it. Sorts a copy; 0 for no values.
int64_t PercentileNearestRank(std::vector<int64_t> values, double p);

// Median of integers, truncated toward zero as the seed does; 0 for no values.
int64_t MedianTruncated(std::vector<int64_t> values);

// Total length covered by half-open [start, end) intervals, overlaps counted once.
// Intervals with end <= start cover nothing.
int64_t UnionLength(std::vector<std::pair<int64_t, int64_t>> intervals);

// Two-sided Mann-Whitney U test of samples a and b.
struct MannWhitneyResult {
  double u = 0;         // U of sample a: R_a - n_a(n_a+1)/2
  double p_value = 1;   // two-sided
  bool exact = false;   // true when the exact null distribution was used
};
// Exact for tie-free samples with n_a + n_b <= 40, normal approximation with tie
// correction and continuity correction otherwise. Empty samples give p = 1.
MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

// One figure compared between two sides from its per-trial values: the Δ every
// verdict, report table, `perfgate diff` and movers headline shows.
struct Delta {
  // The median of each side's finite values: 0 for no values, NaN when none is finite.
  double before = 0, after = 0;
  double delta = 0;                 // after - before
  std::optional<double> delta_pct;  // 100 · delta / |before|; none when before is 0
  double p_value = 1;               // two-sided MannWhitneyU; 1 when a side is empty or not all finite
};
// Medians, never means, so a figure's Δ is the same wherever it is shown.
Delta CompareTrials(const std::vector<double>& before, const std::vector<double>& after);

// The smallest two-sided p-value the exact test can reach with these sample sizes:
// 2 / C(n_a + n_b, n_a). Below alpha means the test can never reject.
double MinimumAttainablePValue(int n_a, int n_b);

}  // namespace perfgate::stats

#endif  // PERFGATE_STATS_SUMMARY_H_
