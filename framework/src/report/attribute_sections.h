// Private: the sections of the attribution report (report/formats.h, AttributeDocument),
// each appending its blocks to the document. attribute_document.cc holds the headline,
// the method, the inputs, the bucket tables and the per-trial figures;
// attribute_levels.cc the family, kernel-name and phase tables, the counters and the
// registry; attribute_charts.cc the SVG's bar charts.
#ifndef PERFGATE_SRC_REPORT_ATTRIBUTE_SECTIONS_H_
#define PERFGATE_SRC_REPORT_ATTRIBUTE_SECTIONS_H_

#include <string>
#include <utility>
#include <vector>

#include "perfgate/document/document.h"
#include "perfgate/report/formats.h"
#include "report/report_util.h"

namespace perfgate::report::sections {

// Rows of the kernel-name, phase and Δ charts; the tables' kernel names follow
// Report::kernel_name_rows.
inline constexpr size_t kTopRows = 10;

// What every section reads: the report, its two sides and the engine's name.
struct Context {
  const Report& report;
  util::Sides sides;
  std::string engine;    // the engine side's name
  std::string baseline;  // the baseline side's name, "" without one
};

// The engine's summary, then the baseline's where there is one.
inline std::vector<const attribution::EngineSummary*> SidesOf(const Context& c) {
  std::vector<const attribution::EngineSummary*> sides = {c.sides.engine};
  if (c.sides.baseline != nullptr) sides.push_back(c.sides.baseline);
  return sides;
}
// The name of the side `s` is.
inline const std::string& NameOf(const Context& c, const attribution::EngineSummary* s) {
  return s == c.sides.baseline ? c.baseline : c.engine;
}

// Per-trial figures as the report prints them: "9597.5, 9752.1, 9804.8".
inline std::string Joined(const std::vector<double>& values) {
  std::string out;
  for (double v : values) out += (out.empty() ? "" : ", ") + util::Fixed(v, 1);
  return out;
}

inline void AddHeading(document::Document& d, std::string text, int level = 2) {
  d.blocks.push_back(document::Heading{std::move(text), level, false});
}
// A section a reader opens when needed (folded in Markdown).
inline void AddFoldedHeading(document::Document& d, std::string text, int level = 2) {
  d.blocks.push_back(document::Heading{std::move(text), level, true});
}
inline void AddParagraph(document::Document& d, std::string text) {
  d.blocks.push_back(document::Paragraph{std::move(text)});
}
// A right-aligned column, or a left-aligned one.
inline document::Column Right(std::string title) { return {std::move(title), document::Align::kRight, 0}; }
inline document::Column Left(std::string title) { return {std::move(title), document::Align::kLeft, 0}; }
inline document::Cell Blank() { return document::Cell::Text(""); }
// A totals cell that has no meaning there (a p50 of all buckets): "-".
inline document::Cell Dash() { return document::Cell::Text("-"); }

void FamilySection(const Context& c, document::Document& d);
void KernelNameSection(const Context& c, document::Document& d);
void PhaseSection(const Context& c, document::Document& d);
void CounterSection(const Context& c, document::Document& d);
void RegistrySection(const Context& c, document::Document& d);
// The bar charts (SVG only): with a baseline the Δ charts first, then µs/token per
// bucket, per phase and per kernel name.
void Charts(const Context& c, document::Document& d);

}  // namespace perfgate::report::sections

#endif  // PERFGATE_SRC_REPORT_ATTRIBUTE_SECTIONS_H_
