// Read throughput of the trace-event JSON reader on synthetic Kineto traces and on a
// real JAX trace (XLA's dialect, fixtures/recordings/jax_decode_h200), beside
// nlohmann's SAX parser with a handler that does nothing (the ceiling any reader
// built on it can reach), and the cost of attributing the trace read.
//
// Counters: bytes_per_second (MB/s of JSON text), events_per_second, peak_x_file
// (peak heap during one read, the input buffer excluded, over the file size: what
// the kept events cost; there is no DOM of the file), file_MB.
//
//   build/benchmarks/json_trace_benchmark --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "heap_meter.h"
#include "sources/trace_json/json_simd_walk.h"
#include "sources/trace_json/json_trace_internal.h"
#include "kineto_gen.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/attribution/work.h"

namespace {

namespace gen = perfgate::json_trace::gen;
namespace jt = perfgate::json_trace;
using perfgate::bench::LiveHeapBytes;
using perfgate::bench::PeakHeapBytes;
using perfgate::bench::ResetPeak;

struct Input {
  std::string bytes;
  int64_t events = 0;
};

// A decode trace of about `megabytes` MB (eager launches, or CUDA graphs), made once.
const Input& GetInput(int64_t megabytes, bool graphs) {
  static std::map<std::pair<int64_t, bool>, Input> cache;
  auto key = std::make_pair(megabytes, graphs);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  gen::DecodeTraceSpec spec;
  spec.cuda_graphs = graphs;
  spec.tokens = 4;
  const double per_token = static_cast<double>(gen::DecodeTrace(spec).size()) / 4.0;
  spec.tokens = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(megabytes) * 1e6 / per_token));
  Input in;
  in.bytes = gen::DecodeTrace(spec);
  auto t = jt::ReadTraceJsonBuffer(in.bytes, "bench.json");
  in.events = t.ok() ? t->events : 0;
  return cache.emplace(key, std::move(in)).first->second;
}

void Report(benchmark::State& state, const Input& in, size_t peak) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(in.bytes.size()));
  state.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(in.events), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_x_file"] = static_cast<double>(peak) / static_cast<double>(in.bytes.size());
  state.counters["file_MB"] = static_cast<double>(in.bytes.size()) / 1e6;
}

// One ReadTraceJsonBuffer of `bytes` (a failed read fails the benchmark): the heap's
// peak above what was live before it, the trace still held.
size_t ReadBufferPeak(benchmark::State& state, const std::string& bytes, const char* path) {
  const size_t base = LiveHeapBytes();
  ResetPeak();
  auto t = jt::ReadTraceJsonBuffer(bytes, path);
  if (!t.ok()) state.SkipWithError(t.status().ToString().c_str());
  const size_t peak = PeakHeapBytes() - base;
  benchmark::DoNotOptimize(t);
  return peak;
}

// A SAX handler that keeps nothing.
struct NullSax {
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(int64_t) { return true; }
  bool number_unsigned(uint64_t) { return true; }
  bool number_float(double, const std::string&) { return true; }
  bool string(std::string&) { return true; }
  bool binary(nlohmann::json::binary_t&) { return true; }
  bool start_object(size_t) { return true; }
  bool end_object() { return true; }
  bool start_array(size_t) { return true; }
  bool end_array() { return true; }
  bool key(std::string&) { return true; }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
};

// nlohmann's SAX parse of the same bytes with a no-op handler: the reference.
void BM_NlohmannSaxNull(benchmark::State& state) {
  const Input& in = GetInput(state.range(0), state.range(1) != 0);
  for (auto _ : state) {
    NullSax sax;
    bool ok = nlohmann::json::sax_parse(in.bytes.data(), in.bytes.data() + in.bytes.size(), &sax);
    if (!ok) state.SkipWithError("nlohmann rejected the trace");
    benchmark::DoNotOptimize(ok);
  }
  Report(state, in, 0);
}

// simdjson's On-Demand walk of the same bytes through the reader's walker, with a
// handler that keeps nothing: the ceiling of the reader's design.
struct NullWalkSax : NullSax {
  const char** cursor() { return &at; }
  const char* at = nullptr;
};
void BM_SimdjsonWalkNull(benchmark::State& state) {
  const Input& in = GetInput(state.range(0), state.range(1) != 0);
  for (auto _ : state) {
    NullWalkSax sax;
    jt::detail::SimdWalker<NullWalkSax> walker(in.bytes, &sax);
    if (walker.Run(0) != jt::detail::SimdWalk::kDone) state.SkipWithError("simdjson rejected the trace");
  }
  Report(state, in, 0);
}

