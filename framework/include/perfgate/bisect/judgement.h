// How a bisect marks a commit: the one judge (gates/judge.h) compares its samples with
// the good side's and with the bad side's, and only a verdict both agree with is a
// mark. A commit that cannot be told from either side is uncertain, never guessed.
#ifndef PERFGATE_BISECT_JUDGEMENT_H_
#define PERFGATE_BISECT_JUDGEMENT_H_

#include <string>
#include <vector>

#include "perfgate/gates/judge.h"

namespace perfgate::bisect {

enum class Mark { kGood, kBad, kUncertain };

// "good", "bad", "uncertain".
const char* MarkName(Mark mark);

// What the judge says of one commit.
struct Judgement {
  Mark mark = Mark::kUncertain;
  gates::MetricVerdict vs_good;  // the commit against the good side
  gates::MetricVerdict vs_bad;   // the commit against the bad side
  std::string why;               // one sentence
};

// Bad: regressed against the good side. Good: not regressed against the good side
// and measurably better than the bad side (for a metric where either change is bad,
// measurably different from it). Anything else is uncertain.
Judgement JudgeCommit(const std::string& metric, const gates::Policy& policy, const std::vector<double>& good,
                      const std::vector<double>& bad, const std::vector<double>& current);

}  // namespace perfgate::bisect

#endif  // PERFGATE_BISECT_JUDGEMENT_H_
