// What a commit measured: the figures of every recording the record command wrote for
// it, with their per-trial samples, and its level tables for the movers.
//
// A recording is a directory the record command filled: trial directories or trace
// files (any trace source; in <engine>/ as `perfgate record --out` writes them), one
// per-kernel timing report, or one llama-bench report.
// Later recordings of the same commit add trials: their samples are appended.
#ifndef PERFGATE_BISECT_MEASUREMENT_H_
#define PERFGATE_BISECT_MEASUREMENT_H_

#include <optional>
#include <string>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/core/status.h"
#include "perfgate/diff/diff.h"
#include "perfgate/golden/golden.h"

namespace perfgate::bisect {

enum class RecordingKind { kTrace, kKernelReport, kBenchReport };

// "trace", "kernel report", "llama-bench report".
const char* RecordingKindName(RecordingKind kind);

// How recordings are read: the engine's name and, for traces, the attribution options
// (--tokens, --window, --process, ...); `tokens` also divides an `nsys stats` report.
struct ReadOptions {
  std::string engine = "engine";
  attribution::AttributionOptions attribution;
};

struct Measurement {
  RecordingKind kind = RecordingKind::kTrace;
  // Every catalogue figure, its samples those of every recording (a figure without
  // per-trial values gives one sample per recording: its value).
  golden::GoldenFile figures;
  // The level tables (buckets, families, phases, kernels) per trial; none for a
  // llama-bench report, which has no levels.
  std::optional<diff::Side> side;
  int recordings = 0;
  std::vector<std::string> notes;  // files of a recording that are no trial, and the like
};

// Reads one recording directory. Errors: bisect.empty_recording (nothing written),
// bisect.unknown_recording (a single file no reader takes), and the readers' own.
StatusOr<Measurement> ReadRecording(const std::string& dir, const ReadOptions& options);

// Adds a later recording of the same commit. bisect.mixed_recordings when the kinds
// differ (a commit recorded once as a trace and once as a report).
Status Merge(Measurement* into, const Measurement& more);

// The metric a bisect judges when none is named: the total GPU µs per token
// (gpu_us_per_token for traces, us_per_token for kernel reports), or a llama-bench
// report's toks/<test>/engine_ts for its tg test (its only test, else tg128).
StatusOr<std::string> DefaultMetric(const Measurement& measurement);

// The figures' names, comma-separated ("none" when there are none): what an error about
// an unknown metric lists.
std::string FigureNames(const golden::GoldenFile& figures);

// A figure's samples, or its value as the one sample when it has none (a report's median).
std::vector<double> SamplesOrValue(const golden::GoldenValue& value);

// The samples and policy of `metric` (a golden path). An unknown name is an error
// (bisect.unknown_metric) listing the figures the recording has.
struct MetricSamples {
  std::vector<double> samples;
  gates::Policy policy;
};
StatusOr<MetricSamples> SamplesOf(const Measurement& measurement, const std::string& metric);

}  // namespace perfgate::bisect

#endif  // PERFGATE_BISECT_MEASUREMENT_H_
