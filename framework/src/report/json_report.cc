// The JSON report, schema_version 1. nlohmann's default `json` keeps object keys
// sorted, so the output is stable. It is machine-readable, so it is lossless: every
// double is written as the shortest text that parses back to the identical double
// (util::ShortestDouble). Rounding belongs to the text, Markdown and SVG reports (and
// to the goldens, which round to 6 significant digits for reviewable diffs).
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "perfgate/report/formats.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

using attribution::Delta;
using attribution::EngineSummary;
using attribution::TrialSummary;
using nlohmann::json;

constexpr int kSchemaVersion = 1;

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

json TrialJson(const TrialSummary& t) {
  json j;
  j["path"] = t.path;
  j["tokens"] = t.tokens;
  j["tokens_source"] = t.tokens_source;
  j["paired"] = t.paired;
  j["unpaired_ends"] = t.unpaired_ends;
  j["leftover_starts"] = t.leftover_starts;
  j["duplicate_starts"] = t.duplicate_starts;
  j["submissions"] = t.submissions;
  j["excluded"] = {{"other_process", t.excluded_other_process},
                   {"unmapped", t.excluded_unmapped},
                   {"unattributed", t.excluded_unattributed},
                   {"outside_window", t.excluded_outside_window}};
  j["dispatches_per_token"] = Num(t.dispatches_per_token);
  j["submissions_per_token"] = Num(t.dispatches_per_token);
  j["gpu_us_per_token"] = Num(t.gpu_us_per_token);
  j["busy_us_per_token"] = Num(t.busy_us_per_token);
  j["gpu_intervals_union_ns"] =
      t.gpu_intervals_union_ns ? json(*t.gpu_intervals_union_ns) : json(nullptr);
  json buckets = json::object();
  for (const auto& [name, b] : t.buckets) {
    buckets[name] = {{"count", b.count},
                     {"sum_ns", b.sum_ns},
                     {"p50_ns", b.p50_ns},
                     {"p95_ns", b.p95_ns},
                     {"mean_ns", b.mean_ns}};
  }
  j["buckets"] = std::move(buckets);
  j["diagnostics"] = DiagnosticsJson(t.diagnostics);
  return j;
}

