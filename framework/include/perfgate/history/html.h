// A results history as one static HTML page: a line chart per series with its change
// points marked, each change point's commits and movers, and every run in a table.
// The page is self-contained (inline CSS and SVG, no script, nothing fetched), so it
// can be archived by CI and opened offline.
#ifndef PERFGATE_HISTORY_HTML_H_
#define PERFGATE_HISTORY_HTML_H_

#include <string>
#include <vector>

#include "perfgate/history/analysis.h"

namespace perfgate::history {

// What the page says about itself; every field is printed as given (escaped), so the
// same inputs give the same bytes.
struct HtmlPageOptions {
  std::string title = "perfgate history";
  std::string store_location;  // the store's location, as Store::Location() gives it
  std::string generated_at;    // when the page was made (ISO 8601); "" leaves it out
};

// The page for `series` (as AnalyseHistory returns them), grouped by suite and test,
// then engine. Every text from the store is HTML-escaped; no series gives a page that
// says so. Never fails.
std::string RenderHistoryHtml(const std::vector<SeriesHistory>& series, const HtmlPageOptions& options);

}  // namespace perfgate::history

#endif  // PERFGATE_HISTORY_HTML_H_
