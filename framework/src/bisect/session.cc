#include "perfgate/bisect/session.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "perfgate/stats/summary.h"

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

// What is known of one commit in this bisect.
struct CommitState {
  bool loaded = false;
  std::optional<Measurement> measurement;
  std::string failure;  // why it cannot be measured ("" when it can)
  int taken = 0;
  int reused = 0;
};

// Adds a recording to what is known of its commit.
Status Absorb(CommitState* st, Measurement m) {
  if (!st->measurement) {
    st->measurement = std::move(m);
    return Status();
  }
  return Merge(&*st->measurement, m);
}

class Bisector {
 public:
  Bisector(GitRepository& git, Workspace& workspace, const BisectOptions& options, const std::atomic<bool>* cancel)
      : git_(git), workspace_(workspace), options_(options), cancel_(cancel) {}

  StatusOr<BisectResult> Run();

 private:
  Status Prepare();
  StatusOr<Endpoint> EndpointOf(const std::string& ref);
  Status JudgeEndpoints();
  StatusOr<std::string> Classify(const std::string& commit);
  Status Conclude(const Step& step);
  Status Confirm(const std::string& culprit);
  void DescribeRange(const std::vector<std::string>& candidates);
  void CompareFigures(const Measurement& before, const Measurement& after);
  void NoteSecondRegression();
  StatusOr<std::string> ReplayLog();

  // Measuring.
  Status Load(const std::string& commit);
  StatusOr<bool> AddRecording(const std::string& commit);
  StatusOr<bool> EnsureSamples(const std::string& commit, size_t n);
  Status ResolveMetric(const Measurement& m);
  std::vector<double> Samples(const std::string& commit) const;
  // Adds a recording to the side of `a` and `b` with fewer samples, while the two
  // cannot be told apart; the last verdict.
  StatusOr<MetricVerdict> JudgePair(const std::string& a, const std::string& b);
  Status Interrupted() const;
  CommitRecord& RecordOf(const std::string& commit);
  void Progress(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }

  GitRepository& git_;
  Workspace& workspace_;
  const BisectOptions& options_;
  const std::atomic<bool>* cancel_;
  BisectResult result_;
  std::map<std::string, CommitState> states_;
  std::string checked_out_;
  std::string built_;
};

