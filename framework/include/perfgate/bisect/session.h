// A bisect: which commit between a good and a bad one made a metric regress, decided
// by the one judge, with more trials where a verdict is uncertain, and proven by
// comparing the culprit with its parent on fresh recordings. docs/bisect.md describes
// the method.
#ifndef PERFGATE_BISECT_SESSION_H_
#define PERFGATE_BISECT_SESSION_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/bisect/git.h"
#include "perfgate/bisect/judgement.h"
#include "perfgate/bisect/measurement.h"
#include "perfgate/bisect/workspace.h"
#include "perfgate/diff/diff.h"
#include "perfgate/gates/judge.h"

namespace perfgate::bisect {

struct BisectOptions {
  std::string good_ref;
  std::string bad_ref;
  std::string metric;  // a golden path; "" takes DefaultMetric
  // The judge's policy is the figure's own (the gate's); these replace parts of it. A
  // tolerance is a noisy figure's minimum effect, a fraction of the good side's median
  // (0.05 = 5 %, with no floor); an exact count keeps its own (bisect.bad_tolerance).
  std::optional<gates::Policy> policy;  // in place of the figure's default: a golden's, reviewed with the suite
  std::optional<double> tolerance;
  std::optional<double> alpha;
  int trials = 5;                       // samples a commit gets before its first verdict
  int max_trials = 30;                  // the most samples an uncertain commit gets
  ReadOptions read;
  std::function<void(const std::string&)> progress;  // one line per step; may be empty
};

// What was done and decided at one commit.
struct CommitRecord {
  std::string commit;
  std::string subject;
  std::string mark;    // "good", "bad", "skip", "uncertain"
  std::string reason;  // why: the judgement, or the failing command
  int recordings = 0;  // kept for it (taken + reused)
  int taken = 0;       // recorded by this bisect
  std::vector<double> samples;  // the metric's, over every recording
  std::optional<Judgement> judgement;
  std::vector<std::string> notes;  // what its recordings held besides (Measurement::notes)
};

enum class Outcome {
  kCulprit,       // one commit, proven against its parent
  kUncertain,     // git's answer is not proven: the first bad commit may be any of the range
  kRange,         // only skipped commits are left, and the regression is proven across them
  kNoRegression,  // the bad side is not worse than the good side
  kUndecided,     // the trials could not tell the bad side from the good side
};

// The proof's significance level: a fifth of the judge's, shared by its two looks.
inline constexpr double kProofAlphaShare = 0.2;

// A commit as reports name it: its first 12 hex digits.
std::string ShortCommit(const std::string& sha);

// "culprit", "uncertain", "range", "no_regression", "undecided".
const char* OutcomeName(Outcome outcome);

struct Endpoint {
  std::string ref;
  std::string commit;
  std::string subject;
};

struct BisectResult {
  Outcome outcome = Outcome::kUndecided;
  std::string metric;
  gates::Policy policy;
  std::string engine;
  std::string recording_kind;  // RecordingKindName
  Endpoint good, bad;
  gates::MetricVerdict endpoints;  // bad against good
  std::optional<Endpoint> culprit;  // git's first bad commit (kCulprit; kUncertain when git named one)
  // The two commits the proof compares, on fresh recordings: the culprit's parent and
  // the culprit, or the commit before a range and the range's last.
  std::optional<Endpoint> before, after;
  std::optional<gates::MetricVerdict> confirmation;  // `after` against `before`, at the proof's alpha
  // The commits the first bad one may be: the culprit alone when proven, git's
  // candidates for a proven range, every commit of good..bad when nothing is proven.
  std::vector<std::string> candidates;
  std::vector<std::string> why;               // sentences: how the outcome was reached
  std::vector<gates::MetricVerdict> figures;  // before against after: the metric and every figure that moved
  std::optional<diff::Diff> movers;           // before against after, every level both have
  std::vector<CommitRecord> commits;          // in the order measured
  int taken = 0;
  int reused = 0;
  std::string log;  // git bisect log with perfgate's verdicts as comments (git bisect replay reads it)

  bool proven() const { return outcome == Outcome::kCulprit; }
};

// Runs the bisect in `git`'s repository, keeping recordings in `workspace`. Errors:
// bad refs (bisect.unknown_ref, bisect.not_an_ancestor), a repository not ready
// (GitRepository::CheckReady), an endpoint that cannot be built, recorded or read
// (bisect.endpoint_failed, environment), an unknown metric, bisect.interrupted when
// `cancel` is raised. The bisect state is reset before it returns, whatever happened.
StatusOr<BisectResult> RunBisect(GitRepository& git, Workspace& workspace, const BisectOptions& options,
                                 const std::atomic<bool>* cancel);

}  // namespace perfgate::bisect

#endif  // PERFGATE_BISECT_SESSION_H_
