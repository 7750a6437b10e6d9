// Attribution of GPU submissions per decode token. The method, and where it departs
// from the seed (kept behind seed_compat), is in shared/docs/attribution-method.md.
#include "perfgate/attribution/attribute.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "perfgate/stats/summary.h"

namespace perfgate::attribution {
namespace {

struct Pair {
  uint64_t submission;
  int64_t start_ns;
  int64_t end_ns;
  uint64_t channel;
  int64_t duration() const { return end_ns - start_ns; }
};

struct EncoderInfo {
  std::string family;
  std::string phase;
  int64_t host_ns = 0;
  std::optional<uint64_t> cmdbuffer;
};

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Execution points → submissions. The seed overwrote an open start with a second one;
// the corrected pairing queues them per submission id.
std::vector<Pair> PairExecutionPoints(const std::vector<xctrace::ExecutionPoint>& points, bool seed_compat,
                                      TrialSummary* s) {
  std::vector<Pair> pairs;
  pairs.reserve(points.size() / 2);
  std::unordered_map<uint64_t, std::deque<const xctrace::ExecutionPoint*>> open;
  for (const auto& p : points) {
    if (p.function == 1) {
      auto& q = open[p.submission.value];
      if (!q.empty()) {
        ++s->duplicate_starts;
        s->diagnostics.Add("attr.duplicate_start", {}, "submission " + std::to_string(p.submission.value));
        if (seed_compat) q.clear();
      }
      q.push_back(&p);
    } else if (p.function == 2) {
      auto it = open.find(p.submission.value);
      if (it == open.end() || it->second.empty()) {
        ++s->unpaired_ends;
        continue;
      }
      const xctrace::ExecutionPoint* start = it->second.front();
      it->second.pop_front();
      Pair pair{p.submission.value, start->timestamp_ns, p.timestamp_ns, start->channel_id};
      if (pair.duration() < 0 && !seed_compat) {
        s->diagnostics.Add("attr.negative_duration", {}, "submission " + std::to_string(p.submission.value));
        continue;
      }
      pairs.push_back(pair);
    } else {
      s->diagnostics.Add("attr.unknown_function", {}, "function " + std::to_string(p.function));
    }
  }
  for (const auto& [id, q] : open) s->leftover_starts += static_cast<int64_t>(q.size());
  s->paired = static_cast<int64_t>(pairs.size());
  s->diagnostics.AddCount("attr.unpaired_end", s->unpaired_ends);
  s->diagnostics.AddCount("attr.leftover_start", s->leftover_starts);
  return pairs;
}

BucketStats StatsOf(std::vector<int64_t> durations, bool seed_compat) {
  BucketStats b;
  b.count = static_cast<int64_t>(durations.size());
  for (int64_t d : durations) b.sum_ns += d;
  if (durations.empty()) return b;
  b.mean_ns = b.sum_ns / b.count;
  if (seed_compat) {
    // The seed's p95: index floor(0.95 * (n - 1)) of the unsorted pair-order list.
    b.p95_ns = durations.size() >= 2 ? durations[static_cast<size_t>(0.95 * (durations.size() - 1))]
                                     : durations[0];
  } else {
    b.p95_ns = stats::PercentileNearestRank(durations, 95);
  }
  b.p50_ns = stats::MedianTruncated(std::move(durations));
  return b;
}

std::string ProcessLabel(const xctrace::ProcessRef& p) {
  return p.name.str() + " (" + std::to_string(p.pid) + ")";
}

bool IsTargetProcess(const xctrace::ProcessRef& p, const AttributionOptions& options) {
  return options.all_processes || options.process_prefix.empty() ||
         (!p.is_null && StartsWith(p.name, options.process_prefix));
}

using SubmissionMap = std::unordered_map<uint64_t, const xctrace::SubmissionMapRow*>;

// Submission → its submission-map row, the last row winning. With `conflicts`, two
// rows that send one submission to different encoders are counted there.
SubmissionMap MapSubmissions(const std::vector<xctrace::SubmissionMapRow>& rows, const std::string& seed_prefix,
                             Diagnostics* conflicts) {
  SubmissionMap map;
  for (const auto& row : rows) {
    if (!seed_prefix.empty() && !(!row.process.is_null && StartsWith(row.process.name, seed_prefix))) continue;
    auto [it, inserted] = map.emplace(row.submission.value, &row);
    if (inserted) continue;
    if (conflicts != nullptr && (it->second->encoder.has_value() != row.encoder.has_value() ||
                                 (row.encoder && it->second->encoder->value != row.encoder->value))) {
      conflicts->Add("attr.conflicting_map_row", {}, "submission " + std::to_string(row.submission.value));
    }
    it->second = &row;
  }
  return map;
}

// The submission map the joins use. The seed kept only the target prefix's rows; the
// process filter needs the table.
StatusOr<SubmissionMap> IndexSubmissions(const TrialTables& tables, const AttributionOptions& options,
                                         TrialSummary* s) {
  const bool filter = !options.seed_compat && !options.all_processes;
  if (!tables.submission_map) {
    if (!filter) return SubmissionMap();
    return Status::Error("attr.needs_submission_map",
                         "filtering to process '" + options.process_prefix + "' needs the " +
                             std::string(xctrace::SubmissionMapRow::kSchema) +
                             " table; export it, or pass --all-processes",
                         {tables.path});
  }
  const std::string seed_prefix = options.seed_compat ? options.process_prefix : std::string();
  return MapSubmissions(*tables.submission_map, seed_prefix, &s->diagnostics);
}

// Process filter (corrected method only): keeps the pairs whose submission maps to a
// target process and counts the others by reason. No target submission at all is an
// error naming the processes that were there.
StatusOr<std::vector<Pair>> KeepTargetSubmissions(std::vector<Pair> pairs, const SubmissionMap& map,
                                                  const AttributionOptions& options, const std::string& path,
                                                  TrialSummary* s) {
  if (options.seed_compat || options.all_processes) return pairs;
  std::vector<Pair> kept;
  kept.reserve(pairs.size());
  std::map<std::string, int64_t> other_processes;
  for (const Pair& p : pairs) {
    auto it = map.find(p.submission);
    if (it == map.end()) {
      ++s->excluded_unmapped;
      continue;
    }
    const xctrace::ProcessRef& proc = it->second->process;
    if (proc.is_null) {
      ++s->excluded_unattributed;
    } else if (IsTargetProcess(proc, options)) {
      kept.push_back(p);
    } else {
      ++s->excluded_other_process;
      ++other_processes[ProcessLabel(proc)];
    }
  }
  s->diagnostics.AddCount("attr.unmapped_submission", s->excluded_unmapped);
  s->diagnostics.AddCount("attr.sentinel_process", s->excluded_unattributed);
  s->diagnostics.AddCount("attr.other_process", s->excluded_other_process);
  if (kept.empty()) {
    std::string seen;
    for (const auto& [name, n] : other_processes) seen += (seen.empty() ? "" : ", ") + name + " x" + std::to_string(n);
    return Status::Error("attr.no_target_rows",
                         "no submission of a process named '" + options.process_prefix + "*' among " +
                             std::to_string(pairs.size()) + " paired submissions (other processes: " +
                             (seen.empty() ? "none" : seen) + ")",
                         {path});
  }
  return kept;
}

// The submission map and the encoders list, joined: a submission's encoder.
struct TrialJoins {
  using Encoder = std::pair<const uint64_t, EncoderInfo>;
  SubmissionMap map;
  std::unordered_map<uint64_t, EncoderInfo> encoders;
  std::vector<uint64_t> encoder_order;  // first appearance in the encoders list

