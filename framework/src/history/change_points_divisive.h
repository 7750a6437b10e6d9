// E-divisive means inside one window (Matteson and James, 2014: the energy statistic
// q-hat with alpha = 1, split at its argmax, applied hierarchically) and the two-sample
// Student t-test that judges each split, as Apache Otava's TTestSignificanceTester does.
// change_points.cc runs them over the windows of a series; the cross-check driver
// (tests/history/) runs them alone, against the Python reference.
#ifndef PERFGATE_HISTORY_CHANGE_POINTS_DIVISIVE_H_
#define PERFGATE_HISTORY_CHANGE_POINTS_DIVISIVE_H_

#include <cstdint>
#include <vector>

namespace perfgate::history::divisive {

// The two sides of a split and the t-test of their means. The standard deviations
// are the population ones (divided by n), which Otava both reports and, like scipy's
// ttest_ind_from_stats with equal variances, pools as (n - 1) s^2.
struct SideStats {
  double mean_before = 0;
  double mean_after = 0;
  double stddev_before = 0;
  double stddev_after = 0;
  double pvalue = 1;
};

// The two-sided p-value of Student's t with `df` degrees of freedom: the regularized
// incomplete beta I_{df/(df+t^2)}(df/2, 1/2). 1 for df <= 0; 0 for an infinite t.
double StudentTwoSidedPValue(double t, double df);

// values[begin, split) against values[split, end) (both sides non-empty). p is 1 when
// the pooled test has no degree of freedom (fewer than 3 points) or when both sides
// are constant and equal; 0 when both are constant and differ.
SideStats CompareSides(const std::vector<double>& values, int64_t begin, int64_t split, int64_t end);

// A split E-divisive proposed and the t-test judged, on the segment between the splits
// found before it (or the window's ends).
struct Split {
  int64_t index = 0;  // the first point after the split, relative to the window
  double qhat = 0;    // the maximum of q-hat over the segment's (tau, kappa)
  SideStats stats;    // the t-test of the segment's two sides
};

// Hierarchical E-divisive on window[begin, end): the candidate of largest q-hat over
// the segments between splits already kept (the first on ties: lowest segment, then
// lowest tau, then lowest kappa), kept while its t-test p <= max_pvalue; the first
// candidate above stops the search, as Otava's detector does. At most `max_splits`
// splits, in the order found; indices relative to `begin`.
std::vector<Split> DivisiveSplits(const std::vector<double>& window, int64_t begin, int64_t end,
                                  double max_pvalue, int64_t max_splits = INT64_MAX);

}  // namespace perfgate::history::divisive

#endif  // PERFGATE_HISTORY_CHANGE_POINTS_DIVISIVE_H_
