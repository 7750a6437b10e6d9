// `perfgate diff --format json`: every change of every level, lossless.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "perfgate/core/version.h"
#include "perfgate/report/diff_formats.h"
#include "report/diff_json.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

using Json = nlohmann::ordered_json;

Json OrNull(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json SideFigures(double calls, double us, const std::optional<double>& per_call, const std::optional<double>& median,
                 bool rest) {
  Json j;
  j["calls_per_token"] = rest ? Json(nullptr) : Json(calls);
  j["us_per_token"] = us;
  j["us_per_call"] = OrNull(per_call);
  j["us_per_call_median"] = OrNull(median);
  return j;
}

Json ChangeJson(const diff::Change& c) {
  Json j;
  j["name"] = c.name;
  j["status"] = c.rest ? "rest" : c.unchanged() ? "same" : diff::PresenceName(c.presence);
  j["before_names"] = c.before_names;
  j["after_names"] = c.after_names;
  j["before"] = SideFigures(c.before_calls, c.before_us, c.before_us_per_call(), c.before_us_per_call_median, c.rest);
  j["after"] = SideFigures(c.after_calls, c.after_us, c.after_us_per_call(), c.after_us_per_call_median, c.rest);
  j["delta"] = SideFigures(c.delta_calls(), c.delta_us(), c.delta_us_per_call(), c.delta_us_per_call_median(), c.rest);
  j["share"] = OrNull(c.share);
  j["p_value"] = OrNull(c.p_value);
  return j;
}

Json SideJson(const std::string& name, size_t trials, const std::vector<std::string>& paths, double total) {
  Json j;
  j["name"] = name;
  j["trials"] = trials;
  j["paths"] = paths;
  j["gpu_us_per_token"] = total;
  return j;
}

}  // namespace

std::string RenderDiffJson(const diff::Diff& d) {
  Json j = DiffJson(d);
  j["kind"] = "perfgate.diff";
  j["schema_version"] = 1;
  j["perfgate"] = {{"version", std::string(Version())}, {"commit", std::string(BuildCommit())}};
  return util::RenderLosslessJson(j);
}

Json DiffJson(const diff::Diff& d) {
  Json j;
  j["before"] = SideJson(d.before, d.before_trials, d.before_paths, d.before_total);
  j["after"] = SideJson(d.after, d.after_trials, d.after_paths, d.after_total);
  j["total"] = {{"delta_us_per_token", d.delta_total()},
                {"delta_pct", OrNull(d.delta_total_pct())},
                {"p_value", OrNull(d.total_p_value)}};
  Json levels = Json::array();
  for (const diff::LevelDiff& level : d.levels) {
    Json l;
    l["level"] = diff::LevelName(level.level);
    l["word"] = level.word;
    l["calls_word"] = level.calls_word;
    l["changes"] = Json::array();
    for (const diff::Change& c : level.changes) l["changes"].push_back(ChangeJson(c));
    levels.push_back(std::move(l));
  }
  j["levels"] = std::move(levels);
  j["one_sided_levels"] = d.one_sided_levels;
  j["notes"] = d.notes;
  Json figures = Json::object();
  for (const diff::FigureChange& f : d.figures) {
    figures[f.name] = {{"before", f.before}, {"after", f.after}, {"delta", f.delta()}, {"p_value", OrNull(f.p_value)}};
  }
  j["figures"] = std::move(figures);
  return j;
}

}  // namespace perfgate::report
