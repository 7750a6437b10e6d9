// Reader for Chrome trace-event JSON as PyTorch's profiler (Kineto) writes it and
// Perfetto loads it: GPU kernels, memcpy and memset, CUDA runtime calls with their
// correlation ids, user annotations on the CPU and on the GPU streams, and the
// process and thread names of the metadata events. gzip-compressed files are
// recognised by their magic bytes. XLA's dialect (jax.profiler's perfetto trace:
// no `cat`, devices as "/device:GPU:K" processes, streams as "Stream #N" threads) maps
// onto the same model: stream-line events are GPU work, host events with a
// correlation_id launch calls, and each module execution a GPU annotation.
//
// The file is streamed through a SAX parser: one event is held at a time, only the
// fields attribution needs are kept (XLA's events, compactly, until the metadata is
// read), and no DOM of the file is ever built. A malformed field that the event's kind
// does not use is counted (json.ignored_field), never an error. Times are
// integer nanoseconds, converted exactly from the decimal text of the microsecond
// `ts` and `dur` (rounded to the nearest nanosecond), so a 16-digit `ts` keeps its
// precision where a double would not. The format is documented in
// src/sources/trace_json/FORMAT.md.
//
// Errors come in the xctrace reader's form, `path:line:col: error[json.code]: message`.
#ifndef PERFGATE_JSON_TRACE_READER_H_
#define PERFGATE_JSON_TRACE_READER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/attribution/work.h"
#include "perfgate/core/status.h"
#include "perfgate/model/work.h"

namespace perfgate::json_trace {

// Strict mode (the default) stops at the first malformed event (json.bad_event) with
// its location; lenient mode counts malformed events, drops them and goes on.
// Malformed JSON, truncation, invalid UTF-8 and empty files are errors in both modes.
enum class ReadMode { kStrict, kLenient };

struct ReadOptions {
  ReadMode mode = ReadMode::kStrict;
};

// Reads a trace file (gzip-compressed or not); errors name `path`.
StatusOr<model::WorkSet> ReadTraceJsonFile(const std::string& path, const ReadOptions& options = {});
// Reads a trace held in memory (already inflated).
StatusOr<model::WorkSet> ReadTraceJsonBuffer(std::string_view bytes, std::string display_path,
                                       const ReadOptions& options = {});

// True when the file (inflated when gzip-compressed) looks like trace-event JSON:
// after optional whitespace and a UTF-8 BOM the first byte is '{' or '[', and
// "traceEvents" or "ph" appears as a key (a string outside any string, followed by
// ':'), wherever it is. Reads up to that key, so a trace costs a few bytes and a JSON
// file without one is read once to its end (at most 4 GiB inflated); false for
// unreadable files and directories.
bool LooksLikeTraceJson(const std::string& path);
// The same decision for bytes held in memory.
bool LooksLikeTraceJsonBuffer(std::string_view bytes);

// ReadTraceJsonFile, then attribution::AttributeWork: one trace-event trial of
// `perfgate attribute`. The trace's read anomalies are in the summary's diagnostics.
StatusOr<attribution::TrialSummary> SummarizeJsonTrialFile(const std::string& path,
                                                           const attribution::AttributionOptions& options,
                                                           attribution::WorkExtras* extras = nullptr,
                                                           const ReadOptions& read_options = {});

}  // namespace perfgate::json_trace

#endif  // PERFGATE_JSON_TRACE_READER_H_