Status Bisector::Interrupted() const {
  if (cancel_ != nullptr && cancel_->load()) {
    return Status::Error("bisect.interrupted", "interrupted", {}, ErrorKind::kEnvironment);
  }
  return Status();
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

Status Bisector::ResolveMetric(const Measurement& m) {
  if (result_.metric.empty()) {
    PERFGATE_ASSIGN_OR_RETURN(result_.metric,
                              options_.metric.empty() ? DefaultMetric(m) : StatusOr<std::string>(options_.metric));
    result_.recording_kind = RecordingKindName(m.kind);
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
  return Status();
}

std::vector<double> Bisector::Samples(const std::string& commit) const {
  const auto found = states_.find(commit);
  if (found == states_.end() || !found->second.measurement) return {};
  StatusOr<MetricSamples> s = SamplesOf(*found->second.measurement, result_.metric);
  return s.ok() ? s->samples : std::vector<double>{};
}

Status Bisector::Load(const std::string& commit) {
  CommitState& st = states_[commit];
  if (st.loaded) return Status();
  st.loaded = true;
  const std::string build = workspace_.BuildFailure(commit);
  if (!build.empty()) {
    st.failure = "the build " + build + " (kept from an earlier bisect)";
    return Status();
  }
  for (const std::string& dir : workspace_.Recordings(commit)) {
    StatusOr<Measurement> m = ReadRecording(dir, options_.read);
    if (!m.ok()) {
      st.failure = "a kept recording cannot be read: " + m.status().ToString();
      return Status();
    }
    PERFGATE_RETURN_IF_ERROR(Absorb(&st, std::move(*m)));
    ++st.reused;
    ++result_.reused;
  }
  if (st.measurement) return ResolveMetric(*st.measurement);
  return Status();
}

StatusOr<bool> Bisector::AddRecording(const std::string& commit) {
  PERFGATE_RETURN_IF_ERROR(Interrupted());
  CommitState& st = states_[commit];
  if (checked_out_ != commit) {
    PERFGATE_RETURN_IF_ERROR(git_.Checkout(commit));
    checked_out_ = commit;
  }
  if (built_ != commit) {
    PERFGATE_ASSIGN_OR_RETURN(CommandOutcome build, workspace_.Build(commit, git_.dir()));
    if (!build.ok) {
      st.failure = "the build " + build.what + " (its output: " + build.log + ")";
      return false;
    }
    built_ = commit;
  }
  PERFGATE_ASSIGN_OR_RETURN(CommandOutcome record, workspace_.Record(commit, git_.dir()));
  if (!record.ok) {
    st.failure = "the record command " + record.what + " (its output: " + record.log + ")";
    return false;
  }
  StatusOr<Measurement> m = ReadRecording(record.path, options_.read);
  if (!m.ok()) {
    st.failure = "its recording cannot be read: " + m.status().ToString();
    return false;
  }
  PERFGATE_RETURN_IF_ERROR(Absorb(&st, std::move(*m)));
  ++st.taken;
  ++result_.taken;
  PERFGATE_RETURN_IF_ERROR(ResolveMetric(*st.measurement));
  return true;
}

StatusOr<bool> Bisector::EnsureSamples(const std::string& commit, size_t n) {
  PERFGATE_RETURN_IF_ERROR(Load(commit));
  const CommitState& st = states_[commit];
  while (st.failure.empty() && (!st.measurement || Samples(commit).size() < n)) {
    PERFGATE_ASSIGN_OR_RETURN(bool added, AddRecording(commit));
    if (!added) break;
  }
  CommitRecord& r = RecordOf(commit);
  r.samples = Samples(commit);
  r.taken = st.taken;
  r.recordings = st.taken + st.reused;
  return st.failure.empty();
}

StatusOr<MetricVerdict> Bisector::JudgePair(const std::string& a, const std::string& b) {
  const size_t max = static_cast<size_t>(options_.max_trials);
  for (;;) {
    MetricVerdict v = gates::Judge(result_.metric, Samples(a), Samples(b), result_.policy);
    const size_t na = Samples(a).size(), nb = Samples(b).size();
    if (v.verdict != Verdict::kInconclusive || (na >= max && nb >= max)) return v;
    const std::string& fewer = na <= nb && na < max ? a : b;
    PERFGATE_ASSIGN_OR_RETURN(bool added, EnsureSamples(fewer, Samples(fewer).size() + 1));
    if (!added) return v;
  }
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

Status Bisector::JudgeEndpoints() {
  for (const Endpoint* e : {&result_.good, &result_.bad}) {
    PERFGATE_ASSIGN_OR_RETURN(bool usable, EnsureSamples(e->commit, static_cast<size_t>(options_.trials)));
    if (!usable) {
      return Status::Error("bisect.endpoint_failed",
                           "the " + std::string(e == &result_.good ? "good" : "bad") + " side " + e->ref +
                               " cannot be measured: " + states_[e->commit].failure,
                           {}, ErrorKind::kEnvironment);
    }
  }
  PERFGATE_ASSIGN_OR_RETURN(result_.endpoints, JudgePair(result_.good.commit, result_.bad.commit));
  RecordOf(result_.good.commit).mark = "good";
  RecordOf(result_.bad.commit).mark = "bad";
  for (const Endpoint* e : {&result_.good, &result_.bad}) {
    CommitRecord& r = RecordOf(e->commit);
    r.samples = Samples(e->commit);
    r.reason = e == &result_.good ? "the good side, as given" : "the bad side, as given";
    r.recordings = states_[e->commit].taken + states_[e->commit].reused;
    r.taken = states_[e->commit].taken;
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
  PERFGATE_ASSIGN_OR_RETURN(bool usable, EnsureSamples(commit, static_cast<size_t>(options_.trials)));
  CommitRecord* r = &RecordOf(commit);
  if (!usable) {
    r->mark = "skip";
    r->reason = states_[commit].failure;
    Progress("bisect: " + ShortCommit(commit) + " " + r->subject + ": skip (" + r->reason + ")");
    return std::string("skip");
  }
  Judgement j;
  for (;;) {
    j = JudgeCommit(result_.metric, result_.policy, Samples(result_.good.commit), Samples(result_.bad.commit),
                    Samples(commit));
    if (j.mark != Mark::kUncertain || Samples(commit).size() >= static_cast<size_t>(options_.max_trials)) break;
    PERFGATE_ASSIGN_OR_RETURN(usable, EnsureSamples(commit, Samples(commit).size() + 1));
    if (!usable) break;
  }
  r = &RecordOf(commit);
  r->judgement = j;
  r->mark = usable ? MarkName(j.mark) : "skip";
  r->reason = usable ? "vs good " + Change(j.vs_good) + "; vs bad " + Change(j.vs_bad) : states_[commit].failure;
  Progress("bisect: " + ShortCommit(commit) + " " + r->subject + ": " + r->mark + " (" + r->reason + ")");
  if (!usable || j.mark == Mark::kUncertain) return std::string("skip");
  return std::string(MarkName(j.mark));
}

void Bisector::CompareFigures(const Measurement& before, const Measurement& after) {
  for (const auto& [name, value] : after.figures.values) {
    const auto b = before.figures.values.find(name);
    if (b == before.figures.values.end()) continue;
    const auto samples = [](const golden::GoldenValue& v) {
      return v.samples.empty() ? std::vector<double>{v.value} : v.samples;
    };
    const gates::Policy& policy = name == result_.metric ? result_.policy : value.policy;
    MetricVerdict v = gates::Judge(name, samples(b->second), samples(value), policy);
    const bool moved = v.verdict == Verdict::kRegressed || v.verdict == Verdict::kImproved;
    if (name == result_.metric) {
      result_.figures.insert(result_.figures.begin(), std::move(v));
    } else if (moved) {
      result_.figures.push_back(std::move(v));
    }
  }
}

void Bisector::NoteSecondRegression() {
  const MetricVerdict v =
      gates::Judge(result_.metric, Samples(result_.culprit->commit), Samples(result_.bad.commit), result_.policy);
  if (v.verdict != Verdict::kRegressed) return;
  result_.why.push_back("the bad side is worse than the culprit still (" + v.explanation +
                        "): a second regression follows it; bisect again with --good " + ShortCommit(result_.culprit->commit) +
                        " --bad " + result_.bad.ref);
}

Status Bisector::Confirm(const std::string& culprit) {
  PERFGATE_ASSIGN_OR_RETURN(const std::string parent, git_.Parent(culprit));
  result_.culprit = Endpoint{"", culprit, RecordOf(culprit).subject};
  result_.parent = Endpoint{"", parent, RecordOf(parent).subject};
  result_.candidates = {culprit};
  PERFGATE_ASSIGN_OR_RETURN(bool usable, EnsureSamples(parent, static_cast<size_t>(options_.trials)));
  if (!usable) {
    result_.outcome = Outcome::kUncertain;
    result_.why.push_back("git names " + ShortCommit(culprit) + " the first bad commit, but its parent cannot be measured: " +
                          states_[parent].failure);
    return Status();
  }
  PERFGATE_ASSIGN_OR_RETURN(MetricVerdict v, JudgePair(parent, culprit));
  result_.confirmation = v;
  const bool proven = v.verdict == Verdict::kRegressed;
  result_.outcome = proven ? Outcome::kCulprit : Outcome::kUncertain;
  result_.why.push_back(proven ? ShortCommit(culprit) + " regressed against its parent " + ShortCommit(parent) + ": " + v.explanation
                               : "git names " + ShortCommit(culprit) +
                                     " the first bad commit, but its change against its parent " + ShortCommit(parent) +
                                     " is not proven: " + v.explanation);
  const Measurement& before = *states_[parent].measurement;
  const Measurement& after = *states_[culprit].measurement;
  CompareFigures(before, after);
  if (before.side && after.side) result_.movers = diff::Compute(*before.side, *after.side);
  NoteSecondRegression();
  return Status();
}

void Bisector::DescribeRange(const std::vector<std::string>& candidates) {
  result_.outcome = Outcome::kRange;
  result_.candidates = candidates;
  result_.why.push_back("only commits that could not be judged are left: the first bad commit is one of " +
                        std::to_string(candidates.size()));
  for (const std::string& c : candidates) {
    const CommitRecord& r = RecordOf(c);
    const std::string what = r.mark.empty() ? "not measured" : r.mark + ": " + r.reason;
    result_.why.push_back(ShortCommit(c) + " " + r.subject + ": " + what);
  }
}

Status Bisector::Conclude(const Step& step) {
  if (step.kind == Step::Kind::kFirstBad) return Confirm(step.commit);
  DescribeRange(step.candidates);
  return Status();
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
  if (result_.endpoints.verdict != Verdict::kRegressed) {
    PERFGATE_ASSIGN_OR_RETURN(result_.log, ReplayLog());
    return result_;
  }
  while (step.kind == Step::Kind::kTest) {
    PERFGATE_ASSIGN_OR_RETURN(const std::string mark, Classify(step.commit));
    PERFGATE_ASSIGN_OR_RETURN(step, git_.Mark(step.commit, mark));
  }
  PERFGATE_RETURN_IF_ERROR(Conclude(step));
  PERFGATE_ASSIGN_OR_RETURN(result_.log, ReplayLog());
  return result_;
}

}  // namespace

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
  if (result.ok() && !reset.ok()) return reset;
  return result;
}

}  // namespace perfgate::bisect
