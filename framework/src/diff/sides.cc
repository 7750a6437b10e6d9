// The sides a diff compares (diff.h: SideOf): an engine's trials, a per-kernel
// report, a golden file. Each becomes per-trial, per-token figures by level.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "perfgate/diff/diff.h"
#include "perfgate/kernel_report/compare.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/sources/source.h"
#include "perfgate/stats/summary.h"
#include "string_util.h"

namespace perfgate::diff {
namespace {

using attribution::EngineSummary;
using attribution::TrialSummary;

// Items of one level being gathered: by matched name, a value per trial.
class LevelBuilder {
 public:
  LevelBuilder(Level level, std::string word, std::string calls_word, size_t trials)
      : level_(level), word_(std::move(word)), calls_word_(std::move(calls_word)), trials_(trials) {}

  // Adds `calls` and `us` per token to trial `trial` of the item `matched`.
  void Add(const std::string& matched, const std::string& original, size_t trial, double calls, double us) {
    Item& item = Find(matched);
    if (std::find(item.originals.begin(), item.originals.end(), original) == item.originals.end()) {
      item.originals.push_back(original);
    }
    item.calls_per_token[trial] += calls;
    item.us_per_token[trial] += us;
  }
  void SetMedianPerCall(const std::string& matched, double us) { Find(matched).us_per_call_median = us; }
  LevelBuilder WithCallsWord(std::string word) && {
    calls_word_ = std::move(word);
    return std::move(*this);
  }
  bool empty() const { return items_.empty(); }

  LevelItems Take() {
    LevelItems out{level_, word_, calls_word_, {}};
    for (auto& [_, item] : items_) {
      std::sort(item.originals.begin(), item.originals.end());
      out.items.push_back(std::move(item));
    }
    return out;
  }

 private:
  Item& Find(const std::string& matched) {
    auto [it, inserted] = items_.try_emplace(matched);
    if (inserted) {
      it->second.name = matched;
      it->second.calls_per_token.assign(trials_, 0);
      it->second.us_per_token.assign(trials_, 0);
    }
    return it->second;
  }

