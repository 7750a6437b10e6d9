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

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

enum class LaunchKind { kKernel, kGraph, kOther };

// By name, the same for CUDA's runtime and driver and for HIP: cudaGraphLaunch,
// cuGraphLaunch, hipGraphLaunch are graph launches; cudaLaunchKernel(ExC),
// cuLaunchKernel(Ex), cudaLaunchCooperativeKernel and hipLaunchKernel,
// hipExtLaunchKernel, hipModuleLaunchKernel, hipExtModuleLaunchKernel,
// hipLaunchCooperativeKernel are kernel launches; the rest (cudaMemcpyAsync,
// hipMemcpyWithStream, hipMemsetAsync, ...) are other calls.
LaunchKind KindOfLaunch(std::string_view name) {
  if (Contains(name, "GraphLaunch")) return LaunchKind::kGraph;
  if (Contains(name, "LaunchKernel") || Contains(name, "LaunchCooperativeKernel")) return LaunchKind::kKernel;
  return LaunchKind::kOther;
}

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

// A kept unit of GPU work, with its launch call, owning process and phase.
struct Item {
  const model::WorkItem* work;
  const model::HostCall* launch;     // nullptr when no runtime call has its correlation id
  std::optional<int64_t> owner;  // the launch call's pid, else model::WorkItem::process
  int gpu_annotation = -1;    // innermost gpu_user_annotation containing it
  int cpu_annotation = -1;    // innermost user_annotation containing its launch call
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

// The process filter, the one of every GPU-trace source: a process is kept when its
// name matches the prefix (NameMatches) and its id is the chosen one. An id alone
// keeps an unnamed process too; a prefix needs the trace to name the process.
class TargetProcesses {
 public:
  TargetProcesses(const model::WorkSet& trace, const AttributionOptions& options)
      : trace_(trace), options_(options), filter_(ProcessFilterOn(options)) {}

  bool filter() const { return filter_; }
  // The filter needs a name the trace does not give for `pid`.
  bool Unnamed(int64_t pid) const { return !options_.process_prefix.empty() && !trace_.process_names.count(pid); }
  bool Keeps(int64_t pid) const {
    if (!filter_) return true;
    if (options_.process_id && *options_.process_id != pid) return false;
    if (options_.process_prefix.empty()) return true;
    auto it = trace_.process_names.find(pid);
    return it != trace_.process_names.end() && NameMatches(it->second, options_.process_prefix);
  }

