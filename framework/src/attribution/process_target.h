// The process filter of a work set (AttributionOptions::process_prefix / process_id,
// model::Conventions): whether it is on, which processes it keeps, how its target and
// the other processes are named in messages.
#ifndef PERFGATE_SRC_ATTRIBUTION_PROCESS_TARGET_H_
#define PERFGATE_SRC_ATTRIBUTION_PROCESS_TARGET_H_

#include <cstdint>
#include <optional>
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

// Whether the process filter runs: when a process is named (by name or id), or, where
// the source requires an owner (model::Conventions), unless all processes are asked
// for. The seed's method filters nothing here (its importer kept the target's rows).
inline bool FilterOn(const model::Conventions& conventions, const AttributionOptions& options) {
  if (options.seed_compat) return false;
  return conventions.owner_required ? !options.all_processes : ProcessFilterOn(options);
}

// The process filter, the one of every GPU-trace source: a process is kept when its
// name matches the prefix (NameMatches) and its id is the chosen one. An id alone
// keeps an unnamed process too; a prefix needs the trace to name the process, and
// model::kNoProcess is no process at all.
class TargetProcesses {
 public:
  TargetProcesses(const model::WorkSet& trace, const AttributionOptions& options)
      : trace_(trace), options_(options), filter_(FilterOn(trace.conventions, options)) {}

  bool filter() const { return filter_; }
  // The filter needs a name the trace does not give for `pid`.
  bool Unnamed(int64_t pid) const {
    return pid == model::kNoProcess || (!options_.process_prefix.empty() && !trace_.process_names.count(pid));
  }
  bool Keeps(int64_t pid) const {
    if (!filter_) return true;
    // Work comes in long runs of one process: its answer is kept.
    if (last_pid_ == pid) return last_kept_;
    last_pid_ = pid;
    last_kept_ = Decide(pid);
    return last_kept_;
  }

 private:
  bool Decide(int64_t pid) const {
    if (options_.process_id && *options_.process_id != pid) return false;
    if (options_.process_prefix.empty()) return true;
    auto it = trace_.process_names.find(pid);
    return it != trace_.process_names.end() && NameMatches(it->second, options_.process_prefix);
  }

  const model::WorkSet& trace_;
  const AttributionOptions& options_;
  const bool filter_;
  mutable std::optional<int64_t> last_pid_;
  mutable bool last_kept_ = false;
};

}  // namespace perfgate::attribution::detail

#endif  // PERFGATE_SRC_ATTRIBUTION_PROCESS_TARGET_H_
