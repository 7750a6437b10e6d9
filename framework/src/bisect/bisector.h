// Private: the bisect's steps (session.cc: the sides, the marks, the loop and the log;
// proof.cc: the proof of the answer on fresh recordings, its figures and movers).
#ifndef PERFGATE_SRC_BISECT_BISECTOR_H_
#define PERFGATE_SRC_BISECT_BISECTOR_H_

#include <atomic>
#include <string>
#include <vector>

#include "bisect/measurements.h"
#include "perfgate/bisect/session.h"

namespace perfgate::bisect {

class Bisector {
 public:
  Bisector(GitRepository& git, Workspace& workspace, const BisectOptions& options, const std::atomic<bool>* cancel);

  StatusOr<BisectResult> Run();

 private:
  // session.cc
  Status Prepare();
  StatusOr<Endpoint> EndpointOf(const std::string& ref);
  Status ResolveMetric(const Measurement& m);
  Status JudgeEndpoints();
  StatusOr<gates::MetricVerdict> JudgeSides();
  Status SideFailed(const Endpoint& side) const;  // bisect.endpoint_failed, saying why
  StatusOr<std::string> Classify(const std::string& commit);
  StatusOr<std::string> ReplayLog();
  CommitRecord& RecordOf(const std::string& commit);
  void Note(const std::string& commit);  // copies what is measured of it into its record
  std::vector<double> Marks(const std::string& commit) const { return measured_.Samples(commit, RecordingSet::kMarks); }
  void Progress(const std::string& line) const;

  // proof.cc
  Status Conclude(const Step& step);
  Status ConcludeCulprit(const std::string& culprit);
  Status ConcludeRange(const std::vector<std::string>& candidates);
  // Judges `after` against `before` on fresh recordings: true when it regressed.
  StatusOr<bool> Prove(const std::string& before, const std::string& after);
  StatusOr<bool> RecordBoth(const std::string& before, const std::string& after, size_t n);
  gates::Policy ProofPolicy() const;  // the judge's, at the proof's share of alpha per look
  Status Unproven(const std::string& what);
  void Explain();
  void NoteSecondRegression();

  GitRepository& git_;
  const BisectOptions& options_;
  Measurements measured_;
  Workspace& workspace_;
  BisectResult result_;
};

}  // namespace perfgate::bisect

#endif  // PERFGATE_SRC_BISECT_BISECTOR_H_
