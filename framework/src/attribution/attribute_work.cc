// The attribution of a model::WorkSet into a TrialSummary. The field meanings and the
// window and token rules are in perfgate/attribution/work.h.
#include "perfgate/attribution/work.h"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "attribution/label_matcher.h"
#include "checked_math.h"
#include "attribution/family_matcher.h"
#include "attribution/process_target.h"
#include "perfgate/attribution/kernel_families.h"
#include "perfgate/stats/summary.h"

namespace perfgate::attribution {
namespace {

using ::perfgate::internal::AccumulateChecked;
using detail::NameMatches;
using detail::NoProcessChoice;
using detail::ProcessFilterOn;
using detail::ProcessLabel;
using detail::TargetDescription;

constexpr const char* kUnknownPhase = "(unknown)";

bool SameTable(const attribution::KernelFamilyTable& a, const attribution::KernelFamilyTable& b) {
  if (a.strip_prefix != b.strip_prefix || a.rules.size() != b.rules.size()) return false;
  for (size_t i = 0; i < a.rules.size(); ++i) {
    if (a.rules[i].prefix != b.rules[i].prefix || a.rules[i].family != b.rules[i].family) return false;
  }
  return true;
}

// One annotation instance: a range copied onto several GPU streams is one instance.
using InstanceKey = std::tuple<int, int64_t, int64_t, int64_t>;

InstanceKey KeyOf(const model::Span& a, bool gpu) {
  if (gpu && a.external_id) return {0, a.pid, *a.external_id, 0};
  if (gpu) return {1, a.pid, a.start_ns, a.end_ns};
  return {2, a.pid, a.tid, a.start_ns};
}

// Annotations per (pid, tid) lane, sorted by start (longer first on ties), each with
// the nearest earlier annotation that contains it, so the annotations containing an
// interval are found innermost first by a binary search and a walk up the parents.
class SpanIndex {
 public:
  explicit SpanIndex(const std::vector<model::Span>& spans) : spans_(spans) {
    for (size_t i = 0; i < spans.size(); ++i) lanes_[{spans[i].pid, spans[i].tid}].order.push_back(static_cast<int>(i));
    for (auto& [key, lane] : lanes_) {
      std::sort(lane.order.begin(), lane.order.end(), [&](int a, int b) {
        const model::Span& x = spans[static_cast<size_t>(a)];
        const model::Span& y = spans[static_cast<size_t>(b)];
        if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
        if (x.end_ns != y.end_ns) return x.end_ns > y.end_ns;
        return a < b;
      });
      lane.starts.reserve(lane.order.size());
      lane.parent.assign(lane.order.size(), -1);
      std::vector<int> stack;
      for (size_t p = 0; p < lane.order.size(); ++p) {
        const model::Span& a = spans[static_cast<size_t>(lane.order[p])];
        lane.starts.push_back(a.start_ns);
        while (!stack.empty() && !Encloses(At(lane, stack.back()), a.start_ns, a.end_ns)) stack.pop_back();
        lane.parent[p] = stack.empty() ? -1 : stack.back();
        stack.push_back(static_cast<int>(p));
      }
    }
  }

  // Calls fn(annotation index) for each annotation on the lane that contains
  // [start, end], innermost first, until fn returns true.
  template <typename Fn>
  void ForEachContaining(int64_t pid, int64_t tid, int64_t start, int64_t end, Fn fn) const {
    auto it = lanes_.find({pid, tid});
    if (it == lanes_.end()) return;
    const Lane& lane = it->second;
    int p = static_cast<int>(std::upper_bound(lane.starts.begin(), lane.starts.end(), start) - lane.starts.begin()) - 1;
    while (p >= 0) {
      if (Encloses(At(lane, p), start, end) && fn(lane.order[static_cast<size_t>(p)])) return;
      p = lane.parent[static_cast<size_t>(p)];
    }
  }

  // The innermost annotation containing [start, end], or -1.
  int Innermost(int64_t pid, int64_t tid, int64_t start, int64_t end) const {
    int found = -1;
    ForEachContaining(pid, tid, start, end, [&](int i) {
      found = i;
      return true;
    });
    return found;
  }

 private:
  struct Lane {
    std::vector<int> order;  // annotation indices
    std::vector<int64_t> starts;
    std::vector<int> parent;  // positions in `order`
  };
  static bool Encloses(const model::Span& a, int64_t start, int64_t end) { return a.start_ns <= start && end <= a.end_ns; }
  const model::Span& At(const Lane& lane, int p) const { return spans_[static_cast<size_t>(lane.order[static_cast<size_t>(p)])]; }

