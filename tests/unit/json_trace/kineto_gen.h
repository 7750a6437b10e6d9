// Writes trace-event JSON the way PyTorch's profiler (Kineto) lays it out, for the
// json_trace tests and benchmark: hand-placed events with exact times, and large
// synthetic decode traces.
#ifndef PERFGATE_TESTS_UNIT_JSON_TRACE_KINETO_GEN_H_
#define PERFGATE_TESTS_UNIT_JSON_TRACE_KINETO_GEN_H_

#include <cstdint>
#include <optional>
#include <string>

namespace perfgate::json_trace::gen {

// Nanoseconds as Kineto writes microseconds: "1234.567" (three decimals).
std::string Micros(int64_t ns);

// Builds {"schemaVersion": 1, "deviceProperties": [...], ..., "traceEvents": [...]}
// one event at a time. Times are nanoseconds, written as microseconds with three
// decimals unless given as text.
class KinetoWriter {
 public:
  KinetoWriter();

  void ProcessName(int64_t pid, const std::string& name);
  void ThreadName(int64_t pid, int64_t tid, const std::string& name);
  void SortIndex(int64_t pid, int64_t index);  // process_sort_index (skipped by the reader)

  // A GPU kernel on (device, stream) with Kineto's full args block.
  void Kernel(const std::string& name, int64_t device, int64_t stream, int64_t ts_ns, int64_t dur_ns,
              std::optional<int64_t> correlation, int64_t external_id = 0);
  void Memcpy(const std::string& name, int64_t device, int64_t stream, int64_t ts_ns, int64_t dur_ns,
              int64_t correlation);
  void Memset(const std::string& name, int64_t device, int64_t stream, int64_t ts_ns, int64_t dur_ns,
              int64_t correlation);
  // cuda_runtime (cudaLaunchKernel, cudaGraphLaunch, cudaMemcpyAsync, ...).
  void Runtime(const std::string& name, int64_t pid, int64_t tid, int64_t ts_ns, int64_t dur_ns, int64_t correlation,
               int64_t external_id = 0);
  // user_annotation (host) or gpu_user_annotation (gpu = true; pid = device, tid = stream).
  void Annotation(const std::string& name, bool gpu, int64_t pid, int64_t tid, int64_t ts_ns, int64_t dur_ns,
                  int64_t external_id = 0);
  void CpuOp(const std::string& name, int64_t pid, int64_t tid, int64_t ts_ns, int64_t dur_ns, int64_t external_id);
  void PythonFunction(const std::string& name, int64_t pid, int64_t tid, int64_t ts_ns, int64_t dur_ns);
  // An ac2g flow pair: start on the launching thread, end on the stream.
  void Flow(int64_t id, int64_t pid, int64_t tid, int64_t ts_ns, int64_t device, int64_t stream, int64_t gpu_ts_ns);
  // Any event text, written as is.
  void Raw(const std::string& event_json);

  size_t size() const { return out_.size(); }
  // Closes the array and the object ("traceName" last, as Kineto writes it).
  std::string Finish();

 private:
  void Begin();
  void MemoryOp(const char* cat, const char* payload, const std::string& name, int64_t device, int64_t stream,
                int64_t ts_ns, int64_t dur_ns, int64_t correlation);
  std::string out_;
  bool first_ = true;
};

// A synthetic decode trace: `tokens` decode steps of `layers` layers, each layer a
// handful of cpu_ops with their cudaLaunchKernel, flows and kernels (full args), a
// gpu_user_annotation per step, and a python_function stack; about 2.2 KiB per
// kernel, like real Kineto output. With `cuda_graphs`, each step's kernels are one
// cudaGraphLaunch.
struct DecodeTraceSpec {
  int64_t tokens = 64;
  int64_t layers = 32;
  bool cuda_graphs = false;
  bool gpu_annotations = true;
  uint64_t seed = 1;
};
std::string DecodeTrace(const DecodeTraceSpec& spec);

// gzip-compresses `bytes` (one gzip member).
std::string Gzip(const std::string& bytes);

}  // namespace perfgate::json_trace::gen

#endif  // PERFGATE_TESTS_UNIT_JSON_TRACE_KINETO_GEN_H_
