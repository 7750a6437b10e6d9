// The formats a report document renders in, registered once for every subcommand:
// text, markdown, json, csv and svg.
#ifndef PERFGATE_DOCUMENT_RENDER_H_
#define PERFGATE_DOCUMENT_RENDER_H_

#include <string>
#include <string_view>
#include <vector>

#include "perfgate/core/status.h"
#include "perfgate/document/document.h"

namespace perfgate::document {

// A format's name and the file extension it is written with (".txt", ".md", ...).
struct Format {
  std::string_view name;
  std::string_view extension;
};

// Every format, in the order --format lists them: text, markdown, json, csv, svg.
const std::vector<Format>& Formats();

// The formats `document` renders in: text and markdown always, json where it has
// data, csv where it holds exactly one table, svg where it holds a chart.
std::vector<std::string> FormatsOf(const Document& document);

// The document in `format`. An unknown format is an error (report.unknown_format)
// listing the formats; one that does not apply to the document
// (report.format_does_not_apply) says why and lists those that do. A table row without
// one cell per column, or a chart series without one value per point, is an error
// (report.misshapen_document) naming it, in every format.
StatusOr<std::string> Render(const Document& document, std::string_view format);

}  // namespace perfgate::document

#endif  // PERFGATE_DOCUMENT_RENDER_H_
