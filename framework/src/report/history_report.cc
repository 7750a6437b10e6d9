// `perfgate history`: chosen counters over a history of counter reports, as a table
// (text, Markdown) and as line charts (SVG, one panel per counter: tok/s and
// dispatches/token differ by two orders of magnitude). A report without the counter
// is a gap, marked in every format, never drawn or printed as a zero.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/report/formats.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

using counters::CounterReport;
using counters::CounterValue;

constexpr const char kGap[] = "\xE2\x80\x94";  // —
constexpr size_t kTitleColumns = 56;
constexpr const char kGapLegend[] = "— : the report has no such counter (a gap, not a zero)";

std::string Cell(const CounterReport& r, const std::string& key) {
  const CounterValue* v = r.Find(key);
  return v == nullptr ? kGap : v->text;
}

std::string TitleOf(const CounterReport& r) { return r.title.empty() ? "(untitled, line " + std::to_string(r.location.line) + ")" : r.title; }

bool AnyGap(const HistoryReport& h) {
  for (const auto& r : h.history.reports) {
    for (const auto& c : h.counters) {
      if (r.Find(c) == nullptr) return true;
    }
  }
  return false;
}

}  // namespace

std::string RenderHistoryText(const HistoryReport& h) {
  std::vector<size_t> widths;
  for (const auto& c : h.counters) {
    size_t w = util::DisplayWidth(c);
    for (const auto& r : h.history.reports) w = std::max(w, util::DisplayWidth(Cell(r, c)));
    widths.push_back(w);
  }
  std::string out = "Counter history: " + h.history.path + " (" + std::to_string(h.history.reports.size()) +
                    " reports, the engine's own counters)\n\n";
  std::string head = util::Right("#", 3) + "  " + util::Left("report", kTitleColumns);
  for (size_t i = 0; i < h.counters.size(); ++i) head += "  " + util::Right(h.counters[i], widths[i]);
  out += head + "\n";
  for (size_t n = 0; n < h.history.reports.size(); ++n) {
    const CounterReport& r = h.history.reports[n];
    std::string row = util::Right(std::to_string(n + 1), 3) + "  " + util::Left(TitleOf(r), kTitleColumns);
    for (size_t i = 0; i < h.counters.size(); ++i) row += "  " + util::Right(Cell(r, h.counters[i]), widths[i]);
    out += row + "\n";
  }
  if (AnyGap(h)) out += std::string("\n") + kGapLegend + "\n";
  return out;
}

std::string RenderHistoryMarkdown(const HistoryReport& h) {
  std::string out = "### Counter history: `" + util::BaseName(h.history.path) + "` (" +
                    std::to_string(h.history.reports.size()) + " reports)\n\n| # | report |";
  std::string rule = "|---:|---|";
  for (const auto& c : h.counters) {
    out += " " + util::MarkdownCell(c) + " |";
    rule += "---:|";
  }
  out += "\n" + rule + "\n";
  for (size_t n = 0; n < h.history.reports.size(); ++n) {
    const CounterReport& r = h.history.reports[n];
    out += "| " + std::to_string(n + 1) + " | " + util::MarkdownCell(TitleOf(r)) + " |";
    for (const auto& c : h.counters) out += " " + util::MarkdownCell(Cell(r, c)) + " |";
    out += "\n";
  }
  if (AnyGap(h)) out += std::string("\n") + kGapLegend + "\n";
  return out;
}