  const Encoder* EncoderOf(uint64_t submission) const {
    auto m = map.find(submission);
    if (m == map.end() || !m->second->encoder) return nullptr;
    auto e = encoders.find(m->second->encoder->value);
    return e == encoders.end() ? nullptr : &*e;
  }
};

// Encoders of the target process, de-duplicated by encoder id (first row wins). Every
// row of every process counts in encoder_rows and encoder_total_ns, as in the seed.
void IndexEncoders(const TrialTables& tables, const AttributionOptions& options, TrialSummary* s,
                   TrialJoins* joins) {
  if (!tables.encoders) return;
  const std::string& prefix = options.process_prefix;
  for (const auto& e : *tables.encoders) {
    ++s->encoder_rows;
    s->encoder_total_ns += e.duration_ns;
    if (!prefix.empty() && !options.all_processes && !(!e.process.is_null && StartsWith(e.process.name, prefix))) {
      continue;
    }
    if (!e.encoder) continue;
    EncoderInfo info{EncoderFamily(e.encoder_label), NormalizePhaseLabel(e.cmdbuffer_label), e.duration_ns,
                     e.cmdbuffer ? std::optional<uint64_t>(e.cmdbuffer->value) : std::nullopt};
    if (joins->encoders.emplace(e.encoder->value, std::move(info)).second) {
      joins->encoder_order.push_back(e.encoder->value);
    }
  }
}

// The ends of the label's occurrences, sorted: one occurrence per command buffer (per
// encoder when the command-buffer id is unknown) whose label normalises to `phase`.
std::vector<int64_t> OccurrenceEnds(const std::vector<Pair>& kept, const TrialJoins& joins, const std::string& phase) {
  std::map<uint64_t, int64_t> occurrence_end;
  for (const Pair& p : kept) {
    const auto* e = joins.EncoderOf(p.submission);
    if (e == nullptr || e->second.phase != phase) continue;
    uint64_t key = e->second.cmdbuffer.value_or(e->first);
    auto [it, inserted] = occurrence_end.emplace(key, p.end_ns);
    if (!inserted) it->second = std::max(it->second, p.end_ns);
  }
  std::vector<int64_t> ends;
  for (const auto& [key, end] : occurrence_end) ends.push_back(end);
  std::sort(ends.begin(), ends.end());
  return ends;
}

// Decode window (corrected method only): sets the window bounds, drops the kept pairs
// outside it, and returns the label's occurrences after the first (a label window's
// token count), else nullopt. A Metal label marks the end of a decode step, so the
// window runs from the end of its first occurrence to the end of its last.
StatusOr<std::optional<int64_t>> ApplyDecodeWindow(const TrialJoins& joins, const AttributionOptions& options,
                                                   const std::string& path, std::vector<Pair>* kept,
                                                   TrialSummary* s) {
  const DecodeWindow& w = options.window;
  if (options.seed_compat || w.mode == DecodeWindow::Mode::kWholeTrace) return std::optional<int64_t>();
  std::optional<int64_t> label_occurrences;
  if (w.mode == DecodeWindow::Mode::kLabel) {
    const std::vector<int64_t> ends = OccurrenceEnds(*kept, joins, NormalizePhaseLabel(w.label));
    if (ends.size() < 2) {
      return Status::Error("attr.window_label",
                           "window label '" + w.label + "' occurs " + std::to_string(ends.size()) +
                               " time(s) in the target's command buffers; at least 2 are needed",
                           {path});
    }
    s->window_start_ns = ends.front();
    s->window_end_ns = ends.back();
    label_occurrences = static_cast<int64_t>(ends.size()) - 1;
  } else if (w.mode == DecodeWindow::Mode::kTimeRange) {
    s->window_start_ns = w.start_ns;
    s->window_end_ns = w.end_ns;
  }
  std::vector<Pair> in_window;
  if (w.mode == DecodeWindow::Mode::kSkipSubmissions) {
    std::stable_sort(kept->begin(), kept->end(), [](const Pair& a, const Pair& b) { return a.start_ns < b.start_ns; });
    size_t skip = std::min<size_t>(static_cast<size_t>(w.skip), kept->size());
    if (skip < kept->size()) s->window_start_ns = (*kept)[skip].start_ns;
    in_window.assign(kept->begin() + static_cast<std::ptrdiff_t>(skip), kept->end());
  } else {
    for (const Pair& p : *kept) {
      if (p.start_ns >= s->window_start_ns && p.end_ns <= s->window_end_ns) in_window.push_back(p);
    }
  }
  s->excluded_outside_window = static_cast<int64_t>(kept->size() - in_window.size());
  s->diagnostics.AddCount("attr.outside_window", s->excluded_outside_window);
  kept->swap(in_window);
  return label_occurrences;
}

// Token count from the trace when a token label is given (corrected method only):
// the window's own count when it is the window label, else the distinct command
// buffers with the label among the kept submissions.
Status CountTokensInTrace(const std::vector<Pair>& kept, const TrialJoins& joins, const AttributionOptions& options,
                          std::optional<int64_t> label_occurrences, const std::string& path, TrialSummary* s) {
  if (options.token_label.empty() || options.seed_compat) return Status();
  const std::string phase = NormalizePhaseLabel(options.token_label);
  if (label_occurrences && phase == NormalizePhaseLabel(options.window.label)) {
    s->tokens_in_trace = label_occurrences;
  } else {
    std::set<uint64_t> cbs;
    for (const Pair& p : kept) {
      const auto* e = joins.EncoderOf(p.submission);
      if (e != nullptr && e->second.phase == phase) cbs.insert(e->second.cmdbuffer.value_or(e->first));
    }
    s->tokens_in_trace = static_cast<int64_t>(cbs.size());
  }
  if (*s->tokens_in_trace == 0) {
    return Status::Error("attr.token_label",
                         "token label '" + options.token_label + "' does not occur in the target's decode window",
                         {path});
  }
  return Status();
}

std::vector<std::pair<int64_t, int64_t>> IntervalsOf(const std::vector<Pair>& kept) {
  std::vector<std::pair<int64_t, int64_t>> intervals;
  intervals.reserve(kept.size());
  for (const Pair& p : kept) intervals.emplace_back(p.start_ns, p.end_ns);
  return intervals;
}

// Encoder families and command-buffer phases: GPU time through the submission map,
// host time from the encoders list. The seed counted every encoder of the trace; the
// corrected method counts the encoders the kept submissions ran in.
void JoinFamiliesAndPhases(const std::vector<Pair>& kept, const TrialJoins& joins, bool seed_compat,
                           TrialSummary* s) {
  std::unordered_set<uint64_t> used_encoders;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> phase_intervals;
  for (const Pair& p : kept) {
    auto m = joins.map.find(p.submission);
    if (m == joins.map.end() || !m->second->encoder) {
      ++s->unmapped_submissions;
      continue;
    }
    const TrialJoins::Encoder* e = joins.EncoderOf(p.submission);
    if (e == nullptr) {
      ++s->unmatched_submissions;
      continue;
    }
    ++s->matched_submissions;
    used_encoders.insert(e->first);
    FamilyStats& f = s->encoder_gpu[e->second.family];
    f.gpu_sum_ns += p.duration();
    ++f.submissions;
    PhaseStats& ph = s->cb_label_gpu[e->second.phase];
    ph.gpu_sum_ns += p.duration();
    ++ph.submissions;
    phase_intervals[e->second.phase].emplace_back(p.start_ns, p.end_ns);
  }
  s->diagnostics.AddCount("attr.unmatched_encoder", s->unmatched_submissions);
  std::map<std::string, std::set<uint64_t>> phase_cbs;
  for (uint64_t id : joins.encoder_order) {
    if (!seed_compat && !used_encoders.count(id)) continue;
    const EncoderInfo& e = joins.encoders.at(id);
    ++s->total_encoders;
    FamilyStats& f = s->encoder_gpu[e.family];
    ++f.encoders;
    f.host_sum_ns += e.host_ns;
    PhaseStats& ph = s->cb_label_gpu[e.phase];
    ++ph.cbs;
    ph.host_sum_ns += e.host_ns;
    phase_cbs[e.phase].insert(e.cmdbuffer.value_or(id));
    if (!IsGenericPhase(e.phase)) ++s->labelled_encoders;
  }
  for (auto& [phase, ph] : s->cb_label_gpu) {
    ph.command_buffers = static_cast<int64_t>(phase_cbs[phase].size());
    ph.gpu_union_ns = stats::UnionLength(std::move(phase_intervals[phase]));
  }
}

// Kernel registry: the target's pipelines by kernel family. Never joined to time (no
// per-submission table carries a pipeline id).
void BuildKernelRegistry(const TrialTables& tables, const AttributionOptions& options, TrialSummary* s) {
  s->known_kernel_families = KernelFamilyNames(options.kernel_families);
  if (tables.shaders) {
    std::map<std::string, std::set<std::string>> registry;
    for (const auto& r : *tables.shaders) {
      if (!IsTargetProcess(r.process, options) || r.name.empty()) continue;
      ++s->shader_count;
      registry[KernelFamily(options.kernel_families, r.name, options.seed_compat)].insert(
          r.pso_name.empty() ? r.name : r.pso_name);
    }
    for (auto& [family, names] : registry) {
      s->shader_registry[family].assign(names.begin(), names.end());
      s->known_kernel_families.insert(family);
    }
  }
  s->shader_timeline_rows = tables.shader_timeline_rows.value_or(0);
}

// Cross-checks the busy time against metal-gpu-intervals of the same process and
// window (corrected method only).
void CrossCheckGpuIntervals(const TrialTables& tables, const AttributionOptions& options, TrialSummary* s) {
  if (!tables.gpu_intervals || options.seed_compat) return;
  std::vector<std::pair<int64_t, int64_t>> gi;
  for (const auto& r : *tables.gpu_intervals) {
    if (r.process.is_null || !IsTargetProcess(r.process, options)) continue;
    int64_t end = r.start_ns + r.duration_ns;
    if (r.start_ns >= s->window_start_ns && end <= s->window_end_ns) gi.emplace_back(r.start_ns, end);
  }
  s->gpu_intervals_union_ns = stats::UnionLength(std::move(gi));
}

// Kept submissions per process, from every submission-map row: the seed's map holds
// the target's rows only, so it cannot tell which other processes slipped in.
// Submissions without a row or with a sentinel process are of no known process.
std::map<std::string, int64_t> KeptPerProcess(const std::vector<Pair>& kept, const TrialTables& tables,
                                              const SubmissionMap& map, const AttributionOptions& options) {
  std::map<std::string, int64_t> per_process;
  if (!tables.submission_map) return per_process;
  SubmissionMap every_row;
  const bool map_has_every_row = !options.seed_compat || options.process_prefix.empty();
  if (!map_has_every_row) every_row = MapSubmissions(*tables.submission_map, "", nullptr);
  const SubmissionMap& rows = map_has_every_row ? map : every_row;
  for (const Pair& p : kept) {
    auto it = rows.find(p.submission);
    if (it != rows.end() && !it->second->process.is_null) ++per_process[ProcessLabel(it->second->process)];
  }
  return per_process;
}

}  // namespace

StatusOr<TrialSummary> SummarizeTrial(const TrialTables& tables, const AttributionOptions& options) {
  TrialSummary s;
  s.path = tables.path;
  s.diagnostics.Merge(tables.diagnostics);
  s.rows = static_cast<int64_t>(tables.execution_points.size());
  s.window_start_ns = INT64_MIN;  // until a window says otherwise (0 in the result)
  s.window_end_ns = INT64_MAX;

  std::vector<Pair> pairs = PairExecutionPoints(tables.execution_points, options.seed_compat, &s);
  TrialJoins joins;
  PERFGATE_ASSIGN_OR_RETURN(joins.map, IndexSubmissions(tables, options, &s));
  PERFGATE_ASSIGN_OR_RETURN(std::vector<Pair> kept,
                            KeepTargetSubmissions(std::move(pairs), joins.map, options, tables.path, &s));
  IndexEncoders(tables, options, &s, &joins);
  PERFGATE_ASSIGN_OR_RETURN(std::optional<int64_t> label_occurrences,
                            ApplyDecodeWindow(joins, options, tables.path, &kept, &s));
  PERFGATE_RETURN_IF_ERROR(CountTokensInTrace(kept, joins, options, label_occurrences, tables.path, &s));
  PERFGATE_RETURN_IF_ERROR(ResolveTokens(s.tokens_in_trace, options, tables.path, &s));

  SummarizeKeptWork(IntervalsOf(kept), options, &s);
  JoinFamiliesAndPhases(kept, joins, options.seed_compat, &s);
  BuildKernelRegistry(tables, options, &s);
  CrossCheckGpuIntervals(tables, options, &s);
  CountMixedProcesses(KeptPerProcess(kept, tables, joins.map, options), tables.path, &s.diagnostics);
  if (s.window_start_ns == INT64_MIN) s.window_start_ns = 0;
  return s;
}

namespace {

TrialMedian MedianOf(std::vector<double> values) {
  TrialMedian m;
  m.median = stats::Median(values);
  m.per_trial = std::move(values);
  return m;
}

// fn(trial) for every trial, in order.
template <typename Fn>
std::vector<double> PerTrial(const std::vector<TrialSummary>& trials, Fn fn) {
  std::vector<double> v;
  v.reserve(trials.size());
  for (const auto& t : trials) v.push_back(fn(t));
  return v;
}

double TokensOf(const TrialSummary& t) { return static_cast<double>(std::max<int64_t>(t.tokens, 1)); }

// The median over trials of value(trial) per token.
template <typename Fn>
TrialMedian PerTokenMedian(const std::vector<TrialSummary>& trials, Fn value) {
  return MedianOf(PerTrial(trials, [&](const TrialSummary& t) { return value(t) / TokensOf(t); }));
}

// The value of `key` in `m`, or a default-constructed one: a family or phase a
// trial lacks counts as zero there.
template <typename Map>
typename Map::mapped_type ValueOr0(const Map& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? typename Map::mapped_type{} : it->second;
}

std::vector<std::pair<std::string, BucketMedians>> BucketMediansOf(const std::vector<TrialSummary>& trials,
                                                                    const std::vector<Bucket>& buckets,
                                                                    bool seed_compat) {
  std::vector<std::pair<std::string, BucketMedians>> out;
  for (size_t b = 0; b < buckets.size(); ++b) {
    auto stats_of = [&](const TrialSummary& t) -> const BucketStats& { return t.buckets.at(b).second; };
    BucketMedians m;
    m.dispatches_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return stats_of(t).count; });
    m.us_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return stats_of(t).sum_ns / 1000.0; });
    // A trial with an empty bucket has no p50; the seed counted it as 0.
    std::vector<double> p50;
    for (const auto& t : trials) {
      if (seed_compat || stats_of(t).count > 0) p50.push_back(stats_of(t).p50_ns / 1000.0);
    }
    m.p50_us = MedianOf(std::move(p50));
    out.emplace_back(buckets[b].name, std::move(m));
  }
  return out;
}

