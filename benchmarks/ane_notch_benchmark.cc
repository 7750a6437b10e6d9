// The ANE notch's on/off evaluation pairs as Google Benchmark results, replayed from
// the recordings in fixtures/ane (PERFGATE_RECORDINGS overrides the directory):
//
//   build/benchmarks/ane_notch_benchmark --benchmark_counters_tabular=true
//
// Each recording gives two benchmarks, <name>/off and <name>/on, whose times are the
// recorded evaluation times (manual time, us) with GB/s and the notch class as
// counters. Nothing is measured here: on a Mac with an ANE, record first
// (perfgate ane-dma --out DIR) and point PERFGATE_RECORDINGS at the run directory's
// parent, or pass report.json files as arguments.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "perfgate/ane/benchmark.h"
#include "perfgate/ane/probe.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) files.push_back(argv[i]);
  if (files.empty()) {
    const char* env = std::getenv("PERFGATE_RECORDINGS");
    const std::string dir = env != nullptr && *env ? env : PERFGATE_ANE_FIXTURES_DIR;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
      std::cerr << "ane_notch_benchmark: no recordings (*.json) in " << dir << "\n";
      return 3;
    }
  }
  for (const std::string& file : files) {
    auto r = perfgate::ane::Replay(file);
    const std::string name = fs::path(file).stem().string();
    if (!r.ok()) {
      const std::string error = r.status().ToString();
      benchmark::RegisterBenchmark(("ane_dma_notch/" + name).c_str(),
                                   [error](benchmark::State& state) { state.SkipWithError(error.c_str()); });
      continue;
    }
    benchmark::AddCustomContext("ane." + name, r->chip.guessed_chip + "; " + r->timing_path);
    perfgate::ane::RegisterNotchBenchmarks(name, std::make_shared<const perfgate::ane::NotchResult>(*r));
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
