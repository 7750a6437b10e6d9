// Read throughput of the nsys SQLite reader on the real 2xH100 export of shared/corpus
// (3,442 kernels, 926 copies, 5,796 runtime calls, 16,782 NVTX ranges), beside a bare
// SQLite scan of the same columns (the ceiling: stepping the rows, converting nothing),
// and the cost of attributing one device.
//
// Counter rows_per_second: rows of the event tables (kernels, memcpy, memset, runtime,
// NVTX) per second.
//
//   build/benchmarks/nsys_benchmark --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <string>

#include "nsys_ceiling.h"
#include "perfgate/nsys/reader.h"
#include "support/corpus.h"

namespace {

const std::string& ExportPath() {
  static const std::string path = perfgate::testing_support::CorpusFile("nsys/h100_2gpu_1s.sqlite");
  return path;
}

bool SkipWithoutCorpus(benchmark::State& state) {
  if (!ExportPath().empty()) return false;
  state.SkipWithError("nsys/h100_2gpu_1s.sqlite not found: set PERFGATE_CORPUS_DIR to shared/corpus");
  return true;
}

void ReportRows(benchmark::State& state, int64_t rows) {
  state.counters["rows_per_second"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["rows"] = static_cast<double>(rows);
}

void BM_NsysRead(benchmark::State& state) {
  if (SkipWithoutCorpus(state)) return;
  int64_t rows = 0;
  for (auto _ : state) {
    auto e = perfgate::nsys::ReadNsysFile(ExportPath());
    if (!e.ok()) {
      state.SkipWithError(e.status().ToString().c_str());
      return;
    }
    rows = e->rows;
    benchmark::DoNotOptimize(e->trace.items.data());
  }
  ReportRows(state, rows);
}
BENCHMARK(BM_NsysRead)->Unit(benchmark::kMillisecond);

// The same columns stepped through SQLite with nothing kept: what any reader on SQLite
// costs at least.
void BM_SqliteScanCeiling(benchmark::State& state) {
  if (SkipWithoutCorpus(state)) return;
  int64_t rows = 0;
  for (auto _ : state) rows = perfgate::bench::ScanNsysEventTables(ExportPath());
  ReportRows(state, rows);
}
BENCHMARK(BM_SqliteScanCeiling)->Unit(benchmark::kMillisecond);

// Read and attribute device 0 with the NVTX label as tokens and window.
void BM_NsysSummarizeDevice(benchmark::State& state) {
  if (SkipWithoutCorpus(state)) return;
  perfgate::attribution::AttributionOptions o;
  o.all_processes = true;
  o.device = 0;
  o.token_label = "aten::mm";
  o.window = perfgate::attribution::DecodeWindow::Label("aten::mm");
  for (auto _ : state) {
    auto s = perfgate::nsys::SummarizeNsysTrialFile(ExportPath(), o);
    if (!s.ok()) {
      state.SkipWithError(s.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(s->gpu_us_per_token);
  }
}
BENCHMARK(BM_NsysSummarizeDevice)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
