// The labels of a work set (work_labels.h).
#include "attribution/work_labels.h"

#include <unordered_map>

#include "perfgate/attribution/options.h"

namespace perfgate::attribution::detail {
namespace {

InstanceKey GroupKey(int64_t group) { return {3, group, 0, 0}; }

}  // namespace

InstanceKey KeyOf(const model::Span& a, bool gpu) {
  if (gpu && a.external_id) return {0, a.pid, *a.external_id, 0};
  if (gpu) return {1, a.pid, a.start_ns, a.end_ns};
  return {2, a.pid, a.tid, a.start_ns};
}

SpanIndex::SpanIndex(const std::vector<model::Span>& spans) : spans_(spans) {
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

// Normalised phase names, computed once per distinct annotation name.
std::vector<std::string> Normalized(const std::vector<model::Span>& spans) {
  std::unordered_map<std::string, std::string> cache;
  std::vector<std::string> out;
  out.reserve(spans.size());
  for (const model::Span& a : spans) {
    auto it = cache.find(a.name);
    if (it == cache.end()) it = cache.emplace(a.name, NormalizePhaseLabel(a.name)).first;
    out.push_back(it->second);
  }
  return out;
}

// Which annotations a label names, tested once per distinct annotation name.
std::vector<bool> MatchesOf(const std::vector<model::Span>& spans, const LabelMatcher& label) {
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


GroupPhases::GroupPhases(const std::vector<model::HostCall>& calls) : names{""} {
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
      std::string phase = NormalizePhaseLabel(c.group_label);
      auto [p, added] = by_phase.emplace(phase, static_cast<uint32_t>(names.size()));
      if (added) names.push_back(std::move(phase));
      it = by_label.emplace(c.group_label, p->second).first;
    }
    of_call.push_back(it->second);
  }
}

Annotations::Annotations(const model::WorkSet& trace, const TargetProcesses& targets)
    : trace_(trace),
      targets_(targets),
      gpu_spans_(trace.gpu_spans),
      cpu_spans_(trace.host_spans),
      gpu_names_(Normalized(trace.gpu_spans)),
      cpu_names_(Normalized(trace.host_spans)),
      group_phases_(trace.host_calls),
      has_groups_(std::any_of(trace.host_calls.begin(), trace.host_calls.end(),
                              [](const model::HostCall& c) { return c.group.has_value(); })) {}

void Annotations::Locate(Item* item) const {
  const model::WorkItem& w = *item->work;
  if (InGroup(*item)) return;
  item->gpu_annotation = gpu_spans_.Innermost(w.pid, w.tid, w.start_ns, w.end_ns);
  if (item->gpu_annotation < 0 && item->launch != nullptr) {
    const model::HostCall& l = *item->launch;
    item->cpu_annotation = cpu_spans_.Innermost(l.pid, l.tid, l.start_ns, l.end_ns);
  }
}

const std::string* Annotations::PhaseOf(const Item& item) const {
  static const std::string kUnknown = kUnknownPhase;
  if (InGroup(item)) return &GroupPhaseOf(*item.launch);
  if (!item.kernel()) return nullptr;
  if (item.gpu_annotation >= 0) return &gpu_names_[static_cast<size_t>(item.gpu_annotation)];
  if (item.cpu_annotation >= 0) return &cpu_names_[static_cast<size_t>(item.cpu_annotation)];
  return &kUnknown;
}

std::optional<InstanceKey> Annotations::PhaseInstanceOf(const Item& item) const {
  if (item.gpu_annotation >= 0) return KeyOf(trace_.gpu_spans[static_cast<size_t>(item.gpu_annotation)], true);
  if (item.cpu_annotation >= 0) return KeyOf(trace_.host_spans[static_cast<size_t>(item.cpu_annotation)], false);
  return std::nullopt;
}

LabelInstances Annotations::InstancesOf(const LabelMatcher& label, const std::vector<Item>& units) const {
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

int64_t Annotations::InstancesAround(const std::vector<Item>& kernels, const LabelMatcher& label, bool gpu) const {
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

LabelInstances Annotations::GroupInstancesOf(const LabelMatcher& label, const std::vector<Item>& units) const {
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

}  // namespace perfgate::attribution::detail
