// The JSON report, schema_version 6 (docs/cli.md, "JSON report schema"). Objects are built in
// insertion order and written with sorted keys, except "buckets" objects, which keep
// band order; so the output is stable. It is machine-readable, so it is lossless: every
// double is written as the shortest text that parses back to the identical double
// (util::ShortestDouble). Rounding belongs to the text, Markdown and SVG reports (and
// to the goldens, which round to 6 significant digits for reviewable diffs).
#include <charconv>
#include <cmath>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perfgate/core/version.h"
#include "perfgate/sources/source.h"

#include "perfgate/report/formats.h"
#include "report/diff_json.h"
#include "report/diff_tables.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

using attribution::Delta;
using attribution::EngineSummary;
using attribution::TrialSummary;
// Insertion order: bands stay in band order; Write sorts every other object's keys.
using json = nlohmann::ordered_json;

constexpr int kSchemaVersion = 6;

// A double, unrounded; NaN and infinities become null.
json Num(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

json NumList(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(Num(x));
  return out;
}

json DiagnosticsJson(const Diagnostics& d) {
  json out = json::object();
  for (const auto& e : d.Entries()) out[e.code] = e.count;
  return out;
}

// The source's own counts, in its order (the object keeps insertion order only where
// Write is told to; these are sorted like any other object).
json SourceCountsJson(const TrialSummary& t) {
  json out = json::object();
  for (const auto& [name, n] : t.source_counts) out[name] = n;
  return out;
}

json TrialJson(const TrialSummary& t) {
  json j;
  j["path"] = t.path;
  j["tokens"] = t.tokens;
  j["tokens_source"] = t.tokens_source;
  j["items_read"] = t.items_read;
  j["source_counts"] = SourceCountsJson(t);
  j["items"] = t.items;
  j["excluded"] = {{"other_process", t.excluded_other_process},
                   {"no_owner", t.excluded_no_owner},
                   {"unnamed_owner", t.excluded_unnamed_owner},
                   {"outside_window", t.excluded_outside_window}};
  j["items_per_token"] = Num(t.items_per_token);
  j["gpu_us_per_token"] = Num(t.gpu_us_per_token);
  j["busy_us_per_token"] = Num(t.busy_us_per_token);
  json buckets = json::object();
  for (const auto& [name, b] : t.buckets) {
    buckets[name] = {{"count", b.count},
                     {"sum_ns", b.sum_ns},
                     {"p50_ns", b.p50_ns},
                     {"p95_ns", b.p95_ns},
                     {"mean_ns", b.mean_ns}};
  }
  j["buckets"] = std::move(buckets);
  j["counters_path"] = t.counters ? json(t.counters->location.path) : json(nullptr);
  j["diagnostics"] = DiagnosticsJson(t.diagnostics);
  return j;
}

// One item of a family or phase level: its per-token medians with their per-trial
// values, and how many trials have it.
json LevelJson(const attribution::LevelMedians& m) {
  return {{"median_gpu_us_per_token", Num(m.gpu_us_per_token.median)},
          {"median_host_us_per_token", Num(m.host_us_per_token.median)},
          {"median_calls_per_token", Num(m.calls_per_token.median)},
          {"median_items_per_token", Num(m.items_per_token.median)},
          {"mean_us_per_call", Num(m.mean_us_per_call)},
          {"gpu_us_per_token_per_trial", NumList(m.gpu_us_per_token.per_trial)},
          {"trials_with", m.trials}};
}

json LevelMapJson(const std::map<std::string, attribution::LevelMedians>& level) {
  json out = json::object();
  for (const auto& [name, m] : level) out[name] = LevelJson(m);
  return out;
}

// One kernel name of an engine, lossless: its pooled figures in ns and µs, the medians
// with their per-trial values, and each trial's own count, sum, min and max (in the
// order of "trials"; a trial that did not run it has count 0 and null min and max).
json KernelJson(const std::string& name, const attribution::LevelMedians& k, const EngineSummary& e) {
  json count = json::array(), sum = json::array(), min = json::array(), max = json::array();
  for (const TrialSummary& t : e.trials) {
    auto it = t.kernels.find(name);
    const bool ran = it != t.kernels.end();
    count.push_back(ran ? it->second.items : 0);
    sum.push_back(ran ? it->second.gpu_sum_ns : 0);
    min.push_back(ran ? json(it->second.min_ns) : json(nullptr));
    max.push_back(ran ? json(it->second.max_ns) : json(nullptr));
  }
  return {{"short_name", k.short_name},
          {"family", k.family},
          {"trials_ran", k.trials},
          {"median_calls_per_token", Num(k.items_per_token.median)},
          {"median_gpu_us_per_token", Num(k.gpu_us_per_token.median)},
          {"calls_per_token_per_trial", NumList(k.items_per_token.per_trial)},
          {"gpu_us_per_token_per_trial", NumList(k.gpu_us_per_token.per_trial)},
          {"count", k.items},
          {"gpu_sum_ns", k.gpu_sum_ns},
          {"min_ns", k.min_ns},
          {"max_ns", k.max_ns},
          {"mean_us", Num(k.mean_us)},
          {"min_us", Num(static_cast<double>(k.min_ns) / 1000.0)},
          {"max_us", Num(static_cast<double>(k.max_ns) / 1000.0)},
          {"per_trial", {{"count", std::move(count)}, {"gpu_sum_ns", std::move(sum)},
                         {"min_ns", std::move(min)}, {"max_ns", std::move(max)}}}};
}

// A number that is whole by nature as an integer, else lossless.
json CounterNumber(double v, bool is_integer) {
  if (is_integer && std::fabs(v) < 9.007199254740992e15 && v == std::floor(v)) return static_cast<int64_t>(v);
  return Num(v);
}

// A counter as its text wrote it: an integer text past 2^53, which no double holds,
// as that exact integer (int64 or uint64); anything else as CounterNumber does.
json ExactCounter(const std::string& text, double v, bool is_integer) {
  if (is_integer) {
    const std::string digits = !text.empty() && text[0] == '+' ? text.substr(1) : text;
    int64_t i = 0;
    const char* end = digits.data() + digits.size();
    if (auto r = std::from_chars(digits.data(), end, i); r.ec == std::errc() && r.ptr == end) return i;
    uint64_t u = 0;
    if (auto r = std::from_chars(digits.data(), end, u); r.ec == std::errc() && r.ptr == end) return u;
  }
  return CounterNumber(v, is_integer);
}

// The engine's own counters: median, per-trial numbers and texts as written, and
// their source, so a reader never takes them for figures of the trace.
json CountersJson(const EngineSummary& e) {
  json out = json::object();
  for (const auto& [key, c] : e.counters) {
    // Each trial's number as an integer where every trial wrote an integer.
    const bool all_integer = std::all_of(c.per_trial_text.begin(), c.per_trial_text.end(), [](const std::string& t) {
      return t.find_first_not_of("+-0123456789") == std::string::npos;
    });
    json per_trial = json::array();
    json median = CounterNumber(c.value.median, c.is_integer);
    for (size_t t = 0; t < c.value.per_trial.size(); ++t) {
      const double v = c.value.per_trial[t];
      const std::string& text = t < c.per_trial_text.size() ? c.per_trial_text[t] : std::string();
      per_trial.push_back(ExactCounter(text, v, all_integer));
      // The median of an odd count is one trial's value: its exact integer.
      if (c.is_integer && v == c.value.median) median = ExactCounter(text, v, true);
    }
    out[key] = {{"median", std::move(median)},
                {"per_trial", std::move(per_trial)},
                {"per_trial_text", c.per_trial_text},
                {"is_integer", c.is_integer},
                {"source", "engine counters"}};
  }
  return out;
}

json EngineJson(const EngineSummary& e) {
  json j;
  j["n_trials"] = e.trials.size();
  j["median_items_per_token"] = Num(e.items_per_token.median);
  j["median_gpu_us_per_token"] = Num(e.gpu_us_per_token.median);
  j["median_busy_us_per_token"] = Num(e.busy_us_per_token.median);
  json buckets = json::object();
  for (const auto& [name, b] : e.buckets) {
    buckets[name] = {{"median_items_per_token", Num(b.items_per_token.median)},
                     {"median_us_per_token", Num(b.us_per_token.median)},
                     {"median_p50_us_per_item", Num(b.p50_us.median)}};
  }
  j["buckets"] = std::move(buckets);
  j["families"] = LevelMapJson(e.families);
  j["phases"] = LevelMapJson(e.phases);
  json kernels = json::object();
  for (const auto& [name, k] : e.kernels) kernels[name] = KernelJson(name, k, e);
  j["kernels"] = std::move(kernels);
  json registry = json::object();
  for (const auto& [family, names] : e.kernel_registry) registry[family] = names;
  j["kernel_registry"] = std::move(registry);
  j["counters"] = CountersJson(e);
  j["counter_text"] = e.counter_text;
  j["counters_path"] = e.counters_path.empty() ? json(nullptr) : json(e.counters_path);
  j["label_coverage"] = Num(e.label_coverage);
  j["gpu_us_per_token_per_trial"] = NumList(e.gpu_us_per_token.per_trial);
  json trials = json::array();
  for (const auto& t : e.trials) trials.push_back(TrialJson(t));
  j["trials"] = std::move(trials);
  j["diagnostics"] = DiagnosticsJson(e.diagnostics);
  return j;
}

// A compared metric in µs/token.
json DeltaJson(const Delta& d) {
  return {{"engine_us_per_token", Num(d.engine)},
          {"baseline_us_per_token", Num(d.baseline)},
          {"delta_us_per_token", Num(d.delta)},
          {"delta_pct", d.delta_pct ? Num(*d.delta_pct) : json(nullptr)},
          {"p_value", Num(d.p_value)}};
}

// The items-per-token comparison, named in its own unit.
json ItemsDeltaJson(const Delta& d) {
  return {{"engine_items_per_token", Num(d.engine)},
          {"baseline_items_per_token", Num(d.baseline)},
          {"delta_items_per_token", Num(d.delta)},
          {"delta_pct", d.delta_pct ? Num(*d.delta_pct) : json(nullptr)},
          {"p_value", Num(d.p_value)}};
}

json DeltaMap(const std::vector<Delta>& deltas) {
  json out = json::object();
  for (const auto& d : deltas) out[d.name] = DeltaJson(d);
  return out;
}

json ComparisonJson(const attribution::Comparison& c) {
  json j;
  j["engine"] = c.engine;
  j["baseline"] = c.baseline;
  j["buckets"] = DeltaMap(c.buckets);
  j["total"] = DeltaJson(c.total);
  j["items_per_token"] = ItemsDeltaJson(c.items_per_token);
  j["attack_target"] = c.attack_target ? json(*c.attack_target) : json(nullptr);
  j["attack_hint"] = c.attack_hint;
  j["families"] = DeltaMap(c.families);
  j["phases"] = DeltaMap(c.phases);
  j["kernels"] = DeltaMap(c.kernels);
  return j;
}

// The configured bands in band order, with their bounds in ns and µs (hi null for the
// open end) and the kernel-class hint.
json BandsJson(const std::vector<attribution::Bucket>& buckets) {
  json out = json::object();
  for (const attribution::Bucket& b : buckets) {
    const bool open = b.hi_ns == attribution::Bucket::kOpenEnd;
    out[b.name] = {{"lo_ns", b.lo_ns},
                   {"hi_ns", open ? json(nullptr) : json(b.hi_ns)},
                   {"lo_us", Num(static_cast<double>(b.lo_ns) / 1000.0)},
                   {"hi_us", open ? json(nullptr) : Num(static_cast<double>(b.hi_ns) / 1000.0)},
                   {"hint", b.hint}};
  }
  return out;
}

const char* WindowModeName(attribution::DecodeWindow::Mode mode) {
  using Mode = attribution::DecodeWindow::Mode;
  switch (mode) {
    case Mode::kLabel:
      return "label";
    case Mode::kTimeRange:
      return "time_range";
    case Mode::kSkipSubmissions:
      return "skip";
    case Mode::kWholeTrace:
      break;
  }
  return "whole_trace";
}

// The decode window: its mode and that mode's own fields.
json WindowJson(const attribution::DecodeWindow& w) {
  using Mode = attribution::DecodeWindow::Mode;
  json out = {{"mode", WindowModeName(w.mode)}};
  if (w.mode == Mode::kLabel) out["label"] = w.label.Spelling();
  if (w.mode == Mode::kTimeRange) {
    out["start_ns"] = w.start_ns;
    out["end_ns"] = w.end_ns;
  }
  if (w.mode == Mode::kSkipSubmissions) out["skip"] = w.skip;
  return out;
}

// One engine's attribution options. The buckets are the report's top-level "buckets".
json OptionsJson(const attribution::AttributionOptions& o) {
  json rules = json::array();
  for (const auto& r : o.kernel_families.rules) rules.push_back({{"prefix", r.prefix}, {"family", r.family}});
  auto or_null = [](const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); };
  return {{"process_prefix", o.process_prefix},
          {"process_id", or_null(o.process_id)},
          {"device", or_null(o.device)},
          {"lenient", o.lenient},
          {"all_processes", o.all_processes},
          {"seed_compat", o.seed_compat},
          {"window", WindowJson(o.window)},
          {"tokens", o.tokens ? json(*o.tokens) : json(nullptr)},
          {"token_label", o.token_label.empty() ? json(nullptr) : json(o.token_label.Spelling())},
          {"run", o.run},
          {"kernel_families", {{"strip_prefix", o.kernel_families.strip_prefix}, {"rules", std::move(rules)}}}};
}