// Every family seen in any trial (missing = 0 in the others).
std::map<std::string, FamilyMedians> FamilyMediansOf(const std::vector<TrialSummary>& trials) {
  std::set<std::string> families;
  for (const auto& t : trials) {
    for (const auto& [f, _] : t.encoder_gpu) families.insert(f);
  }
  std::map<std::string, FamilyMedians> out;
  for (const std::string& f : families) {
    auto get = [&](const TrialSummary& t) { return ValueOr0(t.encoder_gpu, f); };
    FamilyMedians m;
    m.gpu_us_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).gpu_sum_ns / 1000.0; });
    m.host_us_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).host_sum_ns / 1000.0; });
    m.encoders_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).encoders; });
    out.emplace(f, std::move(m));
  }
  return out;
}

// Every phase seen in any trial (missing = 0 in the others).
std::map<std::string, PhaseMedians> PhaseMediansOf(const std::vector<TrialSummary>& trials) {
  std::set<std::string> phases;
  for (const auto& t : trials) {
    for (const auto& [p, _] : t.cb_label_gpu) phases.insert(p);
  }
  std::map<std::string, PhaseMedians> out;
  for (const std::string& p : phases) {
    auto get = [&](const TrialSummary& t) { return ValueOr0(t.cb_label_gpu, p); };
    PhaseMedians m;
    m.gpu_us_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).gpu_sum_ns / 1000.0; });
    m.host_us_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).host_sum_ns / 1000.0; });
    m.cbs_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).cbs; });
    m.dispatches_per_token = PerTokenMedian(trials, [&](const TrialSummary& t) { return get(t).submissions; });
    bool any_cbs = std::any_of(m.cbs_per_token.per_trial.begin(), m.cbs_per_token.per_trial.end(),
                               [](double c) { return c > 0; });
    m.mean_us_per_cb = any_cbs ? stats::Mean(m.gpu_us_per_token.per_trial) /
                                     std::max(stats::Mean(m.cbs_per_token.per_trial), 1e-9)
                               : 0.0;
    out.emplace(p, std::move(m));
  }
  return out;
}

