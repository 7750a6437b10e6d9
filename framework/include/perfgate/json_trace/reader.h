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
// src/json_trace/FORMAT.md.
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

#include "perfgate/core/diagnostics.h"
#include "perfgate/core/status.h"

namespace perfgate::json_trace {

// Strict mode (the default) stops at the first malformed event (json.bad_event) with
// its location; lenient mode counts malformed events, drops them and goes on.
// Malformed JSON, truncation, invalid UTF-8 and empty files are errors in both modes.
enum class ReadMode { kStrict, kLenient };

struct ReadOptions {
  ReadMode mode = ReadMode::kStrict;
};

// A `pid` or `tid` written as a string ("Spans", "Traces", "") that is not a decimal
// integer gets a synthetic id at or below this value; GpuTrace::string_ids maps it
// back to its text.
inline constexpr int64_t kStringIdBase = -(int64_t{1} << 62);

enum class GpuWorkKind { kKernel, kMemcpy, kMemset };

// "kernel", "memcpy" or "memset".
std::string_view GpuWorkKindName(GpuWorkKind kind);

// One unit of GPU work: an `X` event of category `kernel`, `gpu_memcpy` or `gpu_memset`
// (XLA: an event on a stream line). A kernel event is one real dispatch.
struct GpuWork {
  GpuWorkKind kind = GpuWorkKind::kKernel;
  std::string name;  // the kernel's demangled name, or e.g. "Memcpy DtoH (Device -> Pinned)"
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t pid = 0;     // the event's pid: the device index in Kineto traces
  int64_t tid = 0;     // the event's tid: the stream, i.e. the channel
  int64_t device = 0;  // args.device, else pid (XLA: K of "/device:GPU:K")
  int64_t stream = 0;  // args.stream, else tid (XLA: N of "Stream #N")
  std::optional<int64_t> correlation;  // args.correlation (XLA: args.correlation_id): joins to the launching RuntimeCall
  // The owning host process where the source records it (nsys: globalPid); empty in
  // Kineto and XLA traces, whose work is owned by its launch call's process.
  std::optional<int64_t> process;
  int64_t duration_ns() const { return end_ns - start_ns; }
};

// A host-side CUDA call: an `X` event of category `cuda_runtime` or `cuda_driver`
// (cudaLaunchKernel, cudaGraphLaunch, cudaMemcpyAsync, cuLaunchKernel, ...).
struct RuntimeCall {
  std::string name;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t pid = 0;  // the host process
  int64_t tid = 0;  // the host thread
  std::optional<int64_t> correlation;  // args.correlation, shared with the GPU work it launched
  bool driver = false;                 // category cuda_driver rather than cuda_runtime
  int64_t duration_ns() const { return end_ns - start_ns; }
};

// A named range: `user_annotation` (record_function on a host thread) or
// `gpu_user_annotation` (the same range projected onto a GPU stream by the profiler).
struct Annotation {
  std::string name;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t pid = 0;  // host process, or the device for GPU annotations
  int64_t tid = 0;  // host thread, or the stream for GPU annotations
  std::optional<int64_t> external_id;  // args["External id"]: the same id on every copy of a range
  int64_t duration_ns() const { return end_ns - start_ns; }
};

// The events of one trace file, in file order within each list.
struct GpuTrace {
  std::string path;
  std::vector<GpuWork> gpu_work;
  std::vector<RuntimeCall> runtime_calls;
  std::vector<Annotation> cpu_annotations;  // cat "user_annotation"
  std::vector<Annotation> gpu_annotations;  // cat "gpu_user_annotation"
  std::map<int64_t, std::string> process_names;                    // `M` process_name: pid -> args.name
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names;  // `M` thread_name: (pid, tid) -> args.name
  std::map<int64_t, std::string> string_ids;  // synthetic pid/tid (<= kStringIdBase) -> its text

  int64_t events = 0;      // elements of traceEvents, malformed ones included
  int64_t bad_events = 0;  // malformed events dropped (lenient mode)
  // Events per kind, "ph/cat" for complete events ("X/kernel", "X/cpu_op"), "ph/name"
  // for the others ("M/process_name", "s/ac2g", "i/Record Window End"), "X/xla:<line>"
  // for XLA's ("X/xla:stream", "X/xla:host_call", "X/xla:host_range", "X/xla:python",
  // "X/xla:other_line") and "{}" for empty events.
  std::map<std::string, int64_t> event_kinds;
  // Anomalies: skipped and unknown event kinds, malformed events (lenient), ...
  Diagnostics diagnostics;
};

// Reads a trace file (gzip-compressed or not); errors name `path`.
StatusOr<GpuTrace> ReadTraceJsonFile(const std::string& path, const ReadOptions& options = {});
// Reads a trace held in memory (already inflated).
StatusOr<GpuTrace> ReadTraceJsonBuffer(std::string_view bytes, std::string display_path,
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

}  // namespace perfgate::json_trace

#endif  // PERFGATE_JSON_TRACE_READER_H_
