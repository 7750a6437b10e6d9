// The SVG report. With a baseline it opens with Δ charts (engine − baseline per bucket
// and per phase, on a signed log scale so that a regression in a small bucket is as
// visible as one in a large bucket; Δ, Δ% and p written on every row; the attack
// target's row highlighted), then the grouped horizontal bar charts of µs/token per
// bucket, per phase and (where the source names kernels) per kernel name, engine beside
// baseline; a Δ chart per kernel name joins the Δ charts. Self-contained: no scripts, no
// external fonts or stylesheets, every label XML-escaped. Bars carry class "bar-engine",
// "bar-baseline" or "bar-delta regressed|improved"; the attack target's highlight
// "attack-target"; legend swatches "legend-swatch"; the background "background".
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/report/formats.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

using attribution::Delta;
using attribution::EngineSummary;
using util::Px;
using util::XmlEscape;

constexpr double kWidth = 900;
constexpr double kLabelWidth = 250;  // category labels, right-aligned at this x
constexpr double kPlotLeft = 260;
constexpr double kPlotWidth = 540;  // value labels fit in the remaining 100 px
constexpr double kBarHeight = 14;
constexpr double kGroupGap = 10;
constexpr size_t kTopPhases = 10;
constexpr size_t kLabelChars = 38;
constexpr size_t kKernelLabelChars = 32;  // 34 of sm80_xmma_gemm_… overran the 250 px at 12 px
constexpr size_t kKeyChars = 124;  // a line of the numbered names' key, 11 px across the page
const char* const kEngineColour = "#4e79a7";
const char* const kBaselineColour = "#f28e2b";
// Δ bars: red where the engine is slower (a regression), green where it is faster; the
// attack target's row sits on a pale yellow band with a bold label.
const char* const kRegressedColour = "#d62728";
const char* const kImprovedColour = "#59a14f";
const char* const kAttackColour = "#fff3b0";
constexpr double kDeltaHalfWidth = kPlotWidth / 2;  // Δ = 0 sits mid-plot
constexpr double kMinDeltaBar = 3;                  // px: a non-zero Δ never vanishes

struct Category {
  std::string name;
  double engine = 0;
  double baseline = 0;
};

struct Series {
  std::string engine;
  std::string baseline;
  bool two = false;  // false: engine-only
};

// A "nice" tick step (1, 2 or 5 × 10^k) giving about five ticks up to `max`.
double TickStep(double max) {
  double raw = max / 5.0;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  double step = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10;
  return step * mag;
}

std::string TickLabel(double v, double step) {
  int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
  return util::Fixed(v, decimals);
}

// A bar chart's geometry: the axis' top value, its tick step and the plot's rows.
struct BarPlot {
  double axis_max = 1, step = 1, group_h = 0, top = 0, bottom = 0;
  double X(double v) const { return kPlotLeft + std::max(0.0, v) / axis_max * kPlotWidth; }
};

// Grid lines, tick labels and the axis title of a bar chart.
void BarAxis(const BarPlot& plot, std::string& svg) {
  svg += "<g class=\"axis\" font-size=\"11\" fill=\"#444\">\n";
  const int ticks = static_cast<int>(std::lround(plot.axis_max / plot.step));
  for (int i = 0; i <= ticks; ++i) {
    const double t = plot.step * i;
    double x = plot.X(t);
    svg += "<line x1=\"" + Px(x) + "\" y1=\"" + Px(plot.top) + "\" x2=\"" + Px(x) + "\" y2=\"" +
           Px(plot.bottom + 4) + "\" stroke=\"#ddd\"/>\n";
    svg += "<text x=\"" + Px(x) + "\" y=\"" + Px(plot.bottom + 17) + "\" text-anchor=\"middle\">" +
           TickLabel(t, plot.step) + "</text>\n";
  }
  svg += "<line x1=\"" + Px(kPlotLeft) + "\" y1=\"" + Px(plot.bottom) + "\" x2=\"" +
         Px(kPlotLeft + kPlotWidth) + "\" y2=\"" + Px(plot.bottom) + "\" stroke=\"#444\"/>\n";
  svg += "<text x=\"" + Px(kPlotLeft + kPlotWidth / 2) + "\" y=\"" + Px(plot.bottom + 34) +
         "\" text-anchor=\"middle\">µs per decode token</text>\n";
  svg += "</g>\n";
}

