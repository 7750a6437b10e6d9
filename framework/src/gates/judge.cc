#include "perfgate/gates/judge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gates/gates_internal.h"
#include "gates/statistics.h"
#include "perfgate/stats/summary.h"

namespace perfgate::gates {
namespace {

// Relative slack on noisy limits, so that a change exactly at the limit passes after
// the golden's rounding to 6 significant digits.
constexpr double kSlack = 1e-9;

using internal::BadwardDelta;
using internal::FormatValue;
using internal::Spread;

NoisyPolicy AsNoisy(const Policy& p) {
  NoisyPolicy n;
  n.alpha = p.alpha;
  n.min_rel_effect = p.rel;
  n.min_abs_effect = p.abs;
  n.direction = p.dir;
  return n;
}

// The rank test's word on a limit check, where both sides have trials.
std::string Significance(const MetricVerdict& v, double alpha) {
  if (!v.p_value) return "";
  const std::string p = "p = " + FormatValue(*v.p_value) + ", n " + std::to_string(v.n_baseline) + " vs " +
                        std::to_string(v.n_current);
  return *v.p_value <= alpha ? "; the trials confirm it (" + p + ")"
                             : "; too few trials to confirm it (" + p + "), and a gate fails closed";
}

}  // namespace

Policy Policy::Noisy(double rel, double abs, Direction dir) {
  Policy p;
  p.kind = Kind::kNoisy;
  p.rel = rel;
  p.abs = abs;
  p.dir = dir;
  return p;
}

Policy Policy::Exact(double abs, Direction dir) {
  Policy p;
  p.kind = Kind::kExact;
  p.abs = abs;
  p.dir = dir;
  return p;
}

double ToleranceOf(const Policy& policy, double reference) {
  if (policy.kind == Kind::kExact) return policy.abs;
  return std::max(policy.rel * std::fabs(reference), policy.abs);
}

bool BeyondLimit(const Policy& policy, double limit, double value) {
  if (!std::isfinite(value)) return true;
  const double tolerance = ToleranceOf(policy, limit);
  const double slack = policy.kind == Kind::kNoisy ? kSlack * (std::fabs(limit) + tolerance) : 0;
  return BadwardDelta(value - limit, policy.dir) > tolerance + slack;
}

MetricVerdict Judge(std::string metric, const std::vector<double>& baseline, const std::vector<double>& current,
                    const Policy& policy) {
  if (policy.kind == Kind::kExact) {
    return JudgeExact(std::move(metric), baseline, current, ExactPolicy{policy.abs, policy.dir});
  }
  return JudgeNoisy(std::move(metric), baseline, current, AsNoisy(policy));
}

LimitVerdict JudgeLimit(std::string metric, double current_median, const std::vector<double>& current, double limit,
                        const Policy& policy, const std::vector<double>& reference,
                        const std::string& limit_word) {
  LimitVerdict out;
  MetricVerdict& v = out.verdict;
  v.metric = std::move(metric);
  v.reference = limit_word;
  v.limit_check = true;
  v.direction = policy.dir;
  v.baseline = limit;
  v.current = current_median;
  v.delta = current_median - limit;
  if (limit != 0) v.delta_pct = v.delta / std::fabs(limit) * 100;
  v.threshold = ToleranceOf(policy, limit);
  v.n_current = static_cast<int>(current.size());
  v.n_baseline = static_cast<int>(reference.size());
  v.current_spread = Spread(current);
  v.baseline_spread = Spread(reference);
  if (!current.empty() && !reference.empty()) v.p_value = stats::CompareTrials(reference, current).p_value;
  const bool beyond = BeyondLimit(policy, limit, current_median);
  out.pass = !beyond || !policy.gated;
  v.gated = policy.gated;
  // A median under a budget is within it, not an improvement on it: a limit check says
  // only which side of the limit the median is (VerdictWord: "within", "regressed").
  v.verdict = beyond ? Verdict::kRegressed : Verdict::kSame;
  std::string line = v.metric + " " + FormatValue(current_median) + " vs " + limit_word + " " + FormatValue(limit);
  if (v.threshold > 0) line += " (tolerance " + FormatValue(v.threshold) + ")";
  if (beyond) {
    line += ": beyond the " + limit_word + ", " + VerdictWord(v) + Significance(v, policy.alpha);
    line += policy.gated ? ": fails"
                         : "; not gated (" + (policy.reason.empty() ? std::string("reported only") : policy.reason) +
                               "), so it passes";
  } else {
    line += ": within the " + limit_word + ": passes";
  }
  v.explanation = line;
  return out;
}

}  // namespace perfgate::gates
