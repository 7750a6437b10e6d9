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

constexpr size_t kWidth = kTextWidth;
// What a narrowed column keeps however wide the rest of its table.
constexpr size_t kNarrowest = 12;

// The column a too-wide table narrows: its widest left-aligned one (a name, a
// sentence), else the first.
size_t Narrowed(const Table& t, const std::vector<size_t>& widths) {
  size_t chosen = 0;
  for (size_t c = 0; c < widths.size(); ++c) {
    if (t.columns[c].align == Align::kLeft && widths[c] > widths[chosen]) chosen = c;
  }
  return chosen;
}

// Each column's width: its fixed width, else the widest of its title and cells; then
// the widest left-aligned column narrowed so that the table fits the text's width.
std::vector<size_t> Widths(const Table& t) {
  std::vector<size_t> widths;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    size_t w = t.columns[c].width;
    if (w == 0) {
      w = text::DisplayWidth(t.columns[c].title);
      for (const auto* rows : {&t.rows, &t.totals}) {
        for (const auto& row : *rows) w = std::max(w, text::DisplayWidth(row[c].text));
      }
    }
    widths.push_back(w);
  }
  size_t total = 0;
  for (size_t w : widths) total += w;
  total += 2 * (widths.empty() ? 0 : widths.size() - 1);
  // A group's title fits over its columns, in dashes, as far as the width allows (a
  // longer one ends in "…").
  for (const Table::Group& g : t.groups) {
    size_t span = 2 * (g.count - 1);
    for (size_t c = g.first; c < g.first + g.count; ++c) span += widths[c];
    const size_t need = text::DisplayWidth(g.title) + 4;
    const size_t extra = span < need && total < kWidth ? std::min(need - span, kWidth - total) : 0;
    widths[g.first + g.count - 1] += extra;
    total += extra;
  }
  if (total > kWidth && !widths.empty()) {
    size_t& w = widths[Narrowed(t, widths)];
    const size_t floor = std::min(w, kNarrowest);
    w = std::max(floor, w - std::min(w, total - kWidth));
  }
  return widths;
}

