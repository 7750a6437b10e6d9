// Private: what a bisect has measured of each commit, per recording set, and how it
// gets more: check the commit out, build it once, record, read and merge.
#ifndef PERFGATE_SRC_BISECT_MEASUREMENTS_H_
#define PERFGATE_SRC_BISECT_MEASUREMENTS_H_

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perfgate/bisect/git.h"
#include "perfgate/bisect/measurement.h"
#include "perfgate/bisect/workspace.h"

namespace perfgate::bisect {

class Measurements {
 public:
  // `on_first` sees the first measurement of the bisect (it resolves the metric and its
  // policy, set_metric); its error ends the bisect.
  Measurements(GitRepository& git, Workspace& workspace, const ReadOptions& read, const std::atomic<bool>* cancel,
               std::function<Status(const Measurement&)> on_first)
      : git_(git), workspace_(workspace), read_(read), cancel_(cancel), on_first_(std::move(on_first)) {}

  void set_metric(std::string metric) { metric_ = std::move(metric); }

  // Records the commit until its metric has `samples` samples (kept recordings first).
  // False when it cannot be measured (a build or record that fails, a recording that
  // cannot be read or holds no sample of the metric): Failure says why. Errors:
  // bisect.interrupted, git's, the workspace's and on_first's.
  StatusOr<bool> Ensure(const std::string& commit, size_t samples, RecordingSet set);
  // One more recording.
  StatusOr<bool> AddOne(const std::string& commit, RecordingSet set);

  std::vector<double> Samples(const std::string& commit, RecordingSet set) const;
  const Measurement* Find(const std::string& commit, RecordingSet set) const;
  std::string Failure(const std::string& commit, RecordingSet set) const;
  int Taken(const std::string& commit, RecordingSet set) const;
  int Kept(const std::string& commit, RecordingSet set) const;  // taken and reused
  int taken() const { return taken_; }
  int reused() const { return reused_; }

 private:
  struct State {
    bool loaded = false;
    std::optional<Measurement> measurement;
    std::string failure;  // why it cannot be measured ("" when it can)
    int taken = 0;
    int reused = 0;
  };
  using Key = std::pair<std::string, RecordingSet>;

  const State* StateOf(const std::string& commit, RecordingSet set) const;
  Status Load(const std::string& commit, RecordingSet set);
  StatusOr<bool> Record(const std::string& commit, RecordingSet set);
  // Adds a recording read from `dir`; false (with the failure) when it adds no sample.
  StatusOr<bool> Absorb(State* st, const std::string& dir, Measurement m);
  size_t Count(const Measurement& m) const;  // samples of the metric
  Status Prepare(const std::string& commit, State* st, bool* ready);

  GitRepository& git_;
  Workspace& workspace_;
  const ReadOptions& read_;
  const std::atomic<bool>* cancel_;
  std::function<Status(const Measurement&)> on_first_;
  std::string metric_;
  std::map<Key, State> states_;
  std::string checked_out_;
  std::string built_;
  int taken_ = 0;
  int reused_ = 0;
};

}  // namespace perfgate::bisect

#endif  // PERFGATE_SRC_BISECT_MEASUREMENTS_H_
