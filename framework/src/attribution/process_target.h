// The process filter of a GPU trace (AttributionOptions::process_prefix / process_id),
// shared by the trace-event JSON and the nsys attribution: whether it is on, how its
// target and the other processes are named in messages.
#ifndef PERFGATE_SRC_ATTRIBUTION_PROCESS_TARGET_H_
#define PERFGATE_SRC_ATTRIBUTION_PROCESS_TARGET_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "perfgate/attribution/options.h"
#include "perfgate/model/work.h"
#include "string_util.h"

namespace perfgate::attribution::detail {


// The one name rule of every GPU-trace source: a prefix matches the process name or
// its last path component (nsys names a process "/usr/bin/python3" or "python3").
inline bool NameMatches(std::string_view name, std::string_view prefix) {
  const size_t slash = name.rfind('/');
  return StartsWith(name, prefix) || (slash != std::string_view::npos && StartsWith(name.substr(slash + 1), prefix));
}

// Neither a process name, nor an id, nor --all-processes is given: kernels of several
// processes are then an error rather than a sum.
inline bool NoProcessChoice(const attribution::AttributionOptions& o) {
  return !o.all_processes && o.process_prefix.empty() && !o.process_id.has_value();
}

// A process name or id is given and --all-processes is not.
inline bool ProcessFilterOn(const attribution::AttributionOptions& o) {
  return !o.all_processes && (!o.process_prefix.empty() || o.process_id.has_value());
}

// The target as the filter names it: "a process named 'hf2q*'", "process 4242", or both.
inline std::string TargetDescription(const attribution::AttributionOptions& o) {
  std::string named = o.process_prefix.empty() ? "" : "a process named '" + o.process_prefix + "*'";
  if (!o.process_id) return named;
  const std::string id = std::to_string(*o.process_id);
  return named.empty() ? "process " + id : named + " with id " + id;
}

// "python3 (4242)", or "(unnamed) (4242)" for a process the trace does not name.
inline std::string ProcessLabel(const model::WorkSet& trace, int64_t pid) {
  auto it = trace.process_names.find(pid);
  return (it == trace.process_names.end() ? std::string("(unnamed)") : it->second) + " (" + std::to_string(pid) + ")";
}

}  // namespace perfgate::attribution::detail

#endif  // PERFGATE_SRC_ATTRIBUTION_PROCESS_TARGET_H_
