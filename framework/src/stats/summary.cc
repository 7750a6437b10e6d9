#include "perfgate/stats/summary.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>

namespace perfgate::stats {

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double hi = values[mid];
  if (values.size() % 2) return hi;
  double lo = *std::max_element(values.begin(), values.begin() + mid);
  return (lo + hi) / 2;
}

double Mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

int64_t PercentileNearestRank(std::vector<int64_t> values, double p) {
  if (values.empty()) return 0;
  p = std::clamp(p, 0.0, 100.0);
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  size_t index = rank == 0 ? 0 : rank - 1;
  std::nth_element(values.begin(), values.begin() + index, values.end());
  return values[index];
}

int64_t MedianTruncated(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  if (values.size() % 2) return values[mid];
  // Python's int(statistics.median(...)): the mean of the middle pair, truncated.
  double m = (static_cast<double>(values[mid - 1]) + static_cast<double>(values[mid])) / 2.0;
  return static_cast<int64_t>(m);
}

int64_t UnionLength(std::vector<std::pair<int64_t, int64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  int64_t total = 0;
  bool open = false;
  int64_t cur_start = 0, cur_end = 0;
  for (const auto& [s, e] : intervals) {
    if (e <= s) continue;
    if (!open || s > cur_end) {
      if (open) total += cur_end - cur_start;
      cur_start = s;
      cur_end = e;
      open = true;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  if (open) total += cur_end - cur_start;
  return total;
}

namespace {

// Number of arrangements giving each U for sizes (m, n): the standard recursion
// f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u).
std::vector<double> ExactUDistribution(int m, int n) {
  // dp[j][u] for the current i, built up over i = 0..m.
  std::vector<std::vector<double>> prev(n + 1, std::vector<double>(m * n + 1, 0.0));
  for (int j = 0; j <= n; ++j) prev[j][0] = 1.0;  // i = 0: only U = 0
  for (int i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> cur(n + 1, std::vector<double>(m * n + 1, 0.0));
    cur[0][0] = 1.0;
    for (int j = 1; j <= n; ++j) {
      for (int u = 0; u <= i * j; ++u) {
        double v = cur[j - 1][u];
        if (u >= j) v += prev[j][u - j];
        cur[j][u] = v;
      }
    }
    prev.swap(cur);
  }
  return prev[n];
}

}  // namespace

MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  MannWhitneyResult r;
  const size_t na = a.size(), nb = b.size();
  if (na == 0 || nb == 0) return r;
  std::vector<std::pair<double, int>> pooled;
  for (double v : a) pooled.emplace_back(v, 0);
  for (double v : b) pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end(), [](auto& x, auto& y) { return x.first < y.first; });
  const size_t n = pooled.size();
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    double t = static_cast<double>(j - i);
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second == 0) rank_sum_a += mid_rank;
    }
    i = j;
  }
  const double dna = static_cast<double>(na), dnb = static_cast<double>(nb);
  r.u = rank_sum_a - dna * (dna + 1) / 2;
  const double mean_u = dna * dnb / 2;
  if (!ties && na + nb <= 40) {
    std::vector<double> dist = ExactUDistribution(static_cast<int>(na), static_cast<int>(nb));
    double total = std::accumulate(dist.begin(), dist.end(), 0.0);
    // Two-sided: twice the smaller tail, capped at 1.
    int u = static_cast<int>(std::lround(r.u));
    double lower = 0, upper = 0;
    for (int k = 0; k <= u; ++k) lower += dist[k];
    for (size_t k = static_cast<size_t>(u); k < dist.size(); ++k) upper += dist[k];
    r.p_value = std::min(1.0, 2.0 * std::min(lower, upper) / total);
    r.exact = true;
    return r;
  }
  const double dn = dna + dnb;
  double var = dna * dnb / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (var <= 0) return r;  // every value tied: no evidence either way
  double diff = r.u - mean_u;
  double corrected = std::max(0.0, std::fabs(diff) - 0.5);
  double z = corrected / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

bool AllFinite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

std::vector<double> FiniteOnly(const std::vector<double>& values) {
  std::vector<double> finite;
  std::copy_if(values.begin(), values.end(), std::back_inserter(finite), [](double v) { return std::isfinite(v); });
  return finite;
}

namespace {

// The median of the finite values: NaN breaks the order a median needs. 0 for no
// values, NaN when none is finite (an unknown figure stays unknown).
double MedianOfFinite(const std::vector<double>& values) {
  std::vector<double> finite = FiniteOnly(values);
  if (finite.empty() && !values.empty()) return std::nan("");
  return Median(std::move(finite));
}

}  // namespace

Delta CompareTrials(const std::vector<double>& before, const std::vector<double>& after) {
  Delta d;
  d.before = MedianOfFinite(before);
  d.after = MedianOfFinite(after);
  d.delta = d.after - d.before;
  if (d.before != 0) d.delta_pct = d.delta / std::fabs(d.before) * 100.0;
  // A non-finite value has no rank (NaN breaks the sort's order): no evidence.
  if (AllFinite(before) && AllFinite(after)) d.p_value = MannWhitneyU(before, after).p_value;
  return d;
}

double MinimumAttainablePValue(int n_a, int n_b) {
  if (n_a <= 0 || n_b <= 0) return 1.0;
  // C(n_a + n_b, n_a) in floating point.
  double c = 1;
  for (int i = 1; i <= n_a; ++i) c = c * (n_b + i) / i;
  return std::min(1.0, 2.0 / c);
}

}  // namespace perfgate::stats
