// Attribution of a trace-event trial into attribution::TrialSummary. The field
// meanings and the window and token rules are in perfgate/json_trace/trial.h.
#include "perfgate/json_trace/trial.h"

#include <algorithm>
#include <functional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "attribution/tokens.h"
#include "json_trace_internal.h"
#include "perfgate/stats/summary.h"

namespace perfgate::json_trace {
namespace {

using attribution::AttributionOptions;
using attribution::BucketStats;
using attribution::DecodeWindow;
using attribution::FamilyStats;
using attribution::PhaseStats;
using attribution::TrialSummary;

constexpr const char* kUnknownPhase = "(unknown)";

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

enum class LaunchKind { kKernel, kGraph, kOther };

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

InstanceKey KeyOf(const Annotation& a, bool gpu) {
  if (gpu && a.external_id) return {0, a.pid, *a.external_id, 0};
  if (gpu) return {1, a.pid, a.start_ns, a.end_ns};
  return {2, a.pid, a.tid, a.start_ns};
}

// Annotations per (pid, tid) lane, sorted by start (longer first on ties), each with
// the nearest earlier annotation that contains it, so the annotations containing an
// interval are found innermost first by a binary search and a walk up the parents.
class SpanIndex {
 public:
  explicit SpanIndex(const std::vector<Annotation>& spans) : spans_(spans) {
    for (size_t i = 0; i < spans.size(); ++i) lanes_[{spans[i].pid, spans[i].tid}].order.push_back(static_cast<int>(i));
    for (auto& [key, lane] : lanes_) {
      std::sort(lane.order.begin(), lane.order.end(), [&](int a, int b) {
        const Annotation& x = spans[static_cast<size_t>(a)];
        const Annotation& y = spans[static_cast<size_t>(b)];
        if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
        if (x.end_ns != y.end_ns) return x.end_ns > y.end_ns;
        return a < b;
      });
      lane.starts.reserve(lane.order.size());
      lane.parent.assign(lane.order.size(), -1);
      std::vector<int> stack;
      for (size_t p = 0; p < lane.order.size(); ++p) {
        const Annotation& a = spans[static_cast<size_t>(lane.order[p])];
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
  static bool Encloses(const Annotation& a, int64_t start, int64_t end) { return a.start_ns <= start && end <= a.end_ns; }
  const Annotation& At(const Lane& lane, int p) const { return spans_[static_cast<size_t>(lane.order[static_cast<size_t>(p)])]; }

  const std::vector<Annotation>& spans_;
  std::map<std::pair<int64_t, int64_t>, Lane> lanes_;
};

// Normalised phase names, computed once per distinct annotation name.
std::vector<std::string> Normalized(const std::vector<Annotation>& spans) {
  std::unordered_map<std::string, std::string> cache;
  std::vector<std::string> out;
  out.reserve(spans.size());
  for (const Annotation& a : spans) {
    auto it = cache.find(a.name);
    if (it == cache.end()) it = cache.emplace(a.name, attribution::NormalizePhaseLabel(a.name)).first;
    out.push_back(it->second);
  }
  return out;
}

BucketStats StatsOf(std::vector<int64_t> durations) {
  BucketStats b;
  b.count = static_cast<int64_t>(durations.size());
  for (int64_t d : durations) b.sum_ns += d;
  if (durations.empty()) return b;
  b.mean_ns = b.sum_ns / b.count;
  b.p95_ns = stats::PercentileNearestRank(durations, 95);
  b.p50_ns = stats::MedianTruncated(std::move(durations));
  return b;
}

// A kept unit of GPU work, with its launch call and phase.
struct Item {
  const GpuWork* work;
  const RuntimeCall* launch;  // nullptr when no runtime call has its correlation id
  int gpu_annotation = -1;    // innermost gpu_user_annotation containing it
  int cpu_annotation = -1;    // innermost user_annotation containing its launch call
};

std::string ProcessLabel(const GpuTrace& trace, int64_t pid) {
  auto it = trace.process_names.find(pid);
  return (it == trace.process_names.end() ? std::string("(unnamed)") : it->second) + " (" + std::to_string(pid) + ")";
}

}  // namespace

StatusOr<TrialSummary> SummarizeJsonTrial(const GpuTrace& trace, const AttributionOptions& options,
                                          JsonTrialExtras* extras_out) {
  if (options.seed_compat) {
    return Status::Error("attr.seed_compat",
                         "--seed-compat reproduces the seed's Metal System Trace method; it does not apply to "
                         "trace-event JSON",
                         {trace.path}, ErrorKind::kUsage);
  }
  TrialSummary s;
  JsonTrialExtras x;
  s.path = trace.path;
  s.diagnostics.Merge(trace.diagnostics);
  s.rows = trace.events;
  static const attribution::KernelFamilyTable kMetalDefault = attribution::DefaultKernelFamilies();
  static const attribution::KernelFamilyTable kCudaDefault = CudaKernelFamilies();
  const detail::FamilyMatcher families(SameTable(options.kernel_families, kMetalDefault) ? kCudaDefault
                                                                                          : options.kernel_families);

  // Launch calls by correlation id (the first wins; a clash between processes is a
  // diagnostic, since GPU work carries no host pid to tell them apart).
  std::unordered_map<int64_t, const RuntimeCall*> launches;
  launches.reserve(trace.runtime_calls.size());
  for (const RuntimeCall& r : trace.runtime_calls) {
    if (!r.correlation) continue;
    auto [it, inserted] = launches.emplace(*r.correlation, &r);
    if (!inserted && it->second->pid != r.pid) {
      s.diagnostics.Add("json.duplicate_correlation", {trace.path},
                        "correlation " + std::to_string(*r.correlation) + " in processes " +
                            std::to_string(it->second->pid) + " and " + std::to_string(r.pid));
    }
  }

  // Process filter, through the launch call's process name.
  const std::string& prefix = options.process_prefix;
  const bool filter = !options.all_processes && !prefix.empty();
  std::set<int64_t> target_pids;
  for (const auto& [pid, name] : trace.process_names) {
    if (!filter || StartsWith(name, prefix)) target_pids.insert(pid);
  }
  std::vector<Item> kernels, copies;
  std::map<std::string, int64_t> other_processes;
  int64_t kernels_read = 0;
  for (const GpuWork& w : trace.gpu_work) {
    const bool kernel = w.kind == GpuWorkKind::kKernel;
    if (kernel) ++kernels_read;
    const RuntimeCall* launch = nullptr;
    if (w.correlation) {
      auto it = launches.find(*w.correlation);
      if (it != launches.end()) launch = it->second;
    }
    if (filter) {
      if (launch == nullptr) {
        if (kernel) ++s.excluded_unmapped;
        continue;
      }
      if (!trace.process_names.count(launch->pid)) {
        if (kernel) ++s.excluded_unattributed;
        continue;
      }
      if (!target_pids.count(launch->pid)) {
        if (kernel) {
          ++s.excluded_other_process;
          ++other_processes[ProcessLabel(trace, launch->pid)];
        }
        continue;
      }
    }
    (kernel ? kernels : copies).push_back(Item{&w, launch});
  }
  s.paired = kernels_read;
  s.diagnostics.AddCount("json.unmatched_correlation", s.excluded_unmapped);
  s.diagnostics.AddCount("json.unnamed_process", s.excluded_unattributed);
  s.diagnostics.AddCount("attr.other_process", s.excluded_other_process);
  if (kernels.empty()) {
    if (!filter) {
      return Status::Error("attr.no_target_rows",
                           "the trace has no kernel events (" + std::to_string(trace.gpu_work.size()) +
                               " GPU work items in all)",
                           {trace.path});
    }
    std::string seen;
    for (const auto& [name, n] : other_processes) seen += (seen.empty() ? "" : ", ") + name + " x" + std::to_string(n);
    return Status::Error(
        "attr.no_target_rows",
        "no kernel launched by a process named '" + prefix + "*' among " + std::to_string(kernels_read) +
            " kernels (other processes: " + (seen.empty() ? "none" : seen) + "; without a launch call: " +
            std::to_string(s.excluded_unmapped) + "; launched by an unnamed process: " +
            std::to_string(s.excluded_unattributed) + ")",
        {trace.path});
  }

  // Phases: the innermost GPU annotation on the work's stream, else the innermost
  // host annotation around its launch call.
  const SpanIndex gpu_spans(trace.gpu_annotations);
  const SpanIndex cpu_spans(trace.cpu_annotations);
  const std::vector<std::string> gpu_names = Normalized(trace.gpu_annotations);
  const std::vector<std::string> cpu_names = Normalized(trace.cpu_annotations);
  auto locate = [&](Item& item) {
    const GpuWork& w = *item.work;
    item.gpu_annotation = gpu_spans.Innermost(w.pid, w.tid, w.start_ns, w.end_ns);
    if (item.gpu_annotation < 0 && item.launch != nullptr) {
      item.cpu_annotation =
          cpu_spans.Innermost(item.launch->pid, item.launch->tid, item.launch->start_ns, item.launch->end_ns);
    }
  };
  for (Item& k : kernels) locate(k);
  auto phase_of = [&](const Item& item) -> const std::string& {
    static const std::string kUnknown = kUnknownPhase;
    if (item.gpu_annotation >= 0) return gpu_names[static_cast<size_t>(item.gpu_annotation)];
    if (item.cpu_annotation >= 0) return cpu_names[static_cast<size_t>(item.cpu_annotation)];
    return kUnknown;
  };

  // Instances of a (normalised) label: GPU annotations when there are any, else the
  // target processes' host annotations.
  struct LabelInstances {
    bool gpu = false;
    std::set<InstanceKey> keys;
    int64_t first_start = INT64_MAX;
    int64_t last_end = INT64_MIN;
  };
  auto instances_of = [&](const std::string& label) {
    LabelInstances li;
    for (size_t i = 0; i < trace.gpu_annotations.size(); ++i) {
      if (gpu_names[i] != label) continue;
      const Annotation& a = trace.gpu_annotations[i];
      li.gpu = true;
      li.keys.insert(KeyOf(a, true));
      li.first_start = std::min(li.first_start, a.start_ns);
      li.last_end = std::max(li.last_end, a.end_ns);
    }
    if (li.gpu) return li;
    for (size_t i = 0; i < trace.cpu_annotations.size(); ++i) {
      const Annotation& a = trace.cpu_annotations[i];
      if (cpu_names[i] != label || (filter && !target_pids.count(a.pid))) continue;
      li.keys.insert(KeyOf(a, false));
      li.first_start = std::min(li.first_start, a.start_ns);
      li.last_end = std::max(li.last_end, a.end_ns);
    }
    return li;
  };

  // Decode window.
  s.window_start_ns = 0;
  s.window_end_ns = INT64_MAX;
  std::optional<LabelInstances> window_label;
  const DecodeWindow& w = options.window;
  if (w.mode != DecodeWindow::Mode::kWholeTrace) {
    std::function<bool(const Item&)> inside;
    size_t position = 0;  // kSkipSubmissions: kernels seen so far, in start order
    if (w.mode == DecodeWindow::Mode::kLabel) {
      const std::string label = attribution::NormalizePhaseLabel(w.label);
      window_label = instances_of(label);
      if (window_label->keys.empty()) {
        return Status::Error("attr.window_label",
                             "window label '" + w.label +
                                 "' is not the name of any gpu_user_annotation or of a user_annotation of the target",
                             {trace.path});
      }
      s.window_start_ns = window_label->first_start;
      s.window_end_ns = window_label->last_end;
      x.label_source = window_label->gpu ? "gpu_user_annotation" : "user_annotation";
      x.label_occurrences = static_cast<int64_t>(window_label->keys.size());
      const bool gpu = window_label->gpu;
      inside = [&, gpu](const Item& item) {
        if (gpu) return item.work->start_ns >= s.window_start_ns && item.work->end_ns <= s.window_end_ns;
        const int64_t t = item.launch != nullptr ? item.launch->start_ns : item.work->start_ns;
        return t >= s.window_start_ns && t <= s.window_end_ns;
      };
    } else if (w.mode == DecodeWindow::Mode::kTimeRange) {
      s.window_start_ns = w.start_ns;
      s.window_end_ns = w.end_ns;
      inside = [&](const Item& item) {
        return item.work->start_ns >= s.window_start_ns && item.work->end_ns <= s.window_end_ns;
      };
    } else {
      std::stable_sort(kernels.begin(), kernels.end(),
                       [](const Item& a, const Item& b) { return a.work->start_ns < b.work->start_ns; });
      const size_t skip = std::min<size_t>(static_cast<size_t>(std::max<int64_t>(w.skip, 0)), kernels.size());
      s.window_start_ns = skip < kernels.size() ? kernels[skip].work->start_ns : INT64_MAX;
      const int64_t first_kept = s.window_start_ns;
      inside = [&, skip, first_kept](const Item& item) {
        if (item.work->kind == GpuWorkKind::kKernel) return position++ >= skip;
        return item.work->start_ns >= first_kept;
      };
    }
    std::vector<Item> in_window;
    in_window.reserve(kernels.size());
    for (const Item& k : kernels) {
      if (inside(k)) in_window.push_back(k);
    }
    s.excluded_outside_window = static_cast<int64_t>(kernels.size() - in_window.size());
    s.diagnostics.AddCount("attr.outside_window", s.excluded_outside_window);
    kernels.swap(in_window);
    std::vector<Item> copies_in_window;
    for (const Item& c : copies) {
      if (inside(c)) copies_in_window.push_back(c);
    }
    copies.swap(copies_in_window);
  }

  // Token count.
  if (!options.token_label.empty()) {
    const std::string label = attribution::NormalizePhaseLabel(options.token_label);
    int64_t found = 0;
    if (window_label && label == attribution::NormalizePhaseLabel(w.label)) {
      found = static_cast<int64_t>(window_label->keys.size());
    } else {
      LabelInstances li = instances_of(label);
      std::set<InstanceKey> used;
      for (const Item& k : kernels) {
        if (li.gpu) {
          gpu_spans.ForEachContaining(k.work->pid, k.work->tid, k.work->start_ns, k.work->end_ns, [&](int i) {
            if (gpu_names[static_cast<size_t>(i)] != label) return false;
            used.insert(KeyOf(trace.gpu_annotations[static_cast<size_t>(i)], true));
            return true;
          });
        } else if (k.launch != nullptr) {
          cpu_spans.ForEachContaining(k.launch->pid, k.launch->tid, k.launch->start_ns, k.launch->end_ns, [&](int i) {
            if (cpu_names[static_cast<size_t>(i)] != label) return false;
            used.insert(KeyOf(trace.cpu_annotations[static_cast<size_t>(i)], false));
            return true;
          });
        }
      }
      found = static_cast<int64_t>(used.size());
      if (x.label_source.empty() && !li.keys.empty()) {
        x.label_source = li.gpu ? "gpu_user_annotation" : "user_annotation";
        x.label_occurrences = static_cast<int64_t>(li.keys.size());
      }
    }
    if (found == 0) {
      return Status::Error("attr.token_label",
                           "token label '" + options.token_label +
                               "' does not name an annotation around the target's kernels in the decode window",
                           {trace.path});
    }
    s.tokens_in_trace = found;
  }
  PERFGATE_RETURN_IF_ERROR(attribution::internal::ResolveTokens(s.tokens_in_trace, options, trace.path, &s));
  const double per_token = static_cast<double>(std::max<int64_t>(s.tokens, 1));

  // Buckets, totals and busy time over kernels.
  std::vector<std::vector<int64_t>> by_bucket(options.buckets.size());
  std::vector<std::pair<int64_t, int64_t>> intervals;
  intervals.reserve(kernels.size());
  for (const Item& k : kernels) {
    const int64_t d = k.work->duration_ns();
    s.total_sum_ns += d;
    intervals.emplace_back(k.work->start_ns, k.work->end_ns);
    for (size_t b = 0; b < options.buckets.size(); ++b) {
      if (d >= options.buckets[b].lo_ns && d < options.buckets[b].hi_ns) {
        by_bucket[b].push_back(d);
        break;
      }
    }
  }
  for (size_t b = 0; b < options.buckets.size(); ++b) {
    s.buckets.emplace_back(options.buckets[b].name, StatsOf(std::move(by_bucket[b])));
  }
  s.submissions = static_cast<int64_t>(kernels.size());
  s.busy_union_ns = stats::UnionLength(std::move(intervals));
  s.dispatches_per_token = static_cast<double>(s.submissions) / per_token;
  s.gpu_us_per_token = static_cast<double>(s.total_sum_ns) / 1000.0 / per_token;
  s.busy_us_per_token = static_cast<double>(s.busy_union_ns) / 1000.0 / per_token;

  // Families, phases, launches and the per-kernel table.
  std::unordered_map<std::string, std::pair<std::string, std::string>> names;  // name -> (short, family)
  auto describe = [&](const std::string& name) -> const std::pair<std::string, std::string>& {
    auto it = names.find(name);
    if (it == names.end()) {
      std::string short_name = CanonicalKernelName(name);
      std::string family = families.FamilyOfShortName(short_name);
      it = names.emplace(name, std::make_pair(std::move(short_name), std::move(family))).first;
    }
    return it->second;
  };
  auto one_kernel_launch_ns = [](const Item& item) -> int64_t {
    return item.launch != nullptr && KindOfLaunch(item.launch->name) == LaunchKind::kKernel
               ? item.launch->duration_ns()
               : 0;
  };
  std::map<std::string, std::set<std::string>> registry;
  std::map<std::string, std::set<InstanceKey>> phase_instances;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> phase_intervals;
  std::unordered_set<const RuntimeCall*> used_launches;
  for (const Item& k : kernels) {
    const GpuWork& work = *k.work;
    const int64_t d = work.duration_ns();
    const auto& [short_name, family] = describe(work.name);
    const int64_t host_ns = one_kernel_launch_ns(k);
    FamilyStats& f = s.encoder_gpu[family];
    ++f.encoders;
    ++f.submissions;
    f.gpu_sum_ns += d;
    f.host_sum_ns += host_ns;
    registry[family].insert(short_name);
    KernelStats& ks = x.per_kernel[work.name];
    if (ks.count++ == 0) {
      ks.short_name = short_name;
      ks.family = family;
    }
    ks.gpu_sum_ns += d;

    const std::string& phase = phase_of(k);
    PhaseStats& ph = s.cb_label_gpu[phase];
    ++ph.submissions;
    ph.gpu_sum_ns += d;
    ph.host_sum_ns += host_ns;
    phase_intervals[phase].emplace_back(work.start_ns, work.end_ns);
    if (k.gpu_annotation >= 0) {
      phase_instances[phase].insert(KeyOf(trace.gpu_annotations[static_cast<size_t>(k.gpu_annotation)], true));
    } else if (k.cpu_annotation >= 0) {
      phase_instances[phase].insert(KeyOf(trace.cpu_annotations[static_cast<size_t>(k.cpu_annotation)], false));
    }
    if (!attribution::IsGenericPhase(phase)) ++s.labelled_encoders;

    if (k.launch == nullptr) {
      ++x.unlaunched_kernels;
      ++s.unmapped_submissions;
    } else {
      ++s.matched_submissions;
      if (KindOfLaunch(k.launch->name) == LaunchKind::kGraph) ++x.graph_kernels;
      used_launches.insert(k.launch);
    }
  }
  for (auto& [phase, ph] : s.cb_label_gpu) {
    ph.cbs = static_cast<int64_t>(phase_instances[phase].size());
    ph.command_buffers = ph.cbs;
    ph.gpu_union_ns = stats::UnionLength(std::move(phase_intervals[phase]));
  }
  s.total_encoders = s.submissions;
  for (const RuntimeCall* r : used_launches) {
    switch (KindOfLaunch(r->name)) {
      case LaunchKind::kKernel: ++x.kernel_launches; break;
      case LaunchKind::kGraph: ++x.graph_launches; break;
      case LaunchKind::kOther: ++x.other_launches; break;
    }
    x.launch_host_ns += r->duration_ns();
  }
  s.encoder_rows = static_cast<int64_t>(used_launches.size());
  s.encoder_total_ns = x.launch_host_ns;
  for (auto& [family, set] : registry) s.shader_registry[family].assign(set.begin(), set.end());
  s.shader_count = static_cast<int64_t>(x.per_kernel.size());

  // memcpy and memset: families of their own, beside the kernel figures.
  for (const Item& c : copies) {
    const GpuWork& work = *c.work;
    const bool memcpy = work.kind == GpuWorkKind::kMemcpy;
    FamilyStats& f = s.encoder_gpu[memcpy ? "memcpy" : "memset"];
    ++f.encoders;
    ++f.submissions;
    f.gpu_sum_ns += work.duration_ns();
    if (c.launch != nullptr && KindOfLaunch(c.launch->name) != LaunchKind::kGraph) f.host_sum_ns += c.launch->duration_ns();
    (memcpy ? x.memcpys : x.memsets) += 1;
    (memcpy ? x.memcpy_ns : x.memset_ns) += work.duration_ns();
  }

  x.kernels = s.submissions;
  x.kernels_per_token = s.dispatches_per_token;
  x.launches_per_token = static_cast<double>(x.kernel_launches + x.graph_launches) / per_token;
  x.graph_launches_per_token = static_cast<double>(x.graph_launches) / per_token;
  x.memcpy_us_per_token = static_cast<double>(x.memcpy_ns) / 1000.0 / per_token;
  x.memset_us_per_token = static_cast<double>(x.memset_ns) / 1000.0 / per_token;
  if (extras_out != nullptr) *extras_out = std::move(x);
  return s;
}

StatusOr<TrialSummary> SummarizeJsonTrialFile(const std::string& path, const AttributionOptions& options,
                                              JsonTrialExtras* extras, const ReadOptions& read_options) {
  auto trace = ReadTraceJsonFile(path, read_options);
  if (!trace.ok()) return trace.status();
  return SummarizeJsonTrial(*trace, options, extras);
}

}  // namespace perfgate::json_trace
