// What the history's change-point analysis costs on 10,000-run series: a check of the
// newest runs (FindChangePointsSince from the last run, and from the last window), the
// same over 200 series (one gate run's figures), and FindChangePoints on the whole
// series. The series: 0.5 % noise with a 3 % step every 500 runs or so.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "perfgate/history/change_points.h"

namespace {

namespace history = perfgate::history;

constexpr int64_t kRuns = 10000;

std::vector<double> MakeSeries(uint64_t seed) {
  uint64_t state = seed * 0x9e3779b97f4a7c15ULL + 1;
  auto uniform = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
  };
  std::vector<double> series;
  series.reserve(kRuns);
  double level = 1000;
  for (int64_t i = 0; i < kRuns; ++i) {
    if (i > 0 && uniform() < 1.0 / 500) level *= uniform() < 0.5 ? 1.03 : 0.97;
    const double gaussian = std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
    series.push_back(level * (1 + 0.005 * gaussian));
  }
  return series;
}

const std::vector<std::vector<double>>& Series() {
  static const std::vector<std::vector<double>> all = [] {
    std::vector<std::vector<double>> s;
    for (uint64_t i = 0; i < 200; ++i) s.push_back(MakeSeries(i + 1));
    return s;
  }();
  return all;
}

// Arg: how many of the newest runs the check asks about (1, or a window of 50).
void BM_SinceTail(benchmark::State& state) {
  const std::vector<double>& series = Series()[0];
  const int64_t from = kRuns - state.range(0);
  for (auto _ : state) benchmark::DoNotOptimize(history::FindChangePointsSince(series, from, {}));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SinceTail)->Arg(1)->Arg(50)->Unit(benchmark::kMicrosecond);

void BM_SinceTail200Series(benchmark::State& state) {
  const int64_t from = kRuns - state.range(0);
  for (auto _ : state) {
    for (const std::vector<double>& series : Series()) {
      benchmark::DoNotOptimize(history::FindChangePointsSince(series, from, {}));
    }
  }
  state.SetItemsProcessed(state.iterations() * 200);
}
BENCHMARK(BM_SinceTail200Series)->Arg(1)->Arg(50)->Unit(benchmark::kMillisecond);

void BM_WholeSeries(benchmark::State& state) {
  const std::vector<double>& series = Series()[0];
  size_t found = 0;
  for (auto _ : state) {
    const std::vector<history::ChangePoint> points = history::FindChangePoints(series, {});
    found = points.size();
    benchmark::DoNotOptimize(found);
  }
  state.counters["change_points"] = static_cast<double>(found);
  state.SetItemsProcessed(state.iterations() * kRuns);
}
BENCHMARK(BM_WholeSeries)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