// ReadTraceJsonBuffer: everything the reader does, from bytes in memory.
void BM_ReadTraceJson(benchmark::State& state) {
  const Input& in = GetInput(state.range(0), state.range(1) != 0);
  size_t peak = 0;
  for (auto _ : state) {
    peak = std::max(peak, ReadBufferPeak(state, in.bytes, "bench.json"));
  }
  Report(state, in, peak);
}

// Times `read(&trace)` (a detail:: pass into a fresh trace; an error fails the
// benchmark) and reports the heap's peak of one read.
template <typename Read>
void MeasureReads(benchmark::State& state, const Input& in, Read read) {
  size_t peak = 0;
  for (auto _ : state) {
    const size_t base = LiveHeapBytes();
    ResetPeak();
    perfgate::model::WorkSet t;
    t.path = "bench.json";
    perfgate::Status s = read(&t);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    peak = std::max(peak, PeakHeapBytes() - base);
    benchmark::DoNotOptimize(t);
  }
  Report(state, in, peak);
}

// The reader before simdjson, which still reads malformed input: nlohmann's SAX
// parser under the same handler (detail::ReadEventsWithNlohmann).
void BM_ReadTraceJsonNlohmann(benchmark::State& state) {
  const Input& in = GetInput(state.range(0), state.range(1) != 0);
  MeasureReads(state, in, [&](perfgate::model::WorkSet* t) {
    return jt::detail::ReadEventsWithNlohmann(in.bytes, t->path, jt::ReadOptions(), t);
  });
}

// detail::ReadEvents of the bytes with one plan (arg 2): 0 the whole document on one
// thread (the reader before pieces), 1 in pieces on one thread, 2 in pieces walked by
// two worker threads (what ReadTraceJson chooses on two free cores); pieces of arg 3
// KiB. The bytes are given 64 bytes of slack, as a file read is, so no plan copies
// them whole.
void BM_ReadTraceJsonPlan(benchmark::State& state) {
  const Input& in = GetInput(state.range(0), state.range(1) != 0);
  std::string padded = in.bytes;
  padded.reserve(in.bytes.size() + 64);
  const int plan = static_cast<int>(state.range(2));
  const size_t piece = static_cast<size_t>(state.range(3)) << 10;
  const jt::detail::SimdPlan chosen{plan == 2 ? 2 : 0, plan == 0 ? 0 : piece};
  MeasureReads(state, in, [&](perfgate::model::WorkSet* t) {
    return jt::detail::ReadEvents(padded, t->path, jt::ReadOptions(), t, padded.capacity() - padded.size(), nullptr,
                                  &chosen);
  });
}

// ReadTraceJsonFile of the trace written to a temporary file `name` as `contents`.
void TimeFileRead(benchmark::State& state, const Input& in, const std::string& name, const std::string& contents) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path, std::ios::binary) << contents;
  for (auto _ : state) {
    auto t = jt::ReadTraceJsonFile(path);
    if (!t.ok()) state.SkipWithError(t.status().ToString().c_str());
    benchmark::DoNotOptimize(t);
  }
  std::remove(path.c_str());
  Report(state, in, 0);
}

// ReadTraceJsonFile on the trace as a plain file: the read and the parse, in place.
void BM_ReadTraceJsonFile(benchmark::State& state) {
  const Input& in = GetInput(state.range(0), state.range(1) != 0);
  TimeFileRead(state, in, "perfgate_bench_" + std::to_string(state.range(0)) + ".json", in.bytes);
}

// ReadTraceJsonFile on the gzip-compressed trace: inflation included.
void BM_ReadTraceJsonGzipFile(benchmark::State& state) {
  const Input& in = GetInput(state.range(0), state.range(1) != 0);
  TimeFileRead(state, in, "perfgate_bench_" + std::to_string(state.range(0)) + ".json.gz", gen::Gzip(in.bytes));
}

