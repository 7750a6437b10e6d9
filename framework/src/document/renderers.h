// The renderers of a report document, one per format (document/render.cc registers
// them). Each is a pure function of the document that never fails: what a format
// needs of a document is checked before it is called.
#ifndef PERFGATE_SRC_DOCUMENT_RENDERERS_H_
#define PERFGATE_SRC_DOCUMENT_RENDERERS_H_

#include <string>

#include "perfgate/document/document.h"

namespace perfgate::document::internal {

// Blocks separated by a blank line; the title and sections between rules of "=";
// paragraphs wrapped at 110 columns, a list item on one line (grep finds a whole note)
// unless its list wraps; tables in aligned columns two spaces apart, a rule under the
// titles and above the totals.
std::string RenderDocumentText(const Document& d);
// Headings "##" (the title), "###" (a section), "####" (a part); a folded section in a
// <details> element; tables as pipe tables; prose with Markdown's characters escaped.
std::string RenderDocumentMarkdown(const Document& d);
// The one table as RFC 4180 fields, a line each (LF): a header row; a number as shown
// where that text reads back as it, else the shortest text that does; a missing cell
// empty.
std::string RenderDocumentCsv(const Document& d);
// The charts in their order: a line chart a panel per series, the points in a
// numbered key below; a bar chart as document/bars.cc draws it.
std::string RenderDocumentSvg(const Document& d);
// The document with every text people read (headings, prose, cells, titles, list
// items, chart labels) made printable: control bytes (a line break, ESC, NUL) and
// bytes that are not UTF-8 as C escapes ("\n", "\x1b"), as error messages print
// them. Text, Markdown and SVG render this; JSON and CSV keep the bytes whole.
Document Printable(const Document& d);
// One bar chart drawn from `top` down; `*bottom` is where the next block may start.
std::string BarChartSvg(const BarChart& chart, double top, double* bottom);

}  // namespace perfgate::document::internal

#endif  // PERFGATE_SRC_DOCUMENT_RENDERERS_H_
