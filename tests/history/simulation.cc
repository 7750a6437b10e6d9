// Detection quality of FindChangePointsSince by simulation, as a history check sees it:
// runs are appended one at a time and after each the change points among the newest
// runs are asked for. Each trial is `--history` runs at one level then `--after` runs
// at the level times (1 + step), every run times (1 + cv * Gaussian noise); the checks
// start once half the history is stored. The table (markdown) gives, per noise level
// and step:
//   detected  the share of trials whose step is reported (within --tolerance runs of
//             it) by one of the checks after it;
//   delay     runs of the new level stored when it is first reported (median, 90th
//             percentile): 1 is the run that opens it;
//   false alarms per 1,000 runs checked: change points reported anywhere else, each
//             index counted once per trial however many checks report it; of which
//             lasting: those the whole series' analysis still reports after the last run.
//
//   change_points_simulation [--trials N] [--no-step-trials N] [--window W]
//       [--max-pvalue P] [--min-magnitude M] [--lookback L] [--history H] [--after A]
//       [--tolerance T] [--seed S]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "perfgate/history/change_points.h"

namespace {

using perfgate::history::ChangePoint;
using perfgate::history::ChangePointOptions;

struct Settings {
  int trials = 300;
  int no_step_trials = 1000;
  int64_t lookback = 0;  // 0: the window
  int64_t history = 100;
  int64_t after = 50;
  int64_t tolerance = 2;
  uint64_t seed = 1;
  ChangePointOptions options;
};

// Gaussian noise from a seed (splitmix64 and Box-Muller): the same on every platform.
class Noise {
 public:
  explicit Noise(uint64_t seed) : state_(seed) {}
  double Gaussian() {
    const double u = Uniform();
    const double v = Uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

 private:
  double Uniform() { return (static_cast<double>(Next() >> 11) + 0.5) / 9007199254740992.0; }
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

// What one trial's checks saw.
struct TrialOutcome {
  int64_t delay = 0;  // 0: the step was never reported
  int64_t false_alarms = 0;
  int64_t lasting_false_alarms = 0;  // those the whole series' analysis still reports at the end
  int64_t runs_checked = 0;
};

TrialOutcome RunTrial(const Settings& settings, double cv, double step, uint64_t seed) {
  Noise noise(seed);
  const int64_t step_at = settings.history;
  const int64_t total = settings.history + settings.after;
  const int64_t lookback = settings.lookback > 0 ? settings.lookback : settings.options.window;
  std::vector<double> series;
  std::set<int64_t> false_alarms;
  TrialOutcome outcome;
  for (int64_t i = 0; i < total; ++i) {
    const double level = step != 0 && i >= step_at ? 1000 * (1 + step) : 1000;
    series.push_back(level * (1 + cv * noise.Gaussian()));
    const int64_t n = i + 1;
    if (n <= settings.history / 2) continue;
    ++outcome.runs_checked;
    for (const ChangePoint& p : FindChangePointsSince(series, n - lookback, settings.options)) {
      // Near the step's index before the step happened is a false alarm like any other.
      const bool at_step = step != 0 && n > step_at && std::llabs(p.index - step_at) <= settings.tolerance;
      if (!at_step) {
        false_alarms.insert(p.index);
      } else if (outcome.delay == 0) {
        outcome.delay = n - step_at;
      }
    }
  }
  outcome.false_alarms = static_cast<int64_t>(false_alarms.size());
  for (const ChangePoint& p : FindChangePoints(series, settings.options)) {
    if (false_alarms.count(p.index) != 0) ++outcome.lasting_false_alarms;
  }
  return outcome;
}

double Percentile(std::vector<int64_t> values, double fraction) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const size_t rank = static_cast<size_t>(std::ceil(fraction * static_cast<double>(values.size())));
  return static_cast<double>(values[rank == 0 ? 0 : rank - 1]);
}

void PrintRow(const Settings& settings, double cv, double step) {
  const int trials = step == 0 ? settings.no_step_trials : settings.trials;
  std::vector<int64_t> delays;
  int64_t false_alarms = 0;
  int64_t lasting = 0;
  int64_t runs = 0;
  for (int t = 0; t < trials; ++t) {
    const uint64_t seed = settings.seed * 1000003 + static_cast<uint64_t>(t) * 7919 +
                          static_cast<uint64_t>(step * 1e6) * 31 + static_cast<uint64_t>(cv * 1e6);
    const TrialOutcome o = RunTrial(settings, cv, step, seed);
    if (o.delay > 0) delays.push_back(o.delay);
    false_alarms += o.false_alarms;
    lasting += o.lasting_false_alarms;
    runs += o.runs_checked;
  }
  const double per_1000 = 1000.0 / static_cast<double>(runs);
  const double alarms = per_1000 * static_cast<double>(false_alarms);
  const double lasting_alarms = per_1000 * static_cast<double>(lasting);
  if (step == 0) {
    std::printf("| %g %% | none | – | – | – | %.2f | %.2f |\n", cv * 100, alarms, lasting_alarms);
    return;
  }
  const double detected = 100.0 * static_cast<double>(delays.size()) / trials;
  std::printf("| %g %% | %g %% (%.4g σ) | %.1f %% | %.0f | %.0f | %.2f | %.2f |\n", cv * 100, step * 100, step / cv,
              detected, Percentile(delays, 0.5), Percentile(delays, 0.9), alarms, lasting_alarms);
}

bool ParseArguments(int argc, char** argv, Settings* s) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--trials") s->trials = std::atoi(value);
    else if (flag == "--no-step-trials") s->no_step_trials = std::atoi(value);
    else if (flag == "--window") s->options.window = std::atoi(value);
    else if (flag == "--max-pvalue") s->options.max_pvalue = std::atof(value);
    else if (flag == "--min-magnitude") s->options.min_magnitude = std::atof(value);
    else if (flag == "--lookback") s->lookback = std::atoll(value);
    else if (flag == "--history") s->history = std::atoll(value);
    else if (flag == "--after") s->after = std::atoll(value);
    else if (flag == "--tolerance") s->tolerance = std::atoll(value);
    else if (flag == "--seed") s->seed = std::strtoull(value, nullptr, 10);
    else return false;
  }
  return argc % 2 == 1 && s->trials > 0 && s->no_step_trials > 0 && s->history >= 2 && s->after > 0 &&
         perfgate::history::ChangePointOptionsError(s->options).empty();
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  if (!ParseArguments(argc, argv, &settings)) {
    std::fprintf(stderr, "usage: %s [--trials N] [--no-step-trials N] [--window W] [--max-pvalue P] "
                 "[--min-magnitude M] [--lookback L] [--history H] [--after A] [--tolerance T] [--seed S]\n", argv[0]);
    return 2;
  }
  const ChangePointOptions& o = settings.options;
  std::printf("window %d, max_pvalue %g, min_magnitude %g; %d trials a step, %d without; %lld runs, then %lld after "
              "the step; each check from the newest %lld runs; tolerance %lld runs\n\n",
              o.window, o.max_pvalue, o.min_magnitude, settings.trials, settings.no_step_trials,
              static_cast<long long>(settings.history), static_cast<long long>(settings.after),
              static_cast<long long>(settings.lookback > 0 ? settings.lookback : o.window),
              static_cast<long long>(settings.tolerance));
  std::printf("| noise (cv) | step | detected | median delay | p90 delay | false alarms / 1,000 runs | of which lasting |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (double cv : {0.0002, 0.005, 0.01, 0.02}) {
    for (double step : {0.005, 0.01, 0.02, 0.05, 0.0}) PrintRow(settings, cv, step);
  }
  return 0;
}
