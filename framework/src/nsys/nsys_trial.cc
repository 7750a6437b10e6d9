// An nsys trial: the export read into a GpuTrace, the process filter applied on the
// process nsys recorded for each row, then the trace-event attribution.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "json_trace/process_target.h"
#include "perfgate/json_trace/trial.h"
#include "perfgate/nsys/reader.h"

namespace perfgate::nsys {
namespace {

using attribution::AttributionOptions;
using json_trace::GpuTrace;
using json_trace::detail::ProcessFilterOn;
using json_trace::detail::ProcessLabel;
using json_trace::detail::StartsWith;
using json_trace::detail::TargetDescription;

// nsys names a process by its executable path ("/usr/bin/python3") or its name
// ("python3"); a prefix matches either the whole name or its last path component.
bool NameMatches(const std::string& name, const std::string& prefix) {
  const size_t slash = name.rfind('/');
  return StartsWith(name, prefix) || (slash != std::string::npos && StartsWith(name.substr(slash + 1), prefix));
}

// Keeps the rows of the target processes (GPU work, runtime calls, NVTX ranges);
// dropped kernels are attr.other_process. No kernel left is attr.no_target_rows naming
// the processes that have kernels.
StatusOr<int64_t> KeepTargetProcesses(const AttributionOptions& o, GpuTrace* trace) {
  std::set<int64_t> targets;
  for (const auto& [pid, name] : trace->process_names) {
    if ((o.process_prefix.empty() || NameMatches(name, o.process_prefix)) && (!o.process_id || *o.process_id == pid)) {
      targets.insert(pid);
    }
  }
  std::map<std::string, int64_t> kernels_of_others;
  int64_t kept_kernels = 0;
  for (const auto& w : trace->gpu_work) {
    if (w.kind != json_trace::GpuWorkKind::kKernel) continue;
    if (targets.count(w.pid)) {
      ++kept_kernels;
    } else {
      ++kernels_of_others[ProcessLabel(*trace, w.pid)];
    }
  }
  if (kept_kernels == 0) {
    std::string seen;
    for (const auto& [label, n] : kernels_of_others)
      seen += (seen.empty() ? "" : ", ") + label + " x" + std::to_string(n);
    return Status::Error(
        "attr.no_target_rows",
        "no kernel of " + TargetDescription(o) + " (processes with kernels: " + (seen.empty() ? "none" : seen) + ")",
        {trace->path});
  }
  auto other = [&](const auto& row) { return !targets.count(row.pid); };
  auto erase = [&](auto& rows) { rows.erase(std::remove_if(rows.begin(), rows.end(), other), rows.end()); };
  erase(trace->gpu_work);
  erase(trace->runtime_calls);
  erase(trace->cpu_annotations);
  int64_t dropped = 0;
  for (const auto& [label, n] : kernels_of_others) dropped += n;
  return dropped;
}

// With a device chosen and no process filter, the host rows (runtime calls, NVTX
// ranges) of processes that ran no work on that device are left out, counted: their
// ranges would otherwise count as tokens of a device they never used.
void KeepProcessesOfDevice(int64_t device, GpuTrace* trace) {
  std::set<int64_t> pids;
  for (const auto& w : trace->gpu_work) {
    if (w.device == device) pids.insert(w.pid);
  }
  if (pids.empty()) return;  // the device filter downstream names the devices there are
  auto other = [&](const auto& row) { return !pids.count(row.pid); };
  int64_t dropped = 0;
  auto erase = [&](auto& rows) {
    const auto before = rows.size();
    rows.erase(std::remove_if(rows.begin(), rows.end(), other), rows.end());
    dropped += static_cast<int64_t>(before - rows.size());
  };
  erase(trace->runtime_calls);
  erase(trace->cpu_annotations);
  trace->diagnostics.AddCount("nsys.other_device_process", dropped);
}

// attr.several_devices and attr.no_target_rows list device ids; the export's device
// names are added where it has them.
Status WithDeviceNames(Status status, const std::map<int64_t, std::string>& names) {
  if (names.empty() || (status.code() != "attr.several_devices" && status.code() != "attr.no_target_rows"))
    return status;
  std::string list;
  for (const auto& [id, name] : names) list += (list.empty() ? "" : ", ") + std::to_string(id) + " = " + name;
  return Status::Error(status.code(), status.message() + " [devices of the export: " + list + "]", status.location(),
                       status.kind());
}

}  // namespace

StatusOr<attribution::TrialSummary> SummarizeNsysTrialFile(const std::string& path,
                                                           const attribution::AttributionOptions& options) {
  auto exported = ReadNsysFile(path);
  if (!exported.ok()) return exported.status();
  AttributionOptions o = options;
  int64_t other_process_kernels = 0;
  if (ProcessFilterOn(options)) {
    auto dropped = KeepTargetProcesses(options, &exported->trace);
    if (!dropped.ok()) return dropped.status();
    other_process_kernels = *dropped;
    // Filtered here, where each row's process is known; the launch-call join of the
    // trace-event path would lose the kernels whose launch lies before the capture.
    o.process_prefix.clear();
    o.process_id.reset();
    o.all_processes = true;
  } else if (options.device) {
    KeepProcessesOfDevice(*options.device, &exported->trace);
  }
  auto s = json_trace::SummarizeJsonTrial(exported->trace, o);
  if (!s.ok()) return WithDeviceNames(s.status(), exported->device_names);
  s->source = "nsys";
  s->excluded_other_process += other_process_kernels;
  s->diagnostics.AddCount("attr.other_process", other_process_kernels);
  return s;
}

}  // namespace perfgate::nsys
