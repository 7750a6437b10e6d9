// The bisect's loop: the two sides, each commit git asks about, the log.
#include "perfgate/bisect/session.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "bisect/bisector.h"

namespace perfgate::bisect {
namespace {

using gates::MetricVerdict;
using gates::Verdict;

// "+10.5 % (p 0.008, regressed)": a verdict in a few characters.
std::string Change(const MetricVerdict& v) {
  char text[64];
  if (v.delta_pct) {
    std::snprintf(text, sizeof text, "%+.1f %% (", *v.delta_pct);
  } else {
    std::snprintf(text, sizeof text, "%+.6g (", v.delta);
  }
  std::string out = text;
  if (v.p_value) {
    std::snprintf(text, sizeof text, "p %.3f, ", *v.p_value);
    out += text;
  }
  return out + std::string(gates::VerdictName(v.verdict)) + ")";
}

}  // namespace

Bisector::Bisector(GitRepository& git, Workspace& workspace, const BisectOptions& options,
                   const std::atomic<bool>* cancel)
    : git_(git),
      options_(options),
      measured_(git, workspace, options.read, cancel, [this](const Measurement& m) { return ResolveMetric(m); }),
      workspace_(workspace) {}

void Bisector::Progress(const std::string& line) const {
  if (options_.progress) options_.progress(line);
}

CommitRecord& Bisector::RecordOf(const std::string& commit) {
  for (CommitRecord& r : result_.commits) {
    if (r.commit == commit) return r;
  }
  CommitRecord r;
  r.commit = commit;
  StatusOr<std::string> subject = git_.Subject(commit);
  r.subject = subject.ok() ? *subject : "";
  result_.commits.push_back(std::move(r));
  return result_.commits.back();
}

void Bisector::Note(const std::string& commit) {
  CommitRecord& r = RecordOf(commit);
  r.samples = Marks(commit);
  r.taken = measured_.Taken(commit, RecordingSet::kMarks);
  r.recordings = measured_.Kept(commit, RecordingSet::kMarks);
  const Measurement* m = measured_.Find(commit, RecordingSet::kMarks);
  if (m != nullptr) r.notes = m->notes;
}

// The metric (--metric, else the first recording's default) and its policy: the
// figure's own, a golden's, with --tolerance and --alpha on top.
Status Bisector::ResolveMetric(const Measurement& m) {
  if (result_.metric.empty()) {
    PERFGATE_ASSIGN_OR_RETURN(result_.metric,
                              options_.metric.empty() ? DefaultMetric(m) : StatusOr<std::string>(options_.metric));
    result_.recording_kind = RecordingKindName(m.kind);
    measured_.set_metric(result_.metric);
  }
  PERFGATE_ASSIGN_OR_RETURN(MetricSamples s, SamplesOf(m, result_.metric));
  gates::Policy policy = options_.policy.value_or(s.policy);
  if (options_.tolerance && policy.kind == gates::Kind::kExact) {
    return Status::Error("bisect.bad_tolerance",
                         result_.metric + " is an exact count, compared within its own tolerance; --tolerance is "
                                          "the minimum effect of a noisy figure",
                         {}, ErrorKind::kUsage);
  }
  if (options_.tolerance) {
    policy.rel = *options_.tolerance;
    policy.abs = 0;
  }
  if (options_.alpha) policy.alpha = *options_.alpha;
  result_.policy = policy;
  const int needed = gates::MinimumTrialsPerSide(ProofPolicy().alpha);
  if (policy.kind == gates::Kind::kNoisy && needed > options_.max_trials) {
    return Status::Error("bisect.bad_trials",
                         "--max-trials " + std::to_string(options_.max_trials) + " cannot prove a culprit: the proof's "
                         "significance level needs " + std::to_string(needed) + " samples a side",
                         {}, ErrorKind::kUsage);
  }
  return Status();
}

StatusOr<Endpoint> Bisector::EndpointOf(const std::string& ref) {
  Endpoint e;
  e.ref = ref;
  PERFGATE_ASSIGN_OR_RETURN(e.commit, git_.Resolve(ref));
  PERFGATE_ASSIGN_OR_RETURN(e.subject, git_.Subject(e.commit));
  return e;
}

Status Bisector::Prepare() {
  PERFGATE_RETURN_IF_ERROR(git_.CheckReady());
  PERFGATE_ASSIGN_OR_RETURN(result_.good, EndpointOf(options_.good_ref));
  PERFGATE_ASSIGN_OR_RETURN(result_.bad, EndpointOf(options_.bad_ref));
  PERFGATE_ASSIGN_OR_RETURN(bool ancestor, git_.IsAncestor(result_.good.commit, result_.bad.commit));
  if (!ancestor || result_.good.commit == result_.bad.commit) {
    return Status::Error("bisect.not_an_ancestor",
                         "the good side (" + options_.good_ref + ") must be an ancestor of the bad side (" +
                             options_.bad_ref + ") and another commit",
                         {git_.dir(), 0, 0}, ErrorKind::kUsage);
  }
  result_.engine = options_.read.engine;
  return workspace_.Prepare();
}

// Bad against good, the side with fewer samples recorded again until the bad side is
// proven worse, proven better, or both have --max-trials: every commit is judged
// against these samples, and a "same" from a few of them is no evidence of none.
StatusOr<MetricVerdict> Bisector::JudgeSides() {
  const std::string& good = result_.good.commit;
  const std::string& bad = result_.bad.commit;
  const size_t max = static_cast<size_t>(options_.max_trials);
  for (;;) {
    MetricVerdict v = gates::Judge(result_.metric, Marks(good), Marks(bad), result_.policy);
    const size_t ng = Marks(good).size(), nb = Marks(bad).size();
    const bool decided = v.verdict == Verdict::kRegressed || v.verdict == Verdict::kImproved;
    if (decided || (ng >= max && nb >= max)) return v;
    const std::string& fewer = (ng <= nb && ng < max) || nb >= max ? good : bad;
    PERFGATE_ASSIGN_OR_RETURN(bool added, measured_.AddOne(fewer, RecordingSet::kMarks));
    if (!added) return SideFailed(fewer == good ? result_.good : result_.bad);
  }
}

Status Bisector::SideFailed(const Endpoint& side) const {
  return Status::Error("bisect.endpoint_failed",
                       "the " + std::string(side.commit == result_.good.commit ? "good" : "bad") + " side " + side.ref +
                           " cannot be measured: " + measured_.Failure(side.commit, RecordingSet::kMarks),
                       {}, ErrorKind::kEnvironment);
}

Status Bisector::JudgeEndpoints() {
  const size_t first = static_cast<size_t>(std::min(2 * options_.trials, options_.max_trials));
  for (const Endpoint* e : {&result_.good, &result_.bad}) {
    PERFGATE_ASSIGN_OR_RETURN(bool usable, measured_.Ensure(e->commit, first, RecordingSet::kMarks));
    if (!usable) return SideFailed(*e);
  }
  PERFGATE_ASSIGN_OR_RETURN(result_.endpoints, JudgeSides());
  for (const Endpoint* e : {&result_.good, &result_.bad}) {
    Note(e->commit);
    CommitRecord& r = RecordOf(e->commit);
    r.mark = e == &result_.good ? "good" : "bad";
    r.reason = e == &result_.good ? "the good side, as given" : "the bad side, as given";
  }
  Progress("bisect: the bad side against the good side: " + result_.endpoints.explanation);
  const Verdict v = result_.endpoints.verdict;
  if (v == Verdict::kRegressed) return Status();
  result_.outcome = v == Verdict::kInconclusive ? Outcome::kUndecided : Outcome::kNoRegression;
  result_.why.push_back(v == Verdict::kInconclusive
                            ? "the bad side cannot be told from the good side with " +
                                  std::to_string(options_.max_trials) + " trials a side: " +
                                  result_.endpoints.explanation
                            : "the bad side is not worse than the good side: " + result_.endpoints.explanation);
  return Status();
}

StatusOr<std::string> Bisector::Classify(const std::string& commit) {
  PERFGATE_ASSIGN_OR_RETURN(bool usable,
                            measured_.Ensure(commit, static_cast<size_t>(options_.trials), RecordingSet::kMarks));
  Judgement j;
  while (usable) {
    j = JudgeCommit(result_.metric, result_.policy, Marks(result_.good.commit), Marks(result_.bad.commit),
                    Marks(commit));
    if (j.mark != Mark::kUncertain || Marks(commit).size() >= static_cast<size_t>(options_.max_trials)) break;
    PERFGATE_ASSIGN_OR_RETURN(usable, measured_.AddOne(commit, RecordingSet::kMarks));
  }
  Note(commit);
  CommitRecord& r = RecordOf(commit);
  if (usable) r.judgement = j;
  r.mark = usable ? MarkName(j.mark) : "skip";
  r.reason = usable ? "vs good " + Change(j.vs_good) + "; vs bad " + Change(j.vs_bad)
                    : measured_.Failure(commit, RecordingSet::kMarks);
  Progress("bisect: " + ShortCommit(commit) + " " + r.subject + ": " + r.mark + " (" + r.reason + ")");
  if (!usable || j.mark == Mark::kUncertain) return std::string("skip");
  return std::string(MarkName(j.mark));
}

StatusOr<std::string> Bisector::ReplayLog() {
  PERFGATE_ASSIGN_OR_RETURN(std::string log, git_.Log());
  log += "\n# perfgate bisect: " + result_.metric + ", the judge's verdict at each commit\n";
  for (const CommitRecord& r : result_.commits) {
    log += "# perfgate: " + r.commit + " " + (r.mark.empty() ? "not judged" : r.mark) + ": " + r.reason + "\n";
  }
  log += std::string("# perfgate: outcome ") + OutcomeName(result_.outcome) + "\n";
  return log;
}

StatusOr<BisectResult> Bisector::Run() {
  PERFGATE_RETURN_IF_ERROR(Prepare());
  PERFGATE_ASSIGN_OR_RETURN(Step step, git_.Start(result_.bad.commit, result_.good.commit));
  PERFGATE_RETURN_IF_ERROR(JudgeEndpoints());
  if (result_.endpoints.verdict == Verdict::kRegressed) {
    while (step.kind == Step::Kind::kTest) {
      PERFGATE_ASSIGN_OR_RETURN(const std::string mark, Classify(step.commit));
      PERFGATE_ASSIGN_OR_RETURN(step, git_.Mark(step.commit, mark));
    }
    PERFGATE_RETURN_IF_ERROR(Conclude(step));
  }
  result_.taken = measured_.taken();
  result_.reused = measured_.reused();
  PERFGATE_ASSIGN_OR_RETURN(result_.log, ReplayLog());
  return result_;
}

std::string ShortCommit(const std::string& sha) { return sha.substr(0, 12); }

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kCulprit: return "culprit";
    case Outcome::kUncertain: return "uncertain";
    case Outcome::kRange: return "range";
    case Outcome::kNoRegression: return "no_regression";
    case Outcome::kUndecided: return "undecided";
  }
  return "undecided";
}

StatusOr<BisectResult> RunBisect(GitRepository& git, Workspace& workspace, const BisectOptions& options,
                                 const std::atomic<bool>* cancel) {
  StatusOr<BisectResult> result = Bisector(git, workspace, options, cancel).Run();
  const Status reset = git.Reset();
  if (reset.ok()) return result;
  if (result.ok()) return reset;
  return Status::Error(reset.code(), reset.message() + " (after: " + result.status().ToString() + ")", {},
                       ErrorKind::kEnvironment);
}

}  // namespace perfgate::bisect
