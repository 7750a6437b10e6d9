#include "history/change_points_divisive.h"

#include <cmath>
#include <cstdlib>

namespace perfgate::history::divisive {
namespace {

// log Gamma(x) for x >= 0.5 by Lanczos' approximation (g = 7, nine terms; about 15
// significant digits). std::lgamma would do, but it writes the global `signgam`,
// a data race when series are checked on several threads.
double LogGamma(double x) {
  static constexpr double kLanczos[] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                                        771.32342877765313,   -176.61502916214059,   12.507343278686905,
                                        -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  static constexpr double kHalfLogTwoPi = 0.91893853320467274178;
  x -= 1;
  double sum = kLanczos[0];
  for (int i = 1; i < 9; ++i) sum += kLanczos[i] / (x + i);
  const double t = x + 7.5;
  return kHalfLogTwoPi + (x + 0.5) * std::log(t) - t + std::log(sum);
}

// The continued fraction of the incomplete beta function B_x(a, b) (modified Lentz):
// it converges fast for x < (a + 1) / (a + b + 2).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  auto not_zero = [](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
  double c = 1;
  double d = 1 / not_zero(1 - (a + b) * x / (a + 1));
  double fraction = d;
  for (int m = 1; m <= 10000; ++m) {
    const double two_m = 2.0 * m;
    // The even step, then the odd one, of the fraction's terms.
    const double even = m * (b - m) * x / ((a - 1 + two_m) * (a + two_m));
    d = 1 / not_zero(1 + even * d);
    c = not_zero(1 + even / c);
    fraction *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + two_m) * (a + 1 + two_m));
    d = 1 / not_zero(1 + odd * d);
    c = not_zero(1 + odd / c);
    const double step = d * c;
    fraction *= step;
    if (std::fabs(step - 1) < kEpsilon) break;
  }
  return fraction;
}

// I_x(a, b), the regularized incomplete beta function. `y` is 1 - x, passed apart so
// that a p-value near 0 or near 1 keeps its digits.
double RegularizedBeta(double a, double b, double x, double y) {
  if (x <= 0) return 0;
  if (y <= 0) return 1;
  const double front =
      std::exp(LogGamma(a + b) - LogGamma(a) - LogGamma(b) + a * std::log(x) + b * std::log(y));
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1 - front * BetaContinuedFraction(b, a, y) / b;
}

// Mean and population standard deviation of values[begin, end), non-empty. The sums
// run on the offsets from the first value, so a constant side has exactly its value
// as mean and 0 as deviation (a plain sum can miss the value by an ulp, and two equal
// constant sides would then look different).
void MeanAndStddev(const std::vector<double>& values, int64_t begin, int64_t end, double* mean, double* stddev) {
  const double origin = values[begin];
  const double n = static_cast<double>(end - begin);
  double offset_sum = 0;
  for (int64_t i = begin; i < end; ++i) offset_sum += values[i] - origin;
  const double offset_mean = offset_sum / n;
  double squares = 0;
  for (int64_t i = begin; i < end; ++i) {
    const double deviation = values[i] - origin - offset_mean;
    squares += deviation * deviation;
  }
  *mean = origin + offset_mean;
  *stddev = std::sqrt(squares / n);
}

// The candidate of one segment: the tau (first point of the right side) and the
// largest q-hat over every kappa.
struct Candidate {
  int64_t tau = 0;
  double qhat = 0;
};