 private:
  const model::WorkSet& trace_;
  const AttributionOptions& options_;
  const bool filter_;
};

// The kept GPU work: kernels (the unit of every per-token figure) and copies
// (memcpy, memset), in file order.
struct KeptWork {
  std::vector<Item> kernels;
  std::vector<Item> copies;
};

std::string NoTargetKernelsMessage(const AttributionOptions& options, int64_t kernels_read,
                                   const std::map<std::string, int64_t>& other_processes, const TrialSummary& s) {
  std::string seen;
  for (const auto& [name, n] : other_processes) seen += (seen.empty() ? "" : ", ") + name + " x" + std::to_string(n);
  return "no kernel launched by " + TargetDescription(options) + " among " + std::to_string(kernels_read) +
         " kernels (other processes: " + (seen.empty() ? "none" : seen) + "; without a launch call: " +
         std::to_string(s.excluded_unmapped) + "; launched by an unnamed process: " +
         std::to_string(s.excluded_unattributed) + ")";
}

// Process filter, on each work item's owner (its launch call's process, else the
// process the source recorded for it). Only kernels are counted as excluded. No kept
// kernel is an error naming what was there.
StatusOr<KeptWork> KeepTargetWork(const model::WorkSet& trace, const LaunchIndex& launches, const TargetProcesses& targets,
                                  const AttributionOptions& options, TrialSummary* s) {
  KeptWork kept;
  std::map<std::string, int64_t> other_processes;
  int64_t kernels_read = 0;
  for (const model::WorkItem& w : trace.items) {
    const bool kernel = w.kind == model::WorkKind::kKernel;
    if (kernel) ++kernels_read;
    const model::HostCall* launch = nullptr;
    if (w.correlation) {
      auto it = launches.find(*w.correlation);
      if (it != launches.end()) launch = it->second;
    }
    const std::optional<int64_t> owner = launch != nullptr ? std::optional<int64_t>(launch->pid) : w.process;
    if (targets.filter()) {
      if (!owner) {
        if (kernel) ++s->excluded_unmapped;
        continue;
      }
      if (targets.Unnamed(*owner)) {
        if (kernel) ++s->excluded_unattributed;
        continue;
      }
      if (!targets.Keeps(*owner)) {
        if (kernel) {
          ++s->excluded_other_process;
          ++other_processes[ProcessLabel(trace, *owner)];
        }
        continue;
      }
    }
    (kernel ? kept.kernels : kept.copies).push_back(Item{&w, launch, owner});
  }
  s->paired = kernels_read;
  s->diagnostics.AddCount("json.unmatched_correlation", s->excluded_unmapped);
  s->diagnostics.AddCount("json.unnamed_process", s->excluded_unattributed);
  s->diagnostics.AddCount("attr.other_process", s->excluded_other_process);
  if (!kept.kernels.empty()) return kept;
  if (!targets.filter()) {
    return Status::Error("attr.no_target_rows",
                         "the trace has no kernel events (" + std::to_string(trace.items.size()) +
                             " GPU work items in all)",
                         {trace.path});
  }
  return Status::Error("attr.no_target_rows",
                       NoTargetKernelsMessage(options, kernels_read, other_processes, *s),
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
  for (const Item& k : kept->kernels) ++per_device[k.work->device];
  if (!options.device) {
    if (per_device.size() <= 1) return Status();
    return Status::Error("attr.several_devices",
                         "the kept kernels ran on " + std::to_string(per_device.size()) + " devices (" +
                             DeviceList(per_device) + "); choose one with --device N (suites: options.device)",
                         {path}, ErrorKind::kUsage);
  }
  const int64_t device = *options.device;
  auto other = [device](const Item& item) { return item.work->device != device; };
  const auto kernels_before = static_cast<int64_t>(kept->kernels.size());
  kept->kernels.erase(std::remove_if(kept->kernels.begin(), kept->kernels.end(), other), kept->kernels.end());
  kept->copies.erase(std::remove_if(kept->copies.begin(), kept->copies.end(), other), kept->copies.end());
  s->diagnostics.AddCount("attr.other_device", kernels_before - static_cast<int64_t>(kept->kernels.size()));
  if (!kept->kernels.empty()) return Status();
  return Status::Error("attr.no_target_rows",
                       "no kept kernel ran on device " + std::to_string(device) + " (devices: " +
                           (per_device.empty() ? std::string("none") : DeviceList(per_device)) + ")",
                       {path});
}

// Instances of a (normalised) label, and the time they span.
struct LabelInstances {
  bool gpu = false;  // gpu_user_annotations, else user_annotations
  std::set<InstanceKey> keys;
  int64_t first_start = INT64_MAX;
  int64_t last_end = INT64_MIN;

  const char* source() const { return gpu ? "gpu_user_annotation" : "user_annotation"; }
};

// The trace's annotations, indexed for the phase of a kernel and the instances of a
// label.
class Annotations {
 public:
  Annotations(const model::WorkSet& trace, const TargetProcesses& targets)
      : trace_(trace),
        targets_(targets),
        gpu_spans_(trace.gpu_spans),
        cpu_spans_(trace.host_spans),
        gpu_names_(Normalized(trace.gpu_spans)),
        cpu_names_(Normalized(trace.host_spans)) {}

  // Phases: the innermost GPU annotation on the work's stream, else the innermost
  // host annotation around its launch call.
  void Locate(Item* item) const {
    const model::WorkItem& w = *item->work;
    item->gpu_annotation = gpu_spans_.Innermost(w.pid, w.tid, w.start_ns, w.end_ns);
    if (item->gpu_annotation < 0 && item->launch != nullptr) {
      const model::HostCall& l = *item->launch;
      item->cpu_annotation = cpu_spans_.Innermost(l.pid, l.tid, l.start_ns, l.end_ns);
    }
  }

  const std::string& PhaseOf(const Item& item) const {
    static const std::string kUnknown = kUnknownPhase;
    if (item.gpu_annotation >= 0) return gpu_names_[static_cast<size_t>(item.gpu_annotation)];
    if (item.cpu_annotation >= 0) return cpu_names_[static_cast<size_t>(item.cpu_annotation)];
    return kUnknown;
  }

  // The annotation instance that gave the item its phase, if any.
  std::optional<InstanceKey> PhaseInstanceOf(const Item& item) const {
    if (item.gpu_annotation >= 0) return KeyOf(trace_.gpu_spans[static_cast<size_t>(item.gpu_annotation)], true);
    if (item.cpu_annotation >= 0) return KeyOf(trace_.host_spans[static_cast<size_t>(item.cpu_annotation)], false);
    return std::nullopt;
  }

  // GPU annotations the label names when there are any, else the target processes'
  // host annotations.
  LabelInstances InstancesOf(const attribution::LabelMatcher& label) const {
    LabelInstances li;
    const std::vector<bool> gpu_named = MatchesOf(trace_.gpu_spans, label);
    for (size_t i = 0; i < trace_.gpu_spans.size(); ++i) {
      if (!gpu_named[i]) continue;
      const model::Span& a = trace_.gpu_spans[i];
      li.gpu = true;
      li.keys.insert(KeyOf(a, true));
      li.first_start = std::min(li.first_start, a.start_ns);
      li.last_end = std::max(li.last_end, a.end_ns);
    }
    if (li.gpu) return li;
    const std::vector<bool> cpu_named = MatchesOf(trace_.host_spans, label);
    for (size_t i = 0; i < trace_.host_spans.size(); ++i) {
      const model::Span& a = trace_.host_spans[i];
      if (!cpu_named[i] || !targets_.Keeps(a.pid)) continue;
      li.keys.insert(KeyOf(a, false));
      li.first_start = std::min(li.first_start, a.start_ns);
      li.last_end = std::max(li.last_end, a.end_ns);
    }
    return li;
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
  const model::WorkSet& trace_;
  const TargetProcesses& targets_;
  const SpanIndex gpu_spans_;
  const SpanIndex cpu_spans_;
  const std::vector<std::string> gpu_names_;
  const std::vector<std::string> cpu_names_;
};

// Which kept items a decode window holds.
class WindowTest {
 public:
  enum class Kind {
    kGpuInterval,  // the work's own interval lies in [start, end]
    kHostLaunch,   // its launch call (else the work) starts in [start, end]
    kSkipKernels,  // all kernels but the first `skip` in start order; copies from `start` on
  };
  WindowTest(Kind kind, int64_t start_ns, int64_t end_ns, size_t skip = 0)
      : kind_(kind), start_ns_(start_ns), end_ns_(end_ns), skip_(skip) {}

  // Kernels must be tested in start order for kSkipKernels.
  bool Inside(const Item& item) {
    const model::WorkItem& w = *item.work;
    switch (kind_) {
      case Kind::kGpuInterval: return w.start_ns >= start_ns_ && w.end_ns <= end_ns_;
      case Kind::kHostLaunch: {
        const int64_t t = item.launch != nullptr ? item.launch->start_ns : w.start_ns;
        return t >= start_ns_ && t <= end_ns_;
      }
      case Kind::kSkipKernels:
        if (w.kind == model::WorkKind::kKernel) return kernels_seen_++ >= skip_;
        return w.start_ns >= start_ns_;
    }
    return false;
  }

 private:
  Kind kind_;
  int64_t start_ns_;
  int64_t end_ns_;
  size_t skip_;
  size_t kernels_seen_ = 0;
};

// Drops the items outside the window, counting the kernels.
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
  s->excluded_outside_window = keep(&kept->kernels);
  s->diagnostics.AddCount("attr.outside_window", s->excluded_outside_window);
  keep(&kept->copies);
}

// Decode window: sets the window bounds and drops the work outside it. Returns the
// window label's instances for a label window, else nullopt. An annotation encloses
// a whole decode step, so the window runs from the first instance's start to the
// last one's end.
StatusOr<std::optional<LabelInstances>> ApplyDecodeWindow(const Annotations& annotations,
                                                          const AttributionOptions& options, const std::string& path,
                                                          KeptWork* kept, TrialSummary* s, WorkExtras* x) {
  s->window_start_ns = 0;
  s->window_end_ns = INT64_MAX;
  const DecodeWindow& w = options.window;
  switch (w.mode) {
    case DecodeWindow::Mode::kWholeTrace: return std::optional<LabelInstances>();
    case DecodeWindow::Mode::kLabel: {
      PERFGATE_ASSIGN_OR_RETURN(const attribution::LabelMatcher matcher, attribution::LabelMatcher::Compile(w.label));
      LabelInstances label = annotations.InstancesOf(matcher);
      matcher.CountUntested(&s->diagnostics);
      if (label.keys.empty()) {
        return Status::Error("attr.window_label",
                             "window label '" + w.label.Spelling() +
                                 "' is not the name of any gpu_user_annotation or of a user_annotation of the target",
                             {path});
      }
      s->window_start_ns = label.first_start;
      s->window_end_ns = label.last_end;
      x->label_source = label.source();
      x->label_occurrences = static_cast<int64_t>(label.keys.size());
      const auto kind = label.gpu ? WindowTest::Kind::kGpuInterval : WindowTest::Kind::kHostLaunch;
      KeepInWindow(WindowTest(kind, s->window_start_ns, s->window_end_ns), kept, s);
      return std::optional<LabelInstances>(std::move(label));
    }
    case DecodeWindow::Mode::kTimeRange:
      s->window_start_ns = w.start_ns;
      s->window_end_ns = w.end_ns;
      KeepInWindow(WindowTest(WindowTest::Kind::kGpuInterval, w.start_ns, w.end_ns), kept, s);
      return std::optional<LabelInstances>();
    case DecodeWindow::Mode::kSkipSubmissions: {
      std::vector<Item>& kernels = kept->kernels;
      std::stable_sort(kernels.begin(), kernels.end(),
                       [](const Item& a, const Item& b) { return a.work->start_ns < b.work->start_ns; });
      const size_t skip = std::min<size_t>(static_cast<size_t>(std::max<int64_t>(w.skip, 0)), kernels.size());
      s->window_start_ns = skip < kernels.size() ? kernels[skip].work->start_ns : INT64_MAX;
      KeepInWindow(WindowTest(WindowTest::Kind::kSkipKernels, s->window_start_ns, INT64_MAX, skip), kept, s);
      return std::optional<LabelInstances>();
    }
  }
  return std::optional<LabelInstances>();
}

// Tokens from options.token_label: its instances when it is also the window label,
// else its instances that contain at least one kept kernel.
Status CountTokensInTrace(const Annotations& annotations, const std::vector<Item>& kernels,
                          const std::optional<LabelInstances>& window_label, const AttributionOptions& options,
                          const std::string& path, TrialSummary* s, WorkExtras* x) {
  if (options.token_label.empty()) return Status();
  PERFGATE_ASSIGN_OR_RETURN(const attribution::LabelMatcher label,
                            attribution::LabelMatcher::Compile(options.token_label));
  int64_t found = 0;
  if (window_label && attribution::SameLabel(options.token_label, options.window.label)) {
    found = static_cast<int64_t>(window_label->keys.size());
  } else {
    const LabelInstances li = annotations.InstancesOf(label);
    found = annotations.InstancesAround(kernels, label, li.gpu);
    label.CountUntested(&s->diagnostics);
    if (x->label_source.empty() && !li.keys.empty()) {
      x->label_source = li.source();
      x->label_occurrences = static_cast<int64_t>(li.keys.size());
    }
  }
  if (found == 0) {
    return Status::Error("attr.token_label",
                         "token label '" + options.token_label.Spelling() +
                             "' does not name an annotation around the target's kernels in the decode window",
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
  return item.launch != nullptr && KindOfLaunch(item.launch->name) == LaunchKind::kKernel
             ? item.launch->duration_ns()
             : 0;
}

// Every figure is a sum of durations over some of the kept work, or of its launch
// calls: when these two totals fit in int64, so does every part of them.
Status CheckSumsFit(const KeptWork& kept, const std::string& path) {
  int64_t gpu_ns = 0;
  int64_t host_ns = 0;
  for (const std::vector<Item>* items : {&kept.kernels, &kept.copies}) {
    for (const Item& item : *items) {
      const model::WorkItem& w = *item.work;
      const bool fits = AccumulateChecked(&gpu_ns, w.duration_ns()) &&
                        (item.launch == nullptr || AccumulateChecked(&host_ns, item.launch->duration_ns()));
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

// Kernel families (encoder_gpu), the registry of short names per family and the
// per-kernel table.
void SummarizeFamilies(const std::vector<Item>& kernels, const attribution::KernelFamilyTable& table,
                       TrialSummary* s, WorkExtras* x) {
  KernelNamer namer(table);
  std::map<std::string, std::set<std::string>> registry;
  std::map<std::string, std::vector<double>> durations;  // per exact name, for the median call
  for (const Item& k : kernels) {
    const model::WorkItem& work = *k.work;
    const int64_t d = work.duration_ns();
    const auto& [short_name, family] = namer.Describe(work.name);
    FamilyStats& f = s->encoder_gpu[family];
    ++f.encoders;
    ++f.submissions;
    f.gpu_sum_ns += d;
    f.host_sum_ns += OneKernelLaunchNs(k);
    registry[family].insert(short_name);
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
    durations[work.name].push_back(static_cast<double>(d));
  }
  for (auto& [name, ds] : durations) s->kernel_names[name].median_ns = stats::Median(std::move(ds));
  for (auto& [family, names] : registry) s->shader_registry[family].assign(names.begin(), names.end());
  s->shader_count = static_cast<int64_t>(x->per_kernel.size());
}

// Phases (cb_label_gpu): `cbs` and `command_buffers` count the annotation instances.
void SummarizePhases(const std::vector<Item>& kernels, const Annotations& annotations, TrialSummary* s) {
  std::map<std::string, std::set<InstanceKey>> phase_instances;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> phase_intervals;
  for (const Item& k : kernels) {
    const model::WorkItem& work = *k.work;
    const std::string& phase = annotations.PhaseOf(k);
    PhaseStats& ph = s->cb_label_gpu[phase];
    ++ph.submissions;
    ph.gpu_sum_ns += work.duration_ns();
    ph.host_sum_ns += OneKernelLaunchNs(k);
    phase_intervals[phase].emplace_back(work.start_ns, work.end_ns);
    if (auto instance = annotations.PhaseInstanceOf(k)) phase_instances[phase].insert(*instance);
    if (!attribution::IsGenericPhase(phase)) ++s->labelled_encoders;
  }
  for (auto& [phase, ph] : s->cb_label_gpu) {
    ph.cbs = static_cast<int64_t>(phase_instances[phase].size());
    ph.command_buffers = ph.cbs;
    ph.gpu_union_ns = stats::UnionLength(std::move(phase_intervals[phase]));
  }
  s->total_encoders = s->submissions;
}

// The distinct launch calls behind the kept kernels, by kind, and their host time.
void SummarizeLaunches(const std::vector<Item>& kernels, TrialSummary* s, WorkExtras* x) {
  std::unordered_set<const model::HostCall*> used_launches;
  for (const Item& k : kernels) {
    if (k.launch == nullptr) {
      ++x->unlaunched_kernels;
      ++s->unmapped_submissions;
      continue;
    }
    ++s->matched_submissions;
    if (KindOfLaunch(k.launch->name) == LaunchKind::kGraph) ++x->graph_kernels;
    used_launches.insert(k.launch);
  }
  for (const model::HostCall* r : used_launches) {
    switch (KindOfLaunch(r->name)) {
      case LaunchKind::kKernel: ++x->kernel_launches; break;
      case LaunchKind::kGraph: ++x->graph_launches; break;
      case LaunchKind::kOther: ++x->other_launches; break;
    }
    x->launch_host_ns += r->duration_ns();
  }
  s->encoder_rows = static_cast<int64_t>(used_launches.size());
  s->encoder_total_ns = x->launch_host_ns;
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
    if (c.launch != nullptr && KindOfLaunch(c.launch->name) != LaunchKind::kGraph) f.host_sum_ns += c.launch->duration_ns();
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

// Kept kernels per owning process; kernels with no known owner have none.
std::map<std::string, int64_t> KeptPerProcess(const model::WorkSet& trace, const std::vector<Item>& kernels) {
  std::map<int64_t, int64_t> per_pid;
  for (const Item& k : kernels) {
    if (k.owner) ++per_pid[*k.owner];
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
  if (options.seed_compat) {
    return Status::Error("attr.seed_compat",
                         "--seed-compat reproduces the seed's Metal System Trace method; it does not apply to "
                         "trace-event JSON",
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
  PERFGATE_RETURN_IF_ERROR(CheckOneProcess(trace, kept.kernels, options));
  const Annotations annotations(trace, targets);
  for (Item& k : kept.kernels) annotations.Locate(&k);
  PERFGATE_ASSIGN_OR_RETURN(std::optional<LabelInstances> window_label,
                            ApplyDecodeWindow(annotations, options, trace.path, &kept, &s, &x));
  PERFGATE_RETURN_IF_ERROR(CountTokensInTrace(annotations, kept.kernels, window_label, options, trace.path, &s, &x));
  PERFGATE_RETURN_IF_ERROR(attribution::ResolveTokens(s.tokens_in_trace, options, trace.path, &s));
  PERFGATE_RETURN_IF_ERROR(CheckSumsFit(kept, trace.path));

  std::vector<std::pair<int64_t, int64_t>> intervals;
  intervals.reserve(kept.kernels.size());
  for (const Item& k : kept.kernels) intervals.emplace_back(k.work->start_ns, k.work->end_ns);
  PERFGATE_RETURN_IF_ERROR(attribution::SummarizeKeptWork(std::move(intervals), options, trace.path, &s));
  const attribution::KernelFamilyTable& families = FamilyTableInForce(options);
  SummarizeFamilies(kept.kernels, families, &s, &x);
  SummarizePhases(kept.kernels, annotations, &s);
  SummarizeLaunches(kept.kernels, &s, &x);
  SummarizeCopies(kept.copies, &s, &x);
  RecordFamilyVocabulary(families, &s);
  attribution::CountMixedProcesses(KeptPerProcess(trace, kept.kernels), trace.path, &s.diagnostics);
  FinishExtras(&x, &s);
  if (extras_out != nullptr) *extras_out = std::move(x);
  return s;
}

}  // namespace perfgate::attribution