// One category's label and its bars (the engine's, then the baseline's), top at `gy`.
void CategoryBars(const Category& c, const Series& series, const BarPlot& plot, double gy, std::string& svg) {
  const bool two = series.two;
  svg += "<g class=\"category\">\n<title>" + XmlEscape(c.name) + "</title>\n";
  svg += "<text x=\"" + Px(kLabelWidth) + "\" y=\"" + Px(gy + (two ? kBarHeight : kBarHeight / 2) + 4) +
         "\" text-anchor=\"end\" font-size=\"12\">" + XmlEscape(util::Truncate(c.name, kLabelChars)) +
         "</text>\n";
  struct Bar {
    const char* cls;
    const char* colour;
    const std::string* who;
    double value;
  };
  std::vector<Bar> bars = {{"bar-engine", kEngineColour, &series.engine, c.engine}};
  if (two) bars.push_back({"bar-baseline", kBaselineColour, &series.baseline, c.baseline});
  for (size_t k = 0; k < bars.size(); ++k) {
    double by = gy + kBarHeight * static_cast<double>(k);
    double w = plot.X(bars[k].value) - kPlotLeft;
    svg += "<rect class=\"" + std::string(bars[k].cls) + "\" x=\"" + Px(kPlotLeft) + "\" y=\"" + Px(by) +
           "\" width=\"" + Px(w) + "\" height=\"" + Px(kBarHeight - 2) + "\" fill=\"" + bars[k].colour +
           "\"><title>" + XmlEscape(*bars[k].who + " " + c.name + ": " + util::Fixed(bars[k].value, 1) + " µs/tok") +
           "</title></rect>\n";
    svg += "<text x=\"" + Px(kPlotLeft + w + 4) + "\" y=\"" + Px(by + kBarHeight - 3) + "\" font-size=\"11\">" +
           util::Fixed(bars[k].value, 1) + "</text>\n";
  }
  svg += "</g>\n";
}

// Draws one chart at vertical offset `y`; returns the y below it.
double Chart(const std::string& title, const std::vector<Category>& cats, const Series& series,
             double y, std::string& svg) {
  svg += "<text x=\"20\" y=\"" + Px(y + 16) + "\" font-size=\"15\" font-weight=\"bold\">" +
         XmlEscape(title) + "</text>\n";
  y += 30;
  if (cats.empty()) {
    svg += "<text x=\"" + Px(kPlotLeft) + "\" y=\"" + Px(y + 12) +
           "\" font-size=\"12\">(no data)</text>\n";
    return y + 30;
  }
  double max = 0;
  for (const auto& c : cats) max = std::max({max, c.engine, c.baseline});
  if (!(max > 0)) max = 1;
  BarPlot plot;
  plot.step = TickStep(max);
  plot.axis_max = std::ceil(max / plot.step - 1e-9) * plot.step;
  plot.group_h = (series.two ? 2 : 1) * kBarHeight + kGroupGap;
  plot.top = y;
  plot.bottom = y + plot.group_h * static_cast<double>(cats.size());
  BarAxis(plot, svg);
  for (size_t i = 0; i < cats.size(); ++i) {
    CategoryBars(cats[i], series, plot, plot.top + plot.group_h * static_cast<double>(i) + kGroupGap / 2, svg);
  }
  return plot.bottom + 50;
}

// Where Δ lands on a signed log scale of `decades` decades per half-plot: log10(1 + |Δ|)
// decades from the zero line, so +9 µs/tok shows at a third of +800's length rather than
// at 1 %.
double DeltaOffset(double delta, double decades) {
  if (!std::isfinite(delta) || delta == 0) return 0;
  const double len = std::log10(1 + std::fabs(delta)) / decades * kDeltaHalfWidth;
  return std::copysign(std::max(len, kMinDeltaBar), delta);
}

