// A history as a report document (perfgate/document/document.h), which every format
// renders: the series and their change points, and the history gate's verdict.
#ifndef PERFGATE_HISTORY_REPORT_H_
#define PERFGATE_HISTORY_REPORT_H_

#include <string>
#include <vector>

#include "perfgate/document/document.h"
#include "perfgate/history/analysis.h"

namespace perfgate::history {

// `perfgate history --store`: a table of the series (runs, newest value, change
// points), the change points with their commit ranges, means, magnitude, p and
// movers, and a line chart per series; JSON "perfgate.results_history/1".
document::Document HistoryDocument(const std::string& location, const std::vector<SeriesHistory>& series,
                                   const ChangePointOptions& options);

// `perfgate history check`: the change points among the newest runs (FAIL when worse
// beyond the policy), the series too short to judge, and the verdict; JSON
// "perfgate.history_check/1".
document::Document CheckDocument(const std::string& location, const CheckResult& result, const CheckPolicy& policy);

}  // namespace perfgate::history

#endif  // PERFGATE_HISTORY_REPORT_H_
