// The history page's chart of one series: inline SVG, drawn from the points' medians
// and samples and the series' change points. Coordinates are fixed-point text
// (text::Px), so the same series always gives the same bytes.
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/text_cells.h"
#include "history/html_parts.h"

namespace perfgate::history::html {
namespace {

// The chart's frame in SVG units (one CSS pixel each): the plot between the margins.
constexpr double kChartWidth = 960;
constexpr double kChartHeight = 280;
constexpr double kPlotLeft = 80;
constexpr double kPlotRight = kChartWidth - 24;
constexpr double kPlotTop = 36;
constexpr double kPlotBottom = kChartHeight - 40;
constexpr int kXTicks = 6;
constexpr int kMaxYTicks = 12;
// Past this many points the line and the band are drawn from each pixel column's
// least and greatest value: the same picture, a fraction of the bytes.
constexpr size_t kMaxDrawnPoints = 2000;

using Vertex = std::pair<double, double>;  // (x, y) in SVG units

// The value axis: [low, high] and the labelled ticks on it.
struct ValueAxis {
  double low = 0;
  double high = 1;
  std::vector<double> ticks;
  int decimals = 0;
};

// The least and greatest finite values of a point: its samples' and its median's.
std::optional<std::pair<double, double>> PointRange(const Point& p) {
  std::optional<std::pair<double, double>> range;
  auto add = [&](double v) {
    if (!std::isfinite(v)) return;
    if (!range) range = std::make_pair(v, v);
    range->first = std::min(range->first, v);
    range->second = std::max(range->second, v);
  };
  add(p.median);
  for (double s : p.samples) add(s);
  return range;
}

// 1, 2 or 5 times a power of ten, the least at least `raw`.
double NiceStep(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (factor * power >= raw) return factor * power;
  }
  return 10 * power;
}

// The axis over [low, high] with 5 % to spare either side (of the range, or of the
// value of a flat series, so that the scale never divides by zero), widened to whole
// ticks; a range a double cannot split into ticks gets its two ends as its ticks.
ValueAxis AxisOver(double low, double high) {
  const double pad = high - low > 0 ? (high - low) * 0.05 : low != 0 ? std::fabs(low) * 0.05 : 1.0;
  low -= pad;
  high += pad;
  ValueAxis axis{low, high, {}, 0};
  const double step = NiceStep((high - low) / 4);
  const double first = std::floor(low / step) * step, last = std::ceil(high / step) * step;
  if (!std::isfinite(step) || step <= 0 || !std::isfinite(first) || !std::isfinite(last) ||
      (last - first) / step > kMaxYTicks || first == last) {
    axis.ticks = {low, high};
    axis.decimals = 3;
    return axis;
  }
  axis.low = first;
  axis.high = last;
  for (int i = 0; i <= kMaxYTicks && first + i * step <= last + step / 2; ++i) axis.ticks.push_back(first + i * step);
  axis.decimals = std::clamp(static_cast<int>(-std::floor(std::log10(step))), 0, 9);
  return axis;
}

class Chart {
 public:
  explicit Chart(const SeriesHistory& s) : s_(s), n_(s.points.size()) {}

  std::string Render(std::string* note) {
    std::optional<std::pair<double, double>> range;
    for (const Point& p : s_.points) {
      if (auto r = PointRange(p)) {
        range = range ? std::make_pair(std::min(range->first, r->first), std::max(range->second, r->second)) : *r;
      }
    }
    std::string svg = "<svg class=\"chart\" width=\"" + text::Px(kChartWidth) + "\" height=\"" +
                      text::Px(kChartHeight) + "\" viewBox=\"0 0 " + text::Px(kChartWidth) + " " +
                      text::Px(kChartHeight) + "\" role=\"img\" aria-label=\"median per run of " +
                      Escape(s_.info.key.metric) + "\">\n";
    if (!range) {
      *note = "No finite value to draw.";
      return svg + Frame() + "</svg>\n";
    }
    axis_ = AxisOver(range->first, range->second);
    svg += YTicks() + Frame() + XTicks() + Band() + Line() + Markers() + HoverTargets(note);
    return svg + "</svg>\n";
  }

 private:
  double X(double index) const {
    if (n_ <= 1) return (kPlotLeft + kPlotRight) / 2;
    return kPlotLeft + (kPlotRight - kPlotLeft) * index / static_cast<double>(n_ - 1);
  }
  // A range too wide for a double (from -1e308 to 1e308) draws along the middle.
  double Y(double value) const {
    const double span = axis_.high - axis_.low;
    if (!std::isfinite(span) || span <= 0) return (kPlotTop + kPlotBottom) / 2;
    return kPlotBottom - (kPlotBottom - kPlotTop) * (value - axis_.low) / span;
  }

  std::string Frame() const {
    return "<path class=\"axis\" d=\"M" + text::Px(kPlotLeft) + " " + text::Px(kPlotTop) + "V" +
           text::Px(kPlotBottom) + "H" + text::Px(kPlotRight) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  }

