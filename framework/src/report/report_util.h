// Private helpers shared by the report formats: which summary is the engine and which
// the baseline, UTF-8-aware padding and truncation, number formats and escaping.
#ifndef PERFGATE_SRC_REPORT_REPORT_UTIL_H_
#define PERFGATE_SRC_REPORT_REPORT_UTIL_H_

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/lossless_json.h"
#include "core/text_cells.h"
#include "core/text_input.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/report/formats.h"
#include "perfgate/sources/source.h"

namespace perfgate::report::util {

// The summaries a report compares. `baseline` is null without a comparison; with one
// it always points somewhere (an empty summary when the report lacks it).
struct Sides {
  const attribution::EngineSummary* engine = nullptr;  // null only when nothing was summarised
  const attribution::EngineSummary* baseline = nullptr;
};

inline const attribution::EngineSummary& EmptySummary() {
  static const attribution::EngineSummary kEmpty;
  return kEmpty;
}

inline Sides FindSides(const Report& report) {
  Sides sides;
  const auto& engines = report.engines;
  auto find = [&](const std::string& name,
                  const attribution::EngineSummary* not_this) -> const attribution::EngineSummary* {
    for (const auto& e : engines) {
      if (e.name == name && &e != not_this) return &e;
    }
    return nullptr;
  };
  if (!report.comparison) {
    if (!engines.empty()) sides.engine = &engines[0];
    return sides;
  }
  const auto& c = *report.comparison;
  sides.engine = find(c.engine, nullptr);
  if (sides.engine == nullptr) sides.engine = engines.empty() ? &EmptySummary() : &engines[0];
  sides.baseline = find(c.baseline, sides.engine);
  if (sides.baseline == nullptr) {
    for (const auto& e : engines) {
      if (&e != sides.engine) {
        sides.baseline = &e;
        break;
      }
    }
  }
  if (sides.baseline == nullptr) sides.baseline = &EmptySummary();
  return sides;
}

// The display name of a side: the summary's name, else the comparison's, else a role.
inline std::string SideName(const Report& report, const attribution::EngineSummary* s,
                            bool is_baseline) {
  if (s != nullptr && !s->name.empty()) return s->name;
  if (report.comparison)
    return is_baseline ? report.comparison->baseline : report.comparison->engine;
  return is_baseline ? "baseline" : "engine";
}

// The source every trial of the report came from, or nullptr when the engines mix
// sources (or there are none): the report's words come from its descriptor.
inline const sources::TraceSource* SourceOf(const Report& report) {
  const sources::TraceSource* found = nullptr;
  for (const auto& e : report.engines) {
    if (e.trials.empty()) continue;  // an engine without trials names no source
    const sources::TraceSource* s = sources::SourceOf(e);
    if (s == nullptr || (found != nullptr && found != s)) return nullptr;
    found = s;
  }
  return found;
}

// The report's source; mixed or unknown sources read as the first built-in one (Metal).
inline const sources::SourceDescriptor& DescriptorOf(const Report& report) {
  const sources::TraceSource* s = SourceOf(report);
  if (s == nullptr) s = &sources::BuiltinSources().front();
  return s->descriptor;
}

// The words every format uses for what the tables and charts count: those of the
// report's source.
inline const sources::SourceWords& WordsOf(const Report& report) { return DescriptorOf(report).words; }

// Whether the report's source has a seed-compatible mode to name.
inline bool SeedCompatApplies(const Report& report) { return DescriptorOf(report).seed_compat; }

// `word` + "/tok": a per-token column ("sub/tok", "kern/tok").
inline std::string PerTok(std::string_view word) { return std::string(word) + "/tok"; }

inline std::string Capitalized(std::string word) {
  if (!word.empty() && word[0] >= 'a' && word[0] <= 'z') word[0] = static_cast<char>(word[0] - 'a' + 'A');
  return word;
}

// The hint to print for a bucket: `given` (the attack target's, when set) or the
// configured one, or "". The default buckets' hints name llama.cpp's Metal kernels
// (Q4_0 mat-vec_id, mul_mm_id), so a kernel source's report prints none of them; a
// hint the user configured is printed for every source.
inline std::string BucketHint(const Report& report, std::string_view bucket, std::string given = "") {
  if (given.empty()) {
    for (const auto& b : report.buckets) {
      if (b.name == bucket) given = b.hint;
    }
  }
  if (!DescriptorOf(report).default_bucket_hints) {
    for (const auto& d : attribution::DefaultBuckets()) {
      if (d.name == bucket && d.hint == given) return "";
    }
  }
  return given;
}

// The generic cells (width, padding, numbers, escaping) are core/text_cells.h's;
// report code names them util::, as before.
using namespace ::perfgate::text;  // NOLINT(google-build-using-namespace)

// The value of a named per-engine map entry, or a default-constructed one.
template <typename Map>
const typename Map::mapped_type& FindOr(const Map& map, const std::string& key) {
  static const typename Map::mapped_type kEmpty{};
  auto it = map.find(key);
  return it == map.end() ? kEmpty : it->second;
}

// The bucket medians named `name` in an engine summary, or zeros.
inline const attribution::BucketMedians& FindBucket(const attribution::EngineSummary& s,
                                                    const std::string& name) {
  static const attribution::BucketMedians kEmpty{};
  for (const auto& [n, b] : s.buckets) {
    if (n == name) return b;
  }
  return kEmpty;
}

// The largest of a source count (TrialSummary::source_counts) over the engine's
// trials; 0 when no trial has it.
inline int64_t MaxSourceCount(const attribution::EngineSummary& s, std::string_view name) {
  int64_t most = 0;
  for (const attribution::TrialSummary& t : s.trials) most = std::max(most, attribution::FindSourceCount(t, name).value_or(0));
  return most;
}

// Phases of one engine sorted by median GPU µs/token, descending (name breaks ties).
inline std::vector<std::string> PhasesByGpu(const attribution::EngineSummary& s) {
  std::vector<std::string> names;
  for (const auto& [name, m] : s.phases) names.push_back(name);
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return s.phases.at(a).gpu_us_per_token.median >
           s.phases.at(b).gpu_us_per_token.median;
  });
  return names;
}

