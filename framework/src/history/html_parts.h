// The parts of the history's HTML page (perfgate/history/html.h): its text forms
// (html_text.cc) and its chart (html_chart.cc); html_page.cc lays them out.
#ifndef PERFGATE_SRC_HISTORY_HTML_PARTS_H_
#define PERFGATE_SRC_HISTORY_HTML_PARTS_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "perfgate/history/analysis.h"

namespace perfgate::history::html {

// The colours the page promises (its legend names them; the Chromium test finds them
// in the picture): a change in the bad direction, an improvement, the medians' line.
inline constexpr const char kWorseColour[] = "#d62728";
inline constexpr const char kBetterColour[] = "#2ca02c";
inline constexpr const char kLineColour[] = "#1f77b4";

// Points of a series with a hover target each; a longer series gets one target every
// few points (and one either side of each change point), and the page says so.
inline constexpr size_t kMaxHoverPoints = 2000;

// `text` safe in HTML text, an attribute value and SVG: the five special characters
// as entities, control characters as spaces, bytes that are not UTF-8 as U+FFFD.
std::string Escape(std::string_view text);

// A commit's first 12 characters (a code point is never split); "(none)" for "".
std::string ShortCommit(const std::string& commit);

// A figure with about 4 significant digits ("1235", "1.235", "0.001235"); "n/a" for
// NaN and infinities.
std::string FormatValue(double value);

// A change as a signed percentage of its level before ("+5.0%"); "n/a" when unknown.
std::string FormatMagnitude(const ChangePoint& point);

// How a metric's golden path reads as a unit ("buckets/x/us_per_token": "µs/token");
// "" when its name says none.
std::string UnitReading(const std::string& metric);

// Which way is better, in words ("lower is better").
std::string DirectionReading(Worse worse);

// The colour of a change's marker: kWorseColour or kBetterColour.
const char* ChangeColour(const Change& change);
// "worse", "better" or "changed" (either way is bad): the change point's direction;
// and the same capitalised.
std::string DirectionName(const Change& change);
std::string DirectionWord(const Change& change);

// The series' line chart as inline SVG: the medians over runs, the trials' min–max as
// a faint band, each change point a vertical line in its colour labelled with its
// magnitude, a hover title per point (thinned past kMaxHoverPoints). `*note` is set to
// a sentence the page prints under the chart when the hover targets were thinned, or
// when no value could be drawn; "" otherwise.
std::string ChartSvg(const SeriesHistory& series, std::string* note);

}  // namespace perfgate::history::html

#endif  // PERFGATE_SRC_HISTORY_HTML_PARTS_H_