  std::string YTicks() const {
    std::string out;
    for (double t : axis_.ticks) {
      const std::string y = text::Px(Y(t));
      out += "<line x1=\"" + text::Px(kPlotLeft) + "\" y1=\"" + y + "\" x2=\"" + text::Px(kPlotRight) + "\" y2=\"" +
             y + "\" stroke=\"#e6e6e6\"/><text class=\"tick\" x=\"" + text::Px(kPlotLeft - 6) + "\" y=\"" +
             text::Px(Y(t) + 4) + "\" text-anchor=\"end\">" + text::Fixed(t, axis_.decimals) + "</text>\n";
    }
    return out;
  }

  // A few runs along the bottom, by run id; the first and the newest always (the
  // newest's label ends at its point, so that a long id stays inside the chart).
  std::string XTicks() const {
    std::set<size_t> at;
    const size_t ticks = std::min<size_t>(n_, kXTicks);
    for (size_t i = 0; i < ticks; ++i) at.insert(ticks == 1 ? 0 : i * (n_ - 1) / (ticks - 1));
    std::string out;
    for (size_t i : at) {
      const char* anchor = n_ > 1 && i == n_ - 1 ? "end" : "middle";
      out += "<text class=\"tick\" x=\"" + text::Px(X(static_cast<double>(i))) + "\" y=\"" +
             text::Px(kPlotBottom + 16) + "\" text-anchor=\"" + anchor + "\">run " +
             std::to_string(s_.points[i].run_id) + "</text>\n";
    }
    return out + "<text class=\"tick\" x=\"" + text::Px((kPlotLeft + kPlotRight) / 2) + "\" y=\"" +
           text::Px(kChartHeight - 6) + "\" text-anchor=\"middle\">runs, oldest to newest</text>\n";
  }

  // The points [first, last) as drawn: the one point, or the least and the greatest
  // median of a pixel column's points in their order. nullopt when none is finite.
  std::vector<Vertex> ColumnVertices(size_t first, size_t last) const {
    std::optional<size_t> lo, hi;
    for (size_t i = first; i < last; ++i) {
      const double v = s_.points[i].median;
      if (!std::isfinite(v)) continue;
      if (!lo || v < s_.points[*lo].median) lo = i;
      if (!hi || v > s_.points[*hi].median) hi = i;
    }
    if (!lo) return {};
    std::vector<Vertex> out = {{X(static_cast<double>(*lo)), Y(s_.points[*lo].median)}};
    if (*hi != *lo) out.push_back({X(static_cast<double>(*hi)), Y(s_.points[*hi].median)});
    if (*hi < *lo) std::swap(out[0], out[1]);
    return out;
  }

  // [first, last) index ranges drawn as one vertex group each: a point each, or a
  // pixel column each past kMaxDrawnPoints.
  std::vector<std::pair<size_t, size_t>> Groups() const {
    std::vector<std::pair<size_t, size_t>> groups;
    if (n_ <= kMaxDrawnPoints) {
      for (size_t i = 0; i < n_; ++i) groups.push_back({i, i + 1});
      return groups;
    }
    const auto columns = static_cast<size_t>(kPlotRight - kPlotLeft);
    for (size_t c = 0; c < columns; ++c) {
      const size_t first = c * n_ / columns, last = (c + 1) * n_ / columns;
      if (last > first) groups.push_back({first, last});
    }
    return groups;
  }

  static std::string Points(const std::vector<Vertex>& vertices) {
    std::string out;
    for (const auto& [x, y] : vertices) out += (out.empty() ? "" : " ") + text::Px(x) + "," + text::Px(y);
    return out;
  }

  // The medians' line, broken where a median is not finite.
  std::string Line() const {
    std::vector<std::vector<Vertex>> runs(1);
    for (const auto& [first, last] : Groups()) {
      std::vector<Vertex> v = ColumnVertices(first, last);
      if (v.empty() && !runs.back().empty()) runs.emplace_back();
      runs.back().insert(runs.back().end(), v.begin(), v.end());
    }
    std::string out;
    for (const auto& run : runs) {
      if (run.size() == 1) {
        out += "<circle cx=\"" + text::Px(run[0].first) + "\" cy=\"" + text::Px(run[0].second) + "\" r=\"3\" fill=\"" +
               kLineColour + "\"/>\n";
      } else if (run.size() > 1) {
        out += "<polyline class=\"median\" points=\"" + Points(run) + "\" fill=\"none\" stroke=\"" + kLineColour +
               "\" stroke-width=\"2\" stroke-linejoin=\"round\"/>\n";
      }
    }
    return out;
  }

