// The hf2q_decode suite as Google Benchmark results: one benchmark per engine, one
// iteration per trial (manual time = GPU µs per token), attribution figures as
// counters. Compare two runs with Google Benchmark's tools/compare.py.
#include <benchmark/benchmark.h>

#include "hf2q_decode_suite.h"
#include "perfgate/benchmark/perfgate_benchmark.h"

int main(int argc, char** argv) {
  perfgate::bench::RegisterSuiteBenchmarks(hf2q_decode::Suite(PERFGATE_RECORDINGS_DIR, PERFGATE_GOLDEN_DIR));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
