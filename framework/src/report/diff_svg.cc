// `perfgate diff --format svg`: per level, a diverging bar chart of the top movers'
// Δ µs/token on a linear scale (removed and faster left in green, added and slower
// right in red), each bar labelled with its Δ, status and share. Self-contained: no
// scripts, no external fonts, every label XML-escaped. Bars carry class
// "bar-delta regressed|improved".
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "perfgate/report/diff_formats.h"
#include "report/diff_tables.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

using util::Px;
using util::XmlEscape;

constexpr double kWidth = 900, kLabelRight = 330, kMid = 600, kHalf = 170, kRow = 18, kBar = 12;
constexpr size_t kLabelChars = 48;
constexpr double kMinBar = 2;  // px: a non-zero Δ never vanishes

std::string Text(double x, double y, const std::string& anchor, const std::string& text, const std::string& extra = "") {
  return "<text x=\"" + Px(x) + "\" y=\"" + Px(y) + "\" text-anchor=\"" + anchor + "\"" + extra + ">" +
         XmlEscape(text) + "</text>\n";
}

// One bar and its labels; `scale` is px per µs/token.
std::string Bar(const diff::Change& c, double y, double scale) {
  const double d = c.delta_us();
  const double length = d == 0 ? 0 : std::max(kMinBar, std::abs(d) * scale);
  const double x = d >= 0 ? kMid : kMid - length;
  const bool regressed = d > 0;
  std::string out = Text(kLabelRight, y + kBar - 2, "end", util::TruncateMiddle(c.name, kLabelChars));
  out += "<rect class=\"bar-delta " + std::string(regressed ? "regressed" : "improved") + "\" x=\"" + Px(x) +
         "\" y=\"" + Px(y) + "\" width=\"" + Px(length) + "\" height=\"" + Px(kBar) + "\" fill=\"" +
         (regressed ? "#d62728" : "#59a14f") + "\"/>\n";
  std::string label = diff_cells::DeltaUs(c) + " (" + diff_cells::Status(c);
  const std::string share = diff_cells::Share(c);
  if (!share.empty()) label += ", " + share;
  label += ")";
  const double label_x = d >= 0 ? kMid - 4 : kMid + 4;
  out += Text(label_x, y + kBar - 2, d >= 0 ? "end" : "start", label, " font-size=\"10\" fill=\"#555\"");
  return out;
}

std::string LevelChart(const diff::LevelDiff& level, size_t rows, double* y) {
  const std::vector<diff::Change> top = diff::TopMovers(level, rows);
  double largest = 0;
  for (const diff::Change& c : top) largest = std::max(largest, std::abs(c.delta_us()));
  const double scale = largest > 0 ? kHalf / largest : 0;
  std::string out = Text(10, *y + 14, "start", util::Capitalized(diff_cells::LevelHeading(level)) + " (\xCE\x94 \xC2\xB5s/token)",
                         " font-weight=\"bold\"");
  *y += 24;
  const double top_y = *y;
  for (const diff::Change& c : top) {
    out += Bar(c, *y, scale);
    *y += kRow;
  }
  out += "<line x1=\"" + Px(kMid) + "\" y1=\"" + Px(top_y - 3) + "\" x2=\"" + Px(kMid) + "\" y2=\"" + Px(*y) +
         "\" stroke=\"#333\"/>\n";
  if (top.size() < level.changes.size()) {
    out += Text(kLabelRight, *y + 10, "end", std::to_string(level.changes.size() - top.size()) +
                                                 " more (perfgate diff --format json)", " font-size=\"10\" fill=\"#555\"");
    *y += kRow;
  }
  *y += 12;
  return out;
}

}  // namespace

std::string RenderDiffSvg(const diff::Diff& d, size_t rows) {
  double y = 10;
  std::string body = Text(10, y + 16, "start", "perfgate diff: " + diff_cells::SidesLine(d), " font-size=\"15\" font-weight=\"bold\"");
  body += Text(10, y + 36, "start", diff_cells::TotalLine(d));
  y += 50;
  // What the charts cannot show: cautions, per-token counts, what was not compared.
  std::vector<std::string> lines;
  for (const std::string& note : d.notes) lines.push_back("caution: " + note);
  for (const diff::FigureChange& f : d.figures) lines.push_back(diff_cells::Figure(f));
  for (const std::string& item : diff_cells::NotCompared(d)) lines.push_back("not compared: " + item);
  for (const std::string& line : lines) {
    body += Text(10, y + 4, "start", line, " font-size=\"11\"");
    y += 15;
  }
  y += lines.empty() ? 0 : 8;
  for (const diff::LevelDiff& level : d.levels) body += LevelChart(level, rows, &y);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Px(kWidth) + "\" height=\"" + Px(y) +
         "\" viewBox=\"0 0 " + Px(kWidth) + " " + Px(y) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect class=\"background\" width=\"100%\" height=\"100%\" "
         "fill=\"white\"/>\n" +
         body + "</svg>\n";
}

}  // namespace perfgate::report
