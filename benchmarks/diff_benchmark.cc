// The cost of `perfgate diff` beyond reading: two synthetic Kineto decode traces of
// about 50 MB each (eager launches against CUDA graphs, tests/unit/json_trace/
// kineto_gen.h), read and attributed once; then, timed, the diff of the two trials
// (SideOf both, Compute) and its JSON (every change). BM_ReadAndAttribute50MB times
// the reading it adds to, on the same bytes.
//
//   build/benchmarks/diff_benchmark --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <string>

#include "kineto_gen.h"
#include "perfgate/diff/diff.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/attribution/work.h"
#include "perfgate/report/diff_formats.h"

namespace {

namespace gen = perfgate::json_trace::gen;
namespace jt = perfgate::json_trace;
using perfgate::attribution::EngineSummary;

constexpr double kMegabytes = 50;

std::string Trace(bool graphs) {
  gen::DecodeTraceSpec spec;
  spec.cuda_graphs = graphs;
  spec.tokens = 4;
  const double per_token = static_cast<double>(gen::DecodeTrace(spec).size()) / 4.0;
  spec.tokens = static_cast<int64_t>(kMegabytes * 1e6 / per_token);
  return gen::DecodeTrace(spec);
}

perfgate::attribution::AttributionOptions Options() {
  perfgate::attribution::AttributionOptions o;
  o.all_processes = true;
  o.window = perfgate::attribution::DecodeWindow::Label("decode_step");
  o.token_label = "decode_step";
  return o;
}

EngineSummary Attributed(const std::string& name, const std::string& bytes) {
  EngineSummary e;
  e.name = name;
  auto t = jt::ReadTraceJsonBuffer(bytes, name + ".json");
  if (!t.ok()) return e;
  auto s = perfgate::attribution::AttributeWork(*t, Options());
  if (s.ok()) e.trials.push_back(std::move(s).value());
  return e;
}

struct Pair {
  std::string eager_bytes, graphs_bytes;
  EngineSummary eager, graphs;
};

const Pair& Inputs() {
  static const Pair p = [] {
    Pair x;
    x.eager_bytes = Trace(false);
    x.graphs_bytes = Trace(true);
    x.eager = Attributed("eager", x.eager_bytes);
    x.graphs = Attributed("graphs", x.graphs_bytes);
    return x;
  }();
  return p;
}

void Counters(benchmark::State& state, const Pair& p) {
  state.counters["file_MB"] = static_cast<double>(p.eager_bytes.size() + p.graphs_bytes.size()) / 2e6;
}

void BM_ReadAndAttribute50MB(benchmark::State& state) {
  const Pair& p = Inputs();
  for (auto _ : state) {
    EngineSummary e = Attributed("eager", p.eager_bytes), g = Attributed("graphs", p.graphs_bytes);
    if (e.trials.empty() || g.trials.empty()) state.SkipWithError("the synthetic traces did not attribute");
    benchmark::DoNotOptimize(e);
    benchmark::DoNotOptimize(g);
  }
  Counters(state, p);
}

void BM_Diff50MBTrials(benchmark::State& state) {
  const Pair& p = Inputs();
  if (p.eager.trials.empty() || p.graphs.trials.empty()) {
    state.SkipWithError("the synthetic traces did not attribute");
    return;
  }
  size_t changes = 0;
  for (auto _ : state) {
    const perfgate::diff::Diff d = perfgate::diff::Compute(perfgate::diff::SideOf(p.eager), perfgate::diff::SideOf(p.graphs));
    changes = 0;
    for (const auto& level : d.levels) changes += level.changes.size();
    if (state.range(0) != 0) benchmark::DoNotOptimize(perfgate::report::RenderDiffJson(d));
    benchmark::DoNotOptimize(d);
  }
  state.counters["changes"] = static_cast<double>(changes);
  Counters(state, p);
}

// Two engines of 3 trials each naming `n` distinct kernels (templated C++ names, so
// that the normalisation demangles and cuts each), in 64 families and 32 phases: the
// diff's cost as the number of items grows, whatever the trace's size.
EngineSummary ManyKernels(const std::string& name, int64_t n, int64_t shift) {
  EngineSummary e;
  e.name = name;
  for (int trial = 0; trial < 3; ++trial) {
    perfgate::attribution::TrialSummary t;
    t.source = "trace_json";
    t.tokens = 64;
    for (int64_t k = 0; k < n; ++k) {
      const std::string kernel = "void ns::kernel_" + std::to_string(k + shift) + "<float, 128>(float const*, int)";
      auto& stats = t.kernels[kernel];
      stats.items = 64;
      stats.gpu_sum_ns = 1000 * (k % 97 + 1) + trial;
      t.families["family_" + std::to_string(k % 64)].gpu_sum_ns += stats.gpu_sum_ns;
      t.phases["phase_" + std::to_string(k % 32)].gpu_sum_ns += stats.gpu_sum_ns;
      t.total_sum_ns += stats.gpu_sum_ns;
    }
    e.trials.push_back(std::move(t));
  }
  return e;
}

void BM_DiffManyKernels(benchmark::State& state) {
  const EngineSummary a = ManyKernels("a", state.range(0), 0), b = ManyKernels("b", state.range(0), state.range(0) / 10);
  for (auto _ : state) {
    benchmark::DoNotOptimize(perfgate::diff::Compute(perfgate::diff::SideOf(a), perfgate::diff::SideOf(b)));
  }
  state.counters["kernels"] = static_cast<double>(state.range(0));
}

BENCHMARK(BM_ReadAndAttribute50MB)->Unit(benchmark::kMillisecond)->UseRealTime();
// Arg 0: the diff; 1: the diff and its JSON.
BENCHMARK(BM_Diff50MBTrials)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DiffManyKernels)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
