#include "trial_reporter.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace perfgate::bench::internal {

std::map<std::string, TrialSeries>& RegisteredSeries() {
  static std::map<std::string, TrialSeries> series;
  return series;
}

std::vector<std::string>& RegistrationNotes() {
  static std::vector<std::string> notes;
  return notes;
}

namespace {

using Run = benchmark::BenchmarkReporter::Run;

// Real and CPU time alike: the reporters print accumulated time × the unit's
// multiplier / iterations, so this is `value` in the run's unit.
void SetFigure(Run* run, double value) {
  const double accumulated = value / benchmark::GetTimeUnitMultiplier(run->time_unit) *
                             static_cast<double>(run->iterations);
  run->real_accumulated_time = accumulated;
  run->cpu_accumulated_time = accumulated;
}

const benchmark::internal::Statistics* FindStatistic(const Run& run) {
  if (run.statistics == nullptr) return nullptr;
  for (const auto& s : *run.statistics) {
    if (s.name_ == run.aggregate_name) return &s;
  }
  return nullptr;
}

// The statistic over the trials. A figure that is the same in every trial (0
// submissions in an empty bucket) has no variation: its cv is 0, where Google
// Benchmark's 0/0 would write NaN, which strict JSON parsers (CMake's, for one) reject.
double Compute(const benchmark::internal::Statistics& stat, const std::vector<double>& samples) {
  const double value = stat.compute_(samples);
  if (!std::isnan(value) || samples.empty()) return value;
  const bool constant = std::all_of(samples.begin(), samples.end(), [&](double v) { return v == samples.front(); });
  return constant ? 0.0 : value;
}

void RewriteIteration(Run* run, const TrialSeries& series) {
  const int64_t trial = run->repetition_index < 0 ? 0 : run->repetition_index;
  if (trial >= static_cast<int64_t>(series.values.size())) {
    run->error_occurred = true;
    run->error_message = "repetition " + std::to_string(trial + 1) + " has no recorded trial (the recordings hold " +
                         std::to_string(series.values.size()) + ")";
    return;
  }
  SetFigure(run, series.values[trial]);
  run->counters = series.counters[trial];
}

void RewriteAggregate(Run* run, const TrialSeries& series) {
  const benchmark::internal::Statistics* stat = FindStatistic(*run);
  if (stat == nullptr) {
    run->error_occurred = true;
    run->error_message = "aggregate '" + run->aggregate_name + "' cannot be computed from the trials";
    return;
  }
  const double value = Compute(*stat, series.values);
  if (run->aggregate_unit == benchmark::kTime) {
    SetFigure(run, value);
  } else {  // a percentage (cv): reported as accumulated, unscaled
    run->real_accumulated_time = value;
    run->cpu_accumulated_time = value;
  }
  run->counters.clear();
  if (series.counters.empty()) return;
  for (const auto& [name, first] : series.counters.front()) {
    std::vector<double> samples;
    for (const benchmark::UserCounters& trial : series.counters) samples.push_back(trial.at(name).value);
    run->counters[name] = benchmark::Counter(Compute(*stat, samples), first.flags, first.oneK);
  }
}

}  // namespace

void RewriteRun(Run* run, const TrialSeries& series) {
  // Names that pair across recordings: no iteration or repetition count in them.
  run->run_name.iterations.clear();
  run->run_name.repetitions.clear();
  run->run_name.time_type.clear();
  run->report_label = series.label;
  if (run->error_occurred) return;
  if (run->run_type == Run::RT_Iteration) {
    RewriteIteration(run, series);
  } else {
    RewriteAggregate(run, series);
  }
}

TrialReporter::TrialReporter(benchmark::BenchmarkReporter* inner) : inner_(inner) {
  // The library writes its own messages to the display reporter's streams.
  SetOutputStream(&inner_->GetOutputStream());
  SetErrorStream(&inner_->GetErrorStream());
}

bool TrialReporter::ReportContext(const Context& context) {
  // For --benchmark_out the library points this reporter's streams at the file, after
  // construction and before the context: hand them on.
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
  return inner_->ReportContext(context);
}

void TrialReporter::ReportRuns(const std::vector<Run>& runs) {
  std::vector<Run> rewritten = runs;
  const auto& series = RegisteredSeries();
  for (Run& run : rewritten) {
    const auto it = series.find(run.run_name.function_name);
    if (it != series.end()) RewriteRun(&run, it->second);
    if (run.run_type != Run::RT_Iteration) continue;  // aggregates repeat their runs
    ++runs_;
    // Google Benchmark 1.7 (Debian's); 1.8 renamed these `skipped` and `skip_message`.
    if (run.error_occurred) errors_.push_back(run.benchmark_name() + ": " + run.error_message);
  }
  inner_->ReportRuns(rewritten);
}

void TrialReporter::Finalize() { inner_->Finalize(); }

}  // namespace perfgate::bench::internal