// attribution::AttributeWork on a trace already read: the attribution's own cost.
void BM_SummarizeJsonTrial(benchmark::State& state) {
  const Input& in = GetInput(state.range(0), state.range(1) != 0);
  auto t = jt::ReadTraceJsonBuffer(in.bytes, "bench.json");
  if (!t.ok()) {
    state.SkipWithError(t.status().ToString().c_str());
    return;
  }
  perfgate::attribution::AttributionOptions o;
  o.process_prefix = "python";
  o.window.mode = perfgate::attribution::DecodeWindow::Mode::kLabel;
  o.window.label = "decode_step";
  o.token_label = "decode_step";
  for (auto _ : state) {
    auto s = perfgate::attribution::AttributeWork(*t, o);
    if (!s.ok()) state.SkipWithError(s.status().ToString().c_str());
    benchmark::DoNotOptimize(s);
  }
  Report(state, in, 0);
}

// The JAX recording's trial-1, inflated (8.3 MB, 27,203 events, XLA's dialect: every
// event buffered until the metadata is known, then classified).
const Input& XlaInput() {
  static const Input in = [] {
    Input x;
    const std::string path = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/jax_decode_h200/trial-1/trace.json.gz";
    auto t = jt::ReadTraceJsonFile(path);
    if (!t.ok()) return x;
    x.events = t->events;
    gzFile f = gzopen(path.c_str(), "rb");
    char buf[1 << 16];
    int n = 0;
    while (f != nullptr && (n = gzread(f, buf, sizeof buf)) > 0) x.bytes.append(buf, static_cast<size_t>(n));
    if (f != nullptr) gzclose(f);
    return x;
  }();
  return in;
}

// ReadTraceJsonBuffer on the real XLA trace (arg 1), or nlohmann's no-op SAX parse of
// it (arg 0, the reference).
void BM_ReadXlaTrace(benchmark::State& state) {
  const Input& in = XlaInput();
  if (in.bytes.empty()) {
    state.SkipWithError("cannot read fixtures/recordings/jax_decode_h200/trial-1/trace.json.gz");
    return;
  }
  size_t peak = 0;
  for (auto _ : state) {
    if (state.range(0) == 0) {
      NullSax sax;
      benchmark::DoNotOptimize(nlohmann::json::sax_parse(in.bytes.data(), in.bytes.data() + in.bytes.size(), &sax));
      continue;
    }
    peak = std::max(peak, ReadBufferPeak(state, in.bytes, "jax.json"));
  }
  Report(state, in, peak);
}

// The JAX recording by plan (arg 0: 0 whole, 2 two workers; arg 1: piece KiB): XLA's
// events are all buffered for Finish, so no run of them merges and every piece is taped.
void BM_ReadXlaTracePlan(benchmark::State& state) {
  const Input& in = XlaInput();
  if (in.bytes.empty()) {
    state.SkipWithError("cannot read fixtures/recordings/jax_decode_h200/trial-1/trace.json.gz");
    return;
  }
  const jt::detail::SimdPlan chosen{state.range(0) == 2 ? 2 : 0,
                                    state.range(0) == 0 ? 0 : static_cast<size_t>(state.range(1)) << 10};
  MeasureReads(state, in, [&](perfgate::model::WorkSet* t) {
    return jt::detail::ReadEvents(in.bytes, t->path, jt::ReadOptions(), t, 0, nullptr, &chosen);
  });
}

// Args: {megabytes, cuda_graphs}.
BENCHMARK(BM_NlohmannSaxNull)->Args({20, 0})->Args({200, 0})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SimdjsonWalkNull)->Args({20, 0})->Args({200, 0})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadTraceJson)->Args({20, 0})->Args({200, 0})->Args({200, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
// Compare them with --benchmark_enable_random_interleaving=true: this VM drifts by
// ±20 % between minutes, and interleaved repetitions share the drift.
BENCHMARK(BM_ReadTraceJsonPlan)->Args({200, 0, 0, 0})->Args({200, 0, 1, 4096})->Args({200, 0, 2, 4096})
    ->Args({200, 0, 1, 1024})->Args({200, 0, 2, 1024})
    ->Args({20, 0, 0, 0})->Args({20, 0, 2, 4096})->Args({20, 0, 2, 1024})
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadTraceJsonNlohmann)->Args({20, 0})->Args({200, 0})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadTraceJsonFile)->Args({20, 0})->Args({200, 0})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadTraceJsonGzipFile)->Args({200, 0})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadXlaTrace)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadXlaTracePlan)->Args({0, 0})->Args({2, 256})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SummarizeJsonTrial)->Args({200, 0})->Args({200, 1})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
