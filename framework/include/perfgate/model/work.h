// The source-neutral model of GPU work that every trace source's importer fills and
// the one attribution (perfgate/attribution/work.h) reads: units of GPU work on
// lanes, the host calls that launched them, and named spans on host threads and GPU
// lanes. What only one format has (Metal's execution-point pairing and its joins,
// Kineto's correlation ids, nsys's string table) is resolved inside its importer, so
// nothing downstream asks which format a trial came from; where sources mean different
// things by their records, the importer says which (Conventions).
#ifndef PERFGATE_MODEL_WORK_H_
#define PERFGATE_MODEL_WORK_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/core/diagnostics.h"

namespace perfgate::model {

// A `pid` or `tid` a source writes as text ("Spans", "Traces", "") rather than a
// decimal integer gets a synthetic id at or below this value; WorkSet::string_ids maps
// it back to its text.
inline constexpr int64_t kStringIdBase = -(int64_t{1} << 62);

enum class WorkKind {
  kKernel,      // one dispatch of a GPU kernel: the unit every per-token figure counts
  kMemcpy,      // a copy, reported beside the kernels
  kMemset,      // a fill, reported beside the kernels
  kSubmission,  // a unit of GPU work that names no kernel (Metal: an encoder's execution on the GPU)
};

// "kernel", "memcpy", "memset" or "submission".
std::string_view WorkKindName(WorkKind kind);

// One unit of GPU work on one lane (a CUDA stream, a Metal channel).
struct WorkItem {
  WorkKind kind = WorkKind::kKernel;
  std::string name;  // the kernel's name as the source writes it; "" where the source names none
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t pid = 0;     // the lane's owner as the source writes it (Kineto: the device index)
  int64_t tid = 0;     // the lane: a stream, a channel
  int64_t device = 0;  // the GPU it ran on
  int64_t stream = 0;  // the stream or queue, where the source says (else the lane)
  std::optional<int64_t> correlation;  // joins to the HostCall that launched it
  // The host process that owns the work where the source records it (nsys: globalPid;
  // Metal: the submission map's process); empty where the owner is its launch call's
  // process (Kineto, XLA).
  std::optional<int64_t> process;
  int64_t duration_ns() const { return end_ns - start_ns; }
};

// What a host call launches. The importer says so: CUDA, HIP and nsys name their calls
// differently, and a Metal encoder is no call at all.
enum class HostCallKind {
  kKernelLaunch,  // one kernel (cudaLaunchKernel, cuLaunchKernel, hipLaunchKernel, ...)
  kGraphLaunch,   // a graph of kernels (cudaGraphLaunch, ...): its time is not split over them
  kEncoder,       // a Metal encoder: the GPU submissions it encoded share it
  kOther,         // anything else (cudaMemcpyAsync, hipMemsetAsync, ...)
};

// A `WorkItem::process` a source records as "no process" (Metal: the submission map's
// sentinel process): known to belong to none, unlike an absent owner.
inline constexpr int64_t kNoProcess = INT64_MIN;

// A host-side call that launches or enqueues GPU work (cudaLaunchKernel,
// cudaGraphLaunch, cudaMemcpyAsync, hipLaunchKernel, a Metal encoder, ...).
struct HostCall {
  HostCallKind kind = HostCallKind::kOther;
  std::string name;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t pid = 0;  // the host process
  int64_t tid = 0;  // the host thread
  std::optional<int64_t> correlation;  // shared with the GPU work it launched
  bool driver = false;                 // a driver-API call rather than a runtime-API one
  // Where the source groups its launches into labelled units (Metal: the command
  // buffer an encoder was encoded into): the group's id and label. A group label marks
  // the end of a step, where an annotation (Span) encloses one.
  std::optional<int64_t> group;
  std::string group_label;
  // An encoder's family, which the work it launched is counted under (Metal: from the
  // encoder's label). Unused for other calls: a kernel's family comes from its name.
  std::string family;
  int64_t duration_ns() const { return end_ns - start_ns; }
};

// A named range: an annotation on a host thread (record_function, an NVTX range) or the
// same range projected onto a GPU lane.
struct Span {
  std::string name;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t pid = 0;  // host process, or the device for spans on GPU lanes
  int64_t tid = 0;  // host thread, or the lane
  std::optional<int64_t> external_id;  // the same id on every copy of one range
  int64_t duration_ns() const { return end_ns - start_ns; }
};

// Where sources differ in what their records mean for the attribution, the importer
// says which way its source goes. The defaults are the kernel sources'.
struct Conventions {
  // The process filter runs unless all processes are asked for, even with no process
  // named: work of no known owner is dropped (Metal). Otherwise it runs only when a
  // process name or id is given.
  bool owner_required = false;
  // Kept work of several processes with no process chosen is a usage error (kernel
  // sources) rather than a counted diagnostic (Metal).
  bool several_processes_need_a_choice = true;
  // The diagnostics counting work dropped for having no owner, or an unnamed one.
  std::string no_owner_code = "json.unmatched_correlation";
  std::string unnamed_owner_code = "json.unnamed_process";
  // --seed-compat (the seed's method) applies: the importer paired and joined as the
  // seed did, and the attribution counts every encoder, filters nothing and ignores
  // the window and the token label.
  bool seed_method = false;
};

// The GPU work of one trial, in source order within each list.
struct WorkSet {
  std::string path;
  std::vector<WorkItem> items;
  std::vector<HostCall> host_calls;
  std::vector<Span> host_spans;  // ranges on host threads
  std::vector<Span> gpu_spans;   // ranges on GPU lanes
  std::map<int64_t, std::string> process_names;                    // pid -> name
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names;  // (pid, tid) -> name
  std::map<int64_t, std::string> string_ids;  // synthetic pid/tid (<= kStringIdBase) -> its text

  int64_t events = 0;      // records the source read, malformed ones included
  int64_t bad_events = 0;  // malformed records dropped (lenient reading)
  // Records per kind, in the source's own words (trace-event JSON: "X/kernel",
  // "M/process_name", "X/xla:stream", ...).
  std::map<std::string, int64_t> event_kinds;
  // Anomalies met while importing: skipped and unknown records, malformed ones, ...
  Diagnostics diagnostics;
  Conventions conventions;
};

}  // namespace perfgate::model

#endif  // PERFGATE_MODEL_WORK_H_