// Medians of the source extras that every trial has (see EngineSummary::extras).
std::map<std::string, TrialMedian> ExtrasMediansOf(const std::vector<TrialSummary>& trials) {
  std::map<std::string, TrialMedian> out;
  if (trials.empty()) return out;
  for (const auto& [key, _] : trials.front().extras) {
    const bool everywhere = std::all_of(trials.begin(), trials.end(),
                                        [&](const TrialSummary& t) { return t.extras.count(key) > 0; });
    if (!everywhere) continue;
    out.emplace(key, MedianOf(PerTrial(trials, [&](const TrialSummary& t) { return t.extras.at(key); })));
  }
  return out;
}

// The registry, the family vocabulary and the diagnostics, merged over trials.
void MergeTrials(const std::vector<TrialSummary>& trials, EngineSummary* e) {
  std::map<std::string, std::set<std::string>> registry;
  for (const auto& t : trials) {
    for (const auto& [f, names] : t.shader_registry) registry[f].insert(names.begin(), names.end());
    e->known_kernel_families.insert(t.known_kernel_families.begin(), t.known_kernel_families.end());
    e->shader_timeline_rows = std::max(e->shader_timeline_rows, t.shader_timeline_rows);
    e->diagnostics.Merge(t.diagnostics);
  }
  for (auto& [f, names] : registry) e->shader_registry[f].assign(names.begin(), names.end());
}

}  // namespace

