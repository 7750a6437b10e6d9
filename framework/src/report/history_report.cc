// `perfgate history` as a report document: chosen counters over a history of counter
// reports, as a table and as line charts (one panel per counter). A report without
// the counter is a gap, marked in every format, never printed or drawn as a zero.
#include <string>
#include <vector>

#include "perfgate/report/formats.h"

namespace perfgate::report {
namespace {

using counters::CounterReport;
using counters::CounterValue;
using document::Align;
using document::Cell;
using document::Document;
using document::Heading;
using document::LineChart;
using document::Paragraph;
using document::Table;

constexpr size_t kNumberColumn = 3;
constexpr size_t kTitleColumns = 56;
constexpr const char kGapLegend[] = "— : the report has no such counter (a gap, not a zero)";

Cell ValueCell(const CounterReport& r, const std::string& key) {
  const CounterValue* v = r.Find(key);
  return v == nullptr ? Cell::Missing() : Cell::Written(v->text, v->number);
}

std::string TitleOf(const CounterReport& r) {
  return r.title.empty() ? "(untitled, line " + std::to_string(r.location.line) + ")" : r.title;
}

Table HistoryTable(const HistoryReport& h) {
  Table t{"history", {{"#", Align::kRight, kNumberColumn}, {"report", Align::kLeft, kTitleColumns}}, {}};
  for (const std::string& c : h.counters) t.columns.push_back({c, Align::kRight, 0});
  for (size_t n = 0; n < h.history.reports.size(); ++n) {
    const CounterReport& r = h.history.reports[n];
    std::vector<Cell> row = {Cell::Integer(static_cast<int64_t>(n + 1)), Cell::Text(TitleOf(r))};
    for (const std::string& c : h.counters) row.push_back(ValueCell(r, c));
    t.rows.push_back(std::move(row));
  }
  return t;
}

LineChart HistoryChart(const HistoryReport& h, const std::string& title) {
  LineChart chart{title, {}, {}, {}};
  for (const CounterReport& r : h.history.reports) chart.points.push_back(TitleOf(r));
  for (const std::string& c : h.counters) {
    LineChart::Series s{c, {}};
    for (const CounterReport& r : h.history.reports) s.values.push_back(ValueCell(r, c));
    chart.series.push_back(std::move(s));
  }
  return chart;
}

bool AnyGap(const HistoryReport& h) {
  for (const auto& r : h.history.reports) {
    for (const auto& c : h.counters) {
      if (r.Find(c) == nullptr) return true;
    }
  }
  return false;
}

}  // namespace

Document HistoryDocument(const HistoryReport& h) {
  const std::string title = "Counter history: " + h.history.path + " (" +
                            std::to_string(h.history.reports.size()) + " reports, the engine's own counters)";
  Document d;
  d.blocks.push_back(Heading{title, 1, false});
  d.blocks.push_back(HistoryTable(h));
  if (AnyGap(h)) d.blocks.push_back(Paragraph{kGapLegend});
  d.blocks.push_back(HistoryChart(h, title));
  d.json = RenderHistoryJson(h);
  return d;
}

}  // namespace perfgate::report
