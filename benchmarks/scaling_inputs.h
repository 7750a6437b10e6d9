// Synthetic inputs of a chosen size for the scaling benchmark, one file per source,
// written under a temporary directory and removed when the program ends.
#ifndef PERFGATE_BENCHMARKS_SCALING_INPUTS_H_
#define PERFGATE_BENCHMARKS_SCALING_INPUTS_H_

#include <cstdint>
#include <string>

namespace perfgate::bench {

enum class ScaledSource : int {
  kXctrace = 0,
  kTraceJson = 1,
  kNsys = 2,
  kKernelReport = 3,
  kNsysStats = 4,
  kCounters = 5,
  kLlamaBench = 6
};

struct ScaledInput {
  std::string path;   // "" when it could not be made (error says why)
  std::string error;
  uint64_t bytes = 0;  // the file's size
  int64_t rows = 0;    // what the generator wrote: rows, events, or event-table rows
};

// The input of `source` of about `megabytes` MB, generated on first use:
//  - xctrace: an execution-points export (tools/xctrace_gen);
//  - trace-event JSON: a Kineto decode trace (tests/unit/json_trace/kineto_gen);
//  - nsys: the 2xH100 export of shared/corpus with its five event tables (kernels,
//    memcpy, memset, runtime, NVTX) repeated, each copy shifted in time past the last
//    and with correlation ids of its own, so that every launch still finds its kernel;
//  - a per-kernel JSON report of distinct kernels, each with a field perfgate does not
//    know (the unknown_field diagnostic on every kernel);
//  - `nsys stats --format csv` of cuda_gpu_kern_sum, a row per distinct kernel;
//  - a counter history, a `# ====` report after another;
//  - llama-bench JSONL, a test per line (distinct depths, so no test repeats).
const ScaledInput& GetScaledInput(ScaledSource source, int64_t megabytes);

}  // namespace perfgate::bench

#endif  // PERFGATE_BENCHMARKS_SCALING_INPUTS_H_
