// --history and --history-test of the report subcommands.
#include "history_append.h"

#include "perfgate/history/record.h"

namespace perfgate::cli {

bool HistoryRequested(const HistoryAppendOptions& options) {
  return !history::HistoryLocation(options.location).empty();
}

void AddHistoryAppendOptions(CLI::App* cmd, HistoryAppendOptions* options) {
  cmd->add_option("--history", options->location,
                  std::string("append this run to a results history: an SQLite file or a postgresql:// URL (default: ") +
                      history::kHistoryEnv + "; OFF: none)");
  cmd->add_option("--history-test", options->test,
                  "the run's test name in the history (default: the inputs as given); with the subcommand it names "
                  "the run's series");
}

history::RunContext CliRunContext(const HistoryAppendOptions& options, const std::string& subcommand,
                                  const std::string& default_test) {
  return history::CurrentContext(subcommand, options.test.empty() ? default_test : options.test);
}

Status AppendCliRun(const HistoryAppendOptions& options, const history::Run& run) {
  return history::AppendToHistory(history::HistoryLocation(options.location), run);
}

}  // namespace perfgate::cli
