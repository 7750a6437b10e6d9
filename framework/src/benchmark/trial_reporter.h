// Per-trial benchmark results: the bridge between recorded trials and Google
// Benchmark's repetitions (private to perfgate::benchmark).
//
// A suite figure is registered with Iterations(1) and Repetitions(trials); its
// function measures nothing. TrialReporter, wrapped around each reporter
// RunSuiteBenchmarks uses, rewrites every run of such a benchmark before it is shown
// or written: repetition i becomes trial i (real time = CPU time = the trial's figure,
// its counters), each aggregate is recomputed from the trials with the library's own
// statistics functions, and the trial-count-dependent parts of the name
// (iterations:1, repeats:N) are dropped, so names pair across recordings.
#ifndef PERFGATE_SRC_BENCHMARK_TRIAL_REPORTER_H_
#define PERFGATE_SRC_BENCHMARK_TRIAL_REPORTER_H_

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace perfgate::bench::internal {

// One benchmark's recorded samples, one entry per trial.
struct TrialSeries {
  std::vector<double> values;                     // in `unit` (the Time column)
  std::vector<benchmark::UserCounters> counters;  // the same trial's counters
  std::string label;                              // the figure's own unit, e.g. "submissions/token"
  benchmark::TimeUnit unit = benchmark::kMicrosecond;
  // false: one value for the whole recording (a kernel family's size), one repetition.
  bool per_trial = true;
};

// The series of every benchmark registered for a suite, by benchmark name.
std::map<std::string, TrialSeries>& RegisteredSeries();

// Notes RunSuiteBenchmarks prints before running (figures that are not benchmarks).
std::vector<std::string>& RegistrationNotes();

// Rewrites one run of a registered series as described above. A repetition without
// a trial (cannot happen when Repetitions(trials) holds) becomes an error run.
void RewriteRun(benchmark::BenchmarkReporter::Run* run, const TrialSeries& series);

// Passes runs through to `inner` after RewriteRun, and counts error runs.
class TrialReporter : public benchmark::BenchmarkReporter {
 public:
  explicit TrialReporter(benchmark::BenchmarkReporter* inner);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  int runs() const { return runs_; }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  benchmark::BenchmarkReporter* inner_;  // not owned
  int runs_ = 0;
  std::vector<std::string> errors_;
};

}  // namespace perfgate::bench::internal

#endif  // PERFGATE_SRC_BENCHMARK_TRIAL_REPORTER_H_
