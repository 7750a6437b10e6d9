// Source-neutral attribution: the per-trial rules every source applies (buckets,
// totals, busy union, tokens, mixed processes), medians over trials, and the
// engine-versus-baseline comparison. The method, and where it departs from the seed
// (kept behind seed_compat), is in docs/attribution-method.md. Metal's pairing
// and joins live in sources/metal/summarize_trial.cc, trace-event JSON's in json_trace/.
#include "perfgate/attribution/attribute.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/checked_math.h"
#include "attribution/overflow_error.h"
#include "perfgate/stats/summary.h"

namespace perfgate::attribution {
namespace {

// nullopt when the bucket's sum does not fit in int64.
std::optional<BucketStats> StatsOf(std::vector<int64_t> durations, bool seed_compat) {
  BucketStats b;
  b.count = static_cast<int64_t>(durations.size());
  for (int64_t d : durations) {
    if (!internal::AccumulateChecked(&b.sum_ns, d)) return std::nullopt;
  }
  if (durations.empty()) return b;
  b.mean_ns = b.sum_ns / b.count;
  if (seed_compat) {
    // The seed's p95: index floor(0.95 * (n - 1)) of the unsorted pair-order list.
    b.p95_ns = durations.size() >= 2 ? durations[static_cast<size_t>(0.95 * (durations.size() - 1))]
                                     : durations[0];
  } else {
    b.p95_ns = stats::PercentileNearestRank(durations, 95);
  }
  b.p50_ns = stats::MedianTruncated(std::move(durations));
  return b;
}

}  // namespace

namespace {

TrialMedian MedianOf(std::vector<double> values) {
  TrialMedian m;
  m.median = stats::Median(values);
  m.per_trial = std::move(values);
  return m;
}

// fn(trial) for every trial, in order.
template <typename Fn>
std::vector<double> PerTrial(const std::vector<TrialSummary>& trials, Fn fn) {
  std::vector<double> v;
  v.reserve(trials.size());
  for (const auto& t : trials) v.push_back(fn(t));
  return v;
}

double TokensOf(const TrialSummary& t) { return static_cast<double>(std::max<int64_t>(t.tokens, 1)); }

// The median over trials of value(trial) per token.
template <typename Fn>
TrialMedian PerTokenMedian(const std::vector<TrialSummary>& trials, Fn value) {
  return MedianOf(PerTrial(trials, [&](const TrialSummary& t) { return value(t) / TokensOf(t); }));
}

// The value of `key` in `m`, or a default-constructed one: a family or phase a
// trial lacks counts as zero there.
template <typename Map>
typename Map::mapped_type ValueOr0(const Map& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? typename Map::mapped_type{} : it->second;
}

std::vector<std::pair<std::string, BucketMedians>> BucketMediansOf(const std::vector<TrialSummary>& trials,
                                                                    const std::vector<Bucket>& buckets,
                                                                    bool seed_compat) {
  std::vector<std::pair<std::string, BucketMedians>> out;
  for (size_t b = 0; b < buckets.size(); ++b) {
    auto stats_of = [&](const TrialSummary& t) -> const BucketStats& { return t.buckets.at(b).second; };
    BucketMedians m;
    m.items_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return stats_of(t).count; });
    m.us_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return stats_of(t).sum_ns / 1000.0; });
    // A trial with an empty bucket has no p50; the seed counted it as 0.
    std::vector<double> p50;
    for (const auto& t : trials) {
      if (seed_compat || stats_of(t).count > 0) p50.push_back(stats_of(t).p50_ns / 1000.0);
    }
    m.p50_us = MedianOf(std::move(p50));
    out.emplace_back(buckets[b].name, std::move(m));
  }
  return out;
}

