// `perfgate kernel-report`: a per-kernel timing report (llama.cpp's or candle's phase0
// JSON), alone or against a baseline's.
//
//   perfgate kernel-report candle.json --baseline llama.json [--format text|markdown|json|all]
//                          [--output PATH] [--kernel-families FILE] [--top N]
#include <iostream>
#include <memory>

#include "commands.h"
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
};

int RunKernelReport(const KernelReportArgs& args) {
  attribution::KernelFamilyTable families = kernel_report::DefaultReportFamilies();
  if (!args.kernel_families.empty()) {
    auto loaded = attribution::LoadKernelFamilies(args.kernel_families);
    if (!loaded.ok()) return ReportError(loaded.status());
    families = *loaded;
  }
  auto engine = kernel_report::ReadKernelReport(args.engine, families);
  if (!engine.ok()) return ReportError(engine.status());
  StatusOr<kernel_report::KernelReport> baseline = kernel_report::KernelReport{};
  kernel_report::RenderOptions options;
  options.top = static_cast<size_t>(args.top);
  if (!args.baseline.empty()) {
    baseline = kernel_report::ReadKernelReport(args.baseline, families);
    if (!baseline.ok()) return ReportError(baseline.status());
    options.baseline = &*baseline;
  }
  const Status written = WriteDocument(args.out, kernel_report::ReportDocument(*engine, options));
  return written.ok() ? kExitOk : ReportError(written);
}

}  // namespace

void RegisterKernelReportCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<KernelReportArgs>();
  auto* cmd = app.add_subcommand(
      "kernel-report",
      "Per-family and per-kernel tables of a per-kernel timing report (llama.cpp / candle phase0 JSON), and\n"
      "with --baseline the Δ µs/token and Δ calls/token per family and kernel, the kernels one side lacks and\n"
      "the attack target. The reports hold medians: a Δ is a difference of medians, never a rank test.");
  cmd->add_option("report", args->engine, "the engine's report (JSON)")->required();
  cmd->add_option("--baseline", args->baseline, "the baseline's report (JSON)");
  AddOutputOptions(cmd, &args->out, {"text", "markdown", "json"});
  cmd->add_option("--kernel-families", args->kernel_families,
                  "JSON table of kernel-family prefix rules, replacing the default table");
  cmd->add_option("--top", args->top, "kernel rows of the text and Markdown tables (default 20; 0: all)")
      ->check(CLI::Range(0, 1000000));
  AddInputLimitOptions(cmd);
  cmd->callback([args, exit_code] { *exit_code = RunKernelReport(*args); });
}

}  // namespace perfgate::cli
