// The proof of git's answer: the culprit against its parent, or the commit before a
// range against the range's last, judged on fresh recordings (independent of the
// samples that chose them) at a fifth of the judge's significance level; then the
// figures and movers between the two.
#include <algorithm>
#include <set>

#include "bisect/bisector.h"

namespace perfgate::bisect {
namespace {

using gates::MetricVerdict;
using gates::Verdict;

}  // namespace

// Two looks, each at half the proof's alpha (Bonferroni): at 2 × --trials samples a
// side (at least 10), then, unless that proved it, at --max-trials.
StatusOr<bool> Bisector::Prove(const std::string& before, const std::string& after) {
  gates::Policy policy = result_.policy;
  policy.alpha = result_.policy.alpha * kProofAlphaShare / 2;
  const size_t max = static_cast<size_t>(options_.max_trials);
  const size_t first = std::min(max, static_cast<size_t>(std::max(2 * options_.trials, 10)));
  for (size_t n : {first, max}) {
    for (const std::string& c : {before, after}) {
      PERFGATE_ASSIGN_OR_RETURN(bool usable, measured_.Ensure(c, n, RecordingSet::kProof));
      if (!usable) {
        result_.why.push_back("no proof: " + ShortCommit(c) + " cannot be recorded again: " +
                              measured_.Failure(c, RecordingSet::kProof));
        return false;
      }
    }
    result_.confirmation = gates::Judge(result_.metric, measured_.Samples(before, RecordingSet::kProof),
                                        measured_.Samples(after, RecordingSet::kProof), policy);
    if (result_.confirmation->verdict == Verdict::kRegressed) return true;
  }
  return false;
}

Status Bisector::Unproven(const std::string& what) {
  result_.outcome = Outcome::kUncertain;
  PERFGATE_ASSIGN_OR_RETURN(result_.candidates, git_.Range(result_.good.commit, result_.bad.commit));
  result_.why.push_back(what + ", not proven on fresh recordings" +
                        (result_.confirmation ? " (" + result_.confirmation->explanation + ")" : std::string()) +
                        ": the first bad commit may be any of the " + std::to_string(result_.candidates.size()) +
                        " commits after the good side");
  return Status();
}

Status Bisector::ConcludeCulprit(const std::string& culprit) {
  PERFGATE_ASSIGN_OR_RETURN(const std::string parent, git_.Parent(culprit));
  result_.culprit = Endpoint{"", culprit, RecordOf(culprit).subject};
  result_.before = Endpoint{"", parent, RecordOf(parent).subject};
  result_.after = result_.culprit;
  PERFGATE_ASSIGN_OR_RETURN(bool proven, Prove(parent, culprit));
  Explain();
  if (!proven) return Unproven("git names " + ShortCommit(culprit) + " the first bad commit, but its change against its parent " + ShortCommit(parent) + " is");
  result_.outcome = Outcome::kCulprit;
  result_.candidates = {culprit};
  result_.why.push_back(ShortCommit(culprit) + " regressed against its parent " + ShortCommit(parent) +
                        " on fresh recordings: " + result_.confirmation->explanation);
  NoteSecondRegression();
  return Status();
}

Status Bisector::ConcludeRange(const std::vector<std::string>& candidates) {
  // The oldest candidate's parent is none of them; the newest is no candidate's parent.
  const std::set<std::string> in_range(candidates.begin(), candidates.end());
  std::string before, after;
  std::set<std::string> parents;
  for (const std::string& c : candidates) {
    PERFGATE_ASSIGN_OR_RETURN(const std::string parent, git_.Parent(c));
    parents.insert(parent);
    if (in_range.count(parent) == 0) before = parent;
  }
  for (const std::string& c : candidates) {
    if (parents.count(c) == 0) after = c;
  }
  result_.before = Endpoint{"", before, RecordOf(before).subject};
  result_.after = Endpoint{"", after, RecordOf(after).subject};
  PERFGATE_ASSIGN_OR_RETURN(bool proven, Prove(before, after));
  Explain();
  const std::string range = ShortCommit(before) + ".." + ShortCommit(after);
  if (!proven) return Unproven("git narrows the first bad commit to " + range + ", but the change across it is");
  result_.outcome = Outcome::kRange;
  result_.candidates = candidates;
  result_.why.push_back("the regression lies in " + range + " (" + result_.confirmation->explanation +
                        "), but only commits that could not be judged are left there: the first bad commit is one of " +
                        std::to_string(candidates.size()));
  for (const std::string& c : candidates) {
    const CommitRecord& r = RecordOf(c);
    const std::string what = r.mark.empty() ? "not measured" : r.mark + ": " + r.reason;
    result_.why.push_back(ShortCommit(c) + " " + r.subject + ": " + what);
  }
  return Status();
}

Status Bisector::Conclude(const Step& step) {
  if (step.kind == Step::Kind::kFirstBad) return ConcludeCulprit(step.commit);
  return ConcludeRange(step.candidates);
}

// The figures and movers between the two commits the proof compared, from its fresh
// recordings: the metric first, then every figure the judge finds moved.
void Bisector::Explain() {
  const Measurement* before = measured_.Find(result_.before->commit, RecordingSet::kProof);
  const Measurement* after = measured_.Find(result_.after->commit, RecordingSet::kProof);
  if (before == nullptr || after == nullptr) return;
  for (const auto& [name, value] : after->figures.values) {
    const auto b = before->figures.values.find(name);
    if (b == before->figures.values.end()) continue;
    const gates::Policy& policy = name == result_.metric ? result_.policy : value.policy;
    MetricVerdict v = gates::Judge(name, SamplesOrValue(b->second), SamplesOrValue(value), policy);
    const bool moved = v.verdict == Verdict::kRegressed || v.verdict == Verdict::kImproved;
    if (name == result_.metric) {
      result_.figures.insert(result_.figures.begin(), std::move(v));
    } else if (moved) {
      result_.figures.push_back(std::move(v));
    }
  }
  if (before->side && after->side) result_.movers = diff::Compute(*before->side, *after->side);
}

void Bisector::NoteSecondRegression() {
  const MetricVerdict v =
      gates::Judge(result_.metric, Marks(result_.culprit->commit), Marks(result_.bad.commit), result_.policy);
  if (v.verdict != Verdict::kRegressed) return;
  result_.why.push_back("the bad side is worse than the culprit still (" + v.explanation +
                        "): a second regression follows it; bisect again with --good " +
                        ShortCommit(result_.culprit->commit) + " --bad " + result_.bad.ref);
}

}  // namespace perfgate::bisect
