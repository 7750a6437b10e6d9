// The formats of a report document, registered once (perfgate/document/render.h): each
// is a name, an extension, what it needs of a document, and a renderer.
#include "perfgate/document/render.h"

#include <algorithm>
#include <variant>

#include "perfgate/core/names.h"
#include "document/renderers.h"

namespace perfgate::document {
namespace {

template <typename T>
size_t CountOf(const Document& d) {
  return static_cast<size_t>(
      std::count_if(d.blocks.begin(), d.blocks.end(), [](const Block& b) { return std::holds_alternative<T>(b); }));
}

// Why `format` cannot render `d`, or "" when it can.
using Needs = std::string (*)(const Document& d);

std::string NeedsNothing(const Document&) { return ""; }
std::string NeedsData(const Document& d) { return d.json.empty() ? "the report has no machine-readable form" : ""; }
std::string NeedsOneTable(const Document& d) {
  const size_t tables = CountOf<Table>(d);
  return tables == 1 ? "" : "a CSV holds one table, and the report has " + std::to_string(tables);
}
std::string NeedsChart(const Document& d) {
  return CountOf<LineChart>(d) + CountOf<BarChart>(d) > 0 ? "" : "the report has no chart";
}

// Where a table is not one a renderer can lay out: a row (or a totals row) whose cells
// are not one per column, a column group past the last column. "" when it is whole.
std::string MisshapenTable(const Table& t) {
  const auto rows = [&](const std::vector<std::vector<Cell>>& rs, const char* what) -> std::string {
    for (size_t r = 0; r < rs.size(); ++r) {
      if (rs[r].size() != t.columns.size()) {
        return "table '" + t.name + "' " + what + " " + std::to_string(r + 1) + " has " +
               std::to_string(rs[r].size()) + " cells for " + std::to_string(t.columns.size()) + " columns";
      }
    }
    return "";
  };
  if (std::string why = rows(t.rows, "row"); !why.empty()) return why;
  if (std::string why = rows(t.totals, "totals row"); !why.empty()) return why;
  for (const Table::Group& g : t.groups) {
    if (g.count == 0 || g.first + g.count > t.columns.size()) {
      return "table '" + t.name + "' group '" + g.title + "' spans columns past its " +
             std::to_string(t.columns.size());
    }
  }
  return "";
}

// Where the document's shape is not one a renderer can lay out: a misshapen table, a
// chart series whose values are not one per point, a bar chart row whose values are
// not one per series. "" when it is whole. A builder's mistake, said rather than read
// past the end of a row.
std::string Misshapen(const Document& d) {
  for (const Block& b : d.blocks) {
    if (const auto* t = std::get_if<Table>(&b)) {
      if (std::string why = MisshapenTable(*t); !why.empty()) return why;
    }
    if (const auto* c = std::get_if<BarChart>(&b)) {
      const size_t want = c->delta ? 1 : c->series.size();
      for (const BarChart::Row& row : c->rows) {
        if (row.values.size() != want) {
          return "bar chart '" + c->title + "' row '" + row.label + "' has " + std::to_string(row.values.size()) +
                 " values for " + std::to_string(want) + (c->delta ? " (a delta chart has one)" : " series");
        }
      }
    }
    if (const auto* c = std::get_if<LineChart>(&b)) {
      for (const LineChart::Series& series : c->series) {
        if (series.values.size() != c->points.size()) {
          return "chart '" + c->title + "' series '" + series.name + "' has " + std::to_string(series.values.size()) +
                 " values for " + std::to_string(c->points.size()) + " points";
        }
      }
    }
  }
  return "";
}

struct Registered {
  Format format;
  Needs needs;
  std::string (*render)(const Document& d);
  bool for_people;  // rendered from internal::Printable: no byte forges a line
};

const std::vector<Registered>& Registry() {
  static const std::vector<Registered> kRegistry = {
      {{"text", ".txt"}, NeedsNothing, internal::RenderDocumentText, true},
      {{"markdown", ".md"}, NeedsNothing, internal::RenderDocumentMarkdown, true},
      {{"json", ".json"}, NeedsData, [](const Document& d) { return d.json; }, false},
      {{"csv", ".csv"}, NeedsOneTable, internal::RenderDocumentCsv, false},
      {{"svg", ".svg"}, NeedsChart, internal::RenderDocumentSvg, true},
  };
  return kRegistry;
}

}  // namespace

const std::vector<Format>& Formats() {
  static const std::vector<Format> kFormats = [] {
    std::vector<Format> out;
    for (const Registered& r : Registry()) out.push_back(r.format);
    return out;
  }();
  return kFormats;
}

std::vector<std::string> FormatsOf(const Document& document) {
  std::vector<std::string> out;
  for (const Registered& r : Registry()) {
    if (r.needs(document).empty()) out.emplace_back(r.format.name);
  }
  return out;
}

StatusOr<std::string> Render(const Document& document, std::string_view format) {
  for (const Registered& r : Registry()) {
    if (r.format.name != format) continue;
    if (const std::string shape = Misshapen(document); !shape.empty()) {
      return Status::Error("report.misshapen_document", "the report cannot be laid out: " + shape);
    }
    const std::string why = r.needs(document);
    if (!why.empty()) {
      return Status::Error("report.format_does_not_apply",
                           "--format " + std::string(format) + ": " + why + " (this report renders as " +
                               ListNames(FormatsOf(document)) + ")",
                           {}, ErrorKind::kUsage);
    }
    return r.for_people ? r.render(internal::Printable(document)) : r.render(document);
  }
  std::vector<std::string> known;
  for (const Format& f : Formats()) known.emplace_back(f.name);
  return Status::Error("report.unknown_format",
                       "unknown format '" + std::string(format) + "' (formats: " + ListNames(known) + ")", {},
                       ErrorKind::kUsage);
}

}  // namespace perfgate::document