EngineSummary SummarizeEngine(std::string name, std::vector<TrialSummary> trials, const std::vector<Bucket>& buckets,
                              bool seed_compat) {
  EngineSummary e;
  e.name = std::move(name);
  e.dispatches_per_token = MedianOf(PerTrial(trials, [](const TrialSummary& t) { return t.dispatches_per_token; }));
  e.gpu_us_per_token = MedianOf(PerTrial(trials, [](const TrialSummary& t) { return t.gpu_us_per_token; }));
  e.busy_us_per_token = MedianOf(PerTrial(trials, [](const TrialSummary& t) { return t.busy_us_per_token; }));
  e.buckets = BucketMediansOf(trials, buckets, seed_compat);
  e.encoder_gpu = FamilyMediansOf(trials);
  e.cb_label_gpu = PhaseMediansOf(trials);
  e.extras = ExtrasMediansOf(trials);
  MergeTrials(trials, &e);
  if (!trials.empty() && trials[0].total_encoders > 0) {
    e.label_coverage = static_cast<double>(trials[0].labelled_encoders) / static_cast<double>(trials[0].total_encoders);
  }
  e.trials = std::move(trials);
  return e;
}

namespace {

Delta MakeDelta(std::string name, const TrialMedian& engine, const TrialMedian& baseline) {
  Delta d;
  d.name = std::move(name);
  d.engine = engine.median;
  d.baseline = baseline.median;
  d.delta = d.engine - d.baseline;
  if (d.baseline != 0) d.delta_pct = d.delta / d.baseline * 100.0;
  d.p_value = stats::MannWhitneyU(engine.per_trial, baseline.per_trial).p_value;
  return d;
}

// A family or phase that one side lacks is zero in every trial of that side.
TrialMedian ZeroMedian(size_t trials) { return TrialMedian{0, std::vector<double>(trials, 0.0)}; }

// One side's GPU µs/token of a family or phase.
template <typename Medians>
TrialMedian GpuUsPerTokenOf(const Medians& medians, const std::string& key, size_t trials) {
  auto it = medians.find(key);
  return it == medians.end() ? ZeroMedian(trials) : it->second.gpu_us_per_token;
}

}  // namespace