// argmax over begin < tau < kappa <= end of q-hat(X = values[begin, tau),
// Y = values[tau, kappa)), alpha = 1:
//   q = 2/(n+m) sum|X-Y| - 2m/((n+m)(n-1)) sum_{i<k}|X_i-X_k| - 2n/((n+m)(m-1)) sum_{j<l}|Y_j-Y_l|
// with n = |X|, m = |Y| and a within-sample term 0 for a one-point sample. O(L^2):
// `above[c]` holds sum_{begin <= i < c} |v_i - v_c| (column c of the distance matrix
// above its diagonal) and `left[c]` the part of it with i < tau, so that the cross
// and Y sums grow by one column per kappa.
Candidate BestCandidate(const std::vector<double>& values, int64_t begin, int64_t end) {
  const int64_t length = end - begin;
  std::vector<double> above(length, 0.0);
  std::vector<double> left(length, 0.0);
  for (int64_t c = 1; c < length; ++c) {
    for (int64_t i = 0; i < c; ++i) above[c] += std::fabs(values[begin + i] - values[begin + c]);
  }
  Candidate best{begin + 1, 0};
  bool found = false;
  double within_x = 0;
  for (int64_t tau = 1; tau < length; ++tau) {
    const double x_new = values[begin + tau - 1];
    for (int64_t c = tau; c < length; ++c) left[c] += std::fabs(x_new - values[begin + c]);
    within_x += above[tau - 1];
    const double n = static_cast<double>(tau);
    double cross = 0;
    double within_y = 0;
    for (int64_t kappa = tau + 1; kappa <= length; ++kappa) {
      const int64_t c = kappa - 1;
      cross += left[c];
      within_y += above[c] - left[c];
      const double m = static_cast<double>(kappa - tau);
      const double total = n + m;
      double q = 2 / total * cross;
      if (tau > 1) q -= 2 * m / (total * (n - 1)) * within_x;
      if (kappa - tau > 1) q -= 2 * n / (total * (m - 1)) * within_y;
      if (!found || q > best.qhat) best = {begin + tau, q};
      found = true;
    }
  }
  return best;
}

// A segment between splits, with its candidate when it has two points or more.
struct Segment {
  int64_t begin = 0;
  int64_t end = 0;
  Candidate candidate;
  bool splittable = false;
};

Segment MakeSegment(const std::vector<double>& values, int64_t begin, int64_t end) {
  Segment s{begin, end, {}, end - begin >= 2};
  if (s.splittable) s.candidate = BestCandidate(values, begin, end);
  return s;
}

}  // namespace

double StudentTwoSidedPValue(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return 1;
  if (std::isinf(t)) return 0;
  const double t2 = t * t;
  return RegularizedBeta(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
}

SideStats CompareSides(const std::vector<double>& values, int64_t begin, int64_t split, int64_t end) {
  SideStats s;
  MeanAndStddev(values, begin, split, &s.mean_before, &s.stddev_before);
  MeanAndStddev(values, split, end, &s.mean_after, &s.stddev_after);
  const double n1 = static_cast<double>(split - begin);
  const double n2 = static_cast<double>(end - split);
  const double df = n1 + n2 - 2;
  if (df <= 0) return s;
  // scipy's ttest_ind_from_stats(equal_var=True) on the population deviations, as Otava
  // calls it.
  const double pooled = ((n1 - 1) * s.stddev_before * s.stddev_before + (n2 - 1) * s.stddev_after * s.stddev_after) / df;
  const double denominator = std::sqrt(pooled * (1 / n1 + 1 / n2));
  const double difference = s.mean_before - s.mean_after;
  if (denominator == 0) {
    s.pvalue = difference == 0 ? 1 : 0;
  } else {
    s.pvalue = StudentTwoSidedPValue(difference / denominator, df);
  }
  return s;
}

std::vector<Split> DivisiveSplits(const std::vector<double>& window, int64_t begin, int64_t end, double max_pvalue,
                                  int64_t max_splits) {
  std::vector<Split> splits;
  std::vector<Segment> segments;
  if (end - begin >= 2) segments.push_back(MakeSegment(window, begin, end));
  while (static_cast<int64_t>(splits.size()) < max_splits) {
    const Segment* best = nullptr;
    for (const Segment& s : segments) {
      if (s.splittable && (best == nullptr || s.candidate.qhat > best->candidate.qhat)) best = &s;
    }
    if (best == nullptr) break;
    const int64_t tau = best->candidate.tau;
    const SideStats stats = CompareSides(window, best->begin, tau, best->end);
    if (!(stats.pvalue <= max_pvalue)) break;
    splits.push_back({tau - begin, best->candidate.qhat, stats});
    const size_t at = static_cast<size_t>(best - segments.data());
    const Segment whole = *best;
    segments[at] = MakeSegment(window, whole.begin, tau);
    segments.insert(segments.begin() + static_cast<std::ptrdiff_t>(at) + 1, MakeSegment(window, tau, whole.end));
  }
  return splits;
}

}  // namespace perfgate::history::divisive