// One level's items over the trials (`level` picks the trial's map): every item met
// in any trial, 0 in the trials without it, with its per-token medians and the
// figures pooled over the trials that have it.
std::map<std::string, LevelMedians> LevelMediansOf(const std::vector<TrialSummary>& trials,
                                                   const std::map<std::string, LevelItem> TrialSummary::*level) {
  std::map<std::string, LevelMedians> out;
  for (const auto& t : trials) {
    for (const auto& [name, item] : t.*level) {
      LevelMedians& m = out[name];
      if (m.trials++ == 0) {
        m.short_name = item.short_name;
        m.family = item.family;
        m.min_ns = item.min_ns;
        m.max_ns = item.max_ns;
      }
      m.items += item.items;
      m.gpu_sum_ns += item.gpu_sum_ns;  // overflows only past 2^63 ns: 292 years of GPU time
      m.min_ns = std::min(m.min_ns, item.min_ns);
      m.max_ns = std::max(m.max_ns, item.max_ns);
    }
  }
  for (auto& [name, m] : out) {
    const std::string& key = name;  // not a structured binding: C++17 lambdas cannot capture one
    auto get = [&](const TrialSummary& t) { return ValueOr0(t.*level, key); };
    m.calls_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).calls; });
    m.items_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).items; });
    m.gpu_us_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).gpu_sum_ns / 1000.0; });
    m.host_us_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).host_sum_ns / 1000.0; });
    const bool any_calls = std::any_of(m.calls_per_token.per_trial.begin(), m.calls_per_token.per_trial.end(),
                                       [](double c) { return c > 0; });
    m.mean_us_per_call = any_calls ? stats::Mean(m.gpu_us_per_token.per_trial) /
                                         std::max(stats::Mean(m.calls_per_token.per_trial), 1e-9)
                                   : 0.0;
    m.mean_us = m.items > 0 ? static_cast<double>(m.gpu_sum_ns) / static_cast<double>(m.items) / 1000.0 : 0.0;
  }
  return out;
}

// The kernel level, when every trial names its kernels (EngineSummary::kernels).
std::map<std::string, LevelMedians> KernelMediansOf(const std::vector<TrialSummary>& trials) {
  const bool every_trial = !trials.empty() && std::all_of(trials.begin(), trials.end(), [](const TrialSummary& t) {
    return !t.kernels.empty();
  });
  if (!every_trial) return {};
  return LevelMediansOf(trials, &TrialSummary::kernels);
}

// Medians of the source extras that every trial has (see EngineSummary::extras).
std::map<std::string, TrialMedian> ExtrasMediansOf(const std::vector<TrialSummary>& trials) {
  std::map<std::string, TrialMedian> out;
  if (trials.empty()) return out;
  for (const auto& extra : trials.front().extras) {
    const std::string& key = extra.first;  // not a structured binding: C++17 lambdas cannot capture one
    const bool everywhere = std::all_of(trials.begin(), trials.end(),
                                        [&](const TrialSummary& t) { return t.extras.count(key) > 0; });
    if (!everywhere) continue;
    out.emplace(key, MedianOf(PerTrial(trials, [&](const TrialSummary& t) { return t.extras.at(key); })));
  }
  return out;
}

// The registry, the family vocabulary and the diagnostics, merged over trials.
void MergeTrials(const std::vector<TrialSummary>& trials, EngineSummary* e) {
  std::map<std::string, std::set<std::string>> registry;
  for (const auto& t : trials) {
    for (const auto& [f, names] : t.kernel_registry) registry[f].insert(names.begin(), names.end());
    e->known_kernel_families.insert(t.known_kernel_families.begin(), t.known_kernel_families.end());
    e->diagnostics.Merge(t.diagnostics);
  }
  for (auto& [f, names] : registry) e->kernel_registry[f].assign(names.begin(), names.end());
}

}  // namespace

EngineSummary SummarizeEngine(std::string name, std::vector<TrialSummary> trials, const std::vector<Bucket>& buckets,
                              bool seed_compat) {
  EngineSummary e;
  e.name = std::move(name);
  e.items_per_token = MedianOf(PerTrial(trials, [](const TrialSummary& t) { return t.items_per_token; }));
  e.gpu_us_per_token = MedianOf(PerTrial(trials, [](const TrialSummary& t) { return t.gpu_us_per_token; }));
  e.busy_us_per_token = MedianOf(PerTrial(trials, [](const TrialSummary& t) { return t.busy_us_per_token; }));
  e.buckets = BucketMediansOf(trials, buckets, seed_compat);
  e.families = LevelMediansOf(trials, &TrialSummary::families);
  e.phases = LevelMediansOf(trials, &TrialSummary::phases);
  e.kernels = KernelMediansOf(trials);
  e.extras = ExtrasMediansOf(trials);
  MergeTrials(trials, &e);
  if (!trials.empty() && trials[0].phase_units > 0) {
    e.label_coverage = static_cast<double>(trials[0].labelled_units) / static_cast<double>(trials[0].phase_units);
  }
  e.trials = std::move(trials);
  return e;
}