std::string DeltaTick(double v) { return v == 0 ? "0" : util::Signed(v, 0); }

// "+9.2 µs/tok (+255.6%), p 0.008": what one Δ row says in words.
std::string DeltaText(const Delta& d) {
  return util::Signed(d.delta, 1) + " µs/tok (" + util::Percent(d.delta_pct) + "), p " + util::PValue(d.p_value);
}

// A Δ chart's geometry: decades per half-plot, the zero line's x and the plot's rows.
struct DeltaPlot {
  double decades = 1, zero = 0, row_h = 0, top = 0, bottom = 0;
};

// Grid lines at 0, ±1, ±10, ... and the axis title of a Δ chart.
void DeltaAxis(const DeltaPlot& plot, const Series& series, std::string& svg) {
  svg += "<g class=\"axis\" font-size=\"11\" fill=\"#444\">\n";
  for (int k = -1; k <= static_cast<int>(plot.decades); ++k) {
    const double magnitude = k < 0 ? 0 : std::pow(10.0, k);
    if (std::log10(1 + magnitude) > plot.decades + 0.01) break;  // 10^decades itself sits at the edge
    for (double v : {magnitude, -magnitude}) {
      const double x = plot.zero + DeltaOffset(v, plot.decades);
      svg += "<line x1=\"" + Px(x) + "\" y1=\"" + Px(plot.top) + "\" x2=\"" + Px(x) + "\" y2=\"" +
             Px(plot.bottom + 4) + "\" stroke=\"" + (v == 0 ? "#444" : "#ddd") + "\"/>\n";
      svg += "<text x=\"" + Px(x) + "\" y=\"" + Px(plot.bottom + 17) + "\" text-anchor=\"middle\">" +
             DeltaTick(v) + "</text>\n";
      if (v == 0) break;
    }
  }
  svg += "<text x=\"" + Px(plot.zero) + "\" y=\"" + Px(plot.bottom + 34) + "\" text-anchor=\"middle\">" +
         XmlEscape("Δ µs per decode token, " + series.engine + " − " + series.baseline +
                   " (signed log scale: red = slower, a regression; green = faster)") +
         "</text>\n";
  svg += "</g>\n";
}

// One Δ row, top at `gy`: the band and marker when it is the attack target, its label,
// its bar, and its Δ, Δ% and p on the side of the zero line the bar does not use.
void DeltaRow(const Delta& d, bool target, const DeltaPlot& plot, double gy, std::string& svg) {
  const double zero = plot.zero;
  svg += "<g class=\"delta-row\">\n";
  if (target) {
    svg += "<rect class=\"attack-target\" x=\"10\" y=\"" + Px(gy - kGroupGap / 2) + "\" width=\"" +
           Px(kWidth - 20) + "\" height=\"" + Px(plot.row_h) + "\" fill=\"" + kAttackColour + "\"><title>" +
           XmlEscape("attack target: " + d.name) + "</title></rect>\n";
  }
  svg += "<text x=\"" + Px(kLabelWidth) + "\" y=\"" + Px(gy + kBarHeight / 2 + 4) +
         "\" text-anchor=\"end\" font-size=\"12\"" + (target ? " font-weight=\"bold\"" : "") + ">" +
         XmlEscape((target ? "▶ " : "") + util::Truncate(d.name, target ? kLabelChars - 2 : kLabelChars)) +
         "</text>\n";
  const double offset = DeltaOffset(d.delta, plot.decades);
  if (offset != 0) {
    const bool regressed = offset > 0;
    svg += "<rect class=\"bar-delta " + std::string(regressed ? "regressed" : "improved") + "\" x=\"" +
           Px(regressed ? zero : zero + offset) + "\" y=\"" + Px(gy) + "\" width=\"" + Px(std::fabs(offset)) +
           "\" height=\"" + Px(kBarHeight - 2) + "\" fill=\"" + (regressed ? kRegressedColour : kImprovedColour) +
           "\"><title>" + XmlEscape(d.name + ": " + DeltaText(d)) + "</title></rect>\n";
  }
  // The words go where the bar is not: left of the zero line for a regression.
  const bool left = offset > 0;
  svg += "<text class=\"delta-value\" x=\"" + Px(left ? zero - 6 : zero + 6) + "\" y=\"" +
         Px(gy + kBarHeight - 3) + "\" font-size=\"11\"" + (left ? " text-anchor=\"end\"" : "") + ">" +
         XmlEscape(DeltaText(d)) + "</text>\n";
  if (target) {  // right of the plot, where no bar reaches
    svg += "<text class=\"attack-target-label\" x=\"" + Px(kWidth - 14) + "\" y=\"" + Px(gy + kBarHeight - 3) +
           "\" text-anchor=\"end\" font-size=\"11\" font-weight=\"bold\">attack target</text>\n";
  }
  svg += "</g>\n";
}

