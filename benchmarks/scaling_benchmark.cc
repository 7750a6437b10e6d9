// How each source's reader scales: time and peak memory at 20 MB, 200 MB and 2 GB of
// input, read from a file as a suite reads a trial (xctrace: an execution-points
// export, the generic decode and the typed rows; trace-event JSON: a Kineto decode
// trace; nsys: the corpus's 2xH100 export grown, scaling_inputs.h), and for nsys
// SQLite's own scan and join of the same rows beside the reader and the attribution.
// A reader that scales linearly shows the same MB/s and the same peak_rss_x_file at
// every size. The report formats (per-kernel JSON, nsys stats, counter histories) at
// 1, 10 and 100 MB.
//
// Counters: bytes_per_second (MB/s of file), rows_per_second (rows, events, or
// event-table rows), peak_rss_x_file (the resident set's peak above where it stood
// before the read, over the file size: every allocator and mapping counted), file_MB.
//
//   build/benchmarks/scaling_benchmark --benchmark_counters_tabular=true
// The 2 GB inputs take some 10 GB of disk under $TMPDIR and up to 20 GB of memory
// (the trace-event JSON read); --benchmark_filter='/(20|200)/' leaves them out.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "heap_meter.h"
#include "nsys_ceiling.h"
#include "perfgate/counters/report.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/kernel_report/report.h"
#include "perfgate/nsys/reader.h"
#include "perfgate/toks/bench_report.h"
#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/reader.h"
#include "scaling_inputs.h"

