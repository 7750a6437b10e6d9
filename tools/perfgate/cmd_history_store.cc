// `perfgate history --store LOC` and `perfgate history check|export|import`: the
// results history (perfgate/history/), its change points and its gate.
#include "cmd_history_store.h"

#include <iostream>
#include <sstream>

#include "commands.h"
#include "engine_options.h"
#include "perfgate/core/environment.h"
#include "perfgate/history/html.h"
#include "perfgate/history/interchange.h"
#include "perfgate/history/record.h"
#include "perfgate/history/report.h"
#include "perfgate/document/render.h"

namespace perfgate::cli {

std::vector<std::string> SplitCommas(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

namespace {

StatusOr<std::unique_ptr<history::Store>> OpenNamedStore(const StoreArgs& args) {
  const std::string location = history::HistoryLocation(args.store);
  if (location.empty()) {
    return Usage(std::string("no results history named: give --store LOCATION or set ") + history::kHistoryEnv);
  }
  return history::OpenStore(location);
}

history::SeriesFilter FilterOf(const StoreArgs& args) {
  return {args.suite, args.test, args.engine, SplitCommas(args.metrics)};
}

// The selection and detector options every store subcommand takes.
void AddSelectionOptions(CLI::App* cmd, StoreArgs* args) {
  cmd->add_option("--store", args->store,
                  std::string("the results history: an SQLite file or a postgresql:// URL (default: ") +
                      history::kHistoryEnv + ")");
  cmd->add_option("--suite", args->suite, "only this suite (a gtest suite, or a subcommand: attribute, kernel-report, toks-ratio)");
  cmd->add_option("--test", args->test, "only this test");
  cmd->add_option("--engine", args->engine, "only this engine");
  cmd->add_option("--metric", args->metrics,
                  "only these metrics, a,b,... (catalogue golden paths: gpu_us_per_token, buckets/md_8_32us/us_per_token)");
}

void AddDetectorOptions(CLI::App* cmd, history::ChangePointOptions* o) {
  cmd->add_option("--window", o->window, "E-divisive's analysis window in runs (default 50)")->check(CLI::Range(6, 100000));
  cmd->add_option("--max-pvalue", o->max_pvalue, "a change point's largest p-value (default 1e-5; Otava's is 0.001)")
      ->check(CLI::Range(1e-300, 1.0));
  cmd->add_option("--min-magnitude", o->min_magnitude,
                  "a change point's smallest |relative change|, a fraction (default 0: any significant change)")
      ->check(CLI::Range(0.0, 1e6));
}

// The page and the document's formats: --format html, or all of them with --format all.
Status WriteHistory(const OutputOptions& out, const std::string& location,
                    const std::vector<history::SeriesHistory>& series, const history::ChangePointOptions& options) {
  const document::Document doc = history::HistoryDocument(location, series, options);
  std::vector<Rendering> renderings;
  for (const std::string& f : document::FormatsOf(doc)) {
    renderings.push_back({f, [&doc, f] { return document::Render(doc, f); }});
  }
  renderings.push_back({"html", [&] {
                          return StatusOr<std::string>(history::RenderHistoryHtml(
                              series, {"perfgate results history", location, ""}));
                        }});
  return WriteRenderings(out, renderings);
}

}  // namespace

Status RunStoreHistory(const StoreArgs& args, const OutputOptions& out) {
  PERFGATE_ASSIGN_OR_RETURN(auto store, OpenNamedStore(args));
  PERFGATE_ASSIGN_OR_RETURN(auto series, history::AnalyseHistory(*store, FilterOf(args), args.detector));
  return WriteHistory(out, store->Location(), series, args.detector);
}

namespace {

struct CheckArgs {
  StoreArgs store;
  history::CheckPolicy policy;
  bool allow_short = false;
  OutputOptions out;
};

int RunCheck(CheckArgs args) {
  args.policy.detector = args.store.detector;
  auto store = OpenNamedStore(args.store);
  if (!store.ok()) return ReportError(store.status());
  auto result = history::CheckHistory(**store, FilterOf(args.store), args.policy);
  if (!result.ok()) return ReportError(result.status());
  const Status written =
      WriteDocument(args.out, history::CheckDocument((*store)->Location(), *result, args.policy));
  if (!written.ok()) return ReportError(written);
  if (!result->pass()) return kExitCheckFailed;
  // A series too short to judge passes silently nowhere.
  if (history::ShortFails(*result, args.allow_short)) {
    std::cerr << "perfgate: error[history.too_short]: " << result->too_short.size()
              << " series hold too few runs to judge, and under CI that is no pass (--allow-short, or "
                 "PERFGATE_ALLOW_SKIP=1, accepts it)\n";
    return kExitCheckFailed;
  }
  return kExitOk;
}

void RegisterCheck(CLI::App* history_cmd, int* exit_code) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = history_cmd->add_subcommand(
      "check",
      "Fail (exit 1) when the newest runs of a results history open a change point in the bad direction: how a\n"
      "slow drift fails a build. Names the metric, the commit range and the movers.");
  AddSelectionOptions(cmd, &args->store);
  AddDetectorOptions(cmd, &args->store.detector);
  cmd->add_option("--recent", args->policy.recent, "judge change points among the newest N runs (default 5)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--min-change", args->policy.min_change,
                  "the least |relative change| that fails, a fraction (default 0: every significant change in the bad "
                  "direction)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--min-runs", args->policy.min_runs, "fewer runs in a series: too short to judge (default 8)")
      ->check(CLI::Range(2, 1000000));
  cmd->add_flag("--allow-short", args->allow_short, "a series too short to judge passes under CI too");
  AddOutputOptions(cmd, &args->out, DocumentFormats());
  cmd->callback([args, exit_code] { *exit_code = RunCheck(*args); });
}

struct ExportArgs {
  StoreArgs store;
  std::string format = "bmf";
  int64_t run = history::kNewestRun;
  history::OtavaConfigOptions otava;
  std::string output;
};

Status RunExport(const ExportArgs& args) {
  PERFGATE_ASSIGN_OR_RETURN(auto store, OpenNamedStore(args.store));
  const history::SeriesFilter filter = FilterOf(args.store);
  std::ostringstream out;
  if (args.format == "bmf") {
    PERFGATE_RETURN_IF_ERROR(history::ExportBmf(*store, filter, args.run, out));
  } else if (args.format == "otava-csv") {
    PERFGATE_RETURN_IF_ERROR(history::ExportOtavaCsv(*store, filter, out));
  } else {
    PERFGATE_RETURN_IF_ERROR(history::ExportOtavaConfig(*store, filter, args.otava, out));
  }
  return WriteOutput(args.output, out.str());
}

void RegisterExport(CLI::App* history_cmd, int* exit_code) {
  auto args = std::make_shared<ExportArgs>();
  auto* cmd = history_cmd->add_subcommand(
      "export",
      "Write a results history for other tools: one run in Bencher's Metric Format (bmf), every run as Apache\n"
      "Otava's CSV (otava-csv), or the Otava test configuration that reads that CSV (otava-config).");
  AddSelectionOptions(cmd, &args->store);
  cmd->add_option("--format", args->format, "bmf (default), otava-csv or otava-config")
      ->check(CLI::IsMember({"bmf", "otava-csv", "otava-config"}));
  cmd->add_option("--run", args->run, "bmf: the run to write (default: the newest)")->check(CLI::PositiveNumber);
  cmd->add_option("--otava-test", args->otava.test_name, "otava-config: the test's name (default perfgate)");
  cmd->add_option("--otava-csv", args->otava.csv_path, "otava-config: the CSV file's path (default history.csv)");
  cmd->add_option("--output,-o", args->output, "write here instead of stdout");
  cmd->callback([args, exit_code] {
    const Status s = RunExport(*args);
    *exit_code = s.ok() ? kExitOk : ReportError(s);
  });
}

struct ImportArgs {
  std::string store;
  std::vector<std::string> files;
  history::ImportOptions options;
  bool dry_run = false;
};

Status ImportOne(const ImportArgs& args, history::Store* store, const std::string& file) {
  if (args.dry_run) {
    PERFGATE_ASSIGN_OR_RETURN(history::ImportedFile read, history::ReadImportFile(file, args.options));
    std::cerr << "would import " << FormatPath(file) << " (" << history::ImportKindName(read.kind)
              << "): " << read.runs.size() << " runs\n";
    return Status();
  }
  PERFGATE_ASSIGN_OR_RETURN(history::ImportResult done, history::ImportFile(*store, file, args.options));
  std::cerr << "imported " << FormatPath(file) << " (" << history::ImportKindName(done.kind)
            << "): " << done.run_ids.size() << " runs, " << done.added << " added\n";
  return Status();
}

Status RunImport(const ImportArgs& args) {
  std::unique_ptr<history::Store> store;
  if (!args.dry_run) {
    PERFGATE_ASSIGN_OR_RETURN(store, OpenNamedStore(StoreArgs{args.store, "", "", "", "", {}}));
  }
  for (const std::string& file : args.files) PERFGATE_RETURN_IF_ERROR(ImportOne(args, store.get(), file));
  return Status();
}

void RegisterImport(CLI::App* history_cmd, int* exit_code) {
  auto args = std::make_shared<ImportArgs>();
  auto* cmd = history_cmd->add_subcommand(
      "import",
      "Append what a team already has to a results history: a counter-report history (hf2q's\n"
      "metrics_baseline.txt), perfgate attribute, kernel-report or toks-ratio JSON reports, golden files.\n"
      "Importing a file again adds only the runs the history lacks.");
  cmd->add_option("FILE", args->files, "the files, imported in the order given")->required();
  cmd->add_option("--store", args->store,
                  std::string("the results history (default: ") + history::kHistoryEnv + ")");
  cmd->add_option("--engine", args->options.engine, "the engine of one-engine files that name none (default hf2q)");
  cmd->add_option("--suite", args->options.suite, "the runs' suite (default: a golden's folder, else the file's kind)");
  cmd->add_option("--test", args->options.test, "the runs' test (default: the file's name)");
  cmd->add_option("--time", args->options.time, "UTC time (2026-12-05T23:14:00Z) of files that give none");
  cmd->add_option("--commit", args->options.commit, "the commit of files that name none");
  cmd->add_option("--branch", args->options.branch, "the branch of files that name none");
  cmd->add_option("--machine", args->options.machine, "the machine of files that name none");
  cmd->add_flag("--dry-run", args->dry_run, "read the files and say what would be imported; write nothing");
  AddInputLimitOptions(cmd);
  cmd->callback([args, exit_code] {
    const Status s = RunImport(*args);
    *exit_code = s.ok() ? kExitOk : ReportError(s);
  });
}

}  // namespace

void RegisterHistoryStoreOptions(CLI::App* history_cmd, StoreArgs* args, int* exit_code) {
  AddSelectionOptions(history_cmd, args);
  AddDetectorOptions(history_cmd, &args->detector);
  RegisterCheck(history_cmd, exit_code);
  RegisterExport(history_cmd, exit_code);
  RegisterImport(history_cmd, exit_code);
}

}  // namespace perfgate::cli
