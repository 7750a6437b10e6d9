#include "perfgate/benchmark/perfgate_benchmark.h"

#include "perfgate/metrics/catalogue.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

namespace perfgate::bench {

void PublishCounters(benchmark::State& state, const attribution::EngineSummary& engine) {
  // The engine's totals and per-bucket figures, named by the metric catalogue.
  for (const metrics::Metric& m : metrics::MetricsOf(engine)) {
    const bool total = m.id.scope.empty();
    const bool bucket = m.id.scope == "buckets" && m.id.quantity != "p50_us";
    if (total || bucket) state.counters[m.id.CounterName()] = m.value.median;
  }
}

void RegisterSuiteBenchmarks(const testing::SuiteConfig& config) {
  // Loaded here, once, so each benchmark runs exactly one iteration per trial.
  const testing::SuiteLoad load = testing::LoadSuite(config);
  for (const testing::EngineSpec& spec : config.engines) {
    const std::string name = config.suite + "/" + spec.name;
    // An error and an unavailable suite alike: a benchmark program has no skip that a
    // gate could tell from a pass, so both report an error (and RunSuiteBenchmarks
    // exits 1).
    if (!load.error.ok() || load.unavailable || load.data == nullptr) {
      const std::string why = !load.error.ok() ? load.error.ToString()
                              : load.unavailable ? load.unavailable->reason
                                                 : std::string("no data");
      benchmark::RegisterBenchmark(name.c_str(), [why](benchmark::State& state) {
        state.SkipWithError(why.c_str());
        for (auto _ : state) {
        }
      })->Iterations(1);
      continue;
    }
    const attribution::EngineSummary engine = load.data->engine(spec.name);
    const int64_t trials = std::max<int64_t>(1, static_cast<int64_t>(engine.trials.size()));
    benchmark::RegisterBenchmark(name.c_str(), [engine](benchmark::State& state) {
      const auto& per_trial = engine.gpu_us_per_token.per_trial;
      size_t i = 0;
      for (auto _ : state) {
        const double us = per_trial.empty() ? 0.0 : per_trial[i++ % per_trial.size()];
        state.SetIterationTime(us * 1e-6);
      }
      PublishCounters(state, engine);
      state.counters["trials"] = static_cast<double>(engine.trials.size());
    })->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(trials);
  }
}

namespace {

// The display reporter, passed through, noting every run that reported an error. The
// file reporter (--benchmark_out) receives the same runs, so counting here suffices.
class FailClosedReporter : public benchmark::BenchmarkReporter {
 public:
  explicit FailClosedReporter(benchmark::BenchmarkReporter* display) : display_(display) {
    // The library writes its own messages to the display reporter's streams.
    SetOutputStream(&display_->GetOutputStream());
    SetErrorStream(&display_->GetErrorStream());
  }

  bool ReportContext(const Context& context) override { return display_->ReportContext(context); }

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;  // aggregates repeat their runs
      ++runs_;
      // Google Benchmark 1.7 (Debian's); 1.8 renamed these `skipped` and `skip_message`.
      if (run.error_occurred) errors_.push_back(run.benchmark_name() + ": " + run.error_message);
    }
    display_->ReportRuns(runs);
  }

  void Finalize() override { display_->Finalize(); }

  int runs() const { return runs_; }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  benchmark::BenchmarkReporter* display_;  // the library's; it must not be deleted
  int runs_ = 0;
  std::vector<std::string> errors_;
};

}  // namespace

int RunSuiteBenchmarks(int argc, char** argv) {
  char arg0_default[] = "benchmark";
  char* args_default = arg0_default;
  if (argv == nullptr) {
    argc = 1;
    argv = &args_default;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // CreateDefaultDisplayReporter honours --benchmark_format and --benchmark_color and
  // returns an object the library owns.
  FailClosedReporter reporter(benchmark::CreateDefaultDisplayReporter());
  const size_t matched = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::cout.flush();
  if (matched == 0) {
    std::cerr << "perfgate: no benchmark matched --benchmark_filter='" << benchmark::GetBenchmarkFilter()
              << "'; nothing was measured, which is not a pass (exit status 1)\n";
    return 1;
  }
  if (!reporter.errors().empty()) {
    std::cerr << "perfgate: " << reporter.errors().size() << " of " << reporter.runs()
              << " benchmark runs reported an error; they measured nothing (exit status 1):\n";
    for (const std::string& e : reporter.errors()) std::cerr << "  " << e << "\n";
    return 1;
  }
  return 0;
}

}  // namespace perfgate::bench
