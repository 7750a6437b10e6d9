// The hf2q_decode suite as Google Benchmark results: one benchmark per engine, one
// iteration per trial (manual time = GPU µs per token), attribution figures as
// counters. Compare two runs with Google Benchmark's tools/compare.py. Exits 1 when the
// recordings are missing or cannot be attributed, or when the filter matches nothing.
#include "hf2q_decode_suite.h"
#include "perfgate/benchmark/perfgate_benchmark.h"

PERFGATE_BENCHMARK_MAIN(hf2q_decode::Suite(PERFGATE_RECORDINGS_DIR, PERFGATE_GOLDEN_DIR));
