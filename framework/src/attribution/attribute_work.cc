// The attribution of a model::WorkSet into a TrialSummary. The field meanings and the
// window and token rules are in perfgate/attribution/work.h.
#include "perfgate/attribution/work.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include "attribution/label_matcher.h"
#include "checked_math.h"
#include "attribution/family_matcher.h"
#include "attribution/process_target.h"
#include "attribution/work_item.h"
#include "attribution/work_labels.h"
#include "perfgate/attribution/kernel_families.h"
#include "perfgate/stats/summary.h"

namespace perfgate::attribution {
namespace {

using ::perfgate::internal::AccumulateAbsChecked;
using detail::Annotations;
using detail::HostCallIndex;
using detail::InstanceKey;
using detail::IsUnit;
using detail::Item;
using detail::LabelInstances;
using detail::LabelWhere;
using detail::NoProcessChoice;
using detail::ProcessLabel;
using detail::TargetDescription;
using detail::TargetProcesses;

bool SameTable(const attribution::KernelFamilyTable& a, const attribution::KernelFamilyTable& b) {
  if (a.strip_prefix != b.strip_prefix || a.rules.size() != b.rules.size()) return false;
  for (size_t i = 0; i < a.rules.size(); ++i) {
    if (a.rules[i].prefix != b.rules[i].prefix || a.rules[i].family != b.rules[i].family) return false;
  }
  return true;
}

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
      kernels ? "; without a launch call: " + std::to_string(s.excluded_no_owner) +
                    "; launched by an unnamed process: " + std::to_string(s.excluded_unnamed_owner)
              : "; of no known process: " + std::to_string(s.excluded_no_owner) +
                    "; of the sentinel or an unnamed process: " + std::to_string(s.excluded_unnamed_owner);
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
        if (unit) ++s->excluded_no_owner;
        continue;
      }
      if (targets.Unnamed(*owner)) {
        if (unit) ++s->excluded_unnamed_owner;
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
  s->items_read = units_read;
  s->diagnostics.AddCount(trace.conventions.no_owner_code, s->excluded_no_owner);
  s->diagnostics.AddCount(trace.conventions.unnamed_owner_code, s->excluded_unnamed_owner);
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
      const bool fits = AccumulateAbsChecked(&gpu_ns, w.duration_ns()) &&
                        (item.launch == nullptr || item.by_encoder() ||
                         AccumulateAbsChecked(&host_ns, item.launch->duration_ns()));
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

// A kernel's row of the per-name tables (WorkExtras::per_kernel, the kernel level).
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
  attribution::LevelItem& kn = s->kernels[work.name];
  ++kn.calls;
  if (kn.items++ == 0) {
    kn.short_name = short_name;
    kn.family = family;
    kn.min_ns = kn.max_ns = d;
  }
  kn.gpu_sum_ns += d;
  kn.min_ns = std::min(kn.min_ns, d);
  kn.max_ns = std::max(kn.max_ns, d);
}

// Families: a kernel's from its name, a submission's from its encoder
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
    LevelItem& f = s->families[k.by_encoder() ? k.launch->family : described->second];
    ++f.items;
    f.gpu_sum_ns += work.duration_ns();
    if (described == nullptr) continue;
    ++f.calls;
    f.host_sum_ns += OneKernelLaunchNs(k);
    registry[described->second].insert(described->first);
    CountKernelName(work, *described, s, x);
    durations[work.name].push_back(static_cast<double>(work.duration_ns()));
  }
  for (const model::HostCall* e : encoders) {
    LevelItem& f = s->families[e->family];
    ++f.calls;
    f.host_sum_ns += e->duration_ns();
  }
  for (auto& [name, ds] : durations) s->kernels[name].median_ns = stats::Median(std::move(ds));
  for (auto& [family, names] : registry) s->kernel_registry[family].assign(names.begin(), names.end());
  s->registered_kernels = static_cast<int64_t>(x->per_kernel.size());
}

// Phases. A kernel phase's `calls` and `groups` count its annotation instances; a
// group phase's `calls` counts its encoders (the seed's "cbs") and `groups` its
// launch groups. `phase_units` and `labelled_units` count kernels and counted
// encoders alike.
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
    LevelItem& ph = s->phases[*phase];
    ++ph.items;
    ph.gpu_sum_ns += work.duration_ns();
    phase_intervals[*phase].emplace_back(work.start_ns, work.end_ns);
    if (!k.kernel()) continue;
    ++kernels;
    ph.host_sum_ns += OneKernelLaunchNs(k);
    if (auto instance = annotations.PhaseInstanceOf(k)) phase_instances[*phase].insert(*instance);
    if (!attribution::IsGenericPhase(*phase)) ++s->labelled_units;
  }
  for (const model::HostCall* e : encoders) {
    const std::string& phase = annotations.GroupPhaseOf(*e);
    LevelItem& ph = s->phases[phase];
    ++ph.calls;
    ph.host_sum_ns += e->duration_ns();
    if (e->group) phase_groups[phase].insert(*e->group);
    if (!attribution::IsGenericPhase(phase)) ++s->labelled_units;
  }
  for (auto& [phase, ph] : s->phases) {
    const auto instances = static_cast<int64_t>(phase_instances[phase].size());
    ph.calls += instances;
    ph.groups = static_cast<int64_t>(phase_groups[phase].size()) + instances;
    ph.gpu_union_ns = stats::UnionLength(std::move(phase_intervals[phase]));
  }
  s->phase_units = kernels + static_cast<int64_t>(encoders.size());
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
        ++s->items_of_unknown_call;
        continue;
      }
      if (k.kernel()) ++x->unlaunched_kernels;
      ++s->items_without_call;
      continue;
    }
    ++s->items_with_call;
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
  s->launch_calls = static_cast<int64_t>(used_launches.size());
  s->launch_host_ns = x->launch_host_ns;
  s->diagnostics.AddCount("attr.unmatched_encoder", s->items_of_unknown_call);
}

// memcpy and memset: families of their own, beside the kernel figures.
void SummarizeCopies(const std::vector<Item>& copies, TrialSummary* s, WorkExtras* x) {
  for (const Item& c : copies) {
    const model::WorkItem& work = *c.work;
    const bool memcpy = work.kind == model::WorkKind::kMemcpy;
    LevelItem& f = s->families[memcpy ? "memcpy" : "memset"];
    ++f.calls;
    ++f.items;
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
  x->kernels = s->items;
  x->kernels_per_token = s->items_per_token;
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
  for (const auto& [family, _] : s->kernel_registry) s->known_kernel_families.insert(family);
  for (const auto& [family, _] : s->families) s->known_kernel_families.insert(family);
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
  s.source_counts = {{"events", trace.events}};

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
