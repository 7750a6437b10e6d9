// The history's HTML page: a header, a table of contents, then each series (grouped by
// suite and test, then engine) with its chart, its change points and its runs. One
// file with nothing to fetch: the CSS is inline, the charts are inline SVG, and there
// is no script (a point's run and commit show on hover through SVG <title>s).
#include <algorithm>
#include <cstdint>
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/text_cells.h"
#include "history/html_parts.h"
#include "perfgate/history/html.h"

namespace perfgate::history::html {
namespace {

constexpr size_t kMoversShown = 3;

constexpr const char kStyle[] = R"css(
body{margin:16px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:19px;margin:28px 0 4px;border-bottom:1px solid #ddd}
h3{font-size:16px;margin:16px 0 4px}
h4{font-size:15px;margin:14px 0 4px}
.unit,.meta,.legend,.note,.none{color:#555;font-weight:normal}
.meta,.legend{margin:2px 0}
svg.chart{display:block;font:11px system-ui,sans-serif}
svg.chart .tick{fill:#555}
svg.chart .pt:hover{fill-opacity:1}
table{border-collapse:collapse;margin:6px 0}
th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
code{font:13px ui-monospace,Menlo,Consolas,monospace}
.worse{color:#d62728}
.better{color:#2ca02c}
summary{cursor:pointer;color:#444}
.sw{display:inline-block;width:16px;height:4px;vertical-align:middle;margin:0 4px 0 8px}
.sw-line{background:#1f77b4}
.sw-band{background:#d2e4f0;height:10px}
.sw-worse{background:#d62728;width:3px;height:14px}
.sw-better{background:#2ca02c;width:3px;height:14px}
)css";

constexpr const char kLegend[] =
    "<p class=\"legend\">Legend:<span class=\"sw sw-line\"></span>median per run"
    "<span class=\"sw sw-band\"></span>trials&#39; min\xE2\x80\x93max"
    "<span class=\"sw sw-worse\"></span>change point, worse"
    "<span class=\"sw sw-better\"></span>change point, better; "
    "hover a point for its run and commit.</p>\n";

std::string Cell(const std::string& html, const char* cls = nullptr) {
  return cls == nullptr ? "<td>" + html + "</td>" : "<td class=\"" + std::string(cls) + "\">" + html + "</td>";
}

std::string HeaderRow(const std::vector<std::string>& titles) {
  std::string row = "<thead><tr>";
  for (const std::string& t : titles) row += "<th>" + t + "</th>";
  return row + "</tr></thead>\n";
}

// "1 run", "12 runs".
std::string Runs(size_t n) { return std::to_string(n) + (n == 1 ? " run" : " runs"); }

std::string Anchor(size_t ordinal) { return "series-" + std::to_string(ordinal + 1); }

std::string WithUnit(const std::string& value, const std::string& metric) {
  const std::string unit = UnitReading(metric);
  return unit.empty() ? value : value + " " + unit;
}

// A commit as its short form, with the whole commit on hover.
std::string CommitHtml(const std::string& commit) {
  return "<code title=\"" + Escape(commit) + "\">" + Escape(ShortCommit(commit)) + "</code>";
}

std::string CommitRangeHtml(const Change& c) {
  return "<code title=\"" + Escape(c.last_before.commit + ".." + c.first_after.commit) + "\">" +
         Escape(ShortCommit(c.last_before.commit) + ".." + ShortCommit(c.first_after.commit)) + "</code>";
}

// "kernels foo +12.3 µs/token", one a line, the largest first.
std::string MoversHtml(const Change& c) {
  if (c.movers.empty()) return "<span class=\"none\">\xE2\x80\x94</span>";
  std::string out;
  for (size_t i = 0; i < c.movers.size() && i < kMoversShown; ++i) {
    const Mover& m = c.movers[i];
    const double delta = m.DeltaUs();
    const int decimals = std::fabs(delta) >= 10 ? 1 : std::fabs(delta) >= 1 ? 2 : 3;
    out += (i ? "<br>" : "") + Escape(m.level + " " + m.name) + " " + text::Signed(delta, decimals) +
           " \xC2\xB5s/token";
  }
  return out;
}

std::string ChangeTable(const SeriesHistory& s) {
  if (s.changes.empty()) {
    return "<p class=\"none\">No change point in " + Runs(s.points.size()) + ".</p>\n";
  }
  std::string out = "<table class=\"changes\">" +
                    HeaderRow({"change", "commits", "runs", "before \xE2\x86\x92 after", "p", "top movers"});
  for (const Change& c : s.changes) {
    const char* cls = c.worse ? "worse" : "better";
    out += "<tr>" + Cell(Escape(FormatMagnitude(c.point) + " " + DirectionName(c)), cls) +
           Cell(CommitRangeHtml(c)) +
           Cell(std::to_string(c.last_before.run_id) + " \xE2\x86\x92 " + std::to_string(c.first_after.run_id)) +
           Cell(Escape(FormatValue(c.point.mean_before) + " \xE2\x86\x92 " +
                       WithUnit(FormatValue(c.point.mean_after), s.info.key.metric)),
                "num") +
           Cell(Escape(text::PValue(c.point.pvalue)), "num") + Cell(MoversHtml(c)) + "</tr>\n";
  }
  return out + "</table>\n";
}

// Every run, in a table folded away; the first run of each new level says so.
std::string RunTable(const SeriesHistory& s) {
  std::vector<const Change*> change_at(s.points.size(), nullptr);
  for (const Change& c : s.changes) {
    if (c.point.index >= 0 && static_cast<size_t>(c.point.index) < s.points.size()) change_at[c.point.index] = &c;
  }
  std::string out = "<details><summary>All " + Runs(s.points.size()) + "</summary>\n<table class=\"runs\">" +
                    HeaderRow({"#", "run", "time", "commit", "branch", Escape(WithUnit("median", s.info.key.metric)),
                               "change"});
  for (size_t i = 0; i < s.points.size(); ++i) {
    const Point& p = s.points[i];
    const Change* c = change_at[i];
    out += "<tr>" + Cell(std::to_string(i + 1), "num") + Cell(std::to_string(p.run_id), "num") + Cell(Escape(p.time)) +
           Cell(CommitHtml(p.commit)) + Cell(Escape(p.branch)) + Cell(Escape(FormatValue(p.median)), "num") +
           (c == nullptr ? Cell("") : Cell(Escape(FormatMagnitude(c->point)), c->worse ? "worse" : "better")) +
           "</tr>\n";
  }
  return out + "</table>\n</details>\n";
}

std::string SeriesSection(const SeriesHistory& s, size_t ordinal) {
  const std::string unit = UnitReading(s.info.key.metric);
  std::string note;
  const std::string chart = ChartSvg(s, &note);
  return "<section class=\"series\" id=\"" + Anchor(ordinal) + "\">\n<h4>" + Escape(s.info.key.metric) +
         " <span class=\"unit\">" + Escape((unit.empty() ? "" : unit + ", ") + DirectionReading(s.info.worse)) +
         "</span></h4>\n" + chart + (note.empty() ? "" : "<p class=\"note\">" + Escape(note) + "</p>\n") +
         ChangeTable(s) + RunTable(s) + "</section>\n";
}

auto KeyTie(const SeriesKey& k) { return std::tie(k.suite, k.test, k.engine, k.metric); }

// The series in page order: by suite, test, engine, metric.
std::vector<const SeriesHistory*> PageOrder(const std::vector<SeriesHistory>& series) {
  std::vector<const SeriesHistory*> out;
  for (const SeriesHistory& s : series) out.push_back(&s);
  std::stable_sort(out.begin(), out.end(), [](const SeriesHistory* a, const SeriesHistory* b) {
    return KeyTie(a->info.key) < KeyTie(b->info.key);
  });
  return out;
}

std::string ChangeCount(const SeriesHistory& s) {
  const auto worse = std::count_if(s.changes.begin(), s.changes.end(), [](const Change& c) { return c.worse; });
  std::string out = std::to_string(s.changes.size());
  if (worse > 0) out += " <span class=\"worse\">(" + std::to_string(worse) + " worse)</span>";
  return out;
}

std::string Contents(const std::vector<const SeriesHistory*>& order) {
  std::string out = "<table class=\"contents\">" +
                    HeaderRow({"suite / test", "engine", "metric", "runs", "change points", "newest"});
  for (size_t i = 0; i < order.size(); ++i) {
    const SeriesHistory& s = *order[i];
    const SeriesKey& k = s.info.key;
    const std::string newest =
        s.points.empty() ? "\xE2\x80\x94" : WithUnit(FormatValue(s.points.back().median), k.metric);
    out += "<tr>" + Cell(Escape(k.suite + " / " + k.test)) + Cell(Escape(k.engine)) +
           Cell("<a href=\"#" + Anchor(i) + "\">" + Escape(k.metric) + "</a>") +
           Cell(std::to_string(s.points.size()), "num") + Cell(ChangeCount(s), "num") + Cell(Escape(newest), "num") +
           "</tr>\n";
  }
  return out + "</table>\n";
}

// The sections, with a heading where the suite and test change, and where the engine does.
std::string Sections(const std::vector<const SeriesHistory*>& order) {
  std::string out;
  for (size_t i = 0; i < order.size(); ++i) {
    const SeriesKey& k = order[i]->info.key;
    const SeriesKey* prev = i > 0 ? &order[i - 1]->info.key : nullptr;
    const bool new_test = prev == nullptr || prev->suite != k.suite || prev->test != k.test;
    if (new_test) out += "<h2>" + Escape(k.suite + " / " + k.test) + "</h2>\n";
    if (new_test || prev->engine != k.engine) out += "<h3>" + Escape(k.engine) + "</h3>\n";
    out += SeriesSection(*order[i], i);
  }
  return out;
}

std::string Header(const std::vector<SeriesHistory>& series, const HtmlPageOptions& options) {
  std::set<int64_t> runs;
  for (const SeriesHistory& s : series) {
    for (const Point& p : s.points) runs.insert(p.run_id);
  }
  std::string meta;
  if (!options.store_location.empty()) meta += "Store <code>" + Escape(options.store_location) + "</code> \xC2\xB7 ";
  if (!options.generated_at.empty()) meta += "generated " + Escape(options.generated_at) + " \xC2\xB7 ";
  meta += std::to_string(series.size()) + " series \xC2\xB7 " + Runs(runs.size());
  return "<header>\n<h1>" + Escape(options.title) + "</h1>\n<p class=\"meta\">" + meta + "</p>\n" + kLegend +
         "</header>\n";
}

}  // namespace
}  // namespace perfgate::history::html

namespace perfgate::history {

std::string RenderHistoryHtml(const std::vector<SeriesHistory>& series, const HtmlPageOptions& options) {
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                     html::Escape(options.title) + "</title>\n<style>" + html::kStyle + "</style>\n</head>\n<body>\n" +
                     html::Header(series, options);
  if (series.empty()) {
    page += "<p class=\"none\">No series to show: the store holds no run yet.</p>\n";
  } else {
    const auto order = html::PageOrder(series);
    page += html::Contents(order) + html::Sections(order);
  }
  return page + "</body>\n</html>\n";
}

}  // namespace perfgate::history