// A line of cells, with no space at its end; a cell wider than its column ends in "…".
std::string TextRow(const Table& t, const std::vector<size_t>& widths, const std::vector<std::string>& cells) {
  std::string line;
  for (size_t c = 0; c < cells.size(); ++c) {
    const bool last = c + 1 == cells.size();
    std::string cell = text::Truncate(cells[c], widths[c]);
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

// The groups' titles centred in dashes over their columns; blank elsewhere.
std::string GroupLine(const Table& t, const std::vector<size_t>& widths) {
  std::string line;
  for (size_t c = 0; c < widths.size();) {
    const Table::Group* group = nullptr;
    for (const Table::Group& g : t.groups) {
      if (g.first == c) group = &g;
    }
    line += c == 0 ? "" : "  ";
    if (group == nullptr) {
      line += std::string(widths[c], ' ');
      ++c;
      continue;
    }
    size_t span = 2 * (group->count - 1);
    for (size_t k = c; k < c + group->count; ++k) span += widths[k];
    line += text::Center(" " + group->title + " ", span, '-');
    c += group->count;
  }
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

std::vector<std::string> CellTexts(const std::vector<Cell>& row) {
  std::vector<std::string> out;
  for (const Cell& cell : row) out.push_back(cell.text);
  return out;
}

std::string TextTable(const Table& t) {
  const std::vector<size_t> widths = Widths(t);
  std::vector<std::string> titles;
  for (const Column& c : t.columns) titles.push_back(c.title);
  std::string out = t.groups.empty() ? "" : GroupLine(t, widths);
  const std::string head = TextRow(t, widths, titles);
  const std::string rule = std::string(text::DisplayWidth(head) - 1, '-') + "\n";
  out += head + rule;
  for (const auto& row : t.rows) out += TextRow(t, widths, CellTexts(row));
  if (!t.totals.empty()) out += rule;
  for (const auto& row : t.totals) out += TextRow(t, widths, CellTexts(row));
  return out;
}

// A column's title with its group's before it ("hf2q µs/tok"), for the formats that
// have one line of heads.
std::string GroupedTitle(const Table& t, size_t c) {
  for (const Table::Group& g : t.groups) {
    if (c >= g.first && c < g.first + g.count) return g.title + " " + t.columns[c].title;
  }
  return t.columns[c].title;
}

std::string MarkdownRow(const std::vector<Cell>& row, bool strong_first) {
  std::string out = "|";
  for (size_t c = 0; c < row.size(); ++c) {
    const Cell& cell = row[c];
    std::string text = cell.code ? text::MarkdownCode(cell.text) : text::MarkdownCell(cell.text);
    if (c == 0 && strong_first && !text.empty()) text = "**" + text + "**";
    out += " " + text + " |";
  }
  return out + "\n";
}

std::string MarkdownTable(const Table& t) {
  std::string head = "|", rule = "|";
  for (size_t c = 0; c < t.columns.size(); ++c) {
    head += " " + text::MarkdownCell(GroupedTitle(t, c)) + " |";
    rule += t.columns[c].align == Align::kRight ? "---:|" : "---|";
  }
  std::string out = head + "\n" + rule + "\n";
  for (const auto& row : t.rows) out += MarkdownRow(row, false);
  for (const auto& row : t.totals) out += MarkdownRow(row, true);
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

// `line` word-wrapped, the first line `first` columns wide and the others `rest`; a
// word wider than its line (a path, a kernel name) ends in "…" there.
std::vector<std::string> Fitted(const std::string& line, size_t first, size_t rest) {
  std::vector<std::string> lines = text::WrapLines(line, first, rest);
  for (size_t i = 0; i < lines.size(); ++i) lines[i] = text::Truncate(lines[i], i == 0 ? first : rest);
  return lines;
}

std::string Wrapped(const std::string& line) {
  std::string out;
  for (const std::string& l : Fitted(line, kWidth, kWidth)) out += l + "\n";
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
    const std::string indent(2 * static_cast<size_t>(std::max(i.depth, 0)), ' ');
    const std::string line = (i.lead.empty() ? "" : i.lead + " ") + i.text + Names(i, [](const std::string& n) { return n; });
    if (!l.wrap) {
      out += indent + line + "\n";
      continue;
    }
    const size_t first = kWidth - indent.size();
    const auto lines = Fitted(line, first, first - 2);
    for (size_t k = 0; k < lines.size(); ++k) out += indent + (k == 0 ? "" : "  ") + lines[k] + "\n";
  }
  return out;
}

std::string MarkdownList(const List& l) {
  std::string out;
  for (const List::Item& i : l.items) {
    const std::string lead = i.lead.empty() ? "" : (i.strong ? "**" + i.lead + "**" : i.lead) + " ";
    out += std::string(2 * static_cast<size_t>(std::max(i.depth, 0)), ' ') + "- " + lead + text::MarkdownText(i.text) +
           Names(i, [](const std::string& n) { return text::MarkdownCode(n); }) + "\n";
  }
  return out;
}

std::string TextHeading(const Heading& h) {
  if (h.level > 2) return Wrapped(h.text);
  const std::string rule(kWidth, '=');
  return rule + "\n" + Wrapped(h.text) + rule + "\n";
}

// "##" for the title, "###" for a section, "####" for a part of one.
std::string MarkdownHeading(const Heading& h) {
  return std::string(static_cast<size_t>(std::clamp(h.level, 1, 3)) + 1, '#') + " " + text::MarkdownText(h.text) + "\n";
}

std::string CsvRow(const std::vector<Cell>& row) {
  std::string out;
  for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + CsvCell(row[c]);
  return out + "\n";
}

}  // namespace

std::string RenderDocumentText(const Document& d) {
  return Join(d, [](const Block& b) -> std::string {
    if (const auto* h = std::get_if<Heading>(&b)) return TextHeading(*h);
    if (const auto* p = std::get_if<Paragraph>(&b)) return Wrapped(p->text);
    if (const auto* t = std::get_if<Table>(&b)) return TextTable(*t);
    if (const auto* l = std::get_if<List>(&b)) return TextList(*l);
    return "";  // charts are drawn in SVG only
  });
}

std::string RenderDocumentMarkdown(const Document& d) {
  int open = 0;  // the level of the folded section the blocks are in; 0: none
  std::string out = Join(d, [&](const Block& b) -> std::string {
    std::string close;
    if (const auto* h = std::get_if<Heading>(&b)) {
      if (open != 0 && h->level <= open) close = "</details>\n\n", open = 0;
      if (!h->folded || open != 0) return close + MarkdownHeading(*h);
      open = h->level;
      return close + "<details><summary>" + text::XmlEscape(h->text) + "</summary>\n";
    }
    if (const auto* p = std::get_if<Paragraph>(&b)) return text::MarkdownText(p->text) + "\n";
    if (const auto* t = std::get_if<Table>(&b)) return MarkdownTable(*t);
    if (const auto* l = std::get_if<List>(&b)) return MarkdownList(*l);
    return "";
  });
  return open != 0 ? out + "\n</details>\n" : out;
}

std::string RenderDocumentCsv(const Document& d) {
  for (const Block& b : d.blocks) {
    const auto* t = std::get_if<Table>(&b);
    if (t == nullptr) continue;
    std::string out;
    for (size_t c = 0; c < t->columns.size(); ++c) out += (c ? "," : "") + CsvField(GroupedTitle(*t, c));
    out += "\n";
    for (const auto& row : t->rows) out += CsvRow(row);
    for (const auto& row : t->totals) out += CsvRow(row);
    return out;
  }
  return "";
}

}  // namespace perfgate::document::internal
