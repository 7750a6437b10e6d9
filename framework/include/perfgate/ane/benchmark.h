// The ANE notch's on/off evaluation pair as Google Benchmark results, so a recorded
// run (or one replayed anywhere) reads like any other benchmark and works with
// Google Benchmark's JSON output and compare tooling.
//
//   auto r = perfgate::ane::Replay("fixtures/ane/m5.json");
//   perfgate::ane::RegisterNotchBenchmarks("m5", std::make_shared<perfgate::ane::NotchResult>(*r));
//   benchmark::Initialize(&argc, argv);
//   benchmark::RunSpecifiedBenchmarks();
//
// Header-only: it needs <benchmark/benchmark.h> (link benchmark::benchmark), not a
// perfgate library beyond perfgate::framework.
#ifndef PERFGATE_ANE_BENCHMARK_H_
#define PERFGATE_ANE_BENCHMARK_H_

#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "perfgate/ane/notch.h"

namespace perfgate::ane {

// Counters of one point: eval_us (the median), gbps_weight_payload (from the
// median), mib_per_core, on_prefetch_notch (0/1); and on the "on" point also
// ratio_on_over_off, class_rank (0 no_notch, 1 milder, 2 m3_class, 3 host-dominated)
// and borderline (0/1).
inline void PublishNotchCounters(benchmark::State& state, const NotchResult& result, const MeasuredPoint& point,
                                 bool is_on) {
  state.counters["eval_us"] = point.median_eval_us;
  state.counters["gbps_weight_payload"] = point.gbps_weight_payload;
  state.counters["mib_per_core"] = point.dense.mib_per_core;
  state.counters["on_prefetch_notch"] = point.dense.on_prefetch_notch ? 1 : 0;
  if (is_on) {
    state.counters["ratio_on_over_off"] = result.ratio_on_over_off;
    state.counters["class_rank"] = static_cast<double>(static_cast<int>(result.classification.notch_class));
    state.counters["borderline"] = result.classification.borderline ? 1 : 0;
  }
}

// Registers "ane_dma_notch/<name>/off" and ".../on". One iteration per recorded
// evaluation: each reports that evaluation's microseconds as manual time
// (UseManualTime, unit us), and bytes processed are the whole fp16 weight per
// evaluation, so bytes_per_second is the payload bandwidth.
inline void RegisterNotchBenchmarks(const std::string& name, std::shared_ptr<const NotchResult> result) {
  for (bool is_on : {false, true}) {
    const MeasuredPoint& point = is_on ? result->on() : result->off();
    const std::string label = "ane_dma_notch/" + name + (is_on ? "/on" : "/off");
    benchmark::RegisterBenchmark(label.c_str(),
                                 [result, is_on](benchmark::State& state) {
                                   const MeasuredPoint& p = is_on ? result->on() : result->off();
                                   size_t i = 0;
                                   for (auto _ : state) {
                                     state.SetIterationTime(p.eval_us_samples[i % p.eval_us_samples.size()] / 1e6);
                                     ++i;
                                   }
                                   state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                                                           p.dense.total_fp16_bytes);
                                   state.SetLabel(result->chip.guessed_chip + " Cin " + std::to_string(p.dense.cin) +
                                                  " Cout " + std::to_string(p.dense.cout) + " " +
                                                  ToString(result->classification.notch_class));
                                   PublishNotchCounters(state, *result, p, is_on);
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(static_cast<benchmark::IterationCount>(point.eval_us_samples.size()));
  }
}

}  // namespace perfgate::ane

#endif  // PERFGATE_ANE_BENCHMARK_H_