  // The trials' min–max as a faint band; nothing when no point has a spread.
  std::string Band() const {
    std::vector<Vertex> upper, lower;
    bool spread = false;
    for (const auto& [first, last] : Groups()) {
      std::optional<std::pair<double, double>> range;
      for (size_t i = first; i < last; ++i) {
        if (auto r = PointRange(s_.points[i])) {
          range = range ? std::make_pair(std::min(range->first, r->first), std::max(range->second, r->second)) : *r;
        }
      }
      if (!range) continue;
      spread = spread || range->second > range->first;
      const double x = X((static_cast<double>(first) + static_cast<double>(last - 1)) / 2);
      upper.push_back({x, Y(range->second)});
      lower.push_back({x, Y(range->first)});
    }
    if (!spread || upper.size() < 2) return "";
    upper.insert(upper.end(), lower.rbegin(), lower.rend());
    return "<polygon class=\"band\" points=\"" + Points(upper) + "\" fill=\"" + kLineColour +
           "\" fill-opacity=\"0.15\" stroke=\"none\"/>\n";
  }

  // A vertical line between the runs either side of each change point, in its
  // colour, at a whole pixel so that it is drawn crisp; its magnitude above it.
  std::string Markers() const {
    std::string out;
    double last_label_x = -1e9;
    int row = 0;
    for (const Change& c : s_.changes) {
      if (c.point.index < 1 || static_cast<size_t>(c.point.index) >= n_) continue;
      const double x = std::round(X(static_cast<double>(c.point.index) - 0.5));
      row = x - last_label_x < 48 ? 1 - row : 0;
      last_label_x = x;
      const std::string colour = ChangeColour(c);
      out += "<g class=\"change\"><title>" + Escape(ChangeTitle(c)) + "</title><line x1=\"" + text::Px(x) +
             "\" y1=\"" + text::Px(kPlotTop) + "\" x2=\"" + text::Px(x) + "\" y2=\"" + text::Px(kPlotBottom) +
             "\" stroke=\"" + colour + "\" stroke-width=\"2\"/><text x=\"" + text::Px(x) + "\" y=\"" +
             text::Px(kPlotTop - 6 - 14 * row) + "\" text-anchor=\"middle\" fill=\"" + colour +
             "\" font-weight=\"bold\">" + Escape(FormatMagnitude(c.point)) + "</text></g>\n";
    }
    return out;
  }

  std::string ChangeTitle(const Change& c) const {
    return DirectionWord(c) + ": " + FormatMagnitude(c.point) + " between run " +
           std::to_string(c.last_before.run_id) + " and run " + std::to_string(c.first_after.run_id) + "\ncommits " +
           ShortCommit(c.last_before.commit) + ".." + ShortCommit(c.first_after.commit) + "\n" +
           FormatValue(c.point.mean_before) + " \xE2\x86\x92 " + FormatValue(c.point.mean_after) +
           ", p = " + text::PValue(c.point.pvalue);
  }

  // The points that get a hover target: all, or every stride-th, the newest and those
  // either side of each change point.
  std::vector<size_t> HoverPoints(std::string* note) const {
    std::vector<size_t> out;
    if (n_ <= kMaxHoverPoints) {
      for (size_t i = 0; i < n_; ++i) out.push_back(i);
      return out;
    }
    const size_t stride = (n_ + kMaxHoverPoints - 1) / kMaxHoverPoints;
    std::set<size_t> chosen = {n_ - 1};
    for (size_t i = 0; i < n_; i += stride) chosen.insert(i);
    for (const Change& c : s_.changes) {
      if (c.point.index < 1 || static_cast<size_t>(c.point.index) >= n_) continue;
      chosen.insert(static_cast<size_t>(c.point.index) - 1);
      chosen.insert(static_cast<size_t>(c.point.index));
    }
    *note = std::to_string(n_) + " runs: hovering the chart shows the run and commit of one run in " +
            std::to_string(stride) + " (and of the newest, and of those either side of each change point); the "
            "table of runs lists them all.";
    return {chosen.begin(), chosen.end()};
  }

  std::string HoverTargets(std::string* note) const {
    // Invisible until hovered (the page's CSS): the line is what shows.
    std::string out = "<g class=\"points\" fill=\"" + std::string(kLineColour) + "\" fill-opacity=\"0\">\n";
    for (size_t i : HoverPoints(note)) {
      const Point& p = s_.points[i];
      if (!std::isfinite(p.median)) continue;
      out += "<circle class=\"pt\" cx=\"" + text::Px(X(static_cast<double>(i))) + "\" cy=\"" + text::Px(Y(p.median)) +
             "\" r=\"4\"><title>" + Escape(PointTitle(p)) + "</title></circle>\n";
    }
    return out + "</g>\n";
  }

  std::string PointTitle(const Point& p) const {
    std::string unit = UnitReading(s_.info.key.metric);
    return "run " + std::to_string(p.run_id) + (p.time.empty() ? "" : ", " + p.time) + "\ncommit " +
           ShortCommit(p.commit) +
           (p.branch.empty() ? "" : " (" + p.branch + ")") + "\nmedian " + FormatValue(p.median) +
           (unit.empty() ? "" : " " + unit);
  }

  const SeriesHistory& s_;
  const size_t n_;
  ValueAxis axis_;
};

}  // namespace

std::string ChartSvg(const SeriesHistory& series, std::string* note) {
  note->clear();
  return Chart(series).Render(note);
}

}  // namespace perfgate::history::html
