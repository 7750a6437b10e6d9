// Report formats: one attribution result as a report document (text, Markdown, SVG)
// and as JSON.
//
// A Report is plain data: the per-engine summaries, the comparison when a baseline
// was given, and the configured buckets (for their hints). The renderers are pure
// functions of it; they never call back into attribution and never fail. Every format
// takes its words from the trials' source (submissions, encoder families and
// command-buffer phases for Metal; kernels, kernel families and annotation phases for
// trace-event JSON) and gives time in microseconds per decode token.
#ifndef PERFGATE_REPORT_FORMATS_H_
#define PERFGATE_REPORT_FORMATS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/counters/report.h"
#include "perfgate/document/document.h"

namespace perfgate::report {

// What every format renders.
struct Report {
  // The engine first; with a comparison, the baseline second. The comparison's
  // engine and baseline names pick the summaries when they match.
  std::vector<attribution::EngineSummary> engines;
  // Engine minus baseline, present when a baseline was given; without it the
  // formats print an engine-only partial report.
  std::optional<attribution::Comparison> comparison;
  // The configured duration bands: their names and the kernel-class hints.
  std::vector<attribution::Bucket> buckets;
  // True when the figures were computed with the seed's method (--seed-compat).
  bool seed_compat = false;
  // The options each engine was attributed with, by engine name, as the JSON report's
  // "options" records them (after the source's default process filter); may be empty.
  std::vector<std::pair<std::string, attribution::AttributionOptions>> options;
  // The command's own flags that shaped the report, name and value as given
  // ({"baseline", "llama"}, {"min_trials", "3"}), for the JSON report's "options".
  std::vector<std::pair<std::string, std::string>> flags;
  // Rows of the per-kernel-name tables of the report document (the most GPU
  // time, or the largest |Δ| beside a baseline), then a "N more" line; 0 shows every
  // name. The JSON report always holds every name.
  size_t kernel_name_rows = kDefaultKernelNameRows;
  static constexpr size_t kDefaultKernelNameRows = 20;
};

// Movers per level in the report document with a baseline (JSON's "movers" holds every
// change).
inline constexpr size_t kReportMovers = 5;

// The report as one document, which every format renders (perfgate/document/render.h):
// the title; the attack target and total; the bar charts (SVG: with a baseline Δ charts
// per bucket, phase and kernel name on a signed log scale, the attack target
// highlighted, then µs/token per bucket, phase and kernel name, engine beside
// baseline); the method and inputs; the bucket, counter, family, kernel-name and phase
// tables; the top movers (perfgate diff's, report/diff_formats.h); the kernel
// registry, the per-trial figures and the diagnostics. Its JSON is RenderJson's.
document::Document AttributeDocument(const Report& report);

// The stable machine-readable form, "schema_version": 6 (docs/cli.md, "JSON report
// schema": 6 named the summary's levels as every source shares them; 5 added "movers",
// with a baseline the diff of baseline to engine as perfgate diff --format json writes
// it, else null): 2-space indent, trailing
// newline, keys sorted except that every "buckets" object lists its bands in band order
// (with their bounds at the top level); perfgate's version and commit and the options
// used; every kernel name whole; integers as integers and every double lossless: the
// shortest text that parses back to the identical double (1.015625, 16.4279375,
// 0.30000000000000004, 1e-07, 3711.0), null for NaN and infinities. Only text,
// Markdown and SVG round.
std::string RenderJson(const Report& report);

// `perfgate history`: chosen counters over a history of counter reports (rows: the
// reports in file order, titled). A report that lacks a counter is a gap, marked "—"
// in the table and on the chart, never a zero; a value that is no number shows as
// written and is a gap on the chart.
struct HistoryReport {
  counters::CounterHistory history;
  std::vector<std::string> counters;  // counters::ChooseCounters
};
// The history as a document: a title, the table (# , report, one column per counter),
// the gap legend where there is a gap, a line chart per counter, and the JSON below.
document::Document HistoryDocument(const HistoryReport& report);
// {"kind": "perfgate.history", "schema_version": 1, path, counters, reports: [{title,
// line, values: {key: {text, number}}}]}: every value's text as written, its number
// lossless (integers as integers), null where a report lacks the counter.
std::string RenderHistoryJson(const HistoryReport& report);

}  // namespace perfgate::report

#endif  // PERFGATE_REPORT_FORMATS_H_
