// An nsys trial: the export read into a model::WorkSet (each GPU work item carrying the
// process nsys recorded for it), then the attribution of work (attribution/work.h), whose process
// filter is the one of every source.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "attribution/process_target.h"
#include "perfgate/attribution/work.h"
#include "perfgate/nsys/reader.h"

namespace perfgate::nsys {
namespace {

using model::WorkSet;
using attribution::detail::ProcessFilterOn;

// With a device chosen and no process filter, the host rows (runtime calls, NVTX
// ranges) of processes that ran no work on that device are left out, counted: their
// ranges would otherwise count as tokens of a device they never used.
void KeepProcessesOfDevice(int64_t device, model::WorkSet* trace) {
  std::set<int64_t> pids;
  for (const auto& w : trace->items) {
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
  erase(trace->host_calls);
  erase(trace->host_spans);
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
  if (!ProcessFilterOn(options) && options.device) KeepProcessesOfDevice(*options.device, &exported->trace);
  auto s = attribution::AttributeWork(exported->trace, options);
  if (!s.ok()) return WithDeviceNames(s.status(), exported->device_names);
  s->source = "nsys";
  return s;
}

}  // namespace perfgate::nsys
