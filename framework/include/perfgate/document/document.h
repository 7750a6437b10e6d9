// A report as a document: what a subcommand builds and every format renders
// (perfgate/document/render.h). The human formats lay out its blocks: headings,
// paragraphs, tables of typed cells and line charts. The machine-readable form is its
// data, the subcommand's own JSON schema, kept beside the blocks.
#ifndef PERFGATE_DOCUMENT_DOCUMENT_H_
#define PERFGATE_DOCUMENT_DOCUMENT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace perfgate::document {

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
  // A value as its source wrote it, with its number where it is one.
  static Cell Written(std::string text, std::optional<double> number);
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

// Rows of cells under named columns; `name` is an identifier (CSV, tests).
struct Table {
  std::string name;
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
};

struct Heading {
  std::string text;
};

struct Paragraph {
  std::string text;
};

// Short statements, one a line: a verdict's explanation, a note. Each may open with a
// lead word ("FAIL", "note"), strong in Markdown where it calls for attention, and end
// with names from code (kernels), listed after the text, comma-separated, inline code
// in Markdown.
struct List {
  struct Item {
    std::string lead;
    std::string text;
    bool strong = false;
    std::vector<std::string> names;
  };
  std::vector<Item> items;
};

// One line chart per series over the same points (SVG): a point whose cell is missing
// or no number is a gap, marked, and the line breaks there. `points` name the points
// in a numbered key below the charts.
struct LineChart {
  struct Series {
    std::string name;
    std::vector<Cell> values;  // one per point
  };
  std::string title;
  std::vector<std::string> points;
  std::vector<Series> series;
};

using Block = std::variant<Heading, Paragraph, Table, List, LineChart>;

struct Document {
  std::vector<Block> blocks;
  // The machine-readable form, as the subcommand's JSON schema defines it (lossless,
  // ending in a newline); empty when the subcommand has none.
  std::string json;
};

}  // namespace perfgate::document

#endif  // PERFGATE_DOCUMENT_DOCUMENT_H_
