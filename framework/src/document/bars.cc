// A report document's bar charts in SVG (document/renderers.h): grouped bars of one
// unit per series, or diverging bars on a signed log scale. Bars carry the class
// "bar-engine" (the first series), "bar-baseline" (the second) or "bar-delta
// regressed|improved"; a highlighted row's band "attack-target"; legend swatches
// "legend-swatch".
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/text_cells.h"
#include "document/renderers.h"

namespace perfgate::document::internal {
namespace {

using text::Px;
using text::XmlEscape;

constexpr double kChartWidth = 900;
constexpr double kLabelWidth = 250;  // category labels, right-aligned at this x
constexpr double kPlotLeft = 260;
constexpr double kPlotWidth = 540;  // value labels fit in the remaining 100 px
constexpr double kBarHeight = 14;
constexpr double kGroupGap = 10;
constexpr size_t kLabelChars = 38;
constexpr size_t kKeyChars = 124;  // a line of the key, 11 px across the page
const char* const kSeriesColours[] = {"#4e79a7", "#f28e2b"};
const char* const kSeriesClasses[] = {"bar-engine", "bar-baseline"};
// Δ bars: red where the value is above 0 (slower, a regression), green below; the
// highlighted row sits on a pale yellow band with a bold label.
const char* const kRegressedColour = "#d62728";
const char* const kImprovedColour = "#59a14f";
const char* const kHighlightColour = "#fff3b0";
constexpr double kDeltaHalfWidth = kPlotWidth / 2;  // 0 sits mid-plot
constexpr double kMinDeltaBar = 3;                  // px: a non-zero value never vanishes

// A "nice" tick step (1, 2 or 5 × 10^k) giving about five ticks up to `max`.
double TickStep(double max) {
  const double raw = max / 5.0;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10;
  return step * mag;
}

std::string TickLabel(double v, double step) {
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
  return text::Fixed(v, decimals);
}

std::string Title(const std::string& title, double y) {
  return "<text x=\"20\" y=\"" + Px(y + 16) + "\" font-size=\"15\" font-weight=\"bold\">" + XmlEscape(title) +
         "</text>\n";
}

// A grouped chart's geometry: the axis' top value, its tick step and the plot's rows.
struct BarPlot {
  double axis_max = 1, step = 1, group_h = 0, top = 0, bottom = 0;
  double X(double v) const { return kPlotLeft + std::max(0.0, v) / axis_max * kPlotWidth; }
};

std::string BarAxis(const BarPlot& plot, const std::string& axis) {
  std::string svg = "<g class=\"axis\" font-size=\"11\" fill=\"#444\">\n";
  const int ticks = static_cast<int>(std::lround(plot.axis_max / plot.step));
  for (int i = 0; i <= ticks; ++i) {
    const double t = plot.step * i;
    const double x = plot.X(t);
    svg += "<line x1=\"" + Px(x) + "\" y1=\"" + Px(plot.top) + "\" x2=\"" + Px(x) + "\" y2=\"" + Px(plot.bottom + 4) +
           "\" stroke=\"#ddd\"/>\n";
    svg += "<text x=\"" + Px(x) + "\" y=\"" + Px(plot.bottom + 17) + "\" text-anchor=\"middle\">" +
           TickLabel(t, plot.step) + "</text>\n";
  }
  svg += "<line x1=\"" + Px(kPlotLeft) + "\" y1=\"" + Px(plot.bottom) + "\" x2=\"" + Px(kPlotLeft + kPlotWidth) +
         "\" y2=\"" + Px(plot.bottom) + "\" stroke=\"#444\"/>\n";
  svg += "<text x=\"" + Px(kPlotLeft + kPlotWidth / 2) + "\" y=\"" + Px(plot.bottom + 34) +
         "\" text-anchor=\"middle\">" + XmlEscape(axis) + "</text>\n";
  return svg + "</g>\n";
}

// One row's label and its bars, one per series, top at `gy`.
std::string GroupBars(const BarChart& chart, const BarChart::Row& row, const BarPlot& plot, double gy) {
  const size_t n = row.values.size();
  std::string svg = "<g class=\"category\">\n<title>" + XmlEscape(row.label) + "</title>\n";
  svg += "<text x=\"" + Px(kLabelWidth) + "\" y=\"" + Px(gy + kBarHeight * static_cast<double>(n) / 2 + 4) +
         "\" text-anchor=\"end\" font-size=\"12\">" + XmlEscape(text::Truncate(row.label, kLabelChars)) + "</text>\n";
  for (size_t k = 0; k < n; ++k) {
    const double by = gy + kBarHeight * static_cast<double>(k);
    const double w = plot.X(row.values[k]) - kPlotLeft;
    const std::string value = text::Fixed(row.values[k], 1);
    svg += "<rect class=\"" + std::string(kSeriesClasses[k % 2]) + "\" x=\"" + Px(kPlotLeft) + "\" y=\"" + Px(by) +
           "\" width=\"" + Px(w) + "\" height=\"" + Px(kBarHeight - 2) + "\" fill=\"" + kSeriesColours[k % 2] +
           "\"><title>" + XmlEscape(chart.series[k] + " " + row.label + ": " + value + " " + chart.axis) +
           "</title></rect>\n";
    svg += "<text x=\"" + Px(kPlotLeft + w + 4) + "\" y=\"" + Px(by + kBarHeight - 3) + "\" font-size=\"11\">" +
           value + "</text>\n";
  }
  return svg + "</g>\n";
}

// The series' swatches and names at `y`.
std::string Legend(const std::vector<std::string>& series, double y) {
  std::string svg = "<g class=\"legend\" font-size=\"12\">\n";
  double lx = kPlotLeft;
  for (size_t k = 0; k < series.size(); ++k) {
    const std::string label = text::Truncate(series[k], 40);
    svg += "<rect class=\"legend-swatch\" x=\"" + Px(lx) + "\" y=\"" + Px(y) + "\" width=\"12\" height=\"12\" fill=\"" +
           kSeriesColours[k % 2] + "\"/>\n";
    svg += "<text x=\"" + Px(lx + 16) + "\" y=\"" + Px(y + 10) + "\">" + XmlEscape(label) + "</text>\n";
    lx += 40 + 7.0 * static_cast<double>(text::DisplayWidth(label));
  }
  return svg + "</g>\n";
}

std::string GroupedChart(const BarChart& chart, double y, double* bottom) {
  std::string svg = Legend(chart.series, y);
  y += 22;
  double max = 0;
  for (const BarChart::Row& r : chart.rows) {
    for (double v : r.values) max = std::max(max, v);
  }
  if (!(max > 0)) max = 1;
  BarPlot plot;
  plot.step = TickStep(max);
  plot.axis_max = std::ceil(max / plot.step - 1e-9) * plot.step;
  plot.group_h = static_cast<double>(chart.series.size()) * kBarHeight + kGroupGap;
  plot.top = y;
  plot.bottom = y + plot.group_h * static_cast<double>(chart.rows.size());
  svg += BarAxis(plot, chart.axis);
  for (size_t i = 0; i < chart.rows.size(); ++i) {
    svg += GroupBars(chart, chart.rows[i], plot, plot.top + plot.group_h * static_cast<double>(i) + kGroupGap / 2);
  }
  *bottom = plot.bottom + 50;
  return svg;
}

// Where `v` lands on a signed log scale of `decades` decades per half-plot: log10(1 +
// |v|) decades from the zero line, so +9 shows at a third of +800's length, not at 1 %.
double DeltaOffset(double v, double decades) {
  if (!std::isfinite(v) || v == 0) return 0;
  const double len = std::log10(1 + std::fabs(v)) / decades * kDeltaHalfWidth;
  return std::copysign(std::max(len, kMinDeltaBar), v);
}

struct DeltaPlot {
  double decades = 1, zero = 0, row_h = 0, top = 0, bottom = 0;
};

// Grid lines at 0, ±1, ±10, ... and the axis' title.
std::string DeltaAxis(const DeltaPlot& plot, const std::string& axis) {
  std::string svg = "<g class=\"axis\" font-size=\"11\" fill=\"#444\">\n";
  for (int k = -1; k <= static_cast<int>(plot.decades); ++k) {
    const double magnitude = k < 0 ? 0 : std::pow(10.0, k);
    if (std::log10(1 + magnitude) > plot.decades + 0.01) break;  // 10^decades itself sits at the edge
    for (double v : {magnitude, -magnitude}) {
      const double x = plot.zero + DeltaOffset(v, plot.decades);
      svg += "<line x1=\"" + Px(x) + "\" y1=\"" + Px(plot.top) + "\" x2=\"" + Px(x) + "\" y2=\"" +
             Px(plot.bottom + 4) + "\" stroke=\"" + (v == 0 ? "#444" : "#ddd") + "\"/>\n";
      svg += "<text x=\"" + Px(x) + "\" y=\"" + Px(plot.bottom + 17) + "\" text-anchor=\"middle\">" +
             (v == 0 ? std::string("0") : text::Signed(v, 0)) + "</text>\n";
      if (v == 0) break;
    }
  }
  svg += "<text x=\"" + Px(plot.zero) + "\" y=\"" + Px(plot.bottom + 34) + "\" text-anchor=\"middle\">" +
         XmlEscape(axis + " (signed log scale: red = slower, a regression; green = faster)") + "</text>\n";
  return svg + "</g>\n";
}

// One diverging row, top at `gy`: the band when highlighted, its label, its bar, and
// its note on the side of the zero line the bar does not use.
std::string DeltaRow(const BarChart::Row& row, const DeltaPlot& plot, double gy) {
  const double zero = plot.zero;
  const double v = row.values[0];
  std::string svg = "<g class=\"delta-row\">\n";
  if (row.highlight) {
    svg += "<rect class=\"attack-target\" x=\"10\" y=\"" + Px(gy - kGroupGap / 2) + "\" width=\"" + Px(kChartWidth - 20) +
           "\" height=\"" + Px(plot.row_h) + "\" fill=\"" + kHighlightColour + "\"><title>" +
           XmlEscape("attack target: " + row.label) + "</title></rect>\n";
  }
  svg += "<text x=\"" + Px(kLabelWidth) + "\" y=\"" + Px(gy + kBarHeight / 2 + 4) +
         "\" text-anchor=\"end\" font-size=\"12\"" + (row.highlight ? " font-weight=\"bold\"" : "") + ">" +
         XmlEscape((row.highlight ? "▶ " : "") + text::Truncate(row.label, row.highlight ? kLabelChars - 2 : kLabelChars)) +
         "</text>\n";
  const double offset = DeltaOffset(v, plot.decades);
  if (offset != 0) {
    const bool regressed = offset > 0;
    svg += "<rect class=\"bar-delta " + std::string(regressed ? "regressed" : "improved") + "\" x=\"" +
           Px(regressed ? zero : zero + offset) + "\" y=\"" + Px(gy) + "\" width=\"" + Px(std::fabs(offset)) +
           "\" height=\"" + Px(kBarHeight - 2) + "\" fill=\"" + (regressed ? kRegressedColour : kImprovedColour) +
           "\"><title>" + XmlEscape(row.label + ": " + row.note) + "</title></rect>\n";
  }
  const bool left = offset > 0;  // the words go where the bar is not
  svg += "<text class=\"delta-value\" x=\"" + Px(left ? zero - 6 : zero + 6) + "\" y=\"" + Px(gy + kBarHeight - 3) +
         "\" font-size=\"11\"" + (left ? " text-anchor=\"end\"" : "") + ">" + XmlEscape(row.note) + "</text>\n";
  if (row.highlight) {  // right of the plot, where no bar reaches
    svg += "<text class=\"attack-target-label\" x=\"" + Px(kChartWidth - 14) + "\" y=\"" + Px(gy + kBarHeight - 3) +
           "\" text-anchor=\"end\" font-size=\"11\" font-weight=\"bold\">attack target</text>\n";
  }
  return svg + "</g>\n";
}

std::string DivergingChart(const BarChart& chart, double y, double* bottom) {
  double max = 0;
  for (const BarChart::Row& r : chart.rows) {
    if (std::isfinite(r.values[0])) max = std::max(max, std::fabs(r.values[0]));
  }
  DeltaPlot plot;
  plot.decades = std::max(1.0, std::ceil(std::log10(1 + max)));
  plot.zero = kPlotLeft + kDeltaHalfWidth;
  plot.row_h = kBarHeight + kGroupGap;
  plot.top = y;
  plot.bottom = y + plot.row_h * static_cast<double>(chart.rows.size());
  std::string svg = DeltaAxis(plot, chart.axis);
  for (size_t i = 0; i < chart.rows.size(); ++i) {
    svg += DeltaRow(chart.rows[i], plot, plot.top + plot.row_h * static_cast<double>(i) + kGroupGap / 2);
  }
  *bottom = plot.bottom + 50;
  return svg;
}

// The key under a chart that ends at `y`: each line whole, over as many lines as it
// takes (an SVG text does not wrap).
std::string Key(const std::vector<std::string>& key, double y, double* bottom) {
  std::string svg = "<g class=\"key\" font-size=\"11\" fill=\"#444\">\n";
  for (size_t i = 0; i < key.size(); ++i) {
    const auto lines = text::WrapLines(key[i], kKeyChars, kKeyChars - 4);
    for (size_t k = 0; k < lines.size(); ++k) {
      y += 14;
      svg += "<text x=\"" + Px(k == 0 ? 20 : 40) + "\" y=\"" + Px(y) + "\">" + XmlEscape(lines[k]) +
             "</text>\n";
    }
  }
  *bottom = y + 36;
  return svg + "</g>\n";
}

}  // namespace

std::string BarChartSvg(const BarChart& chart, double top, double* bottom) {
  std::string svg = "<g class=\"bar-chart\">\n" + Title(chart.title, top);
  double y = top + 30;
  if (!chart.note.empty()) {
    svg += "<text x=\"20\" y=\"" + Px(y) + "\" font-size=\"11\" fill=\"#555\">" + XmlEscape(chart.note) + "</text>\n";
    y += 16;
  }
  if (chart.rows.empty()) {
    svg += "<text x=\"" + Px(kPlotLeft) + "\" y=\"" + Px(y + 12) + "\" font-size=\"12\">(no data)</text>\n";
    *bottom = y + 30;
    return svg + "</g>\n";
  }
  svg += chart.delta ? DivergingChart(chart, y, &y) : GroupedChart(chart, y, &y);
  if (!chart.key.empty()) svg += Key(chart.key, y - 10, &y);  // below the axis title
  *bottom = y;
  return svg + "</g>\n";
}

}  // namespace perfgate::document::internal
