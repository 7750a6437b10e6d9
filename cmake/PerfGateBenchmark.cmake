# perfgate_add_perf_benchmark(): registers a suite's Google Benchmark program (issue #13;
# being written). Included by PerfGateSuite.cmake, installed beside it.
include_guard(GLOBAL)