// Draws one Δ chart (engine − baseline) at vertical offset `y`; returns the y below it.
// Regressions grow right in red, improvements left in green; each row's Δ, Δ% and p sit
// on the side of the zero line its bar does not use; the attack target's row is banded.
double DeltaChart(const std::string& title, const std::vector<Delta>& rows, const std::optional<std::string>& attack,
                  const Series& series, double y, std::string& svg) {
  svg += "<text x=\"20\" y=\"" + Px(y + 16) + "\" font-size=\"15\" font-weight=\"bold\">" + XmlEscape(title) +
         "</text>\n";
  y += 30;
  if (rows.empty()) {
    svg += "<text x=\"" + Px(kPlotLeft) + "\" y=\"" + Px(y + 12) + "\" font-size=\"12\">(no data)</text>\n";
    return y + 30;
  }
  double max = 0;
  for (const Delta& d : rows) {
    if (std::isfinite(d.delta)) max = std::max(max, std::fabs(d.delta));
  }
  DeltaPlot plot;
  plot.decades = std::max(1.0, std::ceil(std::log10(1 + max)));
  plot.zero = kPlotLeft + kDeltaHalfWidth;
  plot.row_h = kBarHeight + kGroupGap;
  plot.top = y;
  plot.bottom = y + plot.row_h * static_cast<double>(rows.size());
  DeltaAxis(plot, series, svg);
  for (size_t i = 0; i < rows.size(); ++i) {
    const double gy = plot.top + plot.row_h * static_cast<double>(i) + kGroupGap / 2;
    DeltaRow(rows[i], attack && *attack == rows[i].name, plot, gy, svg);
  }
  return plot.bottom + 50;
}

// The two sides' names and the absolute charts' rows: per bucket and the top phases,
// from the comparison when there is a baseline, else from the engine alone.
struct ChartData {
  Series series;
  std::vector<Category> buckets, phases;
  std::vector<Category> kernel_names;  // top kTopPhases by the larger side, display names
  std::vector<Delta> kernel_deltas;    // top kTopPhases by |Δ|, display names
  util::KernelLabels kernel_labels;    // full kernel name -> display name
  std::vector<std::string> kernel_names_whole, kernel_deltas_whole;  // the full names of those rows
};

// The kernel-name rows: with a baseline from the comparison (none unless both sides
// name their kernels), else the engine's; the largest first, then named for display:
// cut in the middle (names that share a prefix differ at the end) to what fits left of
// the plot at 12 px (kernel names are long runs of wide ASCII), numbered where two
// would read alike.
void KernelNameData(const Report& report, const util::Sides& sides, ChartData* data) {
  data->kernel_labels = util::KernelDisplayNames({sides.engine, sides.baseline}, kKernelLabelChars);
  if (sides.baseline != nullptr) {
    for (const Delta& d : report.comparison->kernels) data->kernel_names.push_back({d.name, d.engine, d.baseline});
    data->kernel_deltas = util::KernelDeltasShown(report.comparison->kernels, kTopPhases);
  } else {
    for (const auto& [name, k] : sides.engine->kernels) {
      data->kernel_names.push_back({name, k.gpu_us_per_token.median, 0});
    }
  }
  std::stable_sort(data->kernel_names.begin(), data->kernel_names.end(), [](const Category& a, const Category& b) {
    return std::max(a.engine, a.baseline) > std::max(b.engine, b.baseline);
  });
  if (data->kernel_names.size() > kTopPhases) data->kernel_names.resize(kTopPhases);
  for (Category& c : data->kernel_names) {
    data->kernel_names_whole.push_back(c.name);
    c.name = data->kernel_labels.at(c.name);
  }
  for (Delta& d : data->kernel_deltas) {
    data->kernel_deltas_whole.push_back(d.name);
    d.name = data->kernel_labels.at(d.name);
  }
}