// How a table shows the kernel names of its sides: each full name's display string,
// no two alike, and the full names whose string is numbered.
struct KernelLabels {
  std::map<std::string, std::string> text;  // full name -> display string
  std::set<std::string> numbered;           // full names shown as "… #k"
  const std::string& at(const std::string& full) const { return text.at(full); }
};

// No cut: KernelDisplayNames' width for the labels a column is fitted to.
inline constexpr size_t kWholeLabel = static_cast<size_t>(-1);

// `short_name` cut in the middle so that " #k" still fits in `width` columns.
inline std::string NumberedLabel(std::string_view short_name, int k, size_t width) {
  const std::string suffix = " #" + std::to_string(k);
  return TruncateMiddle(short_name, width > suffix.size() ? width - suffix.size() : 0) + suffix;
}

// The display strings of the kernel names of `sides` (nulls skipped) in a column of
// `width`: the short name cut in the middle to the width (TruncateMiddle), or, where
// several full names would read alike (a shared short name, or cuBLAS names that
// differ only between the ends the cut keeps), "SHORT… #k", numbered in full-name
// order, so that no two rows read alike. A number another name already reads as is
// skipped.
inline KernelLabels KernelDisplayNames(const std::vector<const attribution::EngineSummary*>& sides,
                                       size_t width = kWholeLabel) {
  std::map<std::string, std::string> short_of;  // full name -> short name (first side's)
  for (const attribution::EngineSummary* s : sides) {
    if (s == nullptr) continue;
    for (const auto& [name, k] : s->kernels) short_of.emplace(name, k.short_name.empty() ? name : k.short_name);
  }
  std::map<std::string, std::vector<std::string>> by_cut;  // cut short name -> its full names, in order
  for (const auto& [name, short_name] : short_of) by_cut[TruncateMiddle(short_name, width)].push_back(name);
  KernelLabels out;
  std::set<std::string> taken;
  for (const auto& [cut, names] : by_cut) {
    if (names.size() > 1) continue;
    out.text[names[0]] = cut;
    taken.insert(cut);
  }
  for (const auto& [cut, names] : by_cut) {
    if (names.size() == 1) continue;
    int k = 0;
    for (const std::string& name : names) {
      std::string label;
      do {
        label = NumberedLabel(short_of.at(name), ++k, width);
      } while (!taken.insert(label).second);
      out.text[name] = std::move(label);
      out.numbered.insert(name);
    }
  }
  return out;
}

