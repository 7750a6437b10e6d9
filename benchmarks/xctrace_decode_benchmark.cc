// Decode throughput and peak memory of the xctrace reader, beside pugixml's own
// in-situ parse of the same bytes (the ceiling any pugixml-based reader can reach).
//
// Counters: bytes_per_second (MB/s), rows_per_second, peak_x_file (peak heap during
// one decode, the input copy included, over the file size).
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include <pugixml.hpp>

#include "heap_meter.h"
#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/reader.h"
#include "xctrace_gen/xctrace_gen.h"

namespace {

using perfgate::bench::LiveHeapBytes;
using perfgate::bench::PeakHeapBytes;
using perfgate::bench::ResetPeak;

enum Kind : int { kExecutionPoints = 0, kEncoders = 1 };

struct Input {
  std::string bytes;
  size_t rows = 0;
};

// Generated once per (kind, size) and kept for the whole run.
const Input& GetInput(int kind, size_t megabytes) {
  static std::map<std::pair<int, size_t>, Input> cache;
  auto key = std::make_pair(kind, megabytes);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Input in;
  const size_t bytes = megabytes * 1000 * 1000;
  in.bytes = kind == kExecutionPoints ? perfgate::gen::GenerateExecutionPointsExport(bytes, 42, &in.rows)
                                      : perfgate::gen::GenerateEncodersListExport(bytes, 42, &in.rows);
  return cache.emplace(key, std::move(in)).first->second;
}

void Report(benchmark::State& state, const Input& in, size_t peak_bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in.bytes.size()));
  state.counters["rows_per_second"] =
      benchmark::Counter(static_cast<double>(in.rows), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_x_file"] = static_cast<double>(peak_bytes) / static_cast<double>(in.bytes.size());
  state.counters["file_MB"] = static_cast<double>(in.bytes.size()) / 1e6;
}

// Runs `decode` on a fresh copy of the input per iteration (the copy untimed) and
// reports throughput and the peak heap of one decode, the copy included.
// `decode` returns an error message, or "" on success.
template <typename Decode>
void MeasureDecode(benchmark::State& state, Decode decode) {
  const Input& in = GetInput(static_cast<int>(state.range(0)), static_cast<size_t>(state.range(1)));
  size_t peak = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const size_t base = LiveHeapBytes();
    ResetPeak();
    std::string copy = in.bytes;
    state.ResumeTiming();
    std::string error = decode(std::move(copy), in);
    state.PauseTiming();
    peak = PeakHeapBytes() - base;
    state.ResumeTiming();
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      break;
    }
  }
  Report(state, in, peak);
}

// pugixml's minimal in-situ parse of the whole file: the reference throughput.
void BM_PugixmlInSitu(benchmark::State& state) {
  MeasureDecode(state, [](std::string bytes, const Input&) -> std::string {
    pugi::xml_document doc;
    pugi::xml_parse_result r = doc.load_buffer_inplace(bytes.data(), bytes.size(), pugi::parse_minimal);
    benchmark::DoNotOptimize(doc.first_child());
    return r ? "" : r.description();
  });
}

// The generic reader alone (no typed view), to split the cost of the two layers.
void BM_GenericDecode(benchmark::State& state) {
  MeasureDecode(state, [](std::string bytes, const Input& in) -> std::string {
    auto doc = perfgate::xctrace::ReadExportBuffer(std::move(bytes), "bench.xml");
    if (!doc.ok()) return doc.status().ToString();
    return doc->table(0).row_count() == in.rows ? "" : "row count differs from the generator's";
  });
}

// perfgate's typed decode: the generic reader plus the typed view of the table.
void BM_TypedDecode(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  MeasureDecode(state, [kind](std::string bytes, const Input& in) -> std::string {
    auto doc = perfgate::xctrace::ReadExportBuffer(std::move(bytes), "bench.xml");
    if (!doc.ok()) return doc.status().ToString();
    perfgate::Diagnostics diagnostics;
    size_t rows = 0;
    if (kind == kExecutionPoints) {
      auto v = perfgate::xctrace::ReadExecutionPoints(doc->table(0), &diagnostics);
      rows = v.ok() ? v->size() : 0;
    } else {
      auto v = perfgate::xctrace::ReadEncoderRows(doc->table(0), &diagnostics);
      rows = v.ok() ? v->size() : 0;
    }
    return rows == in.rows ? "" : "row count differs from the generator's";
  });
}

// Sizes in MB: small ones for a quick look, the 250 MB / 100 MB for figures.
BENCHMARK(BM_PugixmlInSitu)->Args({kExecutionPoints, 8})->Args({kExecutionPoints, 250})
    ->Args({kEncoders, 8})->Args({kEncoders, 100})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GenericDecode)->Args({kExecutionPoints, 8})->Args({kExecutionPoints, 250})
    ->Args({kEncoders, 8})->Args({kEncoders, 100})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TypedDecode)->Args({kExecutionPoints, 8})->Args({kExecutionPoints, 250})
    ->Args({kEncoders, 8})->Args({kEncoders, 100})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
