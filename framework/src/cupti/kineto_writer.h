// Writes one process's capture as Chrome trace-event JSON in Kineto's shape (the
// layout framework/src/sources/trace_json/FORMAT.md describes), which perfgate's json_trace
// source already reads: why this format rather than a new one is in TRACER.md.
#ifndef PERFGATE_SRC_CUPTI_KINETO_WRITER_H_
#define PERFGATE_SRC_CUPTI_KINETO_WRITER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "cupti/trace_records.h"

namespace perfgate::cupti {

// The tracer's trace format; perfgate_tracer.format_version in every trace.
inline constexpr int kTracerFormatVersion = 1;

// A CUPTI nanosecond timestamp as trace-event microseconds, exactly: "1234.567".
std::string MicrosecondsText(uint64_t ns);

// `text` as a JSON string literal (quotes included). Invalid UTF-8 bytes become U+FFFD
// and raise *replaced (when given), so the caller can count them.
std::string JsonString(std::string_view text, bool* replaced = nullptr);

// The API calls written as a count rather than an event each (unless
// WriteOptions::all_api_calls): queries that frameworks make around every launch
// (PyTorch calls cudaGetDevice about nine times per kernel) and that launch no GPU
// work. One that does have a GPU record with its correlation id is written anyway.
bool IsSummarizedApiCall(std::string_view name);

struct WriteOptions {
  bool all_api_calls = false;  // PERFGATE_CUPTI_ALL_API=1: every API call as an event
};

// Writes the whole trace: the top-level keys (schemaVersion, deviceProperties,
// cupti_version, cuda_driver_version and cuda_runtime_version, null when unknown),
// traceEvents with one event per line (metadata, host API calls, NVTX ranges and
// marks, GPU work, overhead records), then perfgate_tracer, the tracer's account
// (TRACER.md), with summarized API calls counted per name and "complete": true. The
// tracer writes to a .partial file and renames it once this returns, so a trace that
// exists under its own name is whole. Returns false when the stream failed.
bool WriteKinetoTrace(const ProcessCapture& capture, std::ostream& out, const WriteOptions& options = {});

}  // namespace perfgate::cupti

#endif  // PERFGATE_SRC_CUPTI_KINETO_WRITER_H_
