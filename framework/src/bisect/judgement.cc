#include "perfgate/bisect/judgement.h"

namespace perfgate::bisect {
namespace {

using gates::Verdict;

// Whether the commit is told apart from the bad side in the good direction.
bool BetterThanBad(const gates::MetricVerdict& vs_bad, gates::Direction direction) {
  if (vs_bad.verdict == Verdict::kImproved) return true;
  return direction == gates::Direction::kBoth && vs_bad.verdict == Verdict::kRegressed;
}

}  // namespace

const char* MarkName(Mark mark) {
  switch (mark) {
    case Mark::kGood: return "good";
    case Mark::kBad: return "bad";
    case Mark::kUncertain: return "uncertain";
  }
  return "uncertain";
}

Judgement JudgeCommit(const std::string& metric, const gates::Policy& policy, const std::vector<double>& good,
                      const std::vector<double>& bad, const std::vector<double>& current) {
  Judgement j;
  j.vs_good = gates::Judge(metric, good, current, policy);
  j.vs_bad = gates::Judge(metric, bad, current, policy);
  const Verdict g = j.vs_good.verdict;
  if (g == Verdict::kRegressed) {
    j.mark = Mark::kBad;
    j.why = "regressed against the good side";
  } else if ((g == Verdict::kSame || g == Verdict::kImproved) && BetterThanBad(j.vs_bad, policy.dir)) {
    j.mark = Mark::kGood;
    j.why = std::string(gates::VerdictName(g)) + " against the good side and better than the bad side";
  } else {
    j.mark = Mark::kUncertain;
    j.why = std::string(gates::VerdictName(g)) + " against the good side, " +
            std::string(gates::VerdictName(j.vs_bad.verdict)) + " against the bad side";
  }
  return j;
}

}  // namespace perfgate::bisect
