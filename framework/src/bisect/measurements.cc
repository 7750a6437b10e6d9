#include "bisect/measurements.h"

namespace perfgate::bisect {

const Measurements::State* Measurements::StateOf(const std::string& commit, RecordingSet set) const {
  const auto found = states_.find({commit, set});
  return found == states_.end() ? nullptr : &found->second;
}

std::vector<double> Measurements::Samples(const std::string& commit, RecordingSet set) const {
  const State* st = StateOf(commit, set);
  if (st == nullptr || !st->measurement || metric_.empty()) return {};
  StatusOr<MetricSamples> s = SamplesOf(*st->measurement, metric_);
  return s.ok() ? s->samples : std::vector<double>{};
}

const Measurement* Measurements::Find(const std::string& commit, RecordingSet set) const {
  const State* st = StateOf(commit, set);
  return st != nullptr && st->measurement ? &*st->measurement : nullptr;
}

std::string Measurements::Failure(const std::string& commit, RecordingSet set) const {
  const State* st = StateOf(commit, set);
  return st == nullptr ? "" : st->failure;
}

int Measurements::Taken(const std::string& commit, RecordingSet set) const {
  const State* st = StateOf(commit, set);
  return st == nullptr ? 0 : st->taken;
}

int Measurements::Kept(const std::string& commit, RecordingSet set) const {
  const State* st = StateOf(commit, set);
  return st == nullptr ? 0 : st->taken + st->reused;
}

size_t Measurements::Count(const Measurement& m) const {
  StatusOr<MetricSamples> s = SamplesOf(m, metric_);
  return s.ok() ? s->samples.size() : 0;
}

StatusOr<bool> Measurements::Absorb(State* st, const std::string& dir, Measurement m) {
  const size_t before = st->measurement ? Count(*st->measurement) : 0;
  if (!st->measurement) {
    st->measurement = std::move(m);
  } else {
    PERFGATE_RETURN_IF_ERROR(Merge(&*st->measurement, m));
  }
  if (metric_.empty()) PERFGATE_RETURN_IF_ERROR(on_first_(*st->measurement));
  if (Count(*st->measurement) > before) return true;
  st->failure = dir + " holds no sample of " + metric_;
  return false;
}

Status Measurements::Load(const std::string& commit, RecordingSet set) {
  State& st = states_[{commit, set}];
  if (st.loaded) return Status();
  st.loaded = true;
  const std::string build = workspace_.BuildFailure(commit);
  if (!build.empty()) {
    st.failure = "the build " + build + " (kept from an earlier bisect)";
    return Status();
  }
  for (const std::string& dir : workspace_.Recordings(commit, set)) {
    StatusOr<Measurement> m = ReadRecording(dir, read_);
    if (!m.ok()) {
      st.failure = "a kept recording cannot be read (remove " + dir + " to record it again): " + m.status().ToString();
      return Status();
    }
    ++st.reused;
    ++reused_;
    PERFGATE_ASSIGN_OR_RETURN(bool added, Absorb(&st, dir, std::move(*m)));
    if (!added) return Status();
  }
  return Status();
}

// Checks the commit out and builds it, unless the work tree holds its build already.
Status Measurements::Prepare(const std::string& commit, State* st, bool* ready) {
  *ready = false;
  if (checked_out_ != commit) {
    PERFGATE_RETURN_IF_ERROR(git_.Checkout(commit));
    checked_out_ = commit;
  }
  if (built_ != commit) {
    PERFGATE_ASSIGN_OR_RETURN(CommandOutcome build, workspace_.Build(commit, git_.dir()));
    if (!build.ok) {
      st->failure = "the build " + build.what + " (its output: " + build.log + ")";
      return Status();
    }
    built_ = commit;
  }
  *ready = true;
  return Status();
}

StatusOr<bool> Measurements::Record(const std::string& commit, RecordingSet set) {
  if (cancel_ != nullptr && cancel_->load()) {
    return Status::Error("bisect.interrupted", "interrupted", {}, ErrorKind::kEnvironment);
  }
  State& st = states_[{commit, set}];
  bool ready = false;
  PERFGATE_RETURN_IF_ERROR(Prepare(commit, &st, &ready));
  if (!ready) return false;
  PERFGATE_ASSIGN_OR_RETURN(CommandOutcome record, workspace_.Record(commit, git_.dir(), set));
  if (!record.ok) {
    st.failure = "the record command " + record.what + " (its output: " + record.log + ")";
    return false;
  }
  StatusOr<Measurement> m = ReadRecording(record.path, read_);
  if (!m.ok()) {
    st.failure = "its recording cannot be read: " + m.status().ToString();
    return false;
  }
  ++st.taken;
  ++taken_;
  return Absorb(&st, record.path, std::move(*m));
}

StatusOr<bool> Measurements::Ensure(const std::string& commit, size_t samples, RecordingSet set) {
  PERFGATE_RETURN_IF_ERROR(Load(commit, set));
  const State& st = states_[{commit, set}];
  while (st.failure.empty() && (!st.measurement || Samples(commit, set).size() < samples)) {
    PERFGATE_ASSIGN_OR_RETURN(bool added, Record(commit, set));
    if (!added) break;
  }
  return st.failure.empty();
}

StatusOr<bool> Measurements::AddOne(const std::string& commit, RecordingSet set) {
  return Ensure(commit, Samples(commit, set).size() + 1, set);
}

}  // namespace perfgate::bisect