namespace {

// The first trial that has (or lacks) a counter report, for errors naming both sides.
const TrialSummary* FirstWithReport(const std::vector<TrialSummary>& trials, bool with) {
  for (const auto& t : trials) {
    if (t.counters.has_value() == with) return &t;
  }
  return nullptr;
}

Status CounterError(const char* code, const std::string& message, const TrialSummary& trial) {
  const SourceLocation at{trial.counters ? trial.counters->location.path : trial.path, 0, 0};
  return Status::Error(code, message, at);
}

// Every trial's report holds `key`, as a number in all or in none.
Status CheckCounterEverywhere(const std::vector<TrialSummary>& trials, const counters::CounterValue& first,
                              const TrialSummary& first_trial) {
  for (const auto& t : trials) {
    const counters::CounterValue* v = t.counters->Find(first.key);
    if (v == nullptr) {
      return CounterError("counters.missing_counter",
                          "trial " + t.path + " lacks the counter '" + first.key + "' that trial " + first_trial.path +
                              " reports (the trials of one engine report the same counters)",
                          t);
    }
    if (v->number.has_value() != first.number.has_value()) {
      return CounterError("counters.mixed_kinds",
                          "'" + first.key + "' is " + (v->number ? "a number" : "text") + " ('" + v->text +
                              "') in trial " + t.path + " but " + (first.number ? "a number" : "text") + " ('" +
                              first.text + "') in trial " + first_trial.path,
                          t);
    }
    if (!first.number && v->text != first.text) {
      return Status::Error("counters.mixed_text",
                           "'" + first.key + "' is '" + v->text + "' in trial " + t.path + " but '" + first.text +
                               "' in trial " + first_trial.path +
                               ": the trials of one engine must run the same model on the same hardware",
                           v->location);
    }
  }
  return Status();
}

CounterMedian NumericCounter(const std::vector<TrialSummary>& trials, const std::string& key) {
  CounterMedian c;
  std::vector<double> values;
  bool integer = true;
  for (const auto& t : trials) {
    const counters::CounterValue* v = t.counters->Find(key);
    values.push_back(*v->number);
    c.per_trial_text.push_back(v->text);
    integer = integer && v->is_integer;
  }
  c.value = MedianOf(std::move(values));
  c.is_integer = integer && c.value.median == std::floor(c.value.median);
  return c;
}

}  // namespace

Status MedianCounters(EngineSummary* e) {
  const auto& trials = e->trials;
  const TrialSummary* with = FirstWithReport(trials, true);
  if (with == nullptr) return Status();
  if (const TrialSummary* without = FirstWithReport(trials, false)) {
    return Status::Error("counters.missing_report",
                         "trial " + without->path + " of engine '" + e->name + "' has no counter report but trial " +
                             with->path + " has one (" + with->counters->location.path +
                             "): give every trial its counters.txt, or none",
                         SourceLocation{without->path, 0, 0});
  }
  std::set<std::string> keys;
  for (const auto& t : trials) {
    for (const auto& v : t.counters->values) {
      if (!keys.insert(v.key).second) continue;
      if (Status s = CheckCounterEverywhere(trials, v, t); !s.ok()) return s;
      if (v.number) {
        e->counters[v.key] = NumericCounter(trials, v.key);
      } else {
        e->counter_text[v.key] = v.text;  // the same in every trial (CheckCounterEverywhere)
      }
    }
  }
  e->counters_path = trials.front().counters->location.path;
  return Status();
}

