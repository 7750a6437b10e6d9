// `perfgate diff` as one document (report/diff_formats.h, DiffDocument), and the parts
// the attribution report's movers share with it: the summary and the movers table.
#include <algorithm>
#include <string>
#include <vector>

#include "perfgate/report/diff_formats.h"
#include "report/diff_json.h"
#include "report/diff_tables.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

namespace cells = diff_cells;
using document::Cell;
using document::Column;
using document::Document;

constexpr const char* kArrow = "\xE2\x86\x92";

// The columns of a change after its name: status, calls and µs before → after, Δ,
// share, Δ per call, p.
std::vector<Column> ChangeColumns() {
  return {{"status", document::Align::kLeft, 0},
          {std::string("calls/tok ") + kArrow, document::Align::kRight, 0},
          {std::string("\xC2\xB5s/tok ") + kArrow, document::Align::kRight, 0},
          {"\xCE\x94 \xC2\xB5s/tok", document::Align::kRight, 0},
          {"share", document::Align::kRight, 0},
          {"\xCE\x94 \xC2\xB5s/call", document::Align::kRight, 0},
          {"p", document::Align::kRight, 0}};
}

// The name (with the names it was matched from) and the change's cells. Δ keeps its
// exact number; the before → after pairs are text.
std::vector<Cell> ChangeCells(const diff::Change& c) {
  std::string name = c.name;
  const std::string originals = cells::Originals(c);
  if (!originals.empty()) name += " " + originals;
  return {c.rest ? Cell::Text(name) : Cell::Code(name),
          Cell::Text(cells::Status(c)),
          Cell::Text(cells::Calls(c)),
          Cell::Text(cells::Us(c)),
          Cell::Written(cells::DeltaUs(c), c.delta_us()),
          Cell::Text(cells::Share(c)),
          Cell::Text(cells::DeltaPerCall(c)),
          c.p_value ? Cell::PValue(*c.p_value) : Cell::Text("")};
}

document::Table LevelTable(const diff::LevelDiff& level, size_t rows) {
  document::Table table{"diff_" + level.word, {{util::Capitalized(level.word), document::Align::kLeft, 0}}};
  for (Column& column : ChangeColumns()) table.columns.push_back(column);
  const size_t shown = std::min(rows, level.changes.size());
  for (size_t i = 0; i < shown; ++i) table.rows.push_back(ChangeCells(level.changes[i]));
  return table;
}

// "+35.4 (added, 97 %)": what a Δ bar says beside it.
std::string BarNote(const diff::Change& c) {
  std::string note = cells::DeltaUs(c) + " (" + cells::Status(c);
  const std::string share = cells::Share(c);
  return note + (share.empty() ? "" : ", " + share) + ")";
}

// A level's top movers as Δ bars (SVG): slower and added right, faster and removed left.
document::BarChart LevelChart(const diff::LevelDiff& level, size_t rows, const diff::Diff& d) {
  document::BarChart chart;
  chart.title = util::Capitalized(cells::LevelHeading(level)) + " (\xCE\x94 \xC2\xB5s/token)";
  chart.note = cells::SidesLine(d);
  chart.axis = "\xCE\x94 \xC2\xB5s per decode token, " + d.after + " \xE2\x88\x92 " + d.before;
  chart.delta = true;
  for (const diff::Change& c : diff::TopMovers(level, rows)) {
    chart.rows.push_back({c.name, {c.delta_us()}, BarNote(c), false});
  }
  const size_t more = level.changes.size() - std::min(level.changes.size(), rows);
  if (more > 0) chart.key.push_back(std::to_string(more) + " more (perfgate diff --format json)");
  return chart;
}

}  // namespace

void AddDiffSummary(const diff::Diff& d, Document& out) {
  out.blocks.push_back(document::Paragraph{util::Capitalized(cells::TotalLine(d)) + "."});
  document::List notes;
  for (const std::string& note : d.notes) notes.items.push_back({"caution:", note, true});
  for (const diff::FigureChange& f : d.figures) notes.items.push_back({"", cells::Figure(f)});
  for (const std::string& item : cells::NotCompared(d)) notes.items.push_back({"not compared:", item});
  if (!notes.items.empty()) out.blocks.push_back(notes);
}

void AddMoversTables(const diff::Diff& d, size_t n, Document& out) {
  for (const diff::LevelDiff& level : d.levels) {
    const std::vector<diff::Change> top = diff::TopMovers(level, n);
    out.blocks.push_back(document::Heading{"Top " + std::to_string(top.size()) + " " + cells::LevelHeading(level), 3, false});
    document::Table table{"movers_" + level.word, {{util::Capitalized(level.word), document::Align::kLeft, 0}}};
    for (Column& column : ChangeColumns()) table.columns.push_back(column);
    for (const diff::Change& c : top) table.rows.push_back(ChangeCells(c));
    out.blocks.push_back(table);
  }
}

document::Document DiffDocument(const diff::Diff& d, size_t rows) {
  Document out;
  out.json = RenderDiffJson(d);
  out.blocks.push_back(document::Heading{"perfgate diff: " + cells::SidesLine(d), 1, false});
  AddDiffSummary(d, out);
  if (d.levels.empty()) {
    out.blocks.push_back(document::Paragraph{"No level both sides have: nothing to compare item by item."});
  }
  for (const diff::LevelDiff& level : d.levels) out.blocks.push_back(LevelChart(level, rows, d));
  for (const diff::LevelDiff& level : d.levels) {
    out.blocks.push_back(document::Heading{util::Capitalized(cells::LevelHeading(level)) + ", by |\xCE\x94 \xC2\xB5s/tok|", 2, false});
    out.blocks.push_back(LevelTable(level, rows));
    const size_t shown = std::min(rows, level.changes.size());
    if (shown < level.changes.size()) {
      out.blocks.push_back(document::Paragraph{std::to_string(level.changes.size() - shown) +
                                               " more: --rows all, or --format json."});
    }
  }
  return out;
}

}  // namespace perfgate::report
