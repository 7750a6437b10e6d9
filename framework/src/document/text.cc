// A report document as text, Markdown and CSV (document/renderers.h).
#include <algorithm>
#include <cstdlib>
#include <string>
#include <variant>
#include <vector>

#include "core/text_cells.h"
#include "document/renderers.h"

namespace perfgate::document::internal {
namespace {

// Each column's width: its fixed width, else the widest of its title and cells.
std::vector<size_t> Widths(const Table& t) {
  std::vector<size_t> widths;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    size_t w = t.columns[c].width;
    if (w == 0) {
      w = text::DisplayWidth(t.columns[c].title);
      for (const auto& row : t.rows) w = std::max(w, text::DisplayWidth(row[c].text));
    }
    widths.push_back(w);
  }
  return widths;
}

// A line of cells, with no space at its end.
std::string TextRow(const Table& t, const std::vector<size_t>& widths, const std::vector<std::string>& cells) {
  std::string line;
  for (size_t c = 0; c < cells.size(); ++c) {
    const bool last = c + 1 == cells.size();
    std::string cell = t.columns[c].width > 0 ? text::Truncate(cells[c], widths[c]) : cells[c];
    if (t.columns[c].align == Align::kRight) {
      cell = text::Right(cell, widths[c]);
    } else if (!last) {
      cell = text::Left(cell, widths[c]);
    }
    line += (c == 0 ? "" : "  ") + cell;
  }
  line.erase(line.find_last_not_of(' ') + 1);  // an empty last cell leaves no trailing space
  return line + "\n";
}

std::string TextTable(const Table& t) {
  const std::vector<size_t> widths = Widths(t);
  std::vector<std::string> titles;
  for (const Column& c : t.columns) titles.push_back(c.title);
  std::string out = TextRow(t, widths, titles);
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (const Cell& cell : row) cells.push_back(cell.text);
    out += TextRow(t, widths, cells);
  }
  return out;
}

std::string MarkdownTable(const Table& t) {
  std::string head = "|", rule = "|";
  for (const Column& c : t.columns) {
    head += " " + text::MarkdownCell(c.title) + " |";
    rule += c.align == Align::kRight ? "---:|" : "---|";
  }
  std::string out = head + "\n" + rule + "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const Cell& cell : row) out += " " + (cell.code ? text::MarkdownCode(cell.text) : text::MarkdownCell(cell.text)) + " |";
    out += "\n";
  }
  return out;
}

// A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// A number as shown where that text reads back as the number itself (counter values
// as written, integers), else the shortest text that does: never rounded.
std::string CsvCell(const Cell& cell) {
  if (cell.missing) return "";
  if (!cell.number) return CsvField(cell.text);
  char* end = nullptr;
  const double shown = std::strtod(cell.text.c_str(), &end);
  const bool exact = !cell.text.empty() && end == cell.text.c_str() + cell.text.size() && shown == *cell.number;
  return exact ? cell.text : text::ShortestDouble(*cell.number);
}

// Blocks one after another, a blank line between them, each through `render`.
template <typename Render>
std::string Join(const Document& d, Render render) {
  std::string out;
  for (const Block& b : d.blocks) {
    std::string text = render(b);
    if (text.empty()) continue;
    out += (out.empty() ? "" : "\n") + text;
  }
  return out;
}

// The text's width: a paragraph longer than this continues on the next line. A list
// item stays on one line, so that a note or a verdict can be found with grep; tables
// are as wide as their cells.
constexpr size_t kWidth = 110;

std::string Wrapped(const std::string& line) {
  std::string out;
  for (const std::string& l : text::WrapLines(line, kWidth, kWidth)) out += l + "\n";
  return out;
}

// An item's names, comma-separated, each through `quote`.
template <typename Quote>
std::string Names(const List::Item& i, Quote quote) {
  std::string out;
  for (const std::string& n : i.names) out += (out.empty() ? "" : ", ") + quote(n);
  return out;
}

std::string TextList(const List& l) {
  std::string out;
  for (const List::Item& i : l.items) {
    const std::string names = Names(i, [](const std::string& n) { return n; });
    out += (i.lead.empty() ? "" : i.lead + " ") + i.text + names + "\n";
  }
  return out;
}

std::string MarkdownList(const List& l) {
  std::string out;
  for (const List::Item& i : l.items) {
    const std::string lead = i.lead.empty() ? "" : (i.strong ? "**" + i.lead + "**" : i.lead) + " ";
    out += "- " + lead + text::MarkdownCell(i.text) + Names(i, [](const std::string& n) { return text::MarkdownCode(n); }) +
           "\n";
  }
  return out;
}

}  // namespace

std::string RenderDocumentText(const Document& d) {
  return Join(d, [](const Block& b) -> std::string {
    if (const auto* h = std::get_if<Heading>(&b)) return h->text + "\n";
    if (const auto* p = std::get_if<Paragraph>(&b)) return Wrapped(p->text);
    if (const auto* t = std::get_if<Table>(&b)) return TextTable(*t);
    if (const auto* l = std::get_if<List>(&b)) return TextList(*l);
    return "";  // charts are drawn in SVG only
  });
}

std::string RenderDocumentMarkdown(const Document& d) {
  bool first_heading = true;
  return Join(d, [&](const Block& b) -> std::string {
    if (const auto* h = std::get_if<Heading>(&b)) {
      const std::string level = first_heading ? "### " : "#### ";
      first_heading = false;
      return level + h->text + "\n";
    }
    if (const auto* p = std::get_if<Paragraph>(&b)) return p->text + "\n";
    if (const auto* t = std::get_if<Table>(&b)) return MarkdownTable(*t);
    if (const auto* l = std::get_if<List>(&b)) return MarkdownList(*l);
    return "";
  });
}

std::string RenderDocumentCsv(const Document& d) {
  for (const Block& b : d.blocks) {
    const auto* t = std::get_if<Table>(&b);
    if (t == nullptr) continue;
    std::string out;
    for (size_t c = 0; c < t->columns.size(); ++c) out += (c ? "," : "") + CsvField(t->columns[c].title);
    out += "\n";
    for (const auto& row : t->rows) {
      for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + CsvCell(row[c]);
      out += "\n";
    }
    return out;
  }
  return "";
}

}  // namespace perfgate::document::internal
