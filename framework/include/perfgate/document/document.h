// A report as a document: what a subcommand builds and every format renders
// (perfgate/document/render.h). The human formats lay out its blocks: headings,
// paragraphs, tables of typed cells, lists, and line and bar charts. The
// machine-readable form is its data, the subcommand's own JSON schema, kept beside the
// blocks.
#ifndef PERFGATE_DOCUMENT_DOCUMENT_H_
#define PERFGATE_DOCUMENT_DOCUMENT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace perfgate::document {

// The text format's line width: a paragraph wraps there, a wider table narrows.
inline constexpr size_t kTextWidth = 110;

// One table cell: the text that text and Markdown show, and where the cell is a
// number its exact value, which CSV keeps whole. A missing cell is a gap: "—" in text
// and Markdown, empty in CSV, never a zero.
struct Cell {
  std::string text;
  std::optional<double> number;
  bool missing = false;
  bool code = false;  // a name from code (a kernel, a family): inline code in Markdown

  static Cell Text(std::string text);
  static Cell Code(std::string text);
  static Cell Integer(int64_t value);
  // A number shown with `decimals` places ("%.*f").
  static Cell Fixed(double value, int decimals);
  // A change, always signed ("+1.20", "-0.50").
  static Cell Signed(double value, int decimals);
  // A percentage with its sign ("+12.3%"); "n/a" and no number when there is none (a
  // change from zero).
  static Cell Percent(std::optional<double> percent);
  // A p-value with three places ("0.100", "<0.001"), its number exact; "n/a" and no
  // number when there is none.
  static Cell PValue(double p);
  // A value as its source wrote it, with its number where it is one.
  static Cell Written(std::string text, std::optional<double> number);
  // A figure with six significant digits ("14023.5", "48", "0.873112"), its number exact.
  static Cell Significant(double value);
  static Cell Missing();
};

enum class Align { kLeft, kRight };

struct Column {
  std::string title;
  Align align = Align::kRight;
  // A fixed width in the text layout (a longer cell ends in "…"); 0: as wide as the
  // widest of the title and the cells.
  size_t width = 0;
};

// Rows of cells under named columns; `name` is an identifier (CSV, tests). A table
// wider than the text's 110 columns gives the difference up from its widest
// left-aligned column (a name, a sentence), whose longer cells then end in "…".
struct Table {
  // A head over a run of columns ("hf2q (engine)" over that side's columns): dashed
  // above the titles in text, before each title in Markdown and CSV.
  struct Group {
    std::string title;
    size_t first = 0;
    size_t count = 0;
  };
  Table() = default;
  Table(std::string name, std::vector<Column> columns, std::vector<std::vector<Cell>> rows = {},
        std::vector<Group> groups = {}, std::vector<std::vector<Cell>> totals = {})
      : name(std::move(name)),
        columns(std::move(columns)),
        rows(std::move(rows)),
        groups(std::move(groups)),
        totals(std::move(totals)) {}

  std::string name;
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<Group> groups;
  // Rows below a rule (totals): ruled off in text, the first cell strong in Markdown,
  // after the rows in CSV.
  std::vector<std::vector<Cell>> totals;
};

// Level 1 is the report's title, 2 a section, 3 a part of one: text draws 1 and 2
// between rules of "=", Markdown gives them "##", "###" and "####".
// A `folded` section (the method, the inputs, per-trial detail) is one a reader opens
// when needed: Markdown puts it, up to the next heading of its level or above, in a
// <details> element whose summary is the heading (a CI job summary stays short).
struct Heading {
  std::string text;
  int level = 2;
  bool folded = false;
};

struct Paragraph {
  std::string text;
};

// Short statements, one a line: a verdict's explanation, a note. Each may open with a
// lead word ("FAIL", "note"), strong in Markdown where it calls for attention, and end
// with names from code (kernels), listed after the text, comma-separated, inline code
// in Markdown. An item of `depth` 1 or 2 belongs to the one above it (indented; a
// nested list in Markdown). A `wrap`ped list's long items continue on indented lines
// in text; otherwise an item stays on one line, so that grep finds it whole.
struct List {
  struct Item {
    Item() = default;
    Item(std::string lead, std::string text, bool strong = false, std::vector<std::string> names = {}, int depth = 0)
        : lead(std::move(lead)), text(std::move(text)), strong(strong), names(std::move(names)), depth(depth) {}

    std::string lead;
    std::string text;
    bool strong = false;
    std::vector<std::string> names;
    int depth = 0;
  };
  std::vector<Item> items;
  bool wrap = false;
};

// One line chart per series over the same points (SVG): a point whose cell is missing
// or no number is a gap, marked, and the line breaks there. `points` name the points
// in a numbered key below the charts.
struct LineChart {
  struct Series {
    std::string name;
    std::vector<Cell> values;  // one per point
  };
  // A vertical line before point `before` (between it and the one ahead of it) in every
  // panel, labelled: a change point of a history. `bad` draws it red, else green.
  struct Mark {
    size_t before = 0;
    std::string label;
    bool bad = false;
  };
  std::string title;
  std::vector<std::string> points;
  std::vector<Series> series;
  std::vector<Mark> marks;
};

// Horizontal bars, a row per category (SVG). Grouped: one bar per series (engine
// beside baseline) on a linear axis from 0. Diverging (`delta`): one signed bar per row
// on a signed log scale (log10(1 + |v|), so a change in a small category stays
// visible), right and red where the value is above 0 (slower), left and green below,
// with the row's `note` on the side its bar does not use. A `highlight`ed row (the
// attack target) is banded. `key` lines go below the chart (what numbered labels
// stand for).
struct BarChart {
  struct Row {
    std::string label;
    std::vector<double> values;  // one per series
    std::string note;
    bool highlight = false;
  };
  std::string title;
  std::string note;                 // a line under the title: what the bars measure
  std::string axis;                 // the axis' title
  std::vector<std::string> series;  // grouped: the sides' names, shown in a legend
  bool delta = false;
  std::vector<Row> rows;
  std::vector<std::string> key;
};

using Block = std::variant<Heading, Paragraph, Table, List, LineChart, BarChart>;

struct Document {
  std::vector<Block> blocks;
  // The machine-readable form, as the subcommand's JSON schema defines it (lossless,
  // ending in a newline); empty when the subcommand has none.
  std::string json;
};

}  // namespace perfgate::document

#endif  // PERFGATE_DOCUMENT_DOCUMENT_H_
