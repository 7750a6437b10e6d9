// The history's report documents: `perfgate history --store` and `perfgate history check`.
#include "perfgate/history/report.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/lossless_json.h"
#include "core/text_cells.h"
#include "history/html_parts.h"

namespace perfgate::history {
namespace {

using document::Cell;
using document::Column;
using json = nlohmann::ordered_json;

// A run by its commit, or by its number where it names none (an imported report).
std::string RunName(const Point& p) {
  return p.commit.empty() ? "run " + std::to_string(p.run_id) : html::ShortCommit(p.commit);
}

std::string CommitRange(const Change& c) { return RunName(c.last_before) + ".." + RunName(c.first_after); }

std::string SeriesName(const SeriesKey& k) { return k.suite + "/" + k.test + " " + k.engine + " " + k.metric; }

Cell ChangePercent(const ChangePoint& cp) {
  return Cell::Percent(cp.mean_before != 0 ? std::optional<double>(100 * cp.Magnitude()) : std::nullopt);
}

std::vector<Column> ChangeColumns() {
  return {{"series", document::Align::kLeft}, {"commits", document::Align::kLeft}, {"runs"}, {"before"},
          {"after"}, {"change"}, {"p"}, {"direction", document::Align::kLeft}};
}

std::vector<Cell> ChangeRow(const SeriesKey& key, const Change& c, const std::string& direction) {
  return {Cell::Code(SeriesName(key)),
          Cell::Text(CommitRange(c)),
          Cell::Text(std::to_string(c.last_before.run_id) + ".." + std::to_string(c.first_after.run_id)),
          Cell::Significant(c.point.mean_before),
          Cell::Significant(c.point.mean_after),
          ChangePercent(c.point),
          Cell::PValue(c.point.pvalue),
          Cell::Text(direction)};
}

// "kernels 3100 -> 3410 µs/token (+310), 24 -> 24 calls/token: " (the list item's
// name, the kernel, follows).
std::string MoverText(const Mover& m) {
  char text[160];
  std::snprintf(text, sizeof text, " %.6g -> %.6g µs/token (%+.6g), %.6g -> %.6g calls/token: ", m.us_before,
                m.us_after, m.DeltaUs(), m.calls_before, m.calls_after);
  return m.level + text;
}

void AddMovers(const Change& c, document::List* list) {
  if (c.movers.empty()) list->items.push_back({"", "none: the runs hold no level table that moved", false, {}, 1});
  for (const Mover& m : c.movers) list->items.push_back({"", MoverText(m), false, {m.name}, 1});
}

json PointJson(const Point& p) {
  return {{"run", p.run_id}, {"time", p.time},     {"commit", p.commit},
          {"branch", p.branch}, {"median", p.median}, {"samples", p.samples}};
}

json ChangeJson(const Change& c) {
  json movers = json::array();
  for (const Mover& m : c.movers) {
    movers.push_back({{"level", m.level},          {"name", m.name},          {"us_before", m.us_before},
                      {"us_after", m.us_after},    {"calls_before", m.calls_before}, {"calls_after", m.calls_after}});
  }
  const ChangePoint& p = c.point;
  return {{"index", p.index},
          {"run_before", c.last_before.run_id},
          {"run_after", c.first_after.run_id},
          {"commit_before", c.last_before.commit},
          {"commit_after", c.first_after.commit},
          {"mean_before", p.mean_before},
          {"mean_after", p.mean_after},
          {"stddev_before", p.stddev_before},
          {"stddev_after", p.stddev_after},
          {"magnitude", p.Magnitude()},
          {"pvalue", p.pvalue},
          {"worse", c.worse},
          {"direction", c.direction},
          {"movers", movers}};
}

json KeyJson(const SeriesKey& k) {
  return {{"suite", k.suite}, {"test", k.test}, {"engine", k.engine}, {"metric", k.metric}};
}

json OptionsJson(const ChangePointOptions& o) {
  return {{"window", o.window}, {"max_pvalue", o.max_pvalue}, {"min_magnitude", o.min_magnitude}};
}

std::string HistoryJson(const std::string& location, const std::vector<SeriesHistory>& series,
                        const ChangePointOptions& options) {
  json all = json::array();
  for (const SeriesHistory& s : series) {
    json item = KeyJson(s.info.key);
    item["worse"] = WorseName(s.info.worse);
    item["points"] = json::array();
    for (const Point& p : s.points) item["points"].push_back(PointJson(p));
    item["change_points"] = json::array();
    for (const Change& c : s.changes) item["change_points"].push_back(ChangeJson(c));
    all.push_back(std::move(item));
  }
  return text::RenderLosslessJson(
      {{"schema", "perfgate.results_history/1"}, {"store", location}, {"options", OptionsJson(options)}, {"series", all}});
}

document::Table SeriesTable(const std::vector<SeriesHistory>& series) {
  document::Table t{"series",
                    {{"series", document::Align::kLeft}, {"runs"}, {"newest"}, {"worse", document::Align::kLeft},
                     {"change points"}, {"last change", document::Align::kLeft}}};
  for (const SeriesHistory& s : series) {
    const Change* last = s.changes.empty() ? nullptr : &s.changes.back();
    t.rows.push_back({Cell::Code(SeriesName(s.info.key)), Cell::Integer(static_cast<int64_t>(s.points.size())),
                      s.points.empty() ? Cell::Missing() : Cell::Significant(s.points.back().median),
                      Cell::Text(std::string(WorseName(s.info.worse))),
                      Cell::Integer(static_cast<int64_t>(s.changes.size())),
                      last ? Cell::Text(CommitRange(*last) + " " + ChangePercent(last->point).text) : Cell::Missing()});
  }
  return t;
}

// The runs a chart draws: the newest kChartRuns (an SVG names every point in its key;
// the HTML page draws them all).
constexpr size_t kChartRuns = 60;

// The series' newest runs as a line, each change point among them marked.
document::LineChart ChartOf(const SeriesHistory& s) {
  document::LineChart chart;
  const size_t first = s.points.size() > kChartRuns ? s.points.size() - kChartRuns : 0;
  chart.title = SeriesName(s.info.key) +
                (first > 0 ? " (the newest " + std::to_string(kChartRuns) + " of " + std::to_string(s.points.size()) +
                                 " runs)"
                           : "");
  document::LineChart::Series line{s.info.key.metric, {}};
  for (size_t i = first; i < s.points.size(); ++i) {
    const Point& p = s.points[i];
    chart.points.push_back("run " + std::to_string(p.run_id) + " " + RunName(p));
    line.values.push_back(Cell::Significant(p.median));
  }
  for (const Change& c : s.changes) {
    if (static_cast<size_t>(c.point.index) <= first) continue;
    chart.marks.push_back({static_cast<size_t>(c.point.index) - first,
                           ChangePercent(c.point).text + " " + c.direction, c.worse});
  }
  chart.series.push_back(std::move(line));
  return chart;
}

}  // namespace

document::Document HistoryDocument(const std::string& location, const std::vector<SeriesHistory>& series,
                                   const ChangePointOptions& options) {
  document::Document d;
  int64_t changes = 0;
  for (const SeriesHistory& s : series) changes += static_cast<int64_t>(s.changes.size());
  d.blocks.push_back(document::Heading{"Results history: " + location, 1});
  d.blocks.push_back(document::Paragraph{
      std::to_string(series.size()) + " series, " + std::to_string(changes) +
      " change points (E-divisive means, window " + std::to_string(options.window) + ", p <= " +
      text::ShortestDouble(options.max_pvalue) + ", magnitude >= " + text::ShortestDouble(options.min_magnitude) +
      ")"});
  d.blocks.push_back(SeriesTable(series));
  if (changes > 0) {
    d.blocks.push_back(document::Heading{"Change points", 2});
    document::Table table{"change_points", ChangeColumns()};
    document::List movers;
    for (const SeriesHistory& s : series) {
      for (const Change& c : s.changes) {
        table.rows.push_back(ChangeRow(s.info.key, c, c.direction));
        movers.items.push_back({c.direction,
                                SeriesName(s.info.key) + " at " + CommitRange(c) + ", movers:", c.worse});
        AddMovers(c, &movers);
      }
    }
    d.blocks.push_back(std::move(table));
    d.blocks.push_back(std::move(movers));
  }
  for (const SeriesHistory& s : series) {
    if (s.points.size() > 1) d.blocks.push_back(ChartOf(s));
  }
  d.json = HistoryJson(location, series, options);
  return d;
}

namespace {

std::string CheckJson(const std::string& location, const CheckResult& r, const CheckPolicy& policy) {
  json findings = json::array();
  for (const CheckFinding& f : r.findings) {
    json item = KeyJson(f.key);
    item["fails"] = f.fails;
    item["change_point"] = ChangeJson(f.change);
    const std::string bisect = BisectCommand(f.key, f.change);
    item["bisect_command"] = f.fails && !bisect.empty() ? json(bisect) : json(nullptr);
    findings.push_back(std::move(item));
  }
  json short_series = json::array();
  for (const SeriesInfo& s : r.too_short) {
    json item = KeyJson(s.key);
    item["runs"] = s.points;
    short_series.push_back(std::move(item));
  }
  json p = OptionsJson(policy.detector);
  p["recent"] = policy.recent;
  p["min_change"] = policy.min_change;
  p["min_runs"] = policy.min_runs;
  return text::RenderLosslessJson({{"schema", "perfgate.history_check/1"},
                                   {"store", location},
                                   {"pass", r.pass()},
                                   {"series_judged", r.series_judged},
                                   {"policy", p},
                                   {"findings", findings},
                                   {"too_short", short_series}});
}

std::string Verdict(const CheckResult& r, const CheckPolicy& policy) {
  int64_t failing = 0;
  for (const CheckFinding& f : r.findings) failing += f.fails ? 1 : 0;
  // Nothing judged is no pass: the word says so, and under CI the check fails.
  std::string text = !r.pass() ? "FAIL" : (r.series_judged == 0 ? "NOT JUDGED" : "PASS");
  text += ": " + std::to_string(r.series_judged) + " series judged over their newest " + std::to_string(policy.recent) +
          " runs; " + std::to_string(r.findings.size()) + " change points among them, " + std::to_string(failing) +
          " in the bad direction by at least " + text::ShortestDouble(100 * policy.min_change) + " %";
  if (!r.too_short.empty()) {
    text += "; " + std::to_string(r.too_short.size()) + " series too short to judge (fewer than " +
            std::to_string(policy.min_runs) + " runs)";
  }
  return text;
}

}  // namespace

document::Document CheckDocument(const std::string& location, const CheckResult& result, const CheckPolicy& policy) {
  document::Document d;
  d.blocks.push_back(document::Heading{"History check: " + location, 1});
  d.blocks.push_back(document::Paragraph{Verdict(result, policy)});
  if (!result.findings.empty()) {
    document::Table table{"findings", ChangeColumns()};
    document::List notes;
    for (const CheckFinding& f : result.findings) {
      const char* word = f.fails ? "FAIL" : (f.change.worse ? "note" : "better");
      table.rows.push_back(ChangeRow(f.key, f.change, word));
      notes.items.push_back({word,
                             SeriesName(f.key) + " changed " + ChangePercent(f.change.point).text + " between " +
                                 CommitRange(f.change) + "; movers:",
                             f.fails});
      AddMovers(f.change, &notes);
      const std::string bisect = BisectCommand(f.key, f.change);
      if (f.fails && !bisect.empty()) notes.items.push_back({"", "find the commit: ", false, {bisect}, 1});
    }
    d.blocks.push_back(std::move(table));
    d.blocks.push_back(std::move(notes));
  }
  if (!result.too_short.empty()) {
    document::List short_list;
    for (const SeriesInfo& s : result.too_short) {
      short_list.items.push_back({s.points <= 1 ? "first run" : "too short",
                                  SeriesName(s.key) + ": " + std::to_string(s.points) +
                                      (s.points == 1 ? " run" : " runs"),
                                  false});
    }
    d.blocks.push_back(std::move(short_list));
  }
  d.json = CheckJson(location, result, policy);
  return d;
}

}  // namespace perfgate::history
