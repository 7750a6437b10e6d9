// The labels of a work set, for the one attribution (attribute_work.cc): annotation
// spans indexed by lane, launch groups and their labels, a unit's phase, and a label's
// instances, enclosing steps (spans) or ending them (groups).
#ifndef PERFGATE_SRC_ATTRIBUTION_WORK_LABELS_H_
#define PERFGATE_SRC_ATTRIBUTION_WORK_LABELS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "attribution/label_matcher.h"
#include "attribution/process_target.h"
#include "attribution/work_item.h"
#include "perfgate/model/work.h"

namespace perfgate::attribution::detail {

inline constexpr const char* kUnknownPhase = "(unknown)";

// One annotation instance: a range copied onto several GPU streams is one instance.
using InstanceKey = std::tuple<int, int64_t, int64_t, int64_t>;

// The instance of a span: GPU copies of one range share their External id.
InstanceKey KeyOf(const model::Span& a, bool gpu);

// Annotations per (pid, tid) lane, sorted by start (longer first on ties), each with
// the nearest earlier annotation that contains it, so the annotations containing an
// interval are found innermost first by a binary search and a walk up the parents.
class SpanIndex {
 public:
  explicit SpanIndex(const std::vector<model::Span>& spans);

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
std::vector<std::string> Normalized(const std::vector<model::Span>& spans);
// Which annotations a label names, tested once per distinct annotation name.
std::vector<bool> MatchesOf(const std::vector<model::Span>& spans, const LabelMatcher& label);

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

// The normalised group labels (phases) of the host calls: each distinct label
// normalised once, and each call's phase as an index into them (a Metal trial has an
// encoder per submission, a million strings where a few dozen differ).
struct GroupPhases {
  std::vector<std::string> names;  // distinct; names[0] is "" (a call in no group)
  std::vector<uint32_t> of_call;   // by host call

  explicit GroupPhases(const std::vector<model::HostCall>& calls);
};

// The trace's annotations and launch groups, indexed for the phase of a unit and the
// instances of a label.
class Annotations {
 public:
  Annotations(const model::WorkSet& trace, const TargetProcesses& targets);

  // A kernel's phase: the innermost GPU annotation on its stream, else the innermost
  // host annotation around its launch call. (Work launched in a group takes the
  // group's label instead.)
  void Locate(Item* item) const;

  // The unit's phase: its launch group's label, else its annotation, else "(unknown)"
  // for a kernel; none for a submission of no known group.
  const std::string* PhaseOf(const Item& item) const;
  const std::string& GroupPhaseOf(const model::HostCall& call) const {
    return group_phases_.names[group_phases_.of_call[IndexOf(call)]];
  }
  // Whether the work was launched in labelled groups (Metal's command buffers).
  bool has_groups() const { return has_groups_; }

  // The annotation instance that gave the item its phase, if any.
  std::optional<InstanceKey> PhaseInstanceOf(const Item& item) const;

  // GPU annotations the label names when there are any, else the target processes'
  // host annotations, else, where the work was launched in groups, the groups of
  // `units` it names.
  LabelInstances InstancesOf(const LabelMatcher& label, const std::vector<Item>& units) const;

  // Distinct instances the label names (GPU ones with `gpu`, else host ones) that
  // contain at least one of the kernels (a host instance contains a kernel's launch call).
  int64_t InstancesAround(const std::vector<Item>& kernels, const LabelMatcher& label, bool gpu) const;

 private:
  bool InGroup(const Item& item) const { return item.launch != nullptr && item.launch->group.has_value(); }
  size_t IndexOf(const model::HostCall& call) const { return HostCallIndex(trace_, call); }

  // The groups of `units` whose label the label names, each ending with its last unit;
  // each distinct group label is tested once.
  LabelInstances GroupInstancesOf(const LabelMatcher& label, const std::vector<Item>& units) const;

  const model::WorkSet& trace_;
  const TargetProcesses& targets_;
  const SpanIndex gpu_spans_;
  const SpanIndex cpu_spans_;
  const std::vector<std::string> gpu_names_;
  const std::vector<std::string> cpu_names_;
  const GroupPhases group_phases_;
  const bool has_groups_;
};

}  // namespace perfgate::attribution::detail

#endif  // PERFGATE_SRC_ATTRIBUTION_WORK_LABELS_H_
