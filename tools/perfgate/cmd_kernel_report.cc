// `perfgate kernel-report`: a per-kernel timing report (llama.cpp's or candle's phase0
// JSON, or `nsys stats` output), alone or against a baseline's.
//
//   perfgate kernel-report candle.json --baseline llama.json [--format text|markdown|json|all]
//                          [--output PATH] [--kernel-families FILE] [--top N]
//   perfgate kernel-report b.csv --baseline a.csv --tokens 128 [--baseline-tokens 128]
#include <iostream>
#include <cstdint>
#include <memory>
#include <optional>

#include "commands.h"
#include "history_append.h"
#include "perfgate/history/record.h"
#include "perfgate/kernel_report/metrics.h"
#include "report_output.h"
#include "perfgate/kernel_report/render.h"
#include "perfgate/kernel_report/report.h"

namespace perfgate::cli {
namespace {

struct KernelReportArgs {
  std::string engine;
  std::string baseline;
  OutputOptions out;  // --format, --output
  std::string kernel_families;
  int top = 20;
  std::optional<int64_t> tokens, baseline_tokens;  // nsys stats reports: the run's decoded tokens
  HistoryAppendOptions history;  // --history, --history-test
};

// A report's figures and its kernels (µs and calls per token) for the results history.
void AddReport(history::Run* run, const kernel_report::KernelReport& report) {
  for (history::Figure& f : history::FiguresOf(report.name, kernel_report::ReportGolden(report))) {
    run->figures.push_back(std::move(f));
  }
  for (const kernel_report::Kernel& k : report.kernels) {
    run->levels.push_back({report.name, "kernels", k.name, k.calls_per_token(), k.us_per_token()});
  }
}

// The run in the results history, when one is named: the engine's report, and the
// baseline's under its own name.
Status AppendToHistory(const KernelReportArgs& args, const kernel_report::KernelReport& engine,
                       const kernel_report::KernelReport* baseline) {
  if (!HistoryRequested(args.history)) return Status();
  const std::string inputs = args.engine + (baseline ? " " + args.baseline : "");
  history::Run run = history::NewRun(CliRunContext(args.history, "kernel-report", inputs));
  AddReport(&run, engine);
  history::AddMeta(&run, engine.name, engine.metadata);
  if (baseline && baseline->name != engine.name) {
    AddReport(&run, *baseline);
    history::AddMeta(&run, baseline->name, baseline->metadata);
  }
  return AppendCliRun(args.history, run);
}

int RunKernelReport(const KernelReportArgs& args) {
  kernel_report::ReadOptions read;
  if (!args.kernel_families.empty()) {
    auto loaded = attribution::LoadKernelFamilies(args.kernel_families);
    if (!loaded.ok()) return ReportError(loaded.status());
    read.families = *loaded;
  }
  read.tokens = args.tokens;
  auto engine = kernel_report::ReadKernelReport(args.engine, read);
  if (!engine.ok()) return ReportError(engine.status());
  StatusOr<kernel_report::KernelReport> baseline = kernel_report::KernelReport{};
  kernel_report::RenderOptions options;
  options.top = static_cast<size_t>(args.top);
  if (!args.baseline.empty()) {
    read.tokens = args.baseline_tokens ? args.baseline_tokens : args.tokens;
    baseline = kernel_report::ReadKernelReport(args.baseline, read);
    if (!baseline.ok()) return ReportError(baseline.status());
    options.baseline = &*baseline;
  }
  Status written = WriteDocument(args.out, kernel_report::ReportDocument(*engine, options));
  if (written.ok()) written = AppendToHistory(args, *engine, options.baseline);
  return written.ok() ? kExitOk : ReportError(written);
}

}  // namespace

void RegisterKernelReportCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<KernelReportArgs>();
  auto* cmd = app.add_subcommand(
      "kernel-report",
      "Per-family and per-kernel tables of a per-kernel timing report (llama.cpp / candle phase0 JSON, or the\n"
      "output of nsys stats --report cuda_gpu_kern_sum as its table or CSV), and\n"
      "with --baseline the Δ µs/token and Δ calls/token per family and kernel, the kernels one side lacks and\n"
      "the attack target. The reports hold medians: a Δ is a difference of medians, never a rank test.");
  cmd->add_option("report", args->engine, "the engine's report (JSON, or nsys stats output)")->required();
  cmd->add_option("--baseline", args->baseline, "the baseline's report (JSON, or nsys stats output)");
  cmd->add_option("--tokens", args->tokens,
                  "tokens the run decoded: an nsys stats report's totals per token (without it, per run)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--baseline-tokens", args->baseline_tokens, "the baseline's token count (default: --tokens)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  AddOutputOptions(cmd, &args->out, {"text", "markdown", "json"});
  cmd->add_option("--kernel-families", args->kernel_families,
                  "JSON table of kernel-family prefix rules, replacing the default table");
  cmd->add_option("--top", args->top, "kernel rows of the text and Markdown tables (default 20; 0: all)")
      ->check(CLI::Range(0, 1000000));
  AddHistoryAppendOptions(cmd, &args->history);
  AddInputLimitOptions(cmd);
  cmd->callback([args, exit_code] { *exit_code = RunKernelReport(*args); });
}

}  // namespace perfgate::cli
