// A bisect's result as a report document (text, Markdown, JSON through
// perfgate/document/render.h): the outcome and why, the figures before and after the
// culprit, the movers between its parent and it, and every commit measured.
#ifndef PERFGATE_BISECT_REPORT_H_
#define PERFGATE_BISECT_REPORT_H_

#include <string>

#include "perfgate/bisect/session.h"
#include "perfgate/document/document.h"

namespace perfgate::bisect {

// Movers per level in the document (the JSON holds every change).
inline constexpr size_t kMoverRows = 5;

// The document; its JSON is {"kind": "perfgate.bisect", "schema_version": 1, ...}
// (docs/bisect.md lists the keys), every double lossless.
document::Document BisectDocument(const BisectResult& result);

}  // namespace perfgate::bisect

#endif  // PERFGATE_BISECT_REPORT_H_