json ReportOptionsJson(const Report& report) {
  json engines = json::object();
  for (const auto& [name, options] : report.options) engines[name] = OptionsJson(options);
  json flags = json::object();
  for (const auto& [name, value] : report.flags) flags[name] = value;
  return {{"engines", std::move(engines)}, {"flags", std::move(flags)}};
}

// What the figures count, in the source's words.
json WordsJson(const sources::SourceWords& w) {
  return {{"unit", std::string(w.unit)},
          {"units", std::string(w.units)},
          {"family", std::string(w.family)},
          {"phase", std::string(w.phase)},
          {"registry", std::string(w.registry)},
          {"kernel_names", std::string(w.kernel_names)}};
}

// A counter value: its text as written and its number (an integer as an integer).
json CounterValueJson(const counters::CounterValue& v) {
  return {{"text", v.text}, {"number", v.number ? ExactCounter(v.text, *v.number, v.is_integer) : json(nullptr)}};
}

}  // namespace

std::string RenderHistoryJson(const HistoryReport& h) {
  json j;
  j["kind"] = "perfgate.history";
  j["schema_version"] = 1;
  j["perfgate"] = {{"version", std::string(Version())}, {"commit", std::string(BuildCommit())}};
  j["path"] = h.history.path;
  j["counters"] = h.counters;
  json reports = json::array();
  for (const auto& r : h.history.reports) {
    json values = json::object();
    for (const auto& c : h.counters) {
      const counters::CounterValue* v = r.Find(c);
      values[c] = v == nullptr ? json(nullptr) : CounterValueJson(*v);
    }
    reports.push_back({{"title", r.title}, {"line", r.location.line}, {"values", std::move(values)}});
  }
  j["reports"] = std::move(reports);
  return util::RenderLosslessJson(j);
}