Comparison Compare(const EngineSummary& engine, const EngineSummary& baseline, const std::vector<Bucket>& buckets,
                   bool seed_compat) {
  Comparison c;
  c.engine = engine.name;
  c.baseline = baseline.name;
  const Delta* best = nullptr;
  for (size_t b = 0; b < buckets.size() && b < engine.buckets.size() && b < baseline.buckets.size(); ++b) {
    c.buckets.push_back(MakeDelta(buckets[b].name, engine.buckets[b].second.us_per_token,
                                  baseline.buckets[b].second.us_per_token));
  }
  for (size_t b = 0; b < c.buckets.size(); ++b) {
    if (best == nullptr || c.buckets[b].delta > best->delta) best = &c.buckets[b];
  }
  if (best != nullptr && (seed_compat || best->delta > 0)) {
    c.attack_target = best->name;
    for (const Bucket& b : buckets) {
      if (b.name == best->name) c.attack_hint = b.hint;
    }
  }
  c.total = MakeDelta("TOTAL", engine.gpu_us_per_token, baseline.gpu_us_per_token);
  c.submissions_per_token = MakeDelta("submissions_per_token", engine.dispatches_per_token,
                                      baseline.dispatches_per_token);
  std::set<std::string> families, phases;
  for (const auto& [f, _] : engine.encoder_gpu) families.insert(f);
  for (const auto& [f, _] : baseline.encoder_gpu) families.insert(f);
  for (const auto& [p, _] : engine.cb_label_gpu) phases.insert(p);
  for (const auto& [p, _] : baseline.cb_label_gpu) phases.insert(p);
  const size_t engine_trials = engine.trials.size();
  const size_t baseline_trials = baseline.trials.size();
  for (const std::string& f : families) {
    c.families.push_back(MakeDelta(f, GpuUsPerTokenOf(engine.encoder_gpu, f, engine_trials),
                                   GpuUsPerTokenOf(baseline.encoder_gpu, f, baseline_trials)));
  }
  for (const std::string& p : phases) {
    c.phases.push_back(MakeDelta(p, GpuUsPerTokenOf(engine.cb_label_gpu, p, engine_trials),
                                 GpuUsPerTokenOf(baseline.cb_label_gpu, p, baseline_trials)));
  }
  std::stable_sort(c.families.begin(), c.families.end(),
                   [](const Delta& a, const Delta& b) { return a.delta > b.delta; });
  std::stable_sort(c.phases.begin(), c.phases.end(),
                   [](const Delta& a, const Delta& b) { return a.engine > b.engine; });
  return c;
}