namespace {

// The one comparison (stats::CompareTrials) of the two sides' trials.
Delta MakeDelta(std::string name, const TrialMedian& engine, const TrialMedian& baseline) {
  const stats::Delta s = stats::CompareTrials(baseline.per_trial, engine.per_trial);
  return Delta{std::move(name), s.after, s.before, s.delta, s.delta_pct, s.p_value};
}

// A family, phase or kernel name that one side lacks is zero in every trial of that side.
TrialMedian ZeroMedian(size_t trials) { return TrialMedian{0, std::vector<double>(trials, 0.0)}; }

// One side's GPU µs/token of a family, phase or kernel name.
template <typename Medians>
TrialMedian GpuUsPerTokenOf(const Medians& medians, const std::string& key, size_t trials) {
  auto it = medians.find(key);
  return it == medians.end() ? ZeroMedian(trials) : it->second.gpu_us_per_token;
}

}  // namespace

Comparison Compare(const EngineSummary& engine, const EngineSummary& baseline, const std::vector<Bucket>& buckets,
                   bool seed_compat) {
  Comparison c;
  c.engine = engine.name;
  c.baseline = baseline.name;
  const Delta* best = nullptr;
  for (size_t b = 0; b < buckets.size() && b < engine.buckets.size() && b < baseline.buckets.size(); ++b) {
    c.buckets.push_back(MakeDelta(buckets[b].name, engine.buckets[b].second.us_per_token,
                                  baseline.buckets[b].second.us_per_token));
  }
  for (size_t b = 0; b < c.buckets.size(); ++b) {
    if (best == nullptr || c.buckets[b].delta > best->delta) best = &c.buckets[b];
  }
  if (best != nullptr && (seed_compat || best->delta > 0)) {
    c.attack_target = best->name;
    for (const Bucket& b : buckets) {
      if (b.name == best->name) c.attack_hint = b.hint;
    }
  }
  c.total = MakeDelta("TOTAL", engine.gpu_us_per_token, baseline.gpu_us_per_token);
  c.items_per_token = MakeDelta("submissions_per_token", engine.items_per_token, baseline.items_per_token);
  std::set<std::string> families, phases;
  for (const auto& [f, _] : engine.families) families.insert(f);
  for (const auto& [f, _] : baseline.families) families.insert(f);
  for (const auto& [p, _] : engine.phases) phases.insert(p);
  for (const auto& [p, _] : baseline.phases) phases.insert(p);
  const size_t engine_trials = engine.trials.size();
  const size_t baseline_trials = baseline.trials.size();
  for (const std::string& f : families) {
    c.families.push_back(MakeDelta(f, GpuUsPerTokenOf(engine.families, f, engine_trials),
                                   GpuUsPerTokenOf(baseline.families, f, baseline_trials)));
  }
  for (const std::string& p : phases) {
    c.phases.push_back(MakeDelta(p, GpuUsPerTokenOf(engine.phases, p, engine_trials),
                                 GpuUsPerTokenOf(baseline.phases, p, baseline_trials)));
  }
  if (!engine.kernels.empty() && !baseline.kernels.empty()) {
    std::set<std::string> names;
    for (const auto& [n, _] : engine.kernels) names.insert(n);
    for (const auto& [n, _] : baseline.kernels) names.insert(n);
    for (const std::string& n : names) {
      c.kernels.push_back(MakeDelta(n, GpuUsPerTokenOf(engine.kernels, n, engine_trials),
                                    GpuUsPerTokenOf(baseline.kernels, n, baseline_trials)));
    }
  }
  for (std::vector<Delta>* by_delta : {&c.families, &c.kernels}) {
    std::stable_sort(by_delta->begin(), by_delta->end(),
                     [](const Delta& a, const Delta& b) { return a.delta > b.delta; });
  }
  std::stable_sort(c.phases.begin(), c.phases.end(),
                   [](const Delta& a, const Delta& b) { return a.engine > b.engine; });
  return c;
}

// ---------------------------------------------------------------------------------
// Rules every trace source applies (summary.h).
// ---------------------------------------------------------------------------------

Status ResolveTokens(std::optional<int64_t> in_trace, const AttributionOptions& options, const std::string& path,
                     TrialSummary* s) {
  if (!options.token_label.empty() && in_trace) {
    s->tokens = *in_trace;
    s->tokens_in_trace = in_trace;
    s->tokens_source = "label:" + options.token_label.Spelling();
    if (options.tokens && *options.tokens != s->tokens) {
      s->diagnostics.Add("attr.token_count_mismatch", {path},
                         "trace has " + std::to_string(s->tokens) + " tokens of '" + options.token_label.Spelling() +
                             "', configured " + std::to_string(*options.tokens));
    }
    return Status();
  }
  if (options.tokens) {
    s->tokens = *options.tokens;
    s->tokens_source = "given";
    return Status();
  }
  return Status::Error("attr.no_tokens", "no token count: pass --tokens N or --tokens auto:LABEL", {path},
                       ErrorKind::kUsage);
}