std::string RenderJson(const Report& report) { return RenderJsonWithMovers(report, MoversOf(report)); }

std::string RenderJsonWithMovers(const Report& report, const std::optional<diff::Diff>& movers) {
  json j;
  j["schema_version"] = kSchemaVersion;
  j["perfgate"] = {{"version", std::string(Version())}, {"commit", std::string(BuildCommit())}};
  j["buckets"] = BandsJson(report.buckets);
  json engines = json::object();
  for (const auto& e : report.engines) {
    // Two summaries with one name keep both: the later one gets a "_2" suffix (an
    // identifier, unlike schema 1's "#2").
    std::string key = e.name;
    for (int n = 2; engines.contains(key); ++n) key = e.name + "_" + std::to_string(n);
    engines[key] = EngineJson(e);
  }
  j["engines"] = std::move(engines);
  j["comparison"] = report.comparison ? ComparisonJson(*report.comparison) : json(nullptr);
  j["movers"] = movers ? DiffJson(*movers) : json(nullptr);
  j["seed_compat"] = report.seed_compat;
  j["options"] = ReportOptionsJson(report);
  const sources::TraceSource* source = util::SourceOf(report);
  j["source"] = source != nullptr ? json(std::string(source->descriptor.name)) : json(nullptr);
  j["words"] = WordsJson(util::WordsOf(report));
  // The keys say "item" for every source; this says what one is.
  j["units"] = {
      {"item", std::string(util::WordsOf(report).unit_definition)},
      {"time", "microseconds per decode token unless the key ends in _ns"}};
  return util::RenderLosslessJson(j);
}

}  // namespace perfgate::report
