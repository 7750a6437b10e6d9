// --history and --history-test: the report subcommands (attribute, kernel-report,
// toks-ratio) append their run to a results history when asked, here or through
// PERFGATE_HISTORY. Appending never changes the subcommand's output or exit code,
// except that a store that cannot be written fails the run under CI (exit 3).
#ifndef PERFGATE_TOOLS_PERFGATE_HISTORY_APPEND_H_
#define PERFGATE_TOOLS_PERFGATE_HISTORY_APPEND_H_

#include <CLI/CLI.hpp>
#include <string>

#include "perfgate/core/status.h"
#include "perfgate/history/run.h"

namespace perfgate::cli {

struct HistoryAppendOptions {
  std::string location;  // --history (else PERFGATE_HISTORY; "" or OFF: none)
  std::string test;      // --history-test: the series' test name
};

// Whether a history is named (--history, else PERFGATE_HISTORY, and not OFF).
bool HistoryRequested(const HistoryAppendOptions& options);

// Declares --history and --history-test on `cmd`.
void AddHistoryAppendOptions(CLI::App* cmd, HistoryAppendOptions* options);

// The context of a subcommand's run: suite = the subcommand, test = --history-test or
// `default_test` (its inputs as given).
history::RunContext CliRunContext(const HistoryAppendOptions& options, const std::string& subcommand,
                                  const std::string& default_test);

// Appends `run` to the named history (history::AppendToHistory: an error only under CI).
Status AppendCliRun(const HistoryAppendOptions& options, const history::Run& run);

}  // namespace perfgate::cli

#endif  // PERFGATE_TOOLS_PERFGATE_HISTORY_APPEND_H_