json EngineJson(const EngineSummary& e) {
  json j;
  j["n_trials"] = e.trials.size();
  j["median_dispatches_per_token"] = Num(e.dispatches_per_token.median);
  j["median_submissions_per_token"] = Num(e.dispatches_per_token.median);
  j["median_gpu_us_per_token"] = Num(e.gpu_us_per_token.median);
  j["median_busy_us_per_token"] = Num(e.busy_us_per_token.median);
  json buckets = json::object();
  for (const auto& [name, b] : e.buckets) {
    buckets[name] = {{"median_dispatches_per_token", Num(b.dispatches_per_token.median)},
                     {"median_submissions_per_token", Num(b.dispatches_per_token.median)},
                     {"median_us_per_token", Num(b.us_per_token.median)},
                     {"median_p50_us_per_dispatch", Num(b.p50_us.median)}};
  }
  j["buckets"] = std::move(buckets);
  json families = json::object();
  for (const auto& [name, f] : e.encoder_gpu) {
    families[name] = {{"median_gpu_us_per_token", Num(f.gpu_us_per_token.median)},
                      {"median_host_us_per_token", Num(f.host_us_per_token.median)},
                      {"median_encoders_per_token", Num(f.encoders_per_token.median)}};
  }
  j["encoder_gpu"] = std::move(families);
  json phases = json::object();
  for (const auto& [name, p] : e.cb_label_gpu) {
    phases[name] = {{"median_gpu_us_per_token", Num(p.gpu_us_per_token.median)},
                    {"median_cbs_per_token", Num(p.cbs_per_token.median)},
                    {"median_dispatches_per_token", Num(p.dispatches_per_token.median)},
                    {"median_submissions_per_token", Num(p.dispatches_per_token.median)},
                    {"mean_us_per_cb", Num(p.mean_us_per_cb)}};
  }
  j["cb_label_gpu"] = std::move(phases);
  json registry = json::object();
  for (const auto& [family, names] : e.shader_registry) registry[family] = names;
  j["shader_registry"] = std::move(registry);
  j["shader_timeline_rows"] = e.shader_timeline_rows;
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

// The submissions-per-token comparison, named in its own unit.
json SubmissionsDeltaJson(const Delta& d) {
  return {{"engine_submissions_per_token", Num(d.engine)},
          {"baseline_submissions_per_token", Num(d.baseline)},
          {"delta_submissions_per_token", Num(d.delta)},
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
  j["submissions_per_token"] = SubmissionsDeltaJson(c.submissions_per_token);
  j["attack_target"] = c.attack_target ? json(*c.attack_target) : json(nullptr);
  j["attack_hint"] = c.attack_hint;
  j["families"] = DeltaMap(c.families);
  j["phases"] = DeltaMap(c.phases);
  return j;
}

// A JSON string (or object key) as nlohmann writes it; invalid UTF-8 (from a foreign
// trace's label) is replaced rather than thrown.
void AppendString(const std::string& s, std::string* out) {
  *out += json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

// nlohmann's dump(2) layout (sorted keys, 2-space indent, "key": value, one element a
// line, {} and [] when empty), except that a double is util::ShortestDouble's text:
// nlohmann's Grisu2 round-trips but is not always the shortest.
void Write(const json& j, int depth, std::string* out) {
  const std::string inner(static_cast<size_t>(2 * (depth + 1)), ' ');
  switch (j.type()) {
    case json::value_t::object: {
      if (j.empty()) {
        *out += "{}";
        return;
      }
      *out += "{\n";
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) *out += ",\n";
        first = false;
        *out += inner;
        AppendString(it.key(), out);
        *out += ": ";
        Write(it.value(), depth + 1, out);
      }
      *out += "\n" + std::string(static_cast<size_t>(2 * depth), ' ') + "}";
      return;
    }
    case json::value_t::array: {
      if (j.empty()) {
        *out += "[]";
        return;
      }
      *out += "[\n";
      bool first = true;
      for (const json& e : j) {
        if (!first) *out += ",\n";
        first = false;
        *out += inner;
        Write(e, depth + 1, out);
      }
      *out += "\n" + std::string(static_cast<size_t>(2 * depth), ' ') + "]";
      return;
    }
    case json::value_t::string:
      AppendString(j.get_ref<const std::string&>(), out);
      return;
    case json::value_t::number_float:
      *out += util::ShortestDouble(j.get<double>());
      return;
    default:  // null, booleans, integers
      *out += j.dump();
      return;
  }
}

}  // namespace

std::string RenderJson(const Report& report) {
  json j;
  j["schema_version"] = kSchemaVersion;
  json engines = json::object();
  for (const auto& e : report.engines) {
    // Two summaries with one name keep both: the later one gets a "#2" suffix.
    std::string key = e.name;
    for (int n = 2; engines.contains(key); ++n) key = e.name + "#" + std::to_string(n);
    engines[key] = EngineJson(e);
  }
  j["engines"] = std::move(engines);
  j["comparison"] = report.comparison ? ComparisonJson(*report.comparison) : json(nullptr);
  j["seed_compat"] = report.seed_compat;
  // The keys say "submission" for every source (schema_version 1); this says what one is.
  j["units"] = {
      {"submission", util::IsTraceJson(report)
                         ? "one GPU kernel event (memcpy and memset included)"
                         : "one GPU execution-point pair (about one encoder), not a kernel dispatch"},
      {"time", "microseconds per decode token unless the key ends in _ns"}};
  std::string out;
  Write(j, 0, &out);
  return out + "\n";
}

}  // namespace perfgate::report