  const std::vector<model::Span>& spans_;
  std::map<std::pair<int64_t, int64_t>, Lane> lanes_;
};

// Normalised phase names, computed once per distinct annotation name.
std::vector<std::string> Normalized(const std::vector<model::Span>& spans) {
  std::unordered_map<std::string, std::string> cache;
  std::vector<std::string> out;
  out.reserve(spans.size());
  for (const model::Span& a : spans) {
    auto it = cache.find(a.name);
    if (it == cache.end()) it = cache.emplace(a.name, attribution::NormalizePhaseLabel(a.name)).first;
    out.push_back(it->second);
  }
  return out;
}

// Which annotations a label names, tested once per distinct annotation name.
std::vector<bool> MatchesOf(const std::vector<model::Span>& spans, const attribution::LabelMatcher& label) {
  std::unordered_map<std::string, bool> cache;
  std::vector<bool> out;
  out.reserve(spans.size());
  for (const model::Span& a : spans) {
    auto it = cache.find(a.name);
    if (it == cache.end()) it = cache.emplace(a.name, label.Matches(a.name)).first;
    out.push_back(it->second);
  }
  return out;
}

// A host call's place in its work set: a flag per call is cheaper than a hash set
// of a million encoders.
size_t HostCallIndex(const model::WorkSet& trace, const model::HostCall& call) {
  return static_cast<size_t>(&call - trace.host_calls.data());
}

// The work every per-token figure counts: kernels, or submissions where the source
// names no kernel. Copies (memcpy, memset) are reported beside them.
bool IsUnit(const model::WorkItem& w) {
  return w.kind == model::WorkKind::kKernel || w.kind == model::WorkKind::kSubmission;
}

// A kept unit of GPU work, with its launch call, owning process and phase.
struct Item {
  const model::WorkItem* work;
  const model::HostCall* launch;     // nullptr when no host call has its correlation id
  std::optional<int64_t> owner;  // model::WorkItem::process, else the launch call's pid
  int gpu_annotation = -1;    // innermost gpu_user_annotation containing it
  int cpu_annotation = -1;    // innermost user_annotation containing its launch call
  bool kernel() const { return work->kind == model::WorkKind::kKernel; }
  // Launched by a Metal encoder: the encoder, not the item, is what families and
  // phases count and whose host time they add, once whatever the submissions it encoded.
  bool by_encoder() const { return launch != nullptr && launch->kind == model::HostCallKind::kEncoder; }
};

// The kernel-family table in force: the user's, else (when the options carry the
// Metal default) the CUDA table.
const attribution::KernelFamilyTable& FamilyTableInForce(const AttributionOptions& options) {
  static const attribution::KernelFamilyTable kMetalDefault = attribution::DefaultKernelFamilies();
  static const attribution::KernelFamilyTable kCudaDefault = CudaKernelFamilies();
  return SameTable(options.kernel_families, kMetalDefault) ? kCudaDefault : options.kernel_families;
}

using LaunchIndex = std::unordered_map<int64_t, const model::HostCall*>;

// Launch calls by correlation id (the first wins; a clash between processes is a
// diagnostic, since GPU work carries no host pid to tell them apart).
LaunchIndex IndexLaunches(const model::WorkSet& trace, TrialSummary* s) {
  LaunchIndex launches;
  launches.reserve(trace.host_calls.size());
  for (const model::HostCall& r : trace.host_calls) {
    if (!r.correlation) continue;
    auto [it, inserted] = launches.emplace(*r.correlation, &r);
    if (!inserted && it->second->pid != r.pid) {
      s->diagnostics.Add("json.duplicate_correlation", {trace.path},
                         "correlation " + std::to_string(*r.correlation) + " in processes " +
                             std::to_string(it->second->pid) + " and " + std::to_string(r.pid));
    }
  }
  return launches;
}

// Whether the process filter runs: when a process is named (by name or id), or, where
// the source requires an owner (model::Conventions), unless all processes are asked
// for. The seed's method filters nothing here (its importer kept the target's rows).
bool FilterOn(const model::Conventions& conventions, const AttributionOptions& options) {
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

// The kept GPU work: units (kernels or submissions, the unit of every per-token
// figure) and copies (memcpy, memset), in source order.
struct KeptWork {
  std::vector<Item> units;
  std::vector<Item> copies;
};

// Why no unit passed the process filter, in the unit's words: kernels are launched by
// a process, submissions belong to one.
std::string NoTargetUnitsMessage(const AttributionOptions& options, bool kernels, int64_t units_read,
                                 const std::map<std::string, int64_t>& other_processes, const TrialSummary& s) {
  std::string seen;
  for (const auto& [name, n] : other_processes) seen += (seen.empty() ? "" : ", ") + name + " x" + std::to_string(n);
  std::string target = TargetDescription(options);
  if (target.empty()) target = "a named process";
  const std::string counts =
      kernels ? "; without a launch call: " + std::to_string(s.excluded_unmapped) +
                    "; launched by an unnamed process: " + std::to_string(s.excluded_unattributed)
              : "; of no known process: " + std::to_string(s.excluded_unmapped) +
                    "; of the sentinel or an unnamed process: " + std::to_string(s.excluded_unattributed);
  return std::string(kernels ? "no kernel launched by " : "no submission of ") + target + " among " +
         std::to_string(units_read) + (kernels ? " kernels" : " paired submissions") +
         " (other processes: " + (seen.empty() ? "none" : seen) + counts + ")";
}

// Process filter, on each work item's owner (the process the source recorded for it,
// else its launch call's process). Only units are counted as excluded. No kept unit is
// an error naming what was there.
StatusOr<KeptWork> KeepTargetWork(const model::WorkSet& trace, const LaunchIndex& launches, const TargetProcesses& targets,
                                  const AttributionOptions& options, TrialSummary* s) {
  KeptWork kept;
  std::map<std::string, int64_t> other_processes;
  int64_t units_read = 0;
  bool kernels = true;
  for (const model::WorkItem& w : trace.items) {
    const bool unit = IsUnit(w);
    if (unit) {
      ++units_read;
      kernels = w.kind == model::WorkKind::kKernel;
    }
    const model::HostCall* launch = nullptr;
    if (w.correlation) {
      auto it = launches.find(*w.correlation);
      if (it != launches.end()) launch = it->second;
    }
    std::optional<int64_t> owner = w.process;
    if (!owner && launch != nullptr) owner = launch->pid;
    if (targets.filter()) {
      if (!owner) {
        if (unit) ++s->excluded_unmapped;
        continue;
      }
      if (targets.Unnamed(*owner)) {
        if (unit) ++s->excluded_unattributed;
        continue;
      }
      if (!targets.Keeps(*owner)) {
        if (unit) {
          ++s->excluded_other_process;
          ++other_processes[ProcessLabel(trace, *owner)];
        }
        continue;
      }
    }
    (unit ? kept.units : kept.copies).push_back(Item{&w, launch, owner});
  }
  s->paired = units_read;
  s->diagnostics.AddCount(trace.conventions.no_owner_code, s->excluded_unmapped);
  s->diagnostics.AddCount(trace.conventions.unnamed_owner_code, s->excluded_unattributed);
  s->diagnostics.AddCount("attr.other_process", s->excluded_other_process);
  if (!kept.units.empty()) return kept;
  if (!targets.filter()) {
    return Status::Error("attr.no_target_rows",
                         "the trace has no kernel events (" + std::to_string(trace.items.size()) +
                             " GPU work items in all)",
                         {trace.path});
  }
  return Status::Error("attr.no_target_rows",
                       NoTargetUnitsMessage(options, kernels, units_read, other_processes, *s),
                       {trace.path});
}

std::string DeviceList(const std::map<int64_t, int64_t>& kernels_per_device) {
  std::string list;
  for (const auto& [device, n] : kernels_per_device) {
    list += (list.empty() ? "" : ", ") + std::to_string(device) + ": " + std::to_string(n) + " kernels";
  }
  return list;
}

// Device filter: the work of options.device, or, when none is chosen, all of it if it
// ran on one device. Kernels of several devices without a choice are an error: their
// figures would be summed into one GPU that does not exist.
Status KeepDevice(const AttributionOptions& options, const std::string& path, KeptWork* kept, TrialSummary* s) {
  std::map<int64_t, int64_t> per_device;
  for (const Item& k : kept->units) ++per_device[k.work->device];
  if (!options.device) {
    if (per_device.size() <= 1) return Status();
    return Status::Error("attr.several_devices",
                         "the kept kernels ran on " + std::to_string(per_device.size()) + " devices (" +
                             DeviceList(per_device) + "); choose one with --device N (suites: options.device)",
                         {path}, ErrorKind::kUsage);
  }
  const int64_t device = *options.device;
  auto other = [device](const Item& item) { return item.work->device != device; };
  const auto kernels_before = static_cast<int64_t>(kept->units.size());
  kept->units.erase(std::remove_if(kept->units.begin(), kept->units.end(), other), kept->units.end());
  kept->copies.erase(std::remove_if(kept->copies.begin(), kept->copies.end(), other), kept->copies.end());
  s->diagnostics.AddCount("attr.other_device", kernels_before - static_cast<int64_t>(kept->units.size()));
  if (!kept->units.empty()) return Status();
  return Status::Error("attr.no_target_rows",
                       "no kept kernel ran on device " + std::to_string(device) + " (devices: " +
                           (per_device.empty() ? std::string("none") : DeviceList(per_device)) + ")",
                       {path});
}

// Where a label's instances were found: annotations on GPU lanes, annotations on the
// target's host threads, or the groups the kept work was launched in (Metal's command
// buffers).
enum class LabelWhere { kGpuSpans, kHostSpans, kGroups };

// Instances of a label, and the time they span. An annotation encloses a decode step:
// a span label's instances run from the first one's start to the last one's end, a
// step each. A group's label marks a step's end: a group label's instances run from
// the first group's end to the last one's, a step between each two.
struct LabelInstances {
  LabelWhere where = LabelWhere::kHostSpans;
  std::set<InstanceKey> keys;
  int64_t first = INT64_MAX;  // the first instance's start (a group's: its end)
  int64_t last = INT64_MIN;   // the last instance's end

  void Add(const InstanceKey& key, int64_t start, int64_t end) {
    keys.insert(key);
    first = std::min(first, start);
    last = std::max(last, end);
  }
  int64_t Steps() const {
    const auto n = static_cast<int64_t>(keys.size());
    return where == LabelWhere::kGroups ? std::max<int64_t>(n - 1, 0) : n;
  }
  const char* source() const {
    switch (where) {
      case LabelWhere::kGpuSpans: return "gpu_user_annotation";
      case LabelWhere::kHostSpans: return "user_annotation";
      case LabelWhere::kGroups: return "group";
    }
    return "";
  }
};

InstanceKey GroupKey(int64_t group) { return {3, group, 0, 0}; }

// The normalised group labels (phases) of the host calls: each distinct label
// normalised once, and each call's phase as an index into them (a Metal trial has an
// encoder per submission, a million strings where a few dozen differ).
struct GroupPhases {
  std::vector<std::string> names;  // distinct; names[0] is "" (a call in no group)
  std::vector<uint32_t> of_call;   // by host call

  explicit GroupPhases(const std::vector<model::HostCall>& calls) : names{""} {
    std::unordered_map<std::string_view, uint32_t> by_label;
    std::unordered_map<std::string, uint32_t> by_phase;
    of_call.reserve(calls.size());
    for (const model::HostCall& c : calls) {
      if (!c.group) {
        of_call.push_back(0);
        continue;
      }
      auto it = by_label.find(c.group_label);
      if (it == by_label.end()) {
        std::string phase = attribution::NormalizePhaseLabel(c.group_label);
        auto [p, added] = by_phase.emplace(phase, static_cast<uint32_t>(names.size()));
        if (added) names.push_back(std::move(phase));
        it = by_label.emplace(c.group_label, p->second).first;
      }
      of_call.push_back(it->second);
    }
  }
};

// The trace's annotations and launch groups, indexed for the phase of a unit and the
// instances of a label.
class Annotations {
 public:
  Annotations(const model::WorkSet& trace, const TargetProcesses& targets)
      : trace_(trace),
        targets_(targets),
        gpu_spans_(trace.gpu_spans),
        cpu_spans_(trace.host_spans),
        gpu_names_(Normalized(trace.gpu_spans)),
        cpu_names_(Normalized(trace.host_spans)),
        group_phases_(GroupPhases(trace.host_calls)),
        has_groups_(std::any_of(trace.host_calls.begin(), trace.host_calls.end(),
                                [](const model::HostCall& c) { return c.group.has_value(); })) {}

  // A kernel's phase: the innermost GPU annotation on its stream, else the innermost
  // host annotation around its launch call. (Work launched in a group takes the
  // group's label instead.)
  void Locate(Item* item) const {
    const model::WorkItem& w = *item->work;
    if (InGroup(*item)) return;
    item->gpu_annotation = gpu_spans_.Innermost(w.pid, w.tid, w.start_ns, w.end_ns);
    if (item->gpu_annotation < 0 && item->launch != nullptr) {
      const model::HostCall& l = *item->launch;
      item->cpu_annotation = cpu_spans_.Innermost(l.pid, l.tid, l.start_ns, l.end_ns);
    }
  }

  // The unit's phase: its launch group's label, else its annotation, else "(unknown)"
  // for a kernel; none for a submission of no known group.
  const std::string* PhaseOf(const Item& item) const {
    static const std::string kUnknown = kUnknownPhase;
    if (InGroup(item)) return &GroupPhaseOf(*item.launch);
    if (!item.kernel()) return nullptr;
    if (item.gpu_annotation >= 0) return &gpu_names_[static_cast<size_t>(item.gpu_annotation)];
    if (item.cpu_annotation >= 0) return &cpu_names_[static_cast<size_t>(item.cpu_annotation)];
    return &kUnknown;
  }
  const std::string& GroupPhaseOf(const model::HostCall& call) const {
    return group_phases_.names[group_phases_.of_call[IndexOf(call)]];
  }
  // Whether the work was launched in labelled groups (Metal's command buffers).
  bool has_groups() const { return has_groups_; }

  // The annotation instance that gave the item its phase, if any.
  std::optional<InstanceKey> PhaseInstanceOf(const Item& item) const {
    if (item.gpu_annotation >= 0) return KeyOf(trace_.gpu_spans[static_cast<size_t>(item.gpu_annotation)], true);
    if (item.cpu_annotation >= 0) return KeyOf(trace_.host_spans[static_cast<size_t>(item.cpu_annotation)], false);
    return std::nullopt;
  }

  // GPU annotations the label names when there are any, else the target processes'
  // host annotations, else, where the work was launched in groups, the groups of
  // `units` it names.
  LabelInstances InstancesOf(const attribution::LabelMatcher& label, const std::vector<Item>& units) const {
    LabelInstances li;
    li.where = LabelWhere::kGpuSpans;
    const std::vector<bool> gpu_named = MatchesOf(trace_.gpu_spans, label);
    for (size_t i = 0; i < trace_.gpu_spans.size(); ++i) {
      if (gpu_named[i]) li.Add(KeyOf(trace_.gpu_spans[i], true), trace_.gpu_spans[i].start_ns, trace_.gpu_spans[i].end_ns);
    }
    if (!li.keys.empty()) return li;
    li.where = LabelWhere::kHostSpans;
    const std::vector<bool> cpu_named = MatchesOf(trace_.host_spans, label);
    for (size_t i = 0; i < trace_.host_spans.size(); ++i) {
      const model::Span& a = trace_.host_spans[i];
      if (cpu_named[i] && targets_.Keeps(a.pid)) li.Add(KeyOf(a, false), a.start_ns, a.end_ns);
    }
    if (!li.keys.empty() || !has_groups_) return li;
    return GroupInstancesOf(label, units);
  }

  // Distinct instances the label names (GPU ones with `gpu`, else host ones) that
  // contain at least one of the kernels (a host instance contains a kernel's launch call).
  int64_t InstancesAround(const std::vector<Item>& kernels, const attribution::LabelMatcher& label, bool gpu) const {
    std::set<InstanceKey> used;
    const std::vector<bool> gpu_named = MatchesOf(trace_.gpu_spans, label);
    const std::vector<bool> cpu_named = MatchesOf(trace_.host_spans, label);
    auto collect = [&](const std::vector<model::Span>& spans, const std::vector<bool>& named, bool on_gpu) {
      return [&, on_gpu](int i) {
        if (!named[static_cast<size_t>(i)]) return false;
        used.insert(KeyOf(spans[static_cast<size_t>(i)], on_gpu));
        return true;
      };
    };
    for (const Item& k : kernels) {
      if (gpu) {
        const model::WorkItem& w = *k.work;
        gpu_spans_.ForEachContaining(w.pid, w.tid, w.start_ns, w.end_ns,
                                     collect(trace_.gpu_spans, gpu_named, true));
      } else if (k.launch != nullptr) {
        const model::HostCall& l = *k.launch;
        cpu_spans_.ForEachContaining(l.pid, l.tid, l.start_ns, l.end_ns,
                                     collect(trace_.host_spans, cpu_named, false));
      }
    }
    return static_cast<int64_t>(used.size());
  }

 private:
  bool InGroup(const Item& item) const { return item.launch != nullptr && item.launch->group.has_value(); }
  size_t IndexOf(const model::HostCall& call) const { return HostCallIndex(trace_, call); }

  // The groups of `units` whose label the label names, each ending with its last unit;
  // each distinct group label is tested once.
  LabelInstances GroupInstancesOf(const attribution::LabelMatcher& label, const std::vector<Item>& units) const {
    LabelInstances li;
    li.where = LabelWhere::kGroups;
    std::unordered_map<std::string_view, bool> named;
    std::map<int64_t, int64_t> group_end;
    for (const Item& k : units) {
      if (!InGroup(k)) continue;
      const model::HostCall& call = *k.launch;
      auto it = named.find(call.group_label);
      if (it == named.end()) it = named.emplace(call.group_label, label.Matches(call.group_label)).first;
      if (!it->second) continue;
      auto [end, inserted] = group_end.emplace(*call.group, k.work->end_ns);
      if (!inserted) end->second = std::max(end->second, k.work->end_ns);
    }
    for (const auto& [group, end] : group_end) li.Add(GroupKey(group), end, end);
    return li;
  }

  const model::WorkSet& trace_;
  const TargetProcesses& targets_;
  const SpanIndex gpu_spans_;
  const SpanIndex cpu_spans_;
  const std::vector<std::string> gpu_names_;
  const std::vector<std::string> cpu_names_;
  const GroupPhases group_phases_;
  const bool has_groups_;
};

// Which kept items a decode window holds.
class WindowTest {
 public:
  enum class Kind {
    kGpuInterval,  // the work's own interval lies in [start, end]
    kHostLaunch,   // its launch call (else the work) starts in [start, end]
    kSkipUnits,    // all units but the first `skip` in start order; copies from `start` on
  };
  WindowTest(Kind kind, int64_t start_ns, int64_t end_ns, size_t skip = 0)
      : kind_(kind), start_ns_(start_ns), end_ns_(end_ns), skip_(skip) {}

  // Units must be tested in start order for kSkipUnits.
  bool Inside(const Item& item) {
    const model::WorkItem& w = *item.work;
    switch (kind_) {
      case Kind::kGpuInterval: return w.start_ns >= start_ns_ && w.end_ns <= end_ns_;
      case Kind::kHostLaunch: {
        const int64_t t = item.launch != nullptr ? item.launch->start_ns : w.start_ns;
        return t >= start_ns_ && t <= end_ns_;
      }
      case Kind::kSkipUnits:
        if (IsUnit(w)) return units_seen_++ >= skip_;
        return w.start_ns >= start_ns_;
    }
    return false;
  }

 private:
  Kind kind_;
  int64_t start_ns_;
  int64_t end_ns_;
  size_t skip_;
  size_t units_seen_ = 0;
};

// Drops the items outside the window, counting the units.
void KeepInWindow(WindowTest test, KeptWork* kept, TrialSummary* s) {
  auto keep = [&](std::vector<Item>* items) {
    std::vector<Item> in_window;
    in_window.reserve(items->size());
    for (const Item& item : *items) {
      if (test.Inside(item)) in_window.push_back(item);
    }
    const int64_t dropped = static_cast<int64_t>(items->size() - in_window.size());
    items->swap(in_window);
    return dropped;
  };
  s->excluded_outside_window = keep(&kept->units);
  s->diagnostics.AddCount("attr.outside_window", s->excluded_outside_window);
  keep(&kept->copies);
}

// A window label needs one instance of an annotation, two of a group label (the
// window runs between the ends of its first and last groups).
Status CheckWindowLabel(const LabelInstances& label, const LabelMatch& spelling, const std::string& path) {
  if (label.where == LabelWhere::kGroups && label.keys.size() < 2) {
    return Status::Error("attr.window_label",
                         "window label '" + spelling.Spelling() + "' names " + std::to_string(label.keys.size()) +
                             " launch group(s) (command buffers) of the target's work; at least 2 are needed: a "
                             "group's label marks the end of a decode step",
                         {path});
  }
  if (!label.keys.empty()) return Status();
  return Status::Error("attr.window_label",
                       "window label '" + spelling.Spelling() +
                           "' is not the name of any gpu_user_annotation or of a user_annotation of the target",
                       {path});
}

// Decode window: sets the window bounds and drops the work outside it. Returns the
// window label's instances for a label window, else nullopt. The seed's method has
// no window.
StatusOr<std::optional<LabelInstances>> ApplyDecodeWindow(const Annotations& annotations,
                                                          const AttributionOptions& options, const std::string& path,
                                                          KeptWork* kept, TrialSummary* s, WorkExtras* x) {
  s->window_start_ns = 0;
  s->window_end_ns = INT64_MAX;
  const DecodeWindow& w = options.window;
  if (options.seed_compat) return std::optional<LabelInstances>();
  switch (w.mode) {
    case DecodeWindow::Mode::kWholeTrace: return std::optional<LabelInstances>();
    case DecodeWindow::Mode::kLabel: {
      PERFGATE_ASSIGN_OR_RETURN(const attribution::LabelMatcher matcher, attribution::LabelMatcher::Compile(w.label));
      LabelInstances label = annotations.InstancesOf(matcher, kept->units);
      matcher.CountUntested(&s->diagnostics);
      PERFGATE_RETURN_IF_ERROR(CheckWindowLabel(label, w.label, path));
      s->window_start_ns = label.first;
      s->window_end_ns = label.last;
      x->label_source = label.source();
      x->label_occurrences = static_cast<int64_t>(label.keys.size());
      const auto kind =
          label.where == LabelWhere::kHostSpans ? WindowTest::Kind::kHostLaunch : WindowTest::Kind::kGpuInterval;
      KeepInWindow(WindowTest(kind, s->window_start_ns, s->window_end_ns), kept, s);
      return std::optional<LabelInstances>(std::move(label));
    }
    case DecodeWindow::Mode::kTimeRange:
      s->window_start_ns = w.start_ns;
      s->window_end_ns = w.end_ns;
      KeepInWindow(WindowTest(WindowTest::Kind::kGpuInterval, w.start_ns, w.end_ns), kept, s);
      return std::optional<LabelInstances>();
    case DecodeWindow::Mode::kSkipSubmissions: {
      std::vector<Item>& units = kept->units;
      std::stable_sort(units.begin(), units.end(),
                       [](const Item& a, const Item& b) { return a.work->start_ns < b.work->start_ns; });
      const size_t skip = std::min<size_t>(static_cast<size_t>(std::max<int64_t>(w.skip, 0)), units.size());
      s->window_start_ns = skip < units.size() ? units[skip].work->start_ns : INT64_MAX;
      KeepInWindow(WindowTest(WindowTest::Kind::kSkipUnits, s->window_start_ns, INT64_MAX, skip), kept, s);
      return std::optional<LabelInstances>();
    }
  }
  return std::optional<LabelInstances>();
}

// Tokens from options.token_label: its steps when it is also the window label, else
// its instances that hold at least one kept unit (none with the seed's method).
Status CountTokensInTrace(const Annotations& annotations, const std::vector<Item>& units,
                          const std::optional<LabelInstances>& window_label, const AttributionOptions& options,
                          const std::string& path, TrialSummary* s, WorkExtras* x) {
  if (options.token_label.empty() || options.seed_compat) return Status();
  PERFGATE_ASSIGN_OR_RETURN(const attribution::LabelMatcher label,
                            attribution::LabelMatcher::Compile(options.token_label));
  int64_t found = 0;
  if (window_label && attribution::SameLabel(options.token_label, options.window.label)) {
    found = window_label->Steps();
  } else {
    const LabelInstances li = annotations.InstancesOf(label, units);
    found = li.where == LabelWhere::kGroups
                ? static_cast<int64_t>(li.keys.size())
                : annotations.InstancesAround(units, label, li.where == LabelWhere::kGpuSpans);
    label.CountUntested(&s->diagnostics);
    if (x->label_source.empty() && !li.keys.empty()) {
      x->label_source = li.source();
      x->label_occurrences = static_cast<int64_t>(li.keys.size());
    }
  }
  if (found == 0) {
    const bool groups = window_label ? window_label->where == LabelWhere::kGroups : annotations.has_groups();
    return Status::Error("attr.token_label",
                         "token label '" + options.token_label.Spelling() +
                             (groups ? "' does not name a launch group (command buffer) of the target's work in the "
                                       "decode window"
                                     : "' does not name an annotation around the target's kernels in the decode window"),
                         {path});
  }
  s->tokens_in_trace = found;
  return Status();
}

// Kernel names to their short name and family, each distinct name matched once.
class KernelNamer {
 public:
  explicit KernelNamer(const attribution::KernelFamilyTable& table) : families_(table) {}
  // (short name, family)
  const std::pair<std::string, std::string>& Describe(const std::string& name) {
    auto it = names_.find(name);
    if (it == names_.end()) {
      std::string short_name = CanonicalKernelName(name);
      std::string family = families_.FamilyOfShortName(short_name);
      it = names_.emplace(name, std::make_pair(std::move(short_name), std::move(family))).first;
    }
    return it->second;
  }

 private:
  const attribution::detail::FamilyMatcher families_;
  std::unordered_map<std::string, std::pair<std::string, std::string>> names_;
};

// The host time of a kernel's own launch call: a graph launch's time is not split
// over its kernels.
int64_t OneKernelLaunchNs(const Item& item) {
  return item.launch != nullptr && item.launch->kind == model::HostCallKind::kKernelLaunch
             ? item.launch->duration_ns()
             : 0;
}

// |*sum| + |v| kept checkably in range: when the absolute values of every duration add
// up to an int64, so does every sum of some of them, whatever their signs.
bool AccumulateAbs(int64_t* sum, int64_t v) { return v != INT64_MIN && AccumulateChecked(sum, v < 0 ? -v : v); }

// Every figure is a sum of durations over some of the kept work, or of its launch
// calls: when these two totals of absolute values fit in int64, so does every part of
// them. (An encoder's host time is added once, not per submission: the importer
// checked the encoders' total.)
Status CheckSumsFit(const KeptWork& kept, const std::string& path) {
  int64_t gpu_ns = 0;
  int64_t host_ns = 0;
  for (const std::vector<Item>* items : {&kept.units, &kept.copies}) {
    for (const Item& item : *items) {
      const model::WorkItem& w = *item.work;
      const bool fits = AccumulateAbs(&gpu_ns, w.duration_ns()) &&
                        (item.launch == nullptr || item.by_encoder() || AccumulateAbs(&host_ns, item.launch->duration_ns()));
      if (!fits) {
        return Status::Error("json.sum_overflow",
                             "the summed durations overflow 64-bit nanoseconds at the " +
                                 std::string(model::WorkKindName(w.kind)) + " \"" + w.name + "\" (ts " +
                                 std::to_string(w.start_ns) + " ns, dur " + std::to_string(w.duration_ns()) + " ns)",
                             {path});
      }
    }
  }
  return Status();
}

// The encoders the families and phases count: those that launched kept submissions,
// or with the seed's method every one the importer kept.
std::vector<const model::HostCall*> CountedEncoders(const model::WorkSet& trace, const std::vector<Item>& units,
                                                    bool seed_compat) {
  std::vector<const model::HostCall*> encoders;
  if (seed_compat) {
    for (const model::HostCall& c : trace.host_calls) {
      if (c.kind == model::HostCallKind::kEncoder) encoders.push_back(&c);
    }
    return encoders;
  }
  std::vector<char> seen(trace.host_calls.size(), 0);
  for (const Item& k : units) {
    if (!k.by_encoder()) continue;
    char& was_seen = seen[HostCallIndex(trace, *k.launch)];
    if (!was_seen) encoders.push_back(k.launch);
    was_seen = 1;
  }
  return encoders;
}

// A kernel's row of the per-name tables (WorkExtras::per_kernel, kernel_names).
void CountKernelName(const model::WorkItem& work, const std::pair<std::string, std::string>& described,
                     TrialSummary* s, WorkExtras* x) {
  const int64_t d = work.duration_ns();
  const auto& [short_name, family] = described;
  KernelStats& ks = x->per_kernel[work.name];
  if (ks.count++ == 0) {
    ks.short_name = short_name;
    ks.family = family;
  }
  ks.gpu_sum_ns += d;
  attribution::KernelNameStats& kn = s->kernel_names[work.name];
  if (kn.count++ == 0) {
    kn.short_name = short_name;
    kn.family = family;
    kn.min_ns = kn.max_ns = d;
  }
  kn.gpu_sum_ns += d;
  kn.min_ns = std::min(kn.min_ns, d);
  kn.max_ns = std::max(kn.max_ns, d);
}

// Families (encoder_gpu): a kernel's from its name, a submission's from its encoder
// (none without one). `encoders` and the host time count kernels with their own
// launch calls, and each counted encoder once. Kernels also fill the registry of short
// names per family and the per-kernel tables.
void SummarizeFamilies(const std::vector<Item>& units, const std::vector<const model::HostCall*>& encoders,
                       const attribution::KernelFamilyTable& table, TrialSummary* s, WorkExtras* x) {
  KernelNamer namer(table);
  std::map<std::string, std::set<std::string>> registry;
  std::map<std::string, std::vector<double>> durations;  // per exact name, for the median call
  for (const Item& k : units) {
    const model::WorkItem& work = *k.work;
    if (!k.kernel() && !k.by_encoder()) continue;
    const std::pair<std::string, std::string>* described = k.kernel() ? &namer.Describe(work.name) : nullptr;
    FamilyStats& f = s->encoder_gpu[k.by_encoder() ? k.launch->family : described->second];
    ++f.submissions;
    f.gpu_sum_ns += work.duration_ns();
    if (described == nullptr) continue;
    ++f.encoders;
    f.host_sum_ns += OneKernelLaunchNs(k);
    registry[described->second].insert(described->first);
    CountKernelName(work, *described, s, x);
    durations[work.name].push_back(static_cast<double>(work.duration_ns()));
  }
  for (const model::HostCall* e : encoders) {
    FamilyStats& f = s->encoder_gpu[e->family];
    ++f.encoders;
    f.host_sum_ns += e->duration_ns();
  }
  for (auto& [name, ds] : durations) s->kernel_names[name].median_ns = stats::Median(std::move(ds));
  for (auto& [family, names] : registry) s->shader_registry[family].assign(names.begin(), names.end());
  s->shader_count = static_cast<int64_t>(x->per_kernel.size());
}

// Phases (cb_label_gpu). A kernel phase's `cbs` and `command_buffers` count its
// annotation instances; a group phase's `cbs` counts its encoders (the seed's count)
// and `command_buffers` its groups. `total_encoders` and `labelled_encoders` count
// kernels and counted encoders alike.
void SummarizePhases(const std::vector<Item>& units, const std::vector<const model::HostCall*>& encoders,
                     const Annotations& annotations, TrialSummary* s) {
  std::map<std::string, std::set<InstanceKey>> phase_instances;
  std::map<std::string, std::set<int64_t>> phase_groups;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> phase_intervals;
  int64_t kernels = 0;
  for (const Item& k : units) {
    const std::string* phase = annotations.PhaseOf(k);
    if (phase == nullptr) continue;
    const model::WorkItem& work = *k.work;
    PhaseStats& ph = s->cb_label_gpu[*phase];
    ++ph.submissions;
    ph.gpu_sum_ns += work.duration_ns();
    phase_intervals[*phase].emplace_back(work.start_ns, work.end_ns);
    if (!k.kernel()) continue;
    ++kernels;
    ph.host_sum_ns += OneKernelLaunchNs(k);
    if (auto instance = annotations.PhaseInstanceOf(k)) phase_instances[*phase].insert(*instance);
    if (!attribution::IsGenericPhase(*phase)) ++s->labelled_encoders;
  }
  for (const model::HostCall* e : encoders) {
    const std::string& phase = annotations.GroupPhaseOf(*e);
    PhaseStats& ph = s->cb_label_gpu[phase];
    ++ph.cbs;
    ph.host_sum_ns += e->duration_ns();
    if (e->group) phase_groups[phase].insert(*e->group);
    if (!attribution::IsGenericPhase(phase)) ++s->labelled_encoders;
  }
  for (auto& [phase, ph] : s->cb_label_gpu) {
    const auto instances = static_cast<int64_t>(phase_instances[phase].size());
    ph.cbs += instances;
    ph.command_buffers = static_cast<int64_t>(phase_groups[phase].size()) + instances;
    ph.gpu_union_ns = stats::UnionLength(std::move(phase_intervals[phase]));
  }
  s->total_encoders = kernels + static_cast<int64_t>(encoders.size());
}

// Which kept units have a launch call, and the distinct launch calls behind them, by
// kind, with their host time. A submission whose encoder the trace lacks is
// unmatched; work without any launch call is unmapped.
void SummarizeLaunches(const model::WorkSet& trace, const std::vector<Item>& units, TrialSummary* s,
                       WorkExtras* x) {
  std::vector<char> used(trace.host_calls.size(), 0);
  std::vector<const model::HostCall*> used_launches;
  for (const Item& k : units) {
    if (k.launch == nullptr) {
      if (!k.kernel() && k.work->correlation) {
        ++s->unmatched_submissions;
        continue;
      }
      if (k.kernel()) ++x->unlaunched_kernels;
      ++s->unmapped_submissions;
      continue;
    }
    ++s->matched_submissions;
    if (k.launch->kind == model::HostCallKind::kGraphLaunch) ++x->graph_kernels;
    char& was_used = used[HostCallIndex(trace, *k.launch)];
    if (!was_used) used_launches.push_back(k.launch);
    was_used = 1;
  }
  for (const model::HostCall* r : used_launches) {
    switch (r->kind) {
      case model::HostCallKind::kKernelLaunch: ++x->kernel_launches; break;
      case model::HostCallKind::kGraphLaunch: ++x->graph_launches; break;
      case model::HostCallKind::kEncoder:
      case model::HostCallKind::kOther: ++x->other_launches; break;
    }
    x->launch_host_ns += r->duration_ns();
  }
  s->encoder_rows = static_cast<int64_t>(used_launches.size());
  s->encoder_total_ns = x->launch_host_ns;
  s->diagnostics.AddCount("attr.unmatched_encoder", s->unmatched_submissions);
}

// memcpy and memset: families of their own, beside the kernel figures.
void SummarizeCopies(const std::vector<Item>& copies, TrialSummary* s, WorkExtras* x) {
  for (const Item& c : copies) {
    const model::WorkItem& work = *c.work;
    const bool memcpy = work.kind == model::WorkKind::kMemcpy;
    FamilyStats& f = s->encoder_gpu[memcpy ? "memcpy" : "memset"];
    ++f.encoders;
    ++f.submissions;
    f.gpu_sum_ns += work.duration_ns();
    if (c.launch != nullptr && c.launch->kind != model::HostCallKind::kGraphLaunch) {
      f.host_sum_ns += c.launch->duration_ns();
    }
    (memcpy ? x->memcpys : x->memsets) += 1;
    (memcpy ? x->memcpy_ns : x->memset_ns) += work.duration_ns();
  }
}

// The per-token figures of the extras, and every number of them in s->extras.
void FinishExtras(WorkExtras* x, TrialSummary* s) {
  const double per_token = static_cast<double>(std::max<int64_t>(s->tokens, 1));
  x->kernels = s->submissions;
  x->kernels_per_token = s->dispatches_per_token;
  x->launches_per_token = static_cast<double>(x->kernel_launches + x->graph_launches) / per_token;
  x->graph_launches_per_token = static_cast<double>(x->graph_launches) / per_token;
  x->memcpy_us_per_token = static_cast<double>(x->memcpy_ns) / 1000.0 / per_token;
  x->memset_us_per_token = static_cast<double>(x->memset_ns) / 1000.0 / per_token;
  auto count = [](int64_t n) { return static_cast<double>(n); };
  s->extras = {
      {"kernels", count(x->kernels)},
      {"memcpys", count(x->memcpys)},
      {"memsets", count(x->memsets)},
      {"memcpy_ns", count(x->memcpy_ns)},
      {"memset_ns", count(x->memset_ns)},
      {"kernel_launches", count(x->kernel_launches)},
      {"graph_launches", count(x->graph_launches)},
      {"other_launches", count(x->other_launches)},
      {"graph_kernels", count(x->graph_kernels)},
      {"unlaunched_kernels", count(x->unlaunched_kernels)},
      {"launch_host_ns", count(x->launch_host_ns)},
      {"launches_per_token", x->launches_per_token},
      {"graph_launches_per_token", x->graph_launches_per_token},
      {"kernels_per_token", x->kernels_per_token},
      {"memcpy_us_per_token", x->memcpy_us_per_token},
      {"memset_us_per_token", x->memset_us_per_token},
      {"label_occurrences", count(x->label_occurrences)},
  };
}

// Every family the table in force could name, the copies' two, and those met.
void RecordFamilyVocabulary(const attribution::KernelFamilyTable& table, TrialSummary* s) {
  s->known_kernel_families = attribution::KernelFamilyNames(table);
  s->known_kernel_families.insert({"memcpy", "memset"});
  for (const auto& [family, _] : s->shader_registry) s->known_kernel_families.insert(family);
  for (const auto& [family, _] : s->encoder_gpu) s->known_kernel_families.insert(family);
}

// Kept units per owning process; units with no known owner, or of no process, have none.
std::map<std::string, int64_t> KeptPerProcess(const model::WorkSet& trace, const std::vector<Item>& kernels) {
  std::map<int64_t, int64_t> per_pid;
  for (const Item& k : kernels) {
    if (k.owner && *k.owner != model::kNoProcess) ++per_pid[*k.owner];
  }
  std::map<std::string, int64_t> per_process;
  for (const auto& [pid, n] : per_pid) per_process[ProcessLabel(trace, pid)] += n;
  return per_process;
}

// Kept kernels of several processes with no process choice are an error: their
// figures would be summed into one engine that does not exist.
Status CheckOneProcess(const model::WorkSet& trace, const std::vector<Item>& kernels, const AttributionOptions& options) {
  if (!NoProcessChoice(options)) return Status();
  const std::map<std::string, int64_t> per_process = KeptPerProcess(trace, kernels);
  if (per_process.size() <= 1) return Status();
  std::string list;
  for (const auto& [process, n] : per_process) {
    list += (list.empty() ? "" : ", ") + process + ": " + std::to_string(n) + " kernels";
  }
  return Status::Error("attr.several_processes",
                       "the kept kernels come from " + std::to_string(per_process.size()) + " processes (" + list +
                           "); choose one with --process NAME|pid:N, or sum them with --all-processes (suites: "
                           "options.process_prefix, process_id or all_processes)",
                       {trace.path}, ErrorKind::kUsage);
}

}  // namespace

StatusOr<TrialSummary> AttributeWork(const model::WorkSet& trace, const AttributionOptions& options,
                                     WorkExtras* extras_out) {
  if (options.seed_compat && !trace.conventions.seed_method) {
    return Status::Error("attr.seed_compat",
                         "--seed-compat reproduces the seed's Metal System Trace method; it applies to Metal System "
                         "Trace exports only",
                         {trace.path}, ErrorKind::kUsage);
  }
  TrialSummary s;
  WorkExtras x;
  s.path = trace.path;
  s.diagnostics.Merge(trace.diagnostics);
  s.rows = trace.events;

  const LaunchIndex launches = IndexLaunches(trace, &s);
  const TargetProcesses targets(trace, options);
  PERFGATE_ASSIGN_OR_RETURN(KeptWork kept, KeepTargetWork(trace, launches, targets, options, &s));
  PERFGATE_RETURN_IF_ERROR(KeepDevice(options, trace.path, &kept, &s));
  if (trace.conventions.several_processes_need_a_choice) {
    PERFGATE_RETURN_IF_ERROR(CheckOneProcess(trace, kept.units, options));
  }
  const Annotations annotations(trace, targets);
  for (Item& k : kept.units) annotations.Locate(&k);
  PERFGATE_ASSIGN_OR_RETURN(std::optional<LabelInstances> window_label,
                            ApplyDecodeWindow(annotations, options, trace.path, &kept, &s, &x));
  PERFGATE_RETURN_IF_ERROR(CountTokensInTrace(annotations, kept.units, window_label, options, trace.path, &s, &x));
  PERFGATE_RETURN_IF_ERROR(attribution::ResolveTokens(s.tokens_in_trace, options, trace.path, &s));
  PERFGATE_RETURN_IF_ERROR(CheckSumsFit(kept, trace.path));

  std::vector<std::pair<int64_t, int64_t>> intervals;
  intervals.reserve(kept.units.size());
  for (const Item& k : kept.units) intervals.emplace_back(k.work->start_ns, k.work->end_ns);
  PERFGATE_RETURN_IF_ERROR(attribution::SummarizeKeptWork(std::move(intervals), options, trace.path, &s));
  const attribution::KernelFamilyTable& families = FamilyTableInForce(options);
  const std::vector<const model::HostCall*> encoders = CountedEncoders(trace, kept.units, options.seed_compat);
  SummarizeFamilies(kept.units, encoders, families, &s, &x);
  SummarizePhases(kept.units, encoders, annotations, &s);
  SummarizeLaunches(trace, kept.units, &s, &x);
  SummarizeCopies(kept.copies, &s, &x);
  attribution::CountMixedProcesses(KeptPerProcess(trace, kept.units), trace.path, &s.diagnostics);
  // Kernel work's vocabulary and extras; a source whose units name no kernel has its own.
  if (kept.units.front().kernel()) {
    RecordFamilyVocabulary(families, &s);
    FinishExtras(&x, &s);
  }
  if (extras_out != nullptr) *extras_out = std::move(x);
  return s;
}

}  // namespace perfgate::attribution
