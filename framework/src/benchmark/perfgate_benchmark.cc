#include "perfgate/benchmark/perfgate_benchmark.h"

#include <algorithm>

namespace perfgate::bench {

void PublishCounters(benchmark::State& state, const attribution::EngineSummary& engine) {
  state.counters["gpu_us_per_token"] = engine.gpu_us_per_token.median;
  state.counters["busy_us_per_token"] = engine.busy_us_per_token.median;
  state.counters["submissions_per_token"] = engine.dispatches_per_token.median;
  for (const auto& [name, b] : engine.buckets) {
    state.counters[name + ".us_per_token"] = b.us_per_token.median;
    state.counters[name + ".submissions_per_token"] = b.dispatches_per_token.median;
  }
}

void RegisterSuiteBenchmarks(const testing::SuiteConfig& config) {
  // Loaded here, once, so each benchmark runs exactly one iteration per trial.
  const testing::SuiteLoad load = testing::LoadSuite(config);
  for (const testing::EngineSpec& spec : config.engines) {
    const std::string name = config.suite + "/" + spec.name;
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

}  // namespace perfgate::bench
