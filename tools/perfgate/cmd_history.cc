// `perfgate history FILE`: chosen counters of a history of engine counter reports (hf2q
// `generate --benchmark` output, `# ====` blocks) as a table, or as line charts.
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "cmd_history_store.h"
#include "commands.h"
#include "report_output.h"
#include "engine_options.h"
#include "perfgate/counters/report.h"
#include "perfgate/history/record.h"
#include "perfgate/report/formats.h"

namespace perfgate::cli {
namespace {

struct HistoryArgs {
  std::string file;
  std::string counters;  // a,b,c
  OutputOptions out;  // --format, --output
  StoreArgs store;    // --store and its options: a results history instead of FILE
};

// A chart plots numbers: a chosen counter that no report writes as a number would draw
// an empty panel that reads as "no change".
Status CheckChartable(const counters::CounterHistory& history, const std::vector<std::string>& chosen) {
  for (const std::string& c : chosen) {
    const bool numeric = std::any_of(history.reports.begin(), history.reports.end(), [&](const auto& r) {
      const counters::CounterValue* v = r.Find(c);
      return v != nullptr && v->number.has_value();
    });
    if (!numeric) {
      return Status::Error("counters.text_counter",
                           "'" + c + "' is a number in no report of " + history.path +
                               ": an SVG line chart needs numbers (--format text, markdown or json show text)",
                           {history.path}, ErrorKind::kUsage);
    }
  }
  return Status();
}

// FILE is a counter-report history; --store (or PERFGATE_HISTORY without FILE) a results history.
Status RunHistoryOrError(const HistoryArgs& args) {
  if (!args.store.store.empty() && !args.file.empty()) {
    return Usage("FILE (a counter-report history) and --store (a results history) exclude each other");
  }
  if (args.file.empty() && history::HistoryLocation(args.store.store).empty()) {
    return Usage(std::string("give FILE (a counter-report history) or --store LOCATION (a results history; or set ") +
                 history::kHistoryEnv + ")");
  }
  if (args.file.empty()) return RunStoreHistory(args.store, args.out);
  if (args.out.format == "html") return Usage("--format html is the page of a results history (--store)");
  auto history = counters::ReadCounterHistory(args.file);
  if (!history.ok()) return history.status();
  if (!args.counters.empty() && SplitCommas(args.counters).empty()) {
    return Usage("--counters '" + args.counters + "': expected counter names separated by commas");
  }
  auto chosen = counters::ChooseCounters(*history, SplitCommas(args.counters));
  if (!chosen.ok()) return chosen.status();
  const report::HistoryReport report{std::move(history).value(), std::move(chosen).value()};
  if (args.out.format == "svg" || args.out.format == "all") {
    PERFGATE_RETURN_IF_ERROR(CheckChartable(report.history, report.counters));
  }
  return WriteDocument(args.out, report::HistoryDocument(report));
}

}  // namespace

void RegisterHistoryCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<HistoryArgs>();
  auto* cmd = app.add_subcommand(
      "history",
      "Show chosen counters over a history of engine counter reports (hf2q `generate --benchmark` output:\n"
      "`key: value` lines, a report per `# ====` header block), as a table or as an SVG line chart; or, with\n"
      "--store, a results history's series and change points (text, Markdown, JSON, SVG, or an HTML page).");
  cmd->add_option("FILE", args->file, "the counter-report history (e.g. hf2q's metrics_baseline.txt)");
  cmd->add_option("--counters", args->counters,
                  "the counters to show, a,b,... (default: median_tok_per_sec,dispatches_per_token); an unknown "
                  "name fails listing the keys");
  std::vector<std::string> formats = DocumentFormats();
  formats.push_back("html");
  AddOutputOptions(cmd, &args->out, formats, "--out,--output,-o");
  AddInputLimitOptions(cmd);
  RegisterHistoryStoreOptions(cmd, &args->store, exit_code);
  cmd->callback([cmd, args, exit_code] {
    if (!cmd->get_subcommands().empty()) return;  // check, export or import ran
    const Status s = RunHistoryOrError(*args);
    *exit_code = s.ok() ? kExitOk : ReportError(s);
  });
}

}  // namespace perfgate::cli
