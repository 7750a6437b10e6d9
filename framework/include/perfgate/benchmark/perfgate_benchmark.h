// Attribution figures as Google Benchmark results, so `--benchmark_out` JSON works with
// Google Benchmark's tools/compare.py: each gated figure is a compared value whose
// repetitions are the recorded trials.
//
//   PERFGATE_BENCHMARK_MAIN(MySuiteConfig());
//
// or, spelled out:
//
//   int main(int argc, char** argv) {
//     perfgate::bench::RegisterSuiteBenchmarks(MySuiteConfig());
//     return perfgate::bench::RunSuiteBenchmarks(argc, argv);
//   }
//
// Not BENCHMARK_MAIN(): Google Benchmark exits 0 when a benchmark reports an error
// (prints ERROR OCCURRED) and when the filter matches nothing. A gate must fail closed,
// so RunSuiteBenchmarks exits 1 in both cases.
#ifndef PERFGATE_BENCHMARK_PERFGATE_BENCHMARK_H_
#define PERFGATE_BENCHMARK_PERFGATE_BENCHMARK_H_

#include <benchmark/benchmark.h>

#include "perfgate/attribution/summary.h"
#include "perfgate/suite/suite.h"

namespace perfgate::bench {

// Sets user counters on `state`: gpu_us_per_token, busy_us_per_token,
// submissions_per_token, and per bucket <bucket>.us_per_token and
// <bucket>.submissions_per_token (medians over the engine's trials).
void PublishCounters(benchmark::State& state, const attribution::EngineSummary& engine);

// Registers the suite's figures as benchmarks for compare.py, with names that do not
// depend on the trial count: "<suite>/<engine>/<golden path>" per gated figure of the
// metric catalogue (e.g. "hf2q_decode/hf2q/submissions_per_token"), whose real and CPU
// time ARE the figure (µs figures in us, counts in s, so the Time column shows the
// value; the label and a counter state its unit), and "<suite>/<engine>" (GPU µs per
// token, every figure as a counter). Each has one repetition per recorded trial:
// repetition i reports trial i, and the aggregates (mean, median, stddev, cv) are
// computed from the trials, in Time and counters alike. A figure without one sample
// per trial (a kernel family's size) is one repetition, labelled so. Only
// RunSuiteBenchmarks reports these values (its reporters supply them). A suite that
// cannot load (an error, or no recording where none can be made: both are failures
// here, never skips) registers benchmarks that report the reason through
// SkipWithError, which RunSuiteBenchmarks turns into exit status 1.
void RegisterSuiteBenchmarks(const testing::SuiteConfig& config);

// Google Benchmark's main, failing closed: initialises the library from the command
// line (its --benchmark_* flags), runs the selected benchmarks with the default display
// reporter (and a --benchmark_out file reporter, json or console) and shuts it down.
// Returns
//   0  when at least one benchmark matched and no run reported an error
//      (--benchmark_list_tests: when at least one benchmark matched);
//   1  when any run reported an error (SkipWithError: for a suite, recordings that are
//      missing or cannot be attributed), naming each run and its reason on stderr;
//   1  when no benchmark matched --benchmark_filter (or none was registered): a run
//      that measured nothing is not a pass, though Google Benchmark exits 0 for it;
//   1  for an unrecognised argument, as BENCHMARK_MAIN does;
//   2  for --benchmark_repetitions (or BENCHMARK_REPETITIONS) other than the trial
//      count (repetitions are the recorded trials; more would replay them), and for
//      --benchmark_out_format=csv.
// --benchmark_filter and --benchmark_list_tests see the registered names, which end
// in /iterations:1/repeats:N; the reported names do not.
int RunSuiteBenchmarks(int argc, char** argv);

}  // namespace perfgate::bench

// A main() that registers the suite `config` (a SuiteConfig expression) and returns
// RunSuiteBenchmarks' status.
#define PERFGATE_BENCHMARK_MAIN(config)                             \
  int main(int argc, char** argv) {                                 \
    ::perfgate::bench::RegisterSuiteBenchmarks(config);             \
    return ::perfgate::bench::RunSuiteBenchmarks(argc, argv);       \
  }                                                                 \
  static_assert(true, "PERFGATE_BENCHMARK_MAIN needs a semicolon")

#endif  // PERFGATE_BENCHMARK_PERFGATE_BENCHMARK_H_