namespace {

constexpr double kSvgWidth = 900;
constexpr double kLeft = 90;
constexpr double kRight = 40;
constexpr double kPanelHeight = 170;
constexpr double kPlotTop = 34;    // within a panel: the title above
constexpr double kPlotHeight = 100;
constexpr double kKeyLine = 15;
constexpr double kInnerPad = 16;  // room above the highest point for its label
const char* const kLineColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"};

// An axis bound: 6 significant digits, no trailing ".0" (the points carry exact text).
std::string AxisLabel(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string Px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// The reports' values of one counter: nullopt where the report lacks it or it is text.
std::vector<std::optional<double>> ValuesOf(const HistoryReport& h, const std::string& key) {
  std::vector<std::optional<double>> out;
  for (const auto& r : h.history.reports) {
    const CounterValue* v = r.Find(key);
    out.push_back(v != nullptr ? v->number : std::nullopt);
  }
  return out;
}

std::string Panel(const HistoryReport& h, size_t index, double top) {
  const std::string& key = h.counters[index];
  const auto values = ValuesOf(h, key);
  const size_t n = values.size();
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& v : values) {
    if (v) lo = std::min(lo, *v), hi = std::max(hi, *v);
  }
  const bool any = std::isfinite(lo);
  if (!any) lo = 0, hi = 1;
  if (hi == lo) lo -= 1, hi += 1;
  const double plot_w = kSvgWidth - kLeft - kRight;
  auto x = [&](size_t i) { return kLeft + (n <= 1 ? plot_w / 2 : plot_w * static_cast<double>(i) / static_cast<double>(n - 1)); };
  auto y = [&](double v) { return top + kPlotTop + kInnerPad + (kPlotHeight - kInnerPad) * (1 - (v - lo) / (hi - lo)); };
  const char* colour = kLineColours[index % (sizeof kLineColours / sizeof *kLineColours)];
  std::string out = "<g class=\"panel\" data-counter=\"" + util::XmlEscape(key) + "\">\n";
  out += "<text x=\"" + Px(kLeft) + "\" y=\"" + Px(top + 18) + "\" font-size=\"14\" font-weight=\"bold\">" +
         util::XmlEscape(key) + "</text>\n";
  out += "<rect class=\"plot\" x=\"" + Px(kLeft) + "\" y=\"" + Px(top + kPlotTop) + "\" width=\"" + Px(plot_w) +
         "\" height=\"" + Px(kPlotHeight) + "\" fill=\"none\" stroke=\"#ccc\"/>\n";
  out += "<text x=\"" + Px(kLeft - 6) + "\" y=\"" + Px(y(hi) + 4) + "\" font-size=\"11\" text-anchor=\"end\">" +
         util::XmlEscape(AxisLabel(hi)) + "</text>\n";
  out += "<text x=\"" + Px(kLeft - 6) + "\" y=\"" + Px(y(lo) + 4) + "\" font-size=\"11\" text-anchor=\"end\">" +
         util::XmlEscape(AxisLabel(lo)) + "</text>\n";
  // The line, broken at every gap.
  std::string points;
  auto flush = [&]() {
    if (!points.empty()) {
      out += "<polyline class=\"series\" fill=\"none\" stroke=\"" + std::string(colour) +
             "\" stroke-width=\"2\" points=\"" + points + "\"/>\n";
    }
    points.clear();
  };
  for (size_t i = 0; i < n; ++i) {
    if (!values[i]) {
      flush();
      continue;
    }
    points += (points.empty() ? "" : " ") + Px(x(i)) + "," + Px(y(*values[i]));
  }
  flush();
  const double axis = top + kPlotTop + kPlotHeight;
  for (size_t i = 0; i < n; ++i) {
    const CounterValue* v = h.history.reports[i].Find(key);
    if (values[i]) {
      out += "<circle class=\"point\" cx=\"" + Px(x(i)) + "\" cy=\"" + Px(y(*values[i])) + "\" r=\"3.5\" fill=\"" +
             colour + "\"><title>" + std::to_string(i + 1) + ": " + util::XmlEscape(v->text) + "</title></circle>\n";
      out += "<text x=\"" + Px(x(i)) + "\" y=\"" + Px(y(*values[i]) - 7) +
             "\" font-size=\"10\" text-anchor=\"middle\">" + util::XmlEscape(v->text) + "</text>\n";
    } else {
      const std::string why = v == nullptr ? "gap: no " + key : "gap: not a number (" + v->text + ")";
      out += "<text class=\"gap\" x=\"" + Px(x(i)) + "\" y=\"" + Px(axis - 6) +
             "\" font-size=\"11\" fill=\"#d62728\" text-anchor=\"middle\">\xC3\x97<title>" + util::XmlEscape(why) +
             "</title></text>\n";
    }
    out += "<text x=\"" + Px(x(i)) + "\" y=\"" + Px(axis + 14) + "\" font-size=\"10\" text-anchor=\"middle\">" +
           std::to_string(i + 1) + "</text>\n";
  }
  return out + "</g>\n";
}

}  // namespace

std::string RenderHistorySvg(const HistoryReport& h) {
  const size_t n = h.history.reports.size();
  const double key_top = 40 + kPanelHeight * static_cast<double>(h.counters.size());
  const double height = key_top + kKeyLine * static_cast<double>(n + 2) + 10;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Px(kSvgWidth) + "\" height=\"" +
                    Px(height) + "\" viewBox=\"0 0 " + Px(kSvgWidth) + " " + Px(height) +
                    "\" font-family=\"sans-serif\">\n";
  out += "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  out += "<text x=\"20\" y=\"24\" font-size=\"16\" font-weight=\"bold\">Counter history: " +
         util::XmlEscape(util::BaseName(h.history.path)) + " (" + std::to_string(n) +
         " reports, the engine's own counters)</text>\n";
  for (size_t i = 0; i < h.counters.size(); ++i) out += Panel(h, i, 40 + kPanelHeight * static_cast<double>(i));
  out += "<g class=\"key\">\n";
  for (size_t i = 0; i < n; ++i) {
    out += "<text x=\"20\" y=\"" + Px(key_top + kKeyLine * static_cast<double>(i)) + "\" font-size=\"11\">" +
           std::to_string(i + 1) + ": " + util::XmlEscape(util::Truncate(TitleOf(h.history.reports[i]), 130)) +
           "</text>\n";
  }
  out += "<text x=\"20\" y=\"" + Px(key_top + kKeyLine * static_cast<double>(n)) +
         "\" font-size=\"11\" fill=\"#d62728\">\xC3\x97 : a gap (the report has no such counter, or it is no "
         "number); the line breaks there</text>\n";
  return out + "</g>\n</svg>\n";
}

}  // namespace perfgate::report