  Level level_;
  std::string word_, calls_word_;
  size_t trials_;
  std::map<std::string, Item> items_;
};

// Attribution never leaves a trial without tokens (attr.no_tokens); a hand-built one
// counts nothing rather than dividing by zero.
double PerToken(int64_t value, const TrialSummary& t) {
  return t.tokens > 0 ? static_cast<double>(value) / static_cast<double>(t.tokens) : 0;
}
// µs first, then per token, as the attribution computes its per-token times: the same
// figure is the same double in the diff and in the report's Δ table.
double UsPerToken(int64_t ns, const TrialSummary& t) {
  return t.tokens > 0 ? static_cast<double>(ns) / 1000.0 / static_cast<double>(t.tokens) : 0;
}

// memcpy and memset time of a kernel trace (extras memcpy_ns, memset_ns): GPU work
// outside the kernels' total that the family level names.
double CopiesUsPerToken(const TrialSummary& t) {
  double ns = 0;
  for (const char* key : {"memcpy_ns", "memset_ns"}) {
    auto it = t.extras.find(key);
    if (it != t.extras.end()) ns += it->second;
  }
  return t.tokens > 0 ? ns / static_cast<double>(t.tokens) / 1000.0 : 0;
}

LevelItems BucketsOf(const EngineSummary& e, const sources::SourceWords& words) {
  LevelBuilder b(Level::kBucket, "duration bucket", std::string(words.units), e.trials.size());
  std::map<std::string, std::vector<double>> p50s;
  for (size_t i = 0; i < e.trials.size(); ++i) {
    const TrialSummary& t = e.trials[i];
    for (const auto& [name, stats] : t.buckets) {
      b.Add(name, name, i, PerToken(stats.count, t), UsPerToken(stats.sum_ns, t));
      if (stats.count > 0) p50s[name].push_back(static_cast<double>(stats.p50_ns) / 1000.0);
    }
  }
  for (const auto& [name, values] : p50s) b.SetMedianPerCall(name, stats::Median(values));
  return b.Take();
}

// One level of every trial (`level` picks the trial's map): each item's calls or
// items (`count`) and GPU time per token, its name matched by `match` (kernels) or
// kept.
LevelItems FromTrials(LevelBuilder b, const EngineSummary& e,
                      const std::map<std::string, attribution::LevelItem> TrialSummary::*level,
                      int64_t attribution::LevelItem::*count, std::string (*match)(std::string_view) = nullptr) {
  for (size_t i = 0; i < e.trials.size(); ++i) {
    const TrialSummary& t = e.trials[i];
    for (const auto& [name, item] : t.*level) {
      b.Add(match != nullptr ? match(name) : name, name, i, PerToken(item.*count, t), UsPerToken(item.gpu_sum_ns, t));
    }
  }
  return b.Take();
}

LevelItems FamiliesOf(const EngineSummary& e, const sources::SourceWords& words) {
  return FromTrials(LevelBuilder(Level::kFamily, std::string(words.family), std::string(words.labelled), e.trials.size()),
                    e, &TrialSummary::families, &attribution::LevelItem::calls);
}

LevelItems PhasesOf(const EngineSummary& e, const sources::SourceWords& words) {
  return FromTrials(LevelBuilder(Level::kPhase, std::string(words.phase), std::string(words.units), e.trials.size()), e,
                    &TrialSummary::phases, &attribution::LevelItem::items);
}

// Kernels by matched name; one with a single original name gets its median call: the
// median over the trials that ran it of each trial's median (several names' calls
// have no median here).
LevelItems KernelsOf(const EngineSummary& e) {
  LevelItems level =
      FromTrials(LevelBuilder(Level::kKernel, "kernel", "calls", e.trials.size()), e, &TrialSummary::kernels,
                 &attribution::LevelItem::items, &NormalizeKernelName);
  for (Item& item : level.items) {
    if (item.originals.size() != 1) continue;
    std::vector<double> medians;
    for (const TrialSummary& t : e.trials) {
      auto it = t.kernels.find(item.originals.front());
      if (it != t.kernels.end() && it->second.items > 0) medians.push_back(it->second.median_ns / 1000.0);
    }
    if (!medians.empty()) item.us_per_call_median = stats::Median(std::move(medians));
  }
  return level;
}

// Levels with no item at all are left out: the source does not have them.
void AddLevel(LevelItems level, Side* side) {
  if (!level.items.empty()) side->levels.push_back(std::move(level));
}

// The units per token and the per-token extras every trial has.
void AddFigures(const EngineSummary& e, const sources::SourceWords& words, Side* side) {
  std::vector<double>& units = side->figures[std::string(words.units) + "_per_token"];
  for (const TrialSummary& t : e.trials) units.push_back(t.items_per_token);
  for (const auto& [key, median] : e.extras) {
    if (EndsWith(key, "_per_token") && median.per_trial.size() == e.trials.size()) side->figures[key] = median.per_trial;
  }
}

}  // namespace

Side SideOf(const EngineSummary& engine) {
  const sources::SourceWords& words = sources::WordsOf(engine);
  Side side;
  side.name = engine.name;
  side.trials = engine.trials.size();
  for (const TrialSummary& t : engine.trials) {
    side.paths.push_back(t.path);
    side.total_us_per_token.push_back(UsPerToken(t.total_sum_ns, t) + CopiesUsPerToken(t));
  }
  AddFigures(engine, words, &side);
  AddLevel(BucketsOf(engine, words), &side);
  AddLevel(FamiliesOf(engine, words), &side);
  AddLevel(PhasesOf(engine, words), &side);
  AddLevel(KernelsOf(engine), &side);
  return side;
}

Side SideOf(const kernel_report::KernelReport& report) {
  Side side;
  side.name = report.name;
  side.paths = {report.path};
  side.trials = 1;
  LevelBuilder kernels(Level::kKernel, "kernel", "calls", 1);
  LevelBuilder families(Level::kFamily, "kernel family", "calls", 1);
  std::map<std::string, int> per_matched;
  double total = 0;
  for (const kernel_report::Kernel& k : report.kernels) {
    const std::string matched = NormalizeKernelName(k.name);
    kernels.Add(matched, k.name, 0, k.calls_per_token(), k.us_per_token());
    families.Add(k.family, k.family, 0, k.calls_per_token(), k.us_per_token());
    // An nsys stats report without a median column has none.
    if (++per_matched[matched] == 1 && k.figures.count("us_per_call_median") > 0) {
      kernels.SetMedianPerCall(matched, k.figure("us_per_call_median"));
    }
    total += k.us_per_token();
  }
  side.total_us_per_token = {total};
  for (const auto& entry : report.diagnostics.Entries()) {
    // What makes the side's per-token figures other than they look: untimed dispatches,
    // or an nsys stats report's totals of a run read without its token count.
    if (entry.code == "kernel_report.dropped_samples" || entry.code == "kernel_report.per_run") {
      side.notes.push_back(report.name + ": " + entry.first_detail);
    }
  }
  AddLevel(families.Take(), &side);
  LevelItems kernel_level = kernels.Take();
  // A median over several kernels' calls is not in the report.
  for (Item& item : kernel_level.items) {
    if (per_matched[item.name] > 1) item.us_per_call_median.reset();
  }
  AddLevel(std::move(kernel_level), &side);
  return side;
}

namespace {

// A golden value's per-trial values: its samples, else its value as one trial.
std::vector<double> SamplesOf(const golden::GoldenValue& v) {
  return v.samples.empty() ? std::vector<double>{v.value} : v.samples;
}

// The words of `like`'s level, or defaults when it lacks the level.
LevelBuilder BuilderLike(const Side& like, Level level, size_t trials) {
  for (const LevelItems& l : like.levels) {
    if (l.level == level) return LevelBuilder(level, l.word, l.calls_word, trials);
  }
  return LevelBuilder(level, LevelName(level), "calls", trials);
}

// The name `like` gives its units per token ("submissions_per_token",
// "kernels_per_token"): a golden's submissions_per_token counts the source's units.
std::string UnitsFigureLike(const Side& like) {
  for (const LevelItems& l : like.levels) {
    if (l.level == Level::kBucket) return l.calls_word + "_per_token";
  }
  return "submissions_per_token";
}

// Adds one golden value (scope/part/quantity) to its level.
void AddGoldenValue(const metrics::MetricId& id, const std::vector<double>& samples, std::map<Level, LevelBuilder>* levels) {
  static const std::map<std::string, std::pair<Level, std::pair<std::string, std::string>>> kQuantities = {
      {"buckets", {Level::kBucket, {"submissions_per_token", "us_per_token"}}},
      {"phases", {Level::kPhase, {"cbs_per_token", "gpu_us_per_token"}}}};
  const auto scope = kQuantities.find(id.scope);
  if (scope == kQuantities.end()) return;
  const auto [level, quantities] = scope->second;
  const bool calls = id.quantity == quantities.first;
  if (!calls && id.quantity != quantities.second) return;
  LevelBuilder& b = levels->at(level);
  for (size_t i = 0; i < samples.size(); ++i) b.Add(id.part, id.part, i, calls ? samples[i] : 0, calls ? 0 : samples[i]);
}

}  // namespace

Side SideOf(const golden::GoldenFile& golden, const std::string& name, const Side& like) {
  Side side;
  side.name = name;
  size_t trials = 1;
  for (const auto& [_, v] : golden.values) trials = std::max(trials, v.samples.size());
  side.trials = trials;
  // A golden holds buckets and phases (metrics::EngineGolden: no family or kernel
  // figures); a phase's calls are its instances per token (cbs_per_token: command
  // buffers for Metal, annotation ranges for trace-event JSON), not its units.
  std::map<Level, LevelBuilder> levels;
  levels.emplace(Level::kBucket, BuilderLike(like, Level::kBucket, trials));
  levels.emplace(Level::kPhase, BuilderLike(like, Level::kPhase, trials).WithCallsWord("instances"));
  for (const auto& [path, value] : golden.values) {
    auto id = metrics::MetricId::FromGoldenPath(path);
    if (!id.ok()) continue;  // a golden of other figures (ANE, kernel reports): no level here
    std::vector<double> samples = SamplesOf(value);
    samples.resize(trials, stats::Median(samples));  // a value with fewer samples: its median fills in
    if (id->scope.empty() && id->quantity == "gpu_us_per_token") side.total_us_per_token = samples;
    if (id->scope.empty() && id->quantity == "submissions_per_token") side.figures[UnitsFigureLike(like)] = samples;
    AddGoldenValue(*id, samples, &levels);
  }
  for (auto& [_, b] : levels) AddLevel(b.Take(), &side);
  if (side.total_us_per_token.empty()) {
    side.notes.push_back(name + " holds no gpu_us_per_token: no total to share out (no shares, no (rest))");
  }
  return side;
}

}  // namespace perfgate::diff
