// Every figure of a per-kernel timing report as a catalogue metric (perfgate/metrics/
// catalogue.h): scope "kernels" (part: the kernel's own name, quantity: the report's
// field, e.g. "kernels/kernel_mul_mv_q4_0_f32_nsg=2/us_per_token_median"), "families"
// (part: the family; us_per_token and calls_per_token summed over its kernels, and
// kernels counted) and "" (the report's totals and wall-clock figures).
#ifndef PERFGATE_KERNEL_REPORT_METRICS_H_
#define PERFGATE_KERNEL_REPORT_METRICS_H_

#include <map>
#include <string>
#include <vector>

#include "perfgate/golden/golden.h"
#include "perfgate/kernel_report/report.h"
#include "perfgate/metrics/catalogue.h"

namespace perfgate::kernel_report {

// Totals, families, then kernels in file order. No metric has per-trial values (the
// report holds medians). Default policies: calls per token exact within 0.01, counts
// (total_calls, samples_recorded, kernels) exact; µs per token noisy (10 %, floor
// 20 µs; the total 5 %), other times noisy 10 %, all lower is better; tok/s noisy 5 %,
// higher is better.
std::vector<metrics::Metric> MetricsOf(const KernelReport& report);

// The metric at `golden_path`; an unknown name is an error (metric.unknown) listing
// the report's metrics of that scope.
StatusOr<metrics::Metric> FindMetric(const KernelReport& report, const std::string& golden_path);

// The report's golden: every metric with its default policy; `context` gets the report's
// metadata (stack, commit, device, model, n_tokens, ...), the engine name and the source.
golden::GoldenFile ReportGolden(const KernelReport& report, std::map<std::string, std::string> context = {});

}  // namespace perfgate::kernel_report

#endif  // PERFGATE_KERNEL_REPORT_METRICS_H_