// Under a kernel-name chart that ends at `y`, what tells apart its numbered names: each
// whole, over as many lines as it takes (an SVG text does not wrap). Returns the y
// below.
double NumberedNamesKey(const std::vector<std::string>& whole, const util::KernelLabels& labels, double y,
                        std::string& svg) {
  const auto numbered = util::NumberedKernelNames(whole, labels);
  if (numbered.empty()) return y;
  y += 4;  // below the axis title, which the chart's 50 px below its plot hold
  svg += "<g class=\"numbered-names\" font-size=\"11\" fill=\"#444\">\n<text x=\"20\" y=\"" + Px(y) +
         "\">Numbered names, whole (without void, parameters and the at::native::, c10::, std:: namespaces):</text>\n";
  for (const auto& [label, compact] : numbered) {
    const std::string first = label + ": ";
    const auto lines = util::WrapLines(compact, kKeyChars - util::DisplayWidth(first), kKeyChars - 4);
    for (size_t i = 0; i < lines.size(); ++i) {
      y += 14;
      svg += "<text x=\"" + Px(i == 0 ? 30 : 54) + "\" y=\"" + Px(y) + "\">" +
             XmlEscape((i == 0 ? first : "") + lines[i]) + "</text>\n";
    }
  }
  svg += "</g>\n";
  return y + 36;
}

ChartData ChartDataOf(const Report& report, const util::Sides& sides) {
  ChartData data;
  if (sides.engine == nullptr) return data;
  data.series.engine = util::SideName(report, sides.engine, false);
  if (sides.baseline != nullptr) {
    data.series.baseline = util::SideName(report, sides.baseline, true);
    data.series.two = true;
    for (const Delta& d : report.comparison->buckets) data.buckets.push_back({d.name, d.engine, d.baseline});
    for (const Delta& d : report.comparison->phases) data.phases.push_back({d.name, d.engine, d.baseline});
  } else {
    for (const auto& [name, b] : sides.engine->buckets) data.buckets.push_back({name, b.us_per_token.median, 0});
    for (const auto& [name, p] : sides.engine->phases) {
      data.phases.push_back({name, p.gpu_us_per_token.median, 0});
    }
  }
  std::stable_sort(data.phases.begin(), data.phases.end(), [](const Category& a, const Category& b) {
    return std::max(a.engine, a.baseline) > std::max(b.engine, b.baseline);
  });
  if (data.phases.size() > kTopPhases) data.phases.resize(kTopPhases);
  KernelNameData(report, sides, &data);
  return data;
}

// The swatch and name of each side at `y`.
void Legend(const Series& series, double y, std::string& body) {
  body += "<g class=\"legend\" font-size=\"12\">\n";
  double lx = 20;
  for (int k = 0; k < (series.two ? 2 : 1); ++k) {
    const std::string& who = k == 0 ? series.engine : series.baseline;
    std::string label = util::Truncate(who, 30) + (k == 0 ? " (engine)" : " (baseline)");
    body += "<rect class=\"legend-swatch\" x=\"" + Px(lx) + "\" y=\"" + Px(y) +
            "\" width=\"12\" height=\"12\" fill=\"" + (k == 0 ? kEngineColour : kBaselineColour) + "\"/>\n";
    body += "<text x=\"" + Px(lx + 16) + "\" y=\"" + Px(y + 10) + "\">" + XmlEscape(label) + "</text>\n";
    lx += 40 + 7.0 * static_cast<double>(util::DisplayWidth(label));
  }
  body += "</g>\n";
}

