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
std::string NeedsChart(const Document& d) { return CountOf<LineChart>(d) > 0 ? "" : "the report has no chart"; }

struct Registered {
  Format format;
  Needs needs;
  std::string (*render)(const Document& d);
};

const std::vector<Registered>& Registry() {
  static const std::vector<Registered> kRegistry = {
      {{"text", ".txt"}, NeedsNothing, internal::RenderDocumentText},
      {{"markdown", ".md"}, NeedsNothing, internal::RenderDocumentMarkdown},
      {{"json", ".json"}, NeedsData, [](const Document& d) { return d.json; }},
      {{"csv", ".csv"}, NeedsOneTable, internal::RenderDocumentCsv},
      {{"svg", ".svg"}, NeedsChart, internal::RenderDocumentSvg},
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
    const std::string why = r.needs(document);
    if (!why.empty()) {
      return Status::Error("report.format_does_not_apply",
                           "--format " + std::string(format) + ": " + why + " (this report renders as " +
                               ListNames(FormatsOf(document)) + ")",
                           {}, ErrorKind::kUsage);
    }
    return r.render(document);
  }
  std::vector<std::string> known;
  for (const Format& f : Formats()) known.emplace_back(f.name);
  return Status::Error("report.unknown_format",
                       "unknown format '" + std::string(format) + "' (formats: " + ListNames(known) + ")", {},
                       ErrorKind::kUsage);
}

}  // namespace perfgate::document
