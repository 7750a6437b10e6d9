// What the CUPTI tracer keeps of one process: plain records, free of CUPTI's types, so
// the trace writer (kineto_writer.h) and its tests need no CUDA. cupti_convert.h fills
// them from CUPTI's activity records; the NVTX handlers fill the ranges.
#ifndef PERFGATE_SRC_CUPTI_TRACE_RECORDS_H_
#define PERFGATE_SRC_CUPTI_TRACE_RECORDS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace perfgate::cupti {

// Times are CUPTI timestamps: integer nanoseconds, one clock for GPU and host records.

// One kernel execution (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL): one per kernel of each
// CUDA-graph replay too, with graph_id set.
struct KernelRecord {
  std::string name;  // demangled where CUPTI gave a mangled name
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t device = 0;
  uint32_t context = 0;
  uint32_t stream = 0;
  uint32_t correlation = 0;  // the launching API call's (cudaGraphLaunch for graph kernels)
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  uint32_t registers_per_thread = 0;
  int64_t shared_memory = 0;  // static + dynamic bytes
  uint32_t graph_id = 0;      // 0: not launched by a graph
  uint64_t graph_node_id = 0;
};

// A memcpy or memset on a stream.
struct CopyRecord {
  bool memset = false;
  std::string name;  // Kineto's words: "Memcpy DtoH (Device -> Pinned)", "Memset (Device)"
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t device = 0;
  uint32_t context = 0;
  uint32_t stream = 0;
  uint32_t correlation = 0;
  uint64_t bytes = 0;
  uint32_t graph_id = 0;
};

// A CUDA runtime or driver API call on a host thread.
struct ApiRecord {
  bool driver = false;
  std::string name;        // "cudaLaunchKernel": CUPTI's name less its _vNNNN suffix
  std::string cupti_name;  // CUPTI's own name when it differs ("cudaLaunchKernel_v7000")
  uint32_t cbid = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;  // the OS thread id (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
  uint32_t correlation = 0;
  uint32_t return_value = 0;
};

// An NVTX range that was closed: push/pop or start/end, on the thread that opened it.
struct RangeRecord {
  std::string name;
  std::string domain;  // "" for the default domain
  bool start_end = false;  // nvtxRangeStart/End rather than push/pop
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  int depth = 0;  // push/pop nesting depth, 0 outermost
};

// An NVTX mark (an instant).
struct MarkRecord {
  std::string name;
  std::string domain;
  uint64_t ts_ns = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
};

// CUPTI's own overhead (CUPTI_ACTIVITY_KIND_OVERHEAD): buffer flushes,
// instrumentation, ... on a thread or a device.
struct OverheadRecord {
  std::string name;  // "CUPTI Buffer Flush", ...
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  bool on_device = false;
  uint32_t pid = 0;  // thread object: process; device object: device
  uint32_t tid = 0;  // thread object: thread; device object: stream (0)
};

// A GPU (CUPTI_ACTIVITY_KIND_DEVICE).
struct DeviceRecord {
  uint32_t id = 0;
  std::string name;
  uint32_t compute_major = 0;
  uint32_t compute_minor = 0;
  uint32_t multiprocessors = 0;
  uint64_t global_memory_bytes = 0;
  uint64_t memory_bandwidth_kbps = 0;  // CUPTI's globalMemoryBandwidth (KB/s)
  uint32_t core_clock_khz = 0;
  uint32_t l2_cache_bytes = 0;
  uint32_t max_threads_per_block = 0;
  uint32_t warp_size = 0;
};

// Everything one process recorded, and the tracer's own account of it.
struct ProcessCapture {
  uint32_t pid = 0;
  std::string process_name;  // /proc/self/comm
  std::string command_line;  // /proc/self/cmdline, arguments joined by spaces
  std::vector<KernelRecord> kernels;
  std::vector<CopyRecord> copies;
  std::vector<ApiRecord> api_calls;
  std::vector<RangeRecord> ranges;
  std::vector<MarkRecord> marks;
  std::vector<OverheadRecord> overheads;
  std::vector<DeviceRecord> devices;
  std::map<uint32_t, std::string> thread_names;  // nvtxNameOsThread

  uint32_t cupti_version = 0;    // cuptiGetVersion
  int cuda_driver_version = 0;   // cuDriverGetVersion (13000 = 13.0), 0 unknown
  int cuda_runtime_version = 0;  // cudaRuntimeGetVersion, 0 unknown
  uint64_t dropped_records = 0;  // cuptiActivityGetNumDroppedRecords, summed
  uint64_t unclosed_ranges = 0;  // pushed or started, never ended: not written
  std::map<std::string, uint64_t> other_records;  // activity kinds not kept, by kind number
  std::map<std::string, uint64_t> flushes;        // "device_reset", "context_destroy", "exit"
  bool cuda_initialized = false;  // InitializeInjection ran (false: NVTX ranges only)
  bool tracing = false;           // CUPTI's activity API started: false means no GPU record can be here
  std::vector<std::string> errors;  // what went wrong in the tracer (CUPTI calls that failed, writes)
};

}  // namespace perfgate::cupti

#endif  // PERFGATE_SRC_CUPTI_TRACE_RECORDS_H_