namespace {

using perfgate::bench::GetScaledInput;
using perfgate::bench::ScaledInput;
using perfgate::bench::ScaledSource;

// Times `read(path)` (it returns the rows read, or -1 on failure) on the input of
// `source` of state.range(0) MB, and reports the counters above.
template <typename Read>
void MeasureRead(benchmark::State& state, ScaledSource source, Read read) {
  const ScaledInput& in = GetScaledInput(source, state.range(0));  // outside the timed loop
  if (!in.error.empty()) {
    state.SkipWithError(in.error.c_str());
    return;
  }
  int64_t rows = 0;
  size_t peak = 0;
  for (auto _ : state) {
    state.PauseTiming();
    perfgate::bench::ResetPeakRss();
    const size_t before = perfgate::bench::RssBytes();
    state.ResumeTiming();
    rows = read(in.path);
    state.PauseTiming();
    peak = std::max(peak, perfgate::bench::PeakRssBytes() - std::min(before, perfgate::bench::PeakRssBytes()));
    state.ResumeTiming();
    if (rows < 0) {
      state.SkipWithError(("cannot read " + in.path).c_str());
      return;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in.bytes));
  state.counters["rows_per_second"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_rss_x_file"] = static_cast<double>(peak) / static_cast<double>(in.bytes);
  state.counters["file_MB"] = static_cast<double>(in.bytes) / 1e6;
}

void BM_ScaleXctrace(benchmark::State& state) {
  MeasureRead(state, ScaledSource::kXctrace, [](const std::string& path) -> int64_t {
    auto doc = perfgate::xctrace::ReadExportFile(path);
    if (!doc.ok()) return -1;
    perfgate::Diagnostics diagnostics;
    auto points = perfgate::xctrace::ReadExecutionPoints(doc->table(0), &diagnostics);
    return points.ok() ? static_cast<int64_t>(points->size()) : -1;
  });
}

void BM_ScaleTraceJson(benchmark::State& state) {
  MeasureRead(state, ScaledSource::kTraceJson, [](const std::string& path) -> int64_t {
    auto trace = perfgate::json_trace::ReadTraceJsonFile(path);
    return trace.ok() ? trace->events : -1;
  });
}

void BM_ScaleNsys(benchmark::State& state) {
  MeasureRead(state, ScaledSource::kNsys, [](const std::string& path) -> int64_t {
    auto e = perfgate::nsys::ReadNsysFile(path);
    return e.ok() ? e->rows : -1;
  });
}

// The nsys reader's ceiling: SQLite stepping the same columns, keeping nothing.
void BM_ScaleNsysSqliteScan(benchmark::State& state) {
  MeasureRead(state, ScaledSource::kNsys, perfgate::bench::ScanNsysEventTables);
}

// Read and attribute device 0, the NVTX label "aten::mm" as tokens and window: the
// reader, then kernels joined to their launches by correlation id and attributed.
void BM_ScaleNsysSummarize(benchmark::State& state) {
  MeasureRead(state, ScaledSource::kNsys, [](const std::string& path) -> int64_t {
    perfgate::attribution::AttributionOptions o;
    o.all_processes = true;
    o.device = 0;
    o.token_label = "aten::mm";
    o.window = perfgate::attribution::DecodeWindow::Label("aten::mm");
    auto s = perfgate::nsys::SummarizeNsysTrialFile(path, o);
    return s.ok() ? s->items : -1;
  });
}

// SQLite's own join of every kernel to its launch: the ceiling of the join.
void BM_ScaleNsysSqliteJoin(benchmark::State& state) {
  MeasureRead(state, ScaledSource::kNsys, perfgate::bench::JoinNsysKernelsToLaunches);
}

// The hand-read report formats: a per-kernel JSON report with a field perfgate does
// not know on every kernel (each one a counted diagnostic), nsys stats CSV, and a
// counter history.
// Both per-kernel formats through the one entry that tells them apart.
int64_t ReadKernels(const std::string& path) {
  auto r = perfgate::kernel_report::ReadKernelReport(path, perfgate::kernel_report::ReadOptions{});
  return r.ok() ? static_cast<int64_t>(r->kernels.size()) : -1;
}

void BM_ScaleKernelReport(benchmark::State& state) { MeasureRead(state, ScaledSource::kKernelReport, ReadKernels); }

void BM_ScaleNsysStats(benchmark::State& state) { MeasureRead(state, ScaledSource::kNsysStats, ReadKernels); }

void BM_ScaleCounters(benchmark::State& state) {
  MeasureRead(state, ScaledSource::kCounters, [](const std::string& path) -> int64_t {
    auto h = perfgate::counters::ReadCounterHistory(path);
    return h.ok() ? static_cast<int64_t>(h->reports.size()) : -1;
  });
}

void BM_ScaleLlamaBench(benchmark::State& state) {
  MeasureRead(state, ScaledSource::kLlamaBench, [](const std::string& path) -> int64_t {
    auto r = perfgate::toks::ReadBenchReport(path);
    return r.ok() ? static_cast<int64_t>(r->tests.size()) : -1;
  });
}

// Args: megabytes of input.
#define PERFGATE_SCALED(bm) \
  BENCHMARK(bm)->Arg(20)->Arg(200)->Arg(2000)->Unit(benchmark::kMillisecond)->UseRealTime()
PERFGATE_SCALED(BM_ScaleXctrace);
PERFGATE_SCALED(BM_ScaleTraceJson);
PERFGATE_SCALED(BM_ScaleNsys);
PERFGATE_SCALED(BM_ScaleNsysSqliteScan);
PERFGATE_SCALED(BM_ScaleNsysSummarize);
PERFGATE_SCALED(BM_ScaleNsysSqliteJoin);
// The report formats to 100 MB: larger than any such report is.
#define PERFGATE_SCALED_REPORT(bm) \
  BENCHMARK(bm)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond)->UseRealTime()
PERFGATE_SCALED_REPORT(BM_ScaleKernelReport);
PERFGATE_SCALED_REPORT(BM_ScaleNsysStats);
PERFGATE_SCALED_REPORT(BM_ScaleCounters);
PERFGATE_SCALED_REPORT(BM_ScaleLlamaBench);

}  // namespace

BENCHMARK_MAIN();
