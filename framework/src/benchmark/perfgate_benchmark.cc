#include "perfgate/benchmark/perfgate_benchmark.h"

#include <cctype>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/metrics/catalogue.h"
#include "trial_reporter.h"

namespace perfgate::bench {

using internal::TrialSeries;

void PublishCounters(benchmark::State& state, const attribution::EngineSummary& engine) {
  // The engine's totals and per-bucket figures, named by the metric catalogue.
  for (const metrics::Metric& m : metrics::MetricsOf(engine)) {
    const bool total = m.id.scope.empty();
    const bool bucket = m.id.scope == "buckets" && m.id.quantity != "p50_us";
    if (total || bucket) state.counters[m.id.CounterName()] = m.value.median;
  }
}

namespace {

// "submissions_per_token" -> "submissions/token", "gpu_us_per_token" -> "gpu us/token".
std::string UnitText(std::string quantity) {
  for (size_t at; (at = quantity.find("_per_")) != std::string::npos;) quantity.replace(at, 5, "/");
  for (char& c : quantity) {
    if (c == '_') c = ' ';
  }
  return quantity;
}

// A figure in µs is shown in µs; any other figure (a count) in the unit whose
// multiplier is 1, so its Time column is the count itself.
benchmark::TimeUnit TimeUnitOf(const std::string& quantity) {
  const std::string q = "_" + quantity + "_";
  return q.find("_us_") != std::string::npos ? benchmark::kMicrosecond : benchmark::kSecond;
}

// Registers `name` with one repetition per value of the series; TrialReporter supplies
// each repetition's figures, so the function itself measures nothing.
void RegisterSeries(const std::string& name, TrialSeries series) {
  const int trials = static_cast<int>(series.values.size());
  const benchmark::TimeUnit unit = series.unit;
  internal::RegisteredSeries()[name] = std::move(series);
  benchmark::RegisterBenchmark(name.c_str(), [](benchmark::State& state) {
    for (auto _ : state) {
    }
  })->Iterations(1)->Repetitions(trials)->Unit(unit);
}

void RegisterError(const std::string& name, const std::string& why) {
  benchmark::RegisterBenchmark(name.c_str(), [why](benchmark::State& state) {
    state.SkipWithError(why.c_str());
    for (auto _ : state) {
    }
  })->Iterations(1);
}

// A figure as a series: one repetition per trial when it has one sample per trial;
// otherwise (a kernel family's size, a bucket's p50 that some trial lacks) one
// repetition holding the recording's value, labelled so, never a replay of it.
TrialSeries FigureSeries(const metrics::Metric& m, size_t trials) {
  TrialSeries s;
  s.unit = TimeUnitOf(m.id.quantity);
  s.label = UnitText(m.id.quantity);
  s.per_trial = m.value.per_trial.size() == trials;
  if (s.per_trial) {
    s.values = m.value.per_trial;
  } else {
    s.values = {m.value.median};
    s.label += " (one value for the recording, not per trial)";
  }
  for (double v : s.values) s.counters.push_back({{m.id.CounterName(), v}});
  return s;
}

// "<suite>/<engine>": GPU µs per token, with every per-trial figure of the same trial
// as counters.
TrialSeries EngineSeries(const attribution::EngineSummary& engine, const std::vector<metrics::Metric>& figures) {
  const size_t trials = engine.trials.size();
  TrialSeries all;
  all.unit = benchmark::kMicrosecond;
  all.label = "gpu us/token; counters: the same trial's figures";
  all.values = engine.gpu_us_per_token.per_trial;
  all.counters.resize(trials);
  for (size_t t = 0; t < trials; ++t) {
    for (const metrics::Metric& m : figures) {
      if (m.value.per_trial.size() == trials) all.counters[t][m.id.CounterName()] = m.value.per_trial[t];
    }
    all.counters[t]["trials"] = static_cast<double>(trials);
  }
  return all;
}

void RegisterEngine(const std::string& engine_name, const attribution::EngineSummary& engine) {
  std::vector<metrics::Metric> figures;
  for (metrics::Metric& m : metrics::MetricsOf(engine)) {
    if (m.policy.gated) figures.push_back(std::move(m));
  }
  RegisterSeries(engine_name, EngineSeries(engine, figures));
  // "<suite>/<engine>/<golden path>": one compared value per gated figure.
  int whole = 0;
  for (const metrics::Metric& m : figures) {
    TrialSeries s = FigureSeries(m, engine.trials.size());
    whole += s.per_trial ? 0 : 1;
    RegisterSeries(engine_name + "/" + m.id.GoldenPath(), std::move(s));
  }
  if (whole > 0) {
    internal::RegistrationNotes().push_back(engine_name + ": " + std::to_string(whole) +
                                            " gated figures have no sample per trial (kernel-family sizes, "
                                            "p50 of buckets some trial lacks): one repetition each");
  }
}

// A suite's reason to skip ("suite S skipped: no recording ..."), worded as what it is
// in a benchmark program: a failure (RunSuiteBenchmarks exits 1).
std::string AsFailure(const std::string& suite, const std::string& skip_reason) {
  const std::string skipped = "suite " + suite + " skipped: ";
  const bool prefixed = skip_reason.compare(0, skipped.size(), skipped) == 0;
  return "suite " + suite + " failed: " + (prefixed ? skip_reason.substr(skipped.size()) : skip_reason);
}

}  // namespace

void RegisterSuiteBenchmarks(const testing::SuiteConfig& config) {
  // Loaded here, once: every repetition reports a recorded trial.
  const testing::SuiteLoad load = testing::LoadSuite(config);
  for (const testing::EngineSpec& spec : config.engines) {
    const std::string name = config.suite + "/" + spec.name;
    // An error and an unavailable suite alike: a benchmark program has no skip that a
    // gate could tell from a pass, so both report an error (and RunSuiteBenchmarks
    // exits 1).
    if (!load.error.ok() || load.unavailable || load.data == nullptr) {
      RegisterError(name, !load.error.ok() ? load.error.ToString()
                          : load.unavailable ? AsFailure(config.suite, load.unavailable->reason)
                                             : std::string("no data"));
      continue;
    }
    const attribution::EngineSummary& engine = load.data->engine(spec.name);
    if (engine.trials.empty() || engine.gpu_us_per_token.per_trial.size() != engine.trials.size()) {
      RegisterError(name, "engine '" + spec.name + "' has no per-trial figures");
      continue;
    }
    RegisterEngine(name, engine);
  }
}

namespace {

// A --benchmark_* flag's value as Google Benchmark reads it: the last
// `--NAME=VALUE` on the command line, else the environment variable NAME in capitals.
std::optional<std::string> FlagValue(int argc, char** argv, const std::string& name) {
  std::optional<std::string> value;
  std::string env_name;
  for (char c : name) env_name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (const char* env = std::getenv(env_name.c_str())) value = env;
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, prefix.size()) == prefix) value = std::string(arg.substr(prefix.size()));
  }
  return value;
}

