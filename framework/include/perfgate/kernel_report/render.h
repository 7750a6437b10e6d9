// A per-kernel timing report, alone or against a baseline, as a report document.
// Every format says that the figures are medians (no per-trial samples, no rank test).
#ifndef PERFGATE_KERNEL_REPORT_RENDER_H_
#define PERFGATE_KERNEL_REPORT_RENDER_H_

#include <cstddef>
#include <string>

#include "perfgate/kernel_report/report.h"
#include "perfgate/document/document.h"

namespace perfgate::kernel_report {

struct RenderOptions {
  const KernelReport* baseline = nullptr;  // none: the engine's tables alone
  size_t top = 20;  // kernel rows of the text and Markdown tables (0: all); JSON has every kernel
};

// The report as a document: the reports compared (path and metadata), the family and
// kernel tables (µs/token, calls/token; beside a baseline, Δ and Δ %, and per call),
// the kernels one side lacks, the attack target, the diagnostics, and RenderJson as
// its data.
document::Document ReportDocument(const KernelReport& engine, const RenderOptions& options = {});
// "kind": "perfgate.kernel_report", "schema_version": 1; every figure lossless (the
// JSON report's formatter) and keyed by its catalogue golden path.
std::string RenderJson(const KernelReport& engine, const RenderOptions& options = {});

}  // namespace perfgate::kernel_report

#endif  // PERFGATE_KERNEL_REPORT_RENDER_H_
