// Attribution figures as Google Benchmark results, so `--benchmark_format=json`
// output works with Google Benchmark's compare tooling (tools/compare.py).
//
//   int main(int argc, char** argv) {
//     perfgate::bench::RegisterSuiteBenchmarks(MySuiteConfig());
//     benchmark::Initialize(&argc, argv);
//     benchmark::RunSpecifiedBenchmarks();
//   }
#ifndef PERFGATE_BENCHMARK_PERFGATE_BENCHMARK_H_
#define PERFGATE_BENCHMARK_PERFGATE_BENCHMARK_H_

#include <benchmark/benchmark.h>

#include "perfgate/attribution/summary.h"
#include "perfgate/gtest/suite.h"

namespace perfgate::bench {

// Sets user counters on `state`: gpu_us_per_token, busy_us_per_token,
// submissions_per_token, and per bucket <bucket>.us_per_token and
// <bucket>.submissions_per_token (medians over the engine's trials).
void PublishCounters(benchmark::State& state, const attribution::EngineSummary& engine);

// Registers one benchmark per engine of the suite, named "<suite>/<engine>". Each
// iteration replays one trial and reports its GPU µs per token as manual time (one
// iteration per trial), with PublishCounters' counters. A suite that cannot load
// reports the error through SkipWithError.
void RegisterSuiteBenchmarks(const testing::SuiteConfig& config);

}  // namespace perfgate::bench

#endif  // PERFGATE_BENCHMARK_PERFGATE_BENCHMARK_H_