// ---------------------------------------------------------------------------------
// Rules every trace source applies (summary.h).
// ---------------------------------------------------------------------------------

Status ResolveTokens(std::optional<int64_t> in_trace, const AttributionOptions& options, const std::string& path,
                     TrialSummary* s) {
  if (!options.token_label.empty() && in_trace) {
    s->tokens = *in_trace;
    s->tokens_in_trace = in_trace;
    s->tokens_source = "label:" + options.token_label;
    if (options.tokens && *options.tokens != s->tokens) {
      s->diagnostics.Add("attr.token_count_mismatch", {path},
                         "trace has " + std::to_string(s->tokens) + " tokens of '" + options.token_label +
                             "', configured " + std::to_string(*options.tokens));
    }
    return Status();
  }
  if (options.tokens) {
    s->tokens = *options.tokens;
    s->tokens_source = "given";
    return Status();
  }
  return Status::Error("attr.no_tokens", "no token count: pass --tokens N or --tokens auto:LABEL", {path},
                       ErrorKind::kUsage);
}

void SummarizeKeptWork(std::vector<std::pair<int64_t, int64_t>> intervals, const AttributionOptions& options,
                       TrialSummary* s) {
  const std::vector<Bucket>& buckets = options.buckets;
  std::vector<std::vector<int64_t>> by_bucket(buckets.size());
  for (const auto& [start_ns, end_ns] : intervals) {
    const int64_t d = end_ns - start_ns;
    s->total_sum_ns += d;
    for (size_t b = 0; b < buckets.size(); ++b) {
      if (d >= buckets[b].lo_ns && d < buckets[b].hi_ns) {
        by_bucket[b].push_back(d);
        break;
      }
    }
  }
  for (size_t b = 0; b < buckets.size(); ++b) {
    s->buckets.emplace_back(buckets[b].name, StatsOf(std::move(by_bucket[b]), options.seed_compat));
  }
  const double per_token = static_cast<double>(std::max<int64_t>(s->tokens, 1));
  s->submissions = static_cast<int64_t>(intervals.size());
  s->busy_union_ns = stats::UnionLength(std::move(intervals));
  s->dispatches_per_token = static_cast<double>(s->submissions) / per_token;
  s->gpu_us_per_token = static_cast<double>(s->total_sum_ns) / 1000.0 / per_token;
  s->busy_us_per_token = static_cast<double>(s->busy_union_ns) / 1000.0 / per_token;
}

void CountMixedProcesses(const std::map<std::string, int64_t>& kept_per_process, const std::string& path,
                         Diagnostics* diagnostics) {
  if (kept_per_process.size() < 2) return;
  std::vector<std::pair<std::string, int64_t>> largest_first(kept_per_process.begin(), kept_per_process.end());
  std::stable_sort(largest_first.begin(), largest_first.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  int64_t outside_largest = 0;
  std::string detail = "kept work of " + std::to_string(largest_first.size()) + " processes:";
  for (size_t i = 0; i < largest_first.size(); ++i) {
    const auto& [process, n] = largest_first[i];
    if (i > 0) outside_largest += n;
    detail += (i == 0 ? " " : ", ") + process + " x" + std::to_string(n);
  }
  if (outside_largest <= 0) return;
  // One Add carries the detail and location; the rest of the count follows it.
  diagnostics->Add("attr.mixed_processes", {path}, std::move(detail));
  diagnostics->AddCount("attr.mixed_processes", outside_largest - 1);
}

}  // namespace perfgate::attribution