// A full kernel name without what every name of its kind repeats: a leading "void ",
// the parameter list and the namespaces at::native::, at::, c10::, std:: and
// (anonymous namespace)::. What is left tells apart names that share a short name.
inline std::string CompactKernelName(std::string_view full) {
  std::string s(full);
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && depth > 0) --depth;
    if (s[i] == '(' && depth == 0 && s.compare(i, 21, "(anonymous namespace)") != 0) {
      s.erase(i);
      break;
    }
  }
  for (std::string_view ns : {"(anonymous namespace)::", "at::native::", "at::", "c10::", "std::"}) {
    for (size_t at = s.find(ns); at != std::string::npos; at = s.find(ns, at)) s.erase(at, ns.size());
  }
  return s;
}

// The numbered display names among `names`, in that order, each with what tells it
// apart: its compact full name, or the whole name where two compact names are alike
// (names that differ only in their parameters).
inline std::vector<std::pair<std::string, std::string>> NumberedKernelNames(const std::vector<std::string>& names,
                                                                            const KernelLabels& labels) {
  std::map<std::string, int> compacts;
  for (const std::string& name : names) {
    if (labels.numbered.count(name) != 0) ++compacts[CompactKernelName(name)];
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& name : names) {
    if (labels.numbered.count(name) == 0) continue;
    std::string compact = CompactKernelName(name);
    out.emplace_back(labels.at(name), compacts[compact] > 1 ? name : compact);
  }
  return out;
}

// An engine's kernel names by median GPU µs/token, descending (full name breaks ties).
inline std::vector<std::string> KernelNamesByGpu(const attribution::EngineSummary& s) {
  std::vector<std::string> names;
  for (const auto& [name, k] : s.kernels) names.push_back(name);
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return s.kernels.at(a).gpu_us_per_token.median > s.kernels.at(b).gpu_us_per_token.median;
  });
  return names;
}

// The kernel-name Δs a table shows: the `limit` with the largest |Δ| (all when `limit`
// is 0), in the comparison's order (Δ descending).
inline std::vector<attribution::Delta> KernelDeltasShown(const std::vector<attribution::Delta>& deltas,
                                                         size_t limit) {
  if (limit == 0 || deltas.size() <= limit) return deltas;
  std::vector<size_t> order(deltas.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::fabs(deltas[a].delta) > std::fabs(deltas[b].delta);
  });
  order.resize(limit);
  std::sort(order.begin(), order.end());
  std::vector<attribution::Delta> out;
  for (size_t i : order) out.push_back(deltas[i]);
  return out;
}

// "3/3": the trials that ran a kernel name, of the engine's trials.
inline std::string TrialsRan(const attribution::LevelMedians& k, const attribution::EngineSummary& s) {
  return std::to_string(k.trials) + "/" + std::to_string(s.trials.size());
}

// --- the engine's own counters (counters.txt), labelled apart from the trace's figures ---

// One row of the counters table: a counter (or the trace's own count, last) with one
// cell per side ("—" where a side lacks it) and where its figures came from.
struct CounterRow {
  std::string name;
  std::string source;  // "engine counters" or "trace"
  std::vector<std::string> cells;
};

// A counter's median as the reports write it: the trials' common text when they agree
// (lossless), else the median to 2 decimals.
std::string CounterCell(const attribution::CounterMedian& c);

// True when any side has counters of its own.
bool AnyCounters(const std::vector<const attribution::EngineSummary*>& sides);

// Every counter of any side (numeric, then text), then the trace's count per token
// (submissions for Metal, kernels for kernel sources) so a reader sees the engine's
// dispatches beside what the trace could count (counter_rows.cc).
std::vector<CounterRow> CounterRows(const std::vector<const attribution::EngineSummary*>& sides);

}  // namespace perfgate::report::util

#endif  // PERFGATE_SRC_REPORT_REPORT_UTIL_H_
