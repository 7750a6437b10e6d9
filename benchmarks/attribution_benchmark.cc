// Attribution cost beside table decoding, on one trial of N GPU submissions
// (execution points, submission map and encoders list: the tables attribution reads).
// The target: attribution adds at most 25 % to the decode time of the same tables.
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "perfgate/attribution/attribute.h"
#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/reader.h"
#include "xctrace_gen/xctrace_gen.h"

namespace {

namespace gen = perfgate::gen;
namespace xt = perfgate::xctrace;

struct Trace {
  std::string points, map, encoders;  // the three exports
  size_t bytes = 0;
};

// N submissions of one engine in command buffers of 44, on one channel, plus one
// WindowServer submission in 50 on another; durations 2-400 µs.
const Trace& GetTrace(size_t n) {
  static std::map<size_t, Trace> cache;
  if (auto it = cache.find(n); it != cache.end()) return it->second;
  gen::ProcessInfo engine{"hf2q", 4242};
  gen::ProcessInfo other{"WindowServer", 181};
  gen::ThreadInfo thread{"main", 0x9ef, engine};
  std::vector<gen::ExecutionPointRow> points;
  std::vector<gen::SubmissionMapRow> map;
  std::vector<gen::EncoderRow> encoders;
  points.reserve(2 * n);
  map.reserve(n);
  encoders.reserve(n);
  int64_t t = 1'000'000;
  uint64_t state = 88172645463325252ULL;
  for (size_t i = 0; i < n; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const bool windowserver = i % 50 == 49;
    const int64_t duration = 2'000 + static_cast<int64_t>(state % 398'000);
    const uint64_t sub = 1'600'000'000 + i;
    const uint64_t cb = 170'000'000 + i / 44;
    const uint64_t enc = 180'000'000 + i;
    const uint64_t channel = windowserver ? 0x123458 : 0x123457;
    points.push_back(gen::ExecutionPointRow::Start(t, channel, sub));
    points.push_back(gen::ExecutionPointRow::End(t + duration, channel, sub));
    gen::SubmissionMapRow m;
    m.timestamp_ns = t;
    m.cmdbuffer_id = cb;
    m.gpu_submission_id = sub;
    m.encoder_id = enc;
    m.channel_id = channel;
    m.pid = windowserver ? 181 : 4242;
    m.process = windowserver ? other : engine;
    map.push_back(m);
    if (!windowserver) {
      gen::EncoderRow e;
      e.start_ns = t - 20'000;
      e.duration_ns = 3'000;
      e.thread = thread;
      e.cmdbuffer_label = (i % 44 == 43) ? "output_head.fused_norm_lm_argmax"
                                         : "layer." + std::to_string(i % 40) + ".attn_moe_ffn";
      e.cmdbuffer_label_indexed = "[0] " + e.cmdbuffer_label;
      e.cmdbuffer_id = cb;
      e.encoder_id = enc;
      encoders.push_back(e);
    }
    t += duration + 1'000;
  }
  Trace tr;
  tr.points = gen::WriteExecutionPoints(points);
  tr.map = gen::WriteSubmissionMap(map);
  tr.encoders = gen::WriteEncodersList(encoders);
  tr.bytes = tr.points.size() + tr.map.size() + tr.encoders.size();
  return cache.emplace(n, std::move(tr)).first->second;
}

perfgate::attribution::TrialTables Decode(const Trace& tr) {
  perfgate::attribution::TrialTables t;
  t.path = "bench";
  auto points = xt::ReadExportBuffer(tr.points, "points.xml");
  auto map = xt::ReadExportBuffer(tr.map, "map.xml");
  auto encoders = xt::ReadExportBuffer(tr.encoders, "encoders.xml");
  t.execution_points = *xt::ReadExecutionPoints(points->table(0), &t.diagnostics);
  t.submission_map = *xt::ReadSubmissionMap(map->table(0), &t.diagnostics);
  t.encoders = *xt::ReadEncoderRows(encoders->table(0), &t.diagnostics);
  return t;
}

perfgate::attribution::AttributionOptions Options() {
  perfgate::attribution::AttributionOptions o;
  o.process_prefix = "hf2q";
  o.tokens = 1000;
  return o;
}

// Decoding the three tables into typed rows: the reference cost.
void BM_DecodeTrialTables(benchmark::State& state) {
  const Trace& tr = GetTrace(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    auto t = Decode(tr);
    benchmark::DoNotOptimize(t.execution_points.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * tr.bytes));
  state.counters["submissions_per_second"] =
      benchmark::Counter(static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}

// Attribution of the decoded trial: pairing, process filter, buckets, joins.
void BM_AttributeTrial(benchmark::State& state) {
  const Trace& tr = GetTrace(static_cast<size_t>(state.range(0)));
  const auto tables = Decode(tr);
  const auto options = Options();
  for (auto _ : state) {
    auto s = perfgate::attribution::SummarizeTrial(tables, options);
    if (!s.ok()) {
      state.SkipWithError(s.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(s->gpu_us_per_token);
  }
  state.counters["submissions_per_second"] =
      benchmark::Counter(static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_DecodeTrialTables)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttributeTrial)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
