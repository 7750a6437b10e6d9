// `perfgate toks-ratio`: engine tok/s over llama-bench tok/s per cell, held to ratio
// floors (a perf_baseline.json policy file, or one --floor), printed as a table; exit 1
// when a cell is below its floor beyond the tolerance, 2 on bad input or usage.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include "commands.h"
#include "history_append.h"
#include "perfgate/history/record.h"
#include "engine_options.h"
#include "report_output.h"
#include "perfgate/toks/bench_report.h"
#include "perfgate/toks/ratio.h"

namespace perfgate::cli {
namespace {

struct ToksArgs {
  std::string policy;
  std::string reports;
  std::string engine;
  std::string baseline;
  double floor = 0;
  double tolerance_pp = 0;
  std::string test;
  toks::RunFilter runs;  // --build, --backend, --gpu: which runs of llama-bench's reports
  OutputOptions out;     // --format, --output
  HistoryAppendOptions history;  // --history, --history-test
};

Status CheckArgs(const ToksArgs& a, bool floor_given, bool tolerance_given) {
  if (!a.policy.empty()) {
    if (floor_given || tolerance_given) {
      return Usage("--floor/--tolerance-pp and --policy exclude each other (the policy file holds the floors and _tolerance_pp)");
    }
    if (a.reports.empty()) return Usage("--policy needs --reports DIR (<DIR>/<cell>/engine.json and llama-bench.json)");
    if (!a.engine.empty() || !a.baseline.empty()) return Usage("--engine/--baseline go with --floor, not --policy");
    return Status();
  }
  if (!floor_given) return Usage("give --policy FILE --reports DIR, or --engine FILE --baseline FILE --floor X");
  if (a.engine.empty() || a.baseline.empty()) return Usage("--floor needs --engine FILE and --baseline FILE");
  if (!(a.floor > 0) || !std::isfinite(a.floor)) return Usage("--floor must be a finite ratio > 0");
  if (!(a.tolerance_pp >= 0) || !std::isfinite(a.tolerance_pp)) return Usage("--tolerance-pp must be a finite number >= 0");
  if (floor_given && a.tolerance_pp >= a.floor * 100) {
    char points[32];
    std::snprintf(points, sizeof points, "%g", a.floor * 100);
    return Usage("--tolerance-pp reaches --floor (" + std::string(points) +
                 " percentage points): every ratio would pass and the gate could never fail");
  }
  return Status();
}

// Report directories that name no cell of the policy: said, not silently skipped.
void NoteUnusedDirectories(const toks::RatioPolicy& policy, const std::string& reports) {
  std::set<std::string> cells;
  for (const toks::RatioCell& c : policy.cells) cells.insert(c.name);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(reports, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory(ec) && cells.count(name) == 0) {
      std::cerr << "note: " << FormatPath(entry.path().string()) << " names no cell of the policy; not read\n";
    }
  }
}

StatusOr<std::vector<toks::RatioVerdict>> Judge(const ToksArgs& a) {
  if (!a.policy.empty()) {
    PERFGATE_ASSIGN_OR_RETURN(toks::RatioPolicy policy, toks::ReadRatioPolicy(a.policy));
    if (!policy.has_tolerance) std::cerr << "note: the policy has no _tolerance_pp: tolerance 0 pp\n";
    NoteUnusedDirectories(policy, a.reports);
    return toks::JudgePolicy(policy, a.reports, a.test, a.runs);
  }
  PERFGATE_ASSIGN_OR_RETURN(toks::BenchReport engine, toks::ReadBenchReport(a.engine));
  PERFGATE_ASSIGN_OR_RETURN(toks::BenchReport baseline, toks::ReadBenchReport(a.baseline, a.runs));
  PERFGATE_ASSIGN_OR_RETURN(toks::RatioVerdict v,
                            toks::JudgeRatio("", engine, baseline, a.test, a.floor, a.tolerance_pp));
  return std::vector<toks::RatioVerdict>{std::move(v)};
}

// The cells' figures (ratio, engine tok/s, baseline tok/s) in the results history,
// when one is named, under the engine name "engine".
Status AppendToHistory(const ToksArgs& a, const std::vector<toks::RatioVerdict>& verdicts) {
  if (!HistoryRequested(a.history)) return Status();
  const std::string inputs = a.policy.empty() ? a.engine + " " + a.baseline : a.policy + " " + a.reports;
  history::Run run = history::NewRun(CliRunContext(a.history, "toks-ratio", inputs));
  run.figures = history::FiguresOf("engine", toks::RatioGolden(verdicts));
  return AppendCliRun(a.history, run);
}

int RunToks(const ToksArgs& a, bool floor_given, bool tolerance_given) {
  if (Status s = CheckArgs(a, floor_given, tolerance_given); !s.ok()) return ReportError(s);
  auto verdicts = Judge(a);
  if (!verdicts.ok()) return ReportError(verdicts.status());
  const std::vector<toks::RatioVerdict>& v = *verdicts;
  Status written = WriteDocument(a.out, toks::RatioDocument(v));
  if (written.ok()) written = AppendToHistory(a, v);
  if (!written.ok()) return ReportError(written);
  for (const toks::RatioVerdict& v : *verdicts) {
    if (!v.pass) return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace

void RegisterToksCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ToksArgs>();
  auto* cmd = app.add_subcommand(
      "toks-ratio",
      "Engine tok/s over llama-bench tok/s per cell, held to ratio floors: a cell fails when its ratio is more\n"
      "than the tolerance (percentage points) below its floor. Reports: llama-bench's Markdown table, -o json or\n"
      "-o jsonl, or\n"
      "{\"tests\": [{\"n_prompt\": 0, \"n_gen\": 128, \"samples_ns\": [...]}]}.");
  cmd->add_option("--policy", args->policy, "a ratio-floor policy: hf2q's perf_baseline.json as is");
  cmd->add_option("--reports", args->reports, "with --policy: DIR/<cell>/engine.json and DIR/<cell>/llama-bench.json(l)");
  cmd->add_option("--engine", args->engine, "with --floor: the engine's tok/s report");
  cmd->add_option("--baseline", args->baseline, "with --floor: llama-bench's report");
  auto* floor = cmd->add_option("--floor", args->floor, "without --policy: the ratio floor (e.g. 1.0)");
  auto* tolerance = cmd->add_option("--tolerance-pp", args->tolerance_pp, "with --floor: the tolerance in percentage points (default 0)");
  cmd->add_option("--test", args->test,
                  std::string("the llama-bench test gated (default: the policy's, else the one tg test of both reports, else ") +
                      toks::kDefaultTest + "); e.g. tg256, pp512, \"pp512+tg128\", \"tg128 @ d512\"");
  cmd->add_option("--build", args->runs.build,
                  "of llama-bench reports that append several runs: the build read (a build_commit prefix or the "
                  "build_number)");
  cmd->add_option("--backend", args->runs.backend, "the same: the backends read (\"CUDA\", \"Vulkan\", \"ROCm,RPC\")");
  cmd->add_option("--gpu", args->runs.gpu, "the same: a part of the gpu_info read (\"H200\")");
  AddOutputOptions(cmd, &args->out, {"text", "markdown", "json", "csv"});
  AddHistoryAppendOptions(cmd, &args->history);
  AddInputLimitOptions(cmd);
  cmd->callback([args, exit_code, floor, tolerance] {
    *exit_code = RunToks(*args, floor->count() > 0, tolerance->count() > 0);
  });
}

}  // namespace perfgate::cli
