// The one judge: one policy type and the verdict functions every comparison uses —
// assertions (budgets and engine-vs-baseline deltas), golden files and reports.
//
// Two questions, one policy:
//  * Judge(): two sets of per-trial samples (engine vs baseline, now vs golden
//    samples): exact counts compared within a tolerance, noisy timings by the rank test
//    and a minimum effect (verdict.h holds the statistics).
//  * JudgeLimit(): a median against a limit (a budget, a golden value, a baseline
//    plus an allowance): it fails when the median goes beyond the limit's tolerance in
//    the bad direction. Its verdict always agrees with pass or fail: REGRESSED when it
//    fails, SAME or IMPROVED when it passes; where both sides have trials the rank
//    test's p-value is attached, to say whether the trials could tell.
#ifndef PERFGATE_GATES_JUDGE_H_
#define PERFGATE_GATES_JUDGE_H_

#include <string>
#include <vector>

#include "perfgate/gates/verdict.h"

namespace perfgate::gates {

// kExact: counts, within an absolute tolerance. kNoisy: timings, within (or, for the
// rank test, with a minimum effect of) max(rel · |reference|, abs).
enum class Kind { kNoisy, kExact };

// One metric's gating policy: in the metric catalogue (defaults), in golden files
// (reviewed beside the value) and in assertions.
struct Policy {
  Kind kind = Kind::kNoisy;
  double rel = 0;  // relative tolerance or minimum effect, a fraction (0.05 = 5 %); noisy only
  double abs = 0;  // absolute tolerance (exact) or floor (noisy), in the metric's unit
  Direction dir = Direction::kBoth;
  double alpha = 0.05;  // the rank test's significance level (noisy)
  bool gated = true;    // false: judged and reported, never failing
  std::string reason;   // why (for gated = false and unusual tolerances); optional

  // A noisy metric within max(rel · |reference|, abs) in direction `dir`.
  static Policy Noisy(double rel, double abs, Direction dir);
  // An exact metric within `abs` (0: identical) in direction `dir`.
  static Policy Exact(double abs = 0, Direction dir = Direction::kBoth);
};

// The tolerance around `reference`: abs for exact metrics, max(rel · |reference|, abs)
// for noisy ones.
double ToleranceOf(const Policy& policy, double reference);

// True when `value` goes beyond `limit` by more than the policy's tolerance in the bad
// direction (either way for kBoth); a non-finite value is always beyond. Noisy limits
// get a 1e-9 relative slack, so a change exactly at the limit passes after rounding.
bool BeyondLimit(const Policy& policy, double limit, double value);

// Samples against samples under one policy (JudgeExact or JudgeNoisy underneath).
MetricVerdict Judge(std::string metric, const std::vector<double>& baseline, const std::vector<double>& current,
                    const Policy& policy);

// A median against a limit. `current` holds the per-trial values whose median is
// judged; `reference` (optional) the per-trial values the limit came from, shifted so
// that their median is the limit, for the rank test's p-value.
struct LimitVerdict {
  bool pass = false;
  MetricVerdict verdict;
};
// `limit_word` names the limit in the table column and the explanation: "limit", or
// "budget" for the most a median may be.
LimitVerdict JudgeLimit(std::string metric, double current_median, const std::vector<double>& current, double limit,
                        const Policy& policy, const std::vector<double>& reference = {},
                        const std::string& limit_word = "limit");

}  // namespace perfgate::gates

#endif  // PERFGATE_GATES_JUDGE_H_
