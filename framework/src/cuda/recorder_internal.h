// Private pieces of the CUDA recorder (perfgate/cuda/recorder.h): the NVML clocks of
// meta.json (nvml_clocks.cc) and the tracer's output of one trial, checked and turned
// into the trial's trace (trial_trace.cc).
#ifndef PERFGATE_SRC_CUDA_RECORDER_INTERNAL_H_
#define PERFGATE_SRC_CUDA_RECORDER_INTERNAL_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate::cuda::internal {

// The GPUs' clocks through NVML (libnvidia-ml.so.1, loaded at run time): "clocks" is
// {driver_version, devices: [{index, sm_mhz, sm_max_mhz, mem_mhz, mem_max_mhz}]}, or
// null with "unavailable" saying why.
struct ClockReading {
  nlohmann::json clocks;
  std::string unavailable;
};
ClockReading ReadClocks();

// What the tracer wrote for one process.
struct TracedProcess {
  int64_t pid = 0;
  nlohmann::json tracer;  // its perfgate_tracer object
  int64_t kernels = 0;
  int64_t gpu_work = 0;  // kernels, memcpy and memset
};

// The trial's trace, as trial-K/trace.json.gz holds it.
struct TrialTrace {
  std::vector<TracedProcess> processes;              // every process that wrote a trace, by pid
  std::vector<int64_t> trace_pids;                   // those with GPU work: the ones in the trace
  int64_t kernels = 0;                               // kernel events in trace.json.gz, as the reader counts them
  nlohmann::json devices = nlohmann::json::array();  // deviceProperties of the trace
  nlohmann::json versions;                           // cuda_driver_version, cuda_runtime_version, cupti_version
};

// Checks the tracer's files in trial_dir/cupti (fail closed: record.no_trace,
// record.tracer_incomplete, record.dropped_records, record.bad_trace,
// record.no_target_rows), writes trial_dir/trace.json.gz, and removes the raw
// cupti-<pid>.json files it was made from.
StatusOr<TrialTrace> MakeTrialTrace(const std::string& trial_dir);

// `data` as a gzip member with mtime 0 (the same bytes for the same trace).
std::string Gzip(const std::string& data);

// object[key], or null where `object` is no object or lacks the key: for reading the
// tracer's files, whose fields may be damaged, without an exception.
nlohmann::json FieldOf(const nlohmann::json& object, const char* key);

}  // namespace perfgate::cuda::internal

#endif  // PERFGATE_SRC_CUDA_RECORDER_INTERNAL_H_