// The legend, the note on what a dispatch is, then the charts: with a baseline the Δ
// charts first (buckets, then the phases with the largest |Δ|), then the absolute ones.
// Returns the y below the last.
double Charts(const Report& report, const ChartData& data, double y, std::string& body) {
  const Series& series = data.series;
  Legend(series, y, body);
  y += 24;
  body += "<text x=\"20\" y=\"" + Px(y + 8) + "\" font-size=\"11\" fill=\"#555\">" +
          XmlEscape("Medians over trials. " + std::string(util::WordsOf(report).dispatch_note)) + "</text>\n";
  y += 24;
  const sources::SourceWords& words = util::WordsOf(report);
  const std::string bucket_title = "by " + std::string(words.unit) + "-duration bucket";
  const std::string phase_title = "by " + std::string(words.phase);
  if (series.two) {
    const auto& c = *report.comparison;
    y = DeltaChart("Δ GPU µs/token " + bucket_title + ": " + series.engine + " − " + series.baseline, c.buckets,
                   c.attack_target, series, y, body);
    std::vector<Delta> phase_deltas = c.phases;
    std::stable_sort(phase_deltas.begin(), phase_deltas.end(),
                     [](const Delta& a, const Delta& b) { return std::fabs(a.delta) > std::fabs(b.delta); });
    if (phase_deltas.size() > kTopPhases) phase_deltas.resize(kTopPhases);
    y = DeltaChart("Δ GPU µs/token " + phase_title + " (top " + std::to_string(kTopPhases) + " by |Δ|)",
                   phase_deltas, std::nullopt, series, y, body);
    if (!data.kernel_deltas.empty()) {
      y = DeltaChart("Δ GPU µs/token by kernel name (top " + std::to_string(kTopPhases) + " by |Δ|)",
                     data.kernel_deltas, std::nullopt, series, y, body);
      y = NumberedNamesKey(data.kernel_deltas_whole, data.kernel_labels, y, body);
    }
  }
  y = Chart("GPU µs/token " + bucket_title, data.buckets, series, y, body);
  y = Chart("GPU µs/token " + phase_title + " (top " + std::to_string(kTopPhases) + ")", data.phases, series, y,
            body);
  // Sources that name no kernel (Metal) get no chart: the text report says why.
  if (data.kernel_names.empty()) return y;
  y = Chart("GPU µs/token by kernel name (top " + std::to_string(kTopPhases) + ")", data.kernel_names, series, y,
            body);
  return NumberedNamesKey(data.kernel_names_whole, data.kernel_labels, y, body);
}

// The document around `body`, `height` tall, titled `heading`.
std::string SvgDocument(const std::string& heading, const std::string& body, double height) {
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Px(kWidth) + "\" height=\"" + Px(height) +
         "\" viewBox=\"0 0 " + Px(kWidth) + " " + Px(height) + "\" font-family=\"sans-serif\">\n";
  svg += "<title>" + XmlEscape(heading) + "</title>\n";
  svg += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" + Px(kWidth) + "\" height=\"" + Px(height) +
         "\" fill=\"#ffffff\"/>\n";
  svg += body;
  svg += "</svg>\n";
  return svg;
}

}  // namespace

std::string RenderSvg(const Report& report) {
  const util::Sides sides = util::FindSides(report);
  const ChartData data = ChartDataOf(report, sides);
  std::string heading = "perfgate: GPU µs per decode token";
  if (sides.engine != nullptr) {
    heading += ", " + data.series.engine + (data.series.two ? " vs " + data.series.baseline : " (no baseline)");
  } else {
    heading += " (no traces summarised)";
  }
  double y = 20;
  std::string body = "<text x=\"20\" y=\"" + Px(y + 8) + "\" font-size=\"17\" font-weight=\"bold\">" +
                     XmlEscape(heading) + "</text>\n";
  y += 22;
  y = sides.engine != nullptr ? Charts(report, data, y, body) : y + 20;
  return SvgDocument(heading, body, y);
}

}  // namespace perfgate::report
