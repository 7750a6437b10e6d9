// Private: the statistics under gates::Judge (judge.h), with the parameter types they
// were written against. Judge() maps the one public Policy onto these; the unit tests
// call them directly to pin the statistics down.
#ifndef PERFGATE_SRC_GATES_STATISTICS_H_
#define PERFGATE_SRC_GATES_STATISTICS_H_

#include <string>
#include <vector>

#include "perfgate/gates/verdict.h"

namespace perfgate::gates {

// Policy for a noisy metric. Per-metric values live in the golden next to the value.
struct NoisyPolicy {
  // Significance level of the two-sided Mann-Whitney U test.
  double alpha = 0.05;
  // Minimum relative effect, a fraction of |baseline median| (0.05 = 5 %).
  double min_rel_effect = 0.05;
  // Minimum absolute effect in the metric's units; the suite sets it per metric
  // (e.g. 20 for GPU µs/token). The effect used is max(rel · |baseline|, abs).
  double min_abs_effect = 0;
  Direction direction = Direction::kLowerIsBetter;
};

// Policy for an exact metric (a count per token).
struct ExactPolicy {
  // Largest |current - baseline| still judged the same, in the metric's units;
  // 0 demands equality.
  double tolerance = 0;
  Direction direction = Direction::kLowerIsBetter;
};

// Judges a noisy metric from per-trial values (docs/gating.md §2):
//  REGRESSED  p <= alpha and |Δ| >= max(rel · |baseline median|, abs) in the bad direction;
//  IMPROVED   the same in the good direction;
//  SAME       |Δ| below that minimum effect, or p > alpha while these trial counts had
//             >= 80 % power to detect the minimum effect at the measured pooled spread;
//  INCONCLUSIVE otherwise, and always when the sample sizes cannot reach alpha.
// Δ is the difference of medians; the power check is a normal approximation scaled by
// the test's asymptotic efficiency (3/π).
MetricVerdict JudgeNoisy(std::string metric, const std::vector<double>& baseline,
                         const std::vector<double>& current, const NoisyPolicy& policy = {});

// Judges an exact metric on medians: REGRESSED or IMPROVED when |Δ| > tolerance in the
// bad or good direction, SAME otherwise. Trials that differ within a side are reported
// (with their spread) in the explanation; they do not change the verdict.
MetricVerdict JudgeExact(std::string metric, const std::vector<double>& baseline,
                         const std::vector<double>& current, const ExactPolicy& policy = {});

// One noisy metric of a family.
struct NoisyMetric {
  std::string metric;
  std::vector<double> baseline;
  std::vector<double> current;
  NoisyPolicy policy;
};

// Judges a suite's noisy metrics together, controlling the family-wise false-alarm rate
// with Holm's method: each verdict uses its Holm-adjusted p. Reachability and power are
// planned at alpha / m, Holm's first step, so a family of m metrics needs
// MinimumAttainablePValue <= alpha / m. Results are in input order.
std::vector<MetricVerdict> JudgeNoisyFamily(const std::vector<NoisyMetric>& metrics);

}  // namespace perfgate::gates

#endif  // PERFGATE_SRC_GATES_STATISTICS_H_