namespace {
Status OverflowAt(const std::string& path, const std::string& what) {
  return perfgate::internal::OverflowError({path}, what);
}
}  // namespace

Status SummarizeKeptWork(std::vector<std::pair<int64_t, int64_t>> intervals, const AttributionOptions& options,
                         const std::string& path, TrialSummary* s) {
  if (intervals.empty()) {
    return Status::Error("attr.empty_window",
                         "no work of the target is left to attribute: the decode window keeps none (" +
                             std::to_string(s->excluded_outside_window) +
                             " excluded outside it); check --window, the token label and the process filter",
                         {path});
  }
  const std::vector<Bucket>& buckets = options.buckets;
  std::vector<std::vector<int64_t>> by_bucket(buckets.size());
  int64_t first_start = INT64_MAX, last_end = INT64_MIN;
  for (size_t i = 0; i < intervals.size(); ++i) {
    const auto [start_ns, end_ns] = intervals[i];
    int64_t d;
    if (!internal::CheckedSub(end_ns, start_ns, &d) || !internal::AccumulateChecked(&s->total_sum_ns, d)) {
      return OverflowAt(path, "the duration or the running total at kept submission " + std::to_string(i + 1));
    }
    first_start = std::min(first_start, start_ns);
    last_end = std::max(last_end, end_ns);
    for (size_t b = 0; b < buckets.size(); ++b) {
      if (d >= buckets[b].lo_ns && d < buckets[b].hi_ns) {
        by_bucket[b].push_back(d);
        break;
      }
    }
  }
  // The busy union is at most the span: a span that fits keeps UnionLength in range.
  int64_t span;
  if (!internal::CheckedSub(last_end, first_start, &span)) return OverflowAt(path, "the span of the kept work");
  for (size_t b = 0; b < buckets.size(); ++b) {
    std::optional<BucketStats> stats = StatsOf(std::move(by_bucket[b]), options.seed_compat);
    if (!stats) return OverflowAt(path, "the sum of bucket '" + buckets[b].name + "'");
    s->buckets.emplace_back(buckets[b].name, *stats);
  }
  const double per_token = static_cast<double>(std::max<int64_t>(s->tokens, 1));
  s->items = static_cast<int64_t>(intervals.size());
  s->busy_union_ns = stats::UnionLength(std::move(intervals));
  s->items_per_token = static_cast<double>(s->items) / per_token;
  s->gpu_us_per_token = static_cast<double>(s->total_sum_ns) / 1000.0 / per_token;
  s->busy_us_per_token = static_cast<double>(s->busy_union_ns) / 1000.0 / per_token;
  return Status();
}

void CountMixedProcesses(const std::map<std::string, int64_t>& kept_per_process, const std::string& path,
                         Diagnostics* diagnostics) {
  if (kept_per_process.size() < 2) return;
  std::vector<std::pair<std::string, int64_t>> largest_first(kept_per_process.begin(), kept_per_process.end());
  std::stable_sort(largest_first.begin(), largest_first.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  int64_t outside_largest = 0;
  std::string detail = "kept work of " + std::to_string(largest_first.size()) + " processes:";
  for (size_t i = 0; i < largest_first.size(); ++i) {
    const auto& [process, n] = largest_first[i];
    if (i > 0) outside_largest += n;
    detail += (i == 0 ? " " : ", ") + process + " x" + std::to_string(n);
  }
  if (outside_largest <= 0) return;
  // One Add carries the detail and location; the rest of the count follows it.
  diagnostics->Add("attr.mixed_processes", {path}, std::move(detail));
  diagnostics->AddCount("attr.mixed_processes", outside_largest - 1);
}

std::optional<int64_t> FindSourceCount(const TrialSummary& trial, std::string_view name) {
  for (const auto& [key, value] : trial.source_counts) {
    if (key == name) return value;
  }
  return std::nullopt;
}

}  // namespace perfgate::attribution
