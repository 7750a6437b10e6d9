// One run as Bencher Metric Format JSON (https://bencher.dev/docs/reference/bencher-metric-format/):
// benchmark -> measure -> {value, lower_value, upper_value}; value required, the
// bounds optional; a measure's name at most 64 characters.
#include <algorithm>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/lossless_json.h"
#include "history/interchange_internal.h"

namespace perfgate::history {
namespace {

using nlohmann::ordered_json;

// The benchmark and measure a figure is filed under: suite/test/engine and the metric,
// or, for a metric Bencher would refuse as a measure, its scope and part moved into
// the benchmark and its quantity as the measure.
std::pair<std::string, std::string> BmfNames(const RunContext& context, const Figure& figure) {
  std::string benchmark = context.suite + "/" + context.test + "/" + figure.engine;
  const size_t last = figure.metric.rfind('/');
  if (figure.metric.size() <= kBmfMaxMeasure || last == std::string::npos) return {benchmark, figure.metric};
  return {benchmark + "/" + figure.metric.substr(0, last), figure.metric.substr(last + 1)};
}

ordered_json BmfMetric(const Figure& figure) {
  ordered_json metric = {{"value", figure.median}};
  if (!figure.samples.empty()) {
    const auto [low, high] = std::minmax_element(figure.samples.begin(), figure.samples.end());
    metric["lower_value"] = *low;
    metric["upper_value"] = *high;
  }
  return metric;
}

// The newest run holding one of `series`.
StatusOr<int64_t> NewestRun(Store& store, const std::vector<SeriesInfo>& series) {
  int64_t newest = 0;
  for (const SeriesInfo& s : series) {
    PERFGATE_ASSIGN_OR_RETURN(std::vector<Point> last, store.Points(s.key, 1));
    for (const Point& p : last) newest = std::max(newest, p.run_id);
  }
  return newest;
}

}  // namespace

Status ExportBmf(Store& store, const SeriesFilter& selection, int64_t run_id, std::ostream& out) {
  PERFGATE_ASSIGN_OR_RETURN(std::vector<SeriesInfo> series, MatchingSeries(store, selection));
  if (run_id == kNewestRun) {
    PERFGATE_ASSIGN_OR_RETURN(run_id, NewestRun(store, series));
  }
  PERFGATE_ASSIGN_OR_RETURN(Run run, store.ReadRun(run_id));
  // Filled in sorted order, so the document reads the same however it is written.
  std::map<std::string, std::map<std::string, ordered_json>> benchmarks;
  for (const Figure& f : run.figures) {
    if (!Matches(selection, {run.context.suite, run.context.test, f.engine, f.metric})) continue;
    auto [benchmark, measure] = BmfNames(run.context, f);
    benchmarks[benchmark][measure] = BmfMetric(f);
  }
  if (benchmarks.empty()) {
    return Status::Error("history.unknown_series",
                         "run " + std::to_string(run_id) + " (" + run.context.suite + "/" + run.context.test +
                             ") holds no figure matching the selection",
                         {}, ErrorKind::kUsage);
  }
  ordered_json doc = ordered_json::object();
  for (auto& [benchmark, measures] : benchmarks) {
    ordered_json& b = doc[benchmark] = ordered_json::object();
    for (auto& [measure, metric] : measures) b[measure] = std::move(metric);
  }
  out << text::RenderLosslessJson(doc);
  return Status();
}

}  // namespace perfgate::history
