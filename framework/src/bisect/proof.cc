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

gates::Policy Bisector::ProofPolicy() const {
  gates::Policy policy = result_.policy;
  policy.alpha = result_.policy.alpha * kProofAlphaShare / 2;
  return policy;
}

// Records both commits afresh to `n` samples, one recording at a time, alternately
// (ABAB: a drift of the machine over the proof falls on both sides alike).
StatusOr<bool> Bisector::RecordBoth(const std::string& before, const std::string& after, size_t n) {
  for (;;) {
    const size_t nb = measured_.Samples(before, RecordingSet::kProof).size();
    const size_t na = measured_.Samples(after, RecordingSet::kProof).size();
    if (nb >= n && na >= n) return true;
    const std::string& next = nb <= na && nb < n ? before : after;
    PERFGATE_ASSIGN_OR_RETURN(bool added, measured_.AddOne(next, RecordingSet::kProof));
    if (!added) {
      result_.why.push_back("no proof: " + ShortCommit(next) + " cannot be recorded again: " +
                            measured_.Failure(next, RecordingSet::kProof));
      return false;
    }
  }
}

// Two looks, each at half the proof's alpha (Bonferroni): at 2 × --trials samples a
// side (at least 10), then, unless that proved it, at --max-trials.
StatusOr<bool> Bisector::Prove(const std::string& before, const std::string& after) {
  const size_t max = static_cast<size_t>(options_.max_trials);
  const size_t first = std::min(max, static_cast<size_t>(std::max(2 * options_.trials, 10)));
  for (size_t n : {first, max}) {
    PERFGATE_ASSIGN_OR_RETURN(bool recorded, RecordBoth(before, after, n));
    if (!recorded) return false;
    result_.confirmation = gates::Judge(result_.metric, measured_.Samples(before, RecordingSet::kProof),
                                        measured_.Samples(after, RecordingSet::kProof), ProofPolicy());
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
  StatusOr<bool> merge = git_.IsMerge(culprit);
  if (merge.ok() && *merge) {
    result_.why.push_back(ShortCommit(culprit) + " is a merge: it is proven against its first parent, so the change "
                          "may come from the branch it merges; bisect that branch to find the commit there");
  }
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
    // The metric at the proof's alpha, so that its row agrees with the proof.
    const gates::Policy policy = name == result_.metric ? ProofPolicy() : value.policy;
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
