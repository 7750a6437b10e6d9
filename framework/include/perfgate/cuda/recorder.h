// Recording CUDA programs with perfgate's CUPTI tracer (libperfgate_cupti.so, its file
// contract in src/cupti/TRACER.md) into the recording bundles of the xctrace recorder
// (perfgate/xctrace/recorder.h), through the same loop: planning, resume, `force`,
// interleaving, INCOMPLETE markers, timeouts and process groups, cancel.
//
//   OUT/<engine>/trial-K/
//     trace.json.gz   the trace the tracer wrote (the processes with GPU work merged
//                     into one when there are several), gzip with mtime 0
//     meta.json       the generic fields, "backend": "cuda", tracer, gpu, cuda versions,
//                     tracer_summary, kernels, clocks as the run starts (NVML) or
//                     clocks_unavailable
//     cupti/          the tracer's output directory: cupti-<pid>.log are kept
//     command.log     the command's stdout, stderr and how it ended, whatever the outcome
//     INCOMPLETE      present while the trial is being recorded and after it failed
//
// The command runs directly (no shell) with CUDA_INJECTION64_PATH and
// NVTX_INJECTION64_PATH set to the tracer, PERFGATE_CUPTI_OUTPUT_DIR to trial-K/cupti
// and PERFGATE_TRIAL_DIR to trial-K (where it may write e.g. counters.txt).
#ifndef PERFGATE_CUDA_RECORDER_H_
#define PERFGATE_CUDA_RECORDER_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/core/status.h"
#include "perfgate/xctrace/recorder.h"

namespace perfgate::cuda {

// File names inside a trial directory.
inline constexpr std::string_view kTraceFile = "trace.json.gz";
inline constexpr std::string_view kTracerOutputDir = "cupti";
inline constexpr std::string_view kCommandLogFile = "command.log";
// The tracer's file name, as the build installs it.
inline constexpr std::string_view kTracerLibrary = "libperfgate_cupti.so";

// Where the tracer is, and how it was found: "--tracer", "PERFGATE_CUPTI_TRACER",
// "beside perfgate", "the build tree" or "the install prefix".
struct TracerLocation {
  std::string path;
  std::string found_by;
};

// Finds the tracer: `explicit_path` when given, else PERFGATE_CUPTI_TRACER (when set
// and wrong, that is the error), else beside the running executable (its directory,
// ../lib, ../lib64, ../lib/<multiarch>), else where this build put it or installs it
// (for programs other than perfgate: suites). Error: record.no_tracer (ErrorKind::
// kEnvironment, exit 3), saying what was tried.
StatusOr<TracerLocation> LocateTracer(const std::string& explicit_path = "");

// nullopt when CUDA programs can be recorded here; otherwise exactly why: "no NVIDIA
// driver (…)", "no GPU (…)" or "no tracer (…)".
std::optional<std::string> WhyCudaRecordingImpossible(const std::string& explicit_tracer = "");

// The xctrace recorder's options, less what only xctrace reads (time_limit_ms, tables,
// template_name, keep_trace: left at their defaults, else record.bad_spec), plus the
// tracer. record_timeout_ms 0 means 30 minutes per run of the command.
struct RecordOptions : xctrace::RecordOptions {
  explicit RecordOptions(const xctrace::RecordOptions& common = {}, std::string tracer = "")
      : xctrace::RecordOptions(common), tracer_path(std::move(tracer)) {}
  std::string tracer_path;  // "": LocateTracer's search
};

// Records options.trials trials of every engine, interleaved, as xctrace's
// RecordInterleaved does. A complete trial's identity is {engine, command, tokens,
// backend "cuda"}. Errors besides the loop's (record.bad_spec, record.bundle_mismatch,
// record.not_a_bundle, record.extra_trials, record.interrupted, io.write_failed), all
// ErrorKind::kEnvironment and located at the trial:
//   record.no_tracer          the tracer was not found (LocateTracer)
//   process.*                 the command failed, crashed or timed out (core/process.h)
//   record.no_trace           it exited 0 and no process wrote tracer files
//   record.tracer_incomplete  a process's log without its trace, a .partial, or a trace
//                             whose perfgate_tracer.complete is not true
//   record.dropped_records    CUPTI lost records (perfgate_tracer.dropped_records > 0)
//   record.tracer_failed      the tracer did not start CUPTI, reported errors, or logged one
//   record.untimed_records    records without a whole time span (perfgate_tracer.untimed_records)
//   record.bad_trace          a trace the JSON or trace-event reader rejects, or whose
//                             kernel events differ from the tracer's count
//   record.no_target_rows     no kernel event in any trace
StatusOr<xctrace::RecordingResult> RecordInterleaved(const std::vector<xctrace::EngineRecordSpec>& engines,
                                                     const RecordOptions& options, const std::string& out_dir);

}  // namespace perfgate::cuda

#endif  // PERFGATE_CUDA_RECORDER_H_
