// A report document's charts as a self-contained SVG (document/renderers.h), in their
// order under its title; bar charts are drawn by document/bars.cc. A line chart has one
// panel per series (their scales differ: tok/s and dispatches/token are two orders of
// magnitude apart), the line broken at every gap and the gap marked, the points
// numbered in a key below.
#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/text_cells.h"
#include "document/renderers.h"

namespace perfgate::document::internal {
namespace {

using text::Px;

constexpr double kSvgWidth = 900;
constexpr double kLeft = 90;
constexpr double kRight = 40;
constexpr double kPanelHeight = 170;
constexpr double kPlotTop = 34;  // within a panel: the title above
constexpr double kPlotHeight = 100;
constexpr double kKeyLine = 15;
constexpr double kInnerPad = 16;  // room above the highest point for its label
constexpr size_t kKeyColumns = 130;
const char* const kLineColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"};

// An axis bound: 6 significant digits, no trailing ".0" (the points carry exact text).
std::string AxisLabel(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The plotted value of a cell: none where it is missing or no number.
std::optional<double> Plotted(const Cell& c) { return c.missing ? std::nullopt : c.number; }

// The panel's vertical bounds: the series' range, widened when flat or empty.
std::pair<double, double> Bounds(const LineChart::Series& s) {
  double lo = INFINITY, hi = -INFINITY;
  for (const Cell& c : s.values) {
    if (auto v = Plotted(c)) lo = std::min(lo, *v), hi = std::max(hi, *v);
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (hi == lo) lo -= 1, hi += 1;
  return {lo, hi};
}

// The chart's marks across one panel: a vertical line halfway between the two points
// either side, labelled at its top.
std::string Marks(const std::vector<LineChart::Mark>& marks, const std::function<double(size_t)>& x, size_t n,
                  double top) {
  std::string out;
  for (const LineChart::Mark& m : marks) {
    if (m.before == 0 || m.before >= n) continue;
    const double at = (x(m.before - 1) + x(m.before)) / 2;
    const char* colour = m.bad ? "#d62728" : "#2ca02c";
    out += "<line class=\"mark\" x1=\"" + Px(at) + "\" y1=\"" + Px(top + kPlotTop) + "\" x2=\"" + Px(at) + "\" y2=\"" +
           Px(top + kPlotTop + kPlotHeight) + "\" stroke=\"" + colour + "\" stroke-width=\"2\"/>\n";
    out += "<text x=\"" + Px(at + 4) + "\" y=\"" + Px(top + kPlotTop + 12) + "\" font-size=\"11\" fill=\"" + colour +
           "\">" + text::XmlEscape(m.label) + "</text>\n";
  }
  return out;
}

std::string Panel(const LineChart::Series& s, size_t index, double top, const std::vector<LineChart::Mark>& marks) {
  const size_t n = s.values.size();
  const std::pair<double, double> bounds = Bounds(s);
  const double lo = bounds.first, hi = bounds.second;
  const double plot_w = kSvgWidth - kLeft - kRight;
  auto x = [&](size_t i) {
    return kLeft + (n <= 1 ? plot_w / 2 : plot_w * static_cast<double>(i) / static_cast<double>(n - 1));
  };
  auto y = [&](double v) { return top + kPlotTop + kInnerPad + (kPlotHeight - kInnerPad) * (1 - (v - lo) / (hi - lo)); };
  const char* colour = kLineColours[index % (sizeof kLineColours / sizeof *kLineColours)];
  const std::string name = text::XmlEscape(s.name);
  std::string out = "<g class=\"panel\" data-counter=\"" + name + "\">\n";
  out += "<text x=\"" + Px(kLeft) + "\" y=\"" + Px(top + 18) + "\" font-size=\"14\" font-weight=\"bold\">" + name +
         "</text>\n";
  out += "<rect class=\"plot\" x=\"" + Px(kLeft) + "\" y=\"" + Px(top + kPlotTop) + "\" width=\"" + Px(plot_w) +
         "\" height=\"" + Px(kPlotHeight) + "\" fill=\"none\" stroke=\"#ccc\"/>\n";
  for (double bound : {hi, lo}) {
    out += "<text x=\"" + Px(kLeft - 6) + "\" y=\"" + Px(y(bound) + 4) + "\" font-size=\"11\" text-anchor=\"end\">" +
           text::XmlEscape(AxisLabel(bound)) + "</text>\n";
  }
  out += Marks(marks, x, n, top);
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
    const std::optional<double> v = Plotted(s.values[i]);
    if (!v) {
      flush();
      continue;
    }
    points += (points.empty() ? "" : " ") + Px(x(i)) + "," + Px(y(*v));
  }
  flush();
  const double axis = top + kPlotTop + kPlotHeight;
  for (size_t i = 0; i < n; ++i) {
    const Cell& c = s.values[i];
    if (const std::optional<double> v = Plotted(c)) {
      const std::string label = text::XmlEscape(c.text);
      out += "<circle class=\"point\" cx=\"" + Px(x(i)) + "\" cy=\"" + Px(y(*v)) + "\" r=\"3.5\" fill=\"" + colour +
             "\"><title>" + std::to_string(i + 1) + ": " + label + "</title></circle>\n";
      out += "<text x=\"" + Px(x(i)) + "\" y=\"" + Px(y(*v) - 7) + "\" font-size=\"10\" text-anchor=\"middle\">" +
             label + "</text>\n";
    } else {
      const std::string why = c.missing ? "gap: no " + s.name : "gap: not a number (" + c.text + ")";
      out += "<text class=\"gap\" x=\"" + Px(x(i)) + "\" y=\"" + Px(axis - 6) +
             "\" font-size=\"11\" fill=\"#d62728\" text-anchor=\"middle\">\xC3\x97<title>" + text::XmlEscape(why) +
             "</title></text>\n";
    }
    out += "<text x=\"" + Px(x(i)) + "\" y=\"" + Px(axis + 14) + "\" font-size=\"10\" text-anchor=\"middle\">" +
           std::to_string(i + 1) + "</text>\n";
  }
  return out + "</g>\n";
}

std::string Chart(const LineChart& chart, double top, double* bottom) {
  std::string out = "<text x=\"20\" y=\"" + Px(top + 24) + "\" font-size=\"16\" font-weight=\"bold\">" +
                    text::XmlEscape(chart.title) + "</text>\n";
  for (size_t i = 0; i < chart.series.size(); ++i) {
    out += Panel(chart.series[i], i, top + 40 + kPanelHeight * static_cast<double>(i), chart.marks);
  }
  const size_t n = chart.points.size();
  const double key_top = top + 40 + kPanelHeight * static_cast<double>(chart.series.size());
  out += "<g class=\"key\">\n";
  for (size_t i = 0; i < n; ++i) {
    out += "<text x=\"20\" y=\"" + Px(key_top + kKeyLine * static_cast<double>(i)) + "\" font-size=\"11\">" +
           std::to_string(i + 1) + ": " + text::XmlEscape(text::Truncate(chart.points[i], kKeyColumns)) + "</text>\n";
  }
  out += "<text x=\"20\" y=\"" + Px(key_top + kKeyLine * static_cast<double>(n)) +
         "\" font-size=\"11\" fill=\"#d62728\">\xC3\x97 : a gap (no value there, or no number); the line breaks "
         "there</text>\n";
  *bottom = key_top + kKeyLine * static_cast<double>(n + 2) + 10;
  return out + "</g>\n";
}

}  // namespace

std::string RenderDocumentSvg(const Document& d) {
  std::string body;
  double top = 0;
  for (const Block& b : d.blocks) {
    // The report's title heads the picture, as it heads the text.
    if (const auto* h = std::get_if<Heading>(&b); h != nullptr && h->level == 1) {
      body += "<text x=\"20\" y=\"" + Px(top + 28) + "\" font-size=\"17\" font-weight=\"bold\">" +
              text::XmlEscape(h->text) + "</text>\n";
      top += 40;
    }
    if (const auto* chart = std::get_if<LineChart>(&b)) body += Chart(*chart, top, &top);
    if (const auto* bars = std::get_if<BarChart>(&b)) body += BarChartSvg(*bars, top, &top);
  }
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Px(kSvgWidth) + "\" height=\"" + Px(top) +
                    "\" viewBox=\"0 0 " + Px(kSvgWidth) + " " + Px(top) + "\" font-family=\"sans-serif\">\n";
  out += "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  return out + body + "</svg>\n";
}

}  // namespace perfgate::document::internal
