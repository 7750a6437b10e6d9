// The counters table of the reports: the engine's own counters labelled apart from the
// trace's count (report_util.h declares it).
#include <algorithm>
#include <set>

#include "report/report_util.h"

namespace perfgate::report::util {

// A counter's median as the reports write it: the trials' common text when they agree
// (lossless), else the median to 2 decimals.
std::string CounterCell(const attribution::CounterMedian& c) {
  const auto& t = c.per_trial_text;
  if (!t.empty() && std::all_of(t.begin(), t.end(), [&](const std::string& x) { return x == t.front(); })) {
    return t.front();
  }
  return Fixed(c.value.median, c.is_integer ? 0 : 2);
}

bool AnyCounters(const std::vector<const attribution::EngineSummary*>& sides) {
  for (const auto* s : sides) {
    if (s != nullptr && (!s->counters.empty() || !s->counter_text.empty())) return true;
  }
  return false;
}

// Every counter of any side (numeric, then text), then the trace's count per token
// (submissions for Metal, kernels for kernel sources) so a reader sees the engine's
// dispatches beside what the trace could count.
std::vector<CounterRow> CounterRows(const std::vector<const attribution::EngineSummary*>& sides) {
  std::set<std::string> numeric, text;
  for (const auto* s : sides) {
    for (const auto& [k, _] : s->counters) numeric.insert(k);
    for (const auto& [k, _] : s->counter_text) text.insert(k);
  }
  std::vector<CounterRow> rows;
  for (const auto& k : numeric) {
    CounterRow r{k, "engine counters", {}};
    for (const auto* s : sides) {
      auto it = s->counters.find(k);
      r.cells.push_back(it == s->counters.end() ? "\xE2\x80\x94" : CounterCell(it->second));
    }
    rows.push_back(std::move(r));
  }
  for (const auto& k : text) {
    CounterRow r{k, "engine counters", {}};
    for (const auto* s : sides) {
      auto it = s->counter_text.find(k);
      r.cells.push_back(it == s->counter_text.end() ? "\xE2\x80\x94" : it->second);
    }
    rows.push_back(std::move(r));
  }
  CounterRow trace{"", "trace", {}};
  for (const auto* s : sides) {
    // Kernel sources count kernels per token; a source without the figure counts its own unit.
    auto kernels = s->extras.find("kernels_per_token");
    if (kernels != s->extras.end()) {
      trace.name = "kernels/token";
      trace.cells.push_back(Fixed(kernels->second.median, 2));
    } else {
      trace.cells.push_back(Fixed(s->items_per_token.median, 2));
    }
  }
  if (trace.name.empty()) trace.name = "submissions/token";
  rows.push_back(std::move(trace));
  return rows;
}

}  // namespace perfgate::report::util
