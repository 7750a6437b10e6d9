// The results-history side of `perfgate history`: --store and its selection and
// detector options, and the check, export and import subcommands.
#ifndef PERFGATE_TOOLS_PERFGATE_CMD_HISTORY_STORE_H_
#define PERFGATE_TOOLS_PERFGATE_CMD_HISTORY_STORE_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "perfgate/core/status.h"
#include "perfgate/history/change_points.h"
#include "report_output.h"

namespace perfgate::cli {

// Which history, which series, and the change-point detector's settings.
struct StoreArgs {
  std::string store;    // --store (else PERFGATE_HISTORY)
  std::string suite;    // --suite
  std::string test;     // --test
  std::string engine;   // --engine
  std::string metrics;  // --metric a,b
  history::ChangePointOptions detector;
};

// The names of a comma-separated list ("a,b"), empty ones dropped: --metric and
// --counters.
std::vector<std::string> SplitCommas(const std::string& list);

// Declares --store, the selection and the detector options on `history`, and its
// check, export and import subcommands.
void RegisterHistoryStoreOptions(CLI::App* history_cmd, StoreArgs* args, int* exit_code);

// `perfgate history --store LOC`: the series and their change points, in --format's
// format (html: the static page).
Status RunStoreHistory(const StoreArgs& args, const OutputOptions& out);

}  // namespace perfgate::cli

#endif  // PERFGATE_TOOLS_PERFGATE_CMD_HISTORY_STORE_H_