// A repetition is a recorded trial, so --benchmark_repetitions can only restate the
// trial count: more would replay trials (a U test would see fake agreement), fewer
// would drop some. An error, not a note, so a CI job cannot miss it.
bool CheckRepetitions(const std::optional<std::string>& flag) {
  if (!flag) return true;
  std::set<size_t> counts;
  std::map<std::string, size_t> per_engine;
  for (const auto& [name, series] : internal::RegisteredSeries()) {
    if (!series.per_trial) continue;
    counts.insert(series.values.size());
    per_engine[name.substr(0, name.find('/', name.find('/') + 1))] = series.values.size();
  }
  char* end = nullptr;
  const long requested = std::strtol(flag->c_str(), &end, 10);
  if (counts.empty() || (*end == '\0' && counts.size() == 1 && static_cast<long>(*counts.begin()) == requested)) {
    return true;
  }
  std::cerr << "perfgate: error[benchmark.repetitions]: --benchmark_repetitions=" << *flag
            << " (or BENCHMARK_REPETITIONS) cannot be honoured: each repetition of a suite benchmark is one "
               "recorded trial (";
  const char* sep = "";
  for (const auto& [engine, n] : per_engine) {
    std::cerr << sep << engine << ": " << n << " trials";
    sep = ", ";
  }
  std::cerr << "), and repeating them would replay the same trials. Drop the flag, or record more "
               "trials (perfgate record --trials N) (exit status 2)\n";
  return false;
}

// The reporter for --benchmark_out, in --benchmark_out_format; null for a format
// perfgate does not write (csv: deprecated in Google Benchmark, and not read by
// compare.py).
std::unique_ptr<benchmark::BenchmarkReporter> FileReporter(const std::string& format) {
  if (format == "json") return std::make_unique<benchmark::JSONReporter>();
  if (format == "console") return std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
  return nullptr;
}

}  // namespace

int RunSuiteBenchmarks(int argc, char** argv) {
  char arg0_default[] = "benchmark";
  char* args_default = arg0_default;
  if (argv == nullptr) {
    argc = 1;
    argv = &args_default;
  }
  // Read before Initialize, which removes the flags it recognises from argv.
  const std::optional<std::string> out = FlagValue(argc, argv, "benchmark_out");
  const std::string out_format = FlagValue(argc, argv, "benchmark_out_format").value_or("json");
  const std::optional<std::string> repetitions = FlagValue(argc, argv, "benchmark_repetitions");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!CheckRepetitions(repetitions)) return 2;
  for (const std::string& note : internal::RegistrationNotes()) std::cerr << "perfgate: note: " << note << "\n";
  // CreateDefaultDisplayReporter honours --benchmark_format and --benchmark_color and
  // returns an object the library owns.
  internal::TrialReporter display(benchmark::CreateDefaultDisplayReporter());
  std::unique_ptr<benchmark::BenchmarkReporter> file_inner;
  std::unique_ptr<internal::TrialReporter> file;
  if (out && !out->empty()) {
    file_inner = FileReporter(out_format);
    if (file_inner == nullptr) {
      std::cerr << "perfgate: error[benchmark.out_format]: --benchmark_out_format='" << out_format
                << "' is not written by perfgate (json, console) (exit status 2)\n";
      return 2;
    }
    file = std::make_unique<internal::TrialReporter>(file_inner.get());
  }
  const size_t matched = benchmark::RunSpecifiedBenchmarks(&display, file.get());
  benchmark::Shutdown();
  std::cout.flush();
  if (matched == 0) {
    std::cerr << "perfgate: no benchmark matched --benchmark_filter='" << benchmark::GetBenchmarkFilter()
              << "'; nothing was measured, which is not a pass (exit status 1)\n";
    return 1;
  }
  if (!display.errors().empty()) {
    std::cerr << "perfgate: " << display.errors().size() << " of " << display.runs()
              << " benchmark runs reported an error; they measured nothing (exit status 1):\n";
    for (const std::string& e : display.errors()) std::cerr << "  " << e << "\n";
    return 1;
  }
  return 0;
}

}  // namespace perfgate::bench
