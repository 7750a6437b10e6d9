// `perfgate attribute`: per-token GPU attribution of several trials per engine, and
// the engine-versus-baseline report.
#include <algorithm>
#include <filesystem>
#include <set>
#include <iostream>
#include <map>
#include <memory>

#include "commands.h"
#include "history_append.h"
#include "perfgate/history/record.h"
#include "engine_options.h"
#include "report_output.h"
#include "perfgate/attribution/attribute.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/core/names.h"
#include "perfgate/report/formats.h"

namespace perfgate::cli {
namespace {

struct AttributeArgs {
  std::vector<std::string> traces;
  std::string baseline;
  EngineOptionArgs engine;  // --tokens, --process, --window, ... (shared with new-suite)
  OutputOptions out;  // --format, --output
  int min_trials = 1;
  std::string kernel_names = std::to_string(report::Report::kDefaultKernelNameRows);  // N or "all"
  HistoryAppendOptions history;  // --history, --history-test
};

// --kernel-names N|all: the rows of the text and Markdown kernel-name tables (0: all).
StatusOr<size_t> KernelNameRows(const std::string& value) {
  auto n = ParseRowCount("--kernel-names", value);
  if (!n.ok()) return n.status();
  return *n == SIZE_MAX ? size_t{0} : *n;
}

// The engines' trials, in the order engines first appear, the baseline last.
struct EngineTrials {
  std::vector<std::string> order;
  std::map<std::string, std::vector<bundle::Trial>> trials;
};

// One trial given twice (the same path under two --trace flags) would count twice in
// the medians.
Status CheckDistinctTrials(const std::string& engine, const std::vector<bundle::Trial>& trials) {
  std::set<std::string> seen;
  for (const bundle::Trial& t : trials) {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(t.path, ec);
    if (!seen.insert(ec ? t.path : canonical.string()).second) {
      return Status::Error("bundle.duplicate_trial",
                           "engine " + engine + " lists this trial twice; each trial counts once in the medians",
                           {t.path}, ErrorKind::kUsage);
    }
  }
  return Status();
}

// --counters FILE: the counter report of an engine of one trial (a trial directory's
// counters.txt is found on its own; the option replaces it).
Status ApplyCountersOption(const AttributeArgs& args, const std::string& engine, std::vector<bundle::Trial>* trials) {
  const std::string path = CountersFor(args.engine, engine);
  if (path.empty()) return Status();
  if (trials->size() != 1) {
    return Usage("--counters " + engine + "=" + path + ": engine " + engine + " has " +
                 std::to_string(trials->size()) +
                 " trials; give each trial its counter report as trial-K/counters.txt instead");
  }
  trials->front().counters_path = path;
  return Status();
}

StatusOr<EngineTrials> DiscoverEngines(const AttributeArgs& args) {
  EngineTrials out;
  std::map<std::string, std::vector<std::string>> paths_given;
  for (const std::string& t : args.traces) {
    std::string engine, path;
    if (!SplitAssignment(t, &engine, &path)) return Usage("--trace '" + t + "': expected ENGINE=PATH");
    auto recording = bundle::DiscoverTrials(path);
    if (!recording.ok()) return recording.status();
    for (const std::string& ignored : recording->ignored) std::cerr << "note: not a trial, ignored: " << FormatPath(ignored) << '\n';
    if (!out.trials.count(engine)) out.order.push_back(engine);
    auto& trials = out.trials[engine];
    trials.insert(trials.end(), recording->trials.begin(), recording->trials.end());
    paths_given[engine].push_back(path);
  }
  for (const std::string& engine : out.order) {
    PERFGATE_RETURN_IF_ERROR(ApplyCountersOption(args, engine, &out.trials[engine]));
  }
  for (const std::string& engine : out.order) {
    const std::vector<bundle::Trial>& trials = out.trials[engine];
    PERFGATE_RETURN_IF_ERROR(CheckDistinctTrials(engine, trials));
    PERFGATE_RETURN_IF_ERROR(bundle::RequireTrials(paths_given[engine].front(), {trials, {}}, args.min_trials));
    PERFGATE_RETURN_IF_ERROR(bundle::RequireOneSource(paths_given[engine].front(), trials));
  }
  PERFGATE_RETURN_IF_ERROR(CheckEngineNames(args.engine, out.order, "--trace"));
  if (!args.baseline.empty() && !out.trials.count(args.baseline)) {
    return Usage("--baseline " + args.baseline + " has no --trace " + args.baseline + "=PATH (engines: " +
                 ListNames(out.order, "") + ")");
  }
  if (!args.baseline.empty() && out.order.size() < 2) return Usage("--baseline needs at least one other engine's traces");
  if (!args.baseline.empty()) {
    out.order.erase(std::find(out.order.begin(), out.order.end(), args.baseline));
    out.order.push_back(args.baseline);
  }
  return out;
}

// Attributes every trial of one engine; each trial gets its source's default process
// filter when --process names none.
StatusOr<attribution::EngineSummary> AttributeEngine(const std::string& engine, const std::vector<bundle::Trial>& trials,
                                                     const attribution::AttributionOptions& options) {
  return bundle::AttributeTrials(engine, trials, options,
                                 [&](const bundle::Trial& t, const attribution::TrialSummary& summary) {
                                   const sources::SourceWords& words = t.source->descriptor.words;
                                   std::cerr << "ok: " << engine << ' ' << FormatPath(t.path) << ": " << summary.items
                                             << ' ' << words.units << " over " << summary.tokens << " tokens ("
                                             << summary.tokens_source << "), " << summary.registered_kernels << ' '
                                             << words.distinct_names << '\n';
                                 });
}

// Per engine, its first trial's meta.json, flattened (bundle::ReadTrialMeta).
using EngineMeta = std::map<std::string, std::map<std::string, std::string>>;

// Every engine attributed, and the comparison when there is a baseline; with a results
// history named, each engine's first trial's meta.json in `meta`.
StatusOr<report::Report> BuildReport(const AttributeArgs& args, EngineMeta* meta) {
  auto base = BaseOptions(args.engine);
  if (!base.ok()) return base.status();
  auto engines = DiscoverEngines(args);
  if (!engines.ok()) return engines.status();
  auto kernel_name_rows = KernelNameRows(args.kernel_names);
  if (!kernel_name_rows.ok()) return kernel_name_rows.status();
  report::Report report;
  report.kernel_name_rows = *kernel_name_rows;
  report.buckets = base->buckets;
  report.seed_compat = args.engine.seed_compat;
  report.flags = {{"baseline", args.baseline}, {"format", args.out.format}, {"min_trials", std::to_string(args.min_trials)},
                  {"kernel_names", args.kernel_names}};
  for (const std::string& engine : engines->order) {
    auto options = EngineOptions(args.engine, *base, engine);
    if (!options.ok()) return options.status();
    const auto& trials = engines->trials.at(engine);  // never empty: RequireTrials
    if (HistoryRequested(args.history)) {
      PERFGATE_ASSIGN_OR_RETURN((*meta)[engine], bundle::ReadTrialMeta(trials.front()));
    }
    report.options.emplace_back(engine, sources::WithDefaultProcessFilter(*trials.front().source, engine, *options));
    auto summary = AttributeEngine(engine, trials, *options);
    if (!summary.ok()) return summary.status();
    report.engines.push_back(std::move(summary).value());
  }
  if (!args.baseline.empty()) {
    report.comparison = attribution::Compare(report.engines.front(), report.engines.back(), base->buckets,
                                             args.engine.seed_compat);
    // Reports read the engine first and the baseline second.
    if (report.engines.size() > 2) {
      attribution::EngineSummary baseline = std::move(report.engines.back());
      report.engines.pop_back();
      report.engines.insert(report.engines.begin() + 1, std::move(baseline));
    }
  }
  return report;
}

// The formats of the report: its document has many tables, so no CSV.
const std::vector<std::string> kAttributeFormats = {"text", "markdown", "json", "svg"};

Status WriteReport(const AttributeArgs& args, const report::Report& report) {
  return WriteDocument(args.out, report::AttributeDocument(report), kAttributeFormats);
}

// The run's figures in the results history, when one is named: every engine's.
Status AppendToHistory(const AttributeArgs& args, const report::Report& report, const EngineMeta& meta) {
  if (!HistoryRequested(args.history)) return Status();
  std::string traces;
  for (const std::string& t : args.traces) traces += (traces.empty() ? "" : " ") + t;
  history::Run run = history::NewRun(CliRunContext(args.history, "attribute", traces));
  for (const attribution::EngineSummary& engine : report.engines) {
    history::AddEngine(&run, engine.name, engine);
    history::AddMeta(&run, engine.name, meta.at(engine.name));
  }
  return AppendCliRun(args.history, run);
}

int RunAttribute(const AttributeArgs& args) {
  EngineMeta meta;
  auto report = BuildReport(args, &meta);
  if (!report.ok()) return ReportError(report.status());
  Status written = WriteReport(args, *report);
  if (written.ok()) written = AppendToHistory(args, *report, meta);
  return written.ok() ? kExitOk : ReportError(written);
}

}  // namespace

void RegisterAttributeCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<AttributeArgs>();
  auto* cmd = app.add_subcommand(
      "attribute",
      "Attribute GPU time per decode token over trials, and compare an engine with a baseline.\n"
      "What is counted comes from each trace's source: submissions for Metal System Trace (one GPU\n"
      "execution-point pair, about one encoder), kernels for trace-event JSON (one GPU kernel event).");
  cmd->add_option("--trace", args->traces,
                  "ENGINE=PATH, repeatable: a trial directory of <schema>.xml exports, one XML holding several "
                  "tables, or a recording directory of trial subdirectories")
      ->required();
  cmd->add_option("--baseline", args->baseline, "the engine to compare against (e.g. llama)");
  cmd->add_option("--min-trials", args->min_trials, "fail when an engine has fewer trials (default 1)")
      ->check(PositiveInt());
  AddEngineOptions(cmd, &args->engine, /*with_seed_compat=*/true);
  AddCountersOption(cmd, &args->engine);
  AddOutputOptions(cmd, &args->out, kAttributeFormats);
  cmd->add_option("--kernel-names", args->kernel_names,
                  "rows of the per-kernel-name tables in text and Markdown reports: N (default " +
                      args->kernel_names + ") or all; the JSON report holds every name");
  AddHistoryAppendOptions(cmd, &args->history);
  AddInputLimitOptions(cmd);
  AddJobsOption(cmd);
  cmd->callback([args, exit_code] { *exit_code = RunAttribute(*args); });
}

}  // namespace perfgate::cli
