// Attribution of GPU submissions per decode token. The method, and where it departs
// from the seed (kept behind seed_compat), is in shared/docs/attribution-method.md.
#include "perfgate/attribution/attribute.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "perfgate/stats/summary.h"
#include "tokens.h"

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

}  // namespace

StatusOr<TrialSummary> SummarizeTrial(const TrialTables& tables, const AttributionOptions& options) {
  TrialSummary s;
  s.path = tables.path;
  s.diagnostics.Merge(tables.diagnostics);
  s.rows = static_cast<int64_t>(tables.execution_points.size());
  const bool compat = options.seed_compat;
  const bool filter = !compat && !options.all_processes;
  const std::string& prefix = options.process_prefix;
  auto target = [&](const xctrace::ProcessRef& p) {
    return options.all_processes || prefix.empty() || (!p.is_null && StartsWith(p.name, prefix));
  };

  std::vector<Pair> pairs = PairExecutionPoints(tables.execution_points, compat, &s);

  // Submission map: submission → map row. The seed kept only target-process rows.
  std::unordered_map<uint64_t, const xctrace::SubmissionMapRow*> map;
  if (tables.submission_map) {
    for (const auto& row : *tables.submission_map) {
      if (compat && !prefix.empty() && !(!row.process.is_null && StartsWith(row.process.name, prefix))) continue;
      auto [it, inserted] = map.emplace(row.submission.value, &row);
      if (!inserted) {
        if (it->second->encoder.has_value() != row.encoder.has_value() ||
            (row.encoder && it->second->encoder->value != row.encoder->value)) {
          s.diagnostics.Add("attr.conflicting_map_row", {}, "submission " + std::to_string(row.submission.value));
        }
        it->second = &row;
      }
    }
  } else if (filter) {
    return Status::Error("attr.needs_submission_map",
                         "filtering to process '" + prefix + "' needs the " +
                             std::string(xctrace::SubmissionMapRow::kSchema) +
                             " table; export it, or pass --all-processes",
                         {tables.path});
  }

  // Process filter (corrected method only).
  std::vector<Pair> kept;
  kept.reserve(pairs.size());
  std::map<std::string, int64_t> other_processes;
  for (const Pair& p : pairs) {
    if (!filter) {
      kept.push_back(p);
      continue;
    }
    auto it = map.find(p.submission);
    if (it == map.end()) {
      ++s.excluded_unmapped;
      continue;
    }
    const xctrace::ProcessRef& proc = it->second->process;
    if (proc.is_null) {
      ++s.excluded_unattributed;
    } else if (target(proc)) {
      kept.push_back(p);
    } else {
      ++s.excluded_other_process;
      ++other_processes[ProcessLabel(proc)];
    }
  }
  s.diagnostics.AddCount("attr.unmapped_submission", s.excluded_unmapped);
  s.diagnostics.AddCount("attr.sentinel_process", s.excluded_unattributed);
  s.diagnostics.AddCount("attr.other_process", s.excluded_other_process);
  if (filter && kept.empty()) {
    std::string seen;
    for (const auto& [name, n] : other_processes) seen += (seen.empty() ? "" : ", ") + name + " x" + std::to_string(n);
    return Status::Error("attr.no_target_rows",
                         "no submission of a process named '" + prefix + "*' among " + std::to_string(pairs.size()) +
                             " paired submissions (other processes: " + (seen.empty() ? "none" : seen) + ")",
                         {tables.path});
  }

  // Encoders of the target process, de-duplicated by encoder id (first row wins).
  std::unordered_map<uint64_t, EncoderInfo> encoders;
  std::vector<uint64_t> encoder_order;
  if (tables.encoders) {
    for (const auto& e : *tables.encoders) {
      ++s.encoder_rows;
      s.encoder_total_ns += e.duration_ns;
      if (!prefix.empty() && !options.all_processes && !(!e.process.is_null && StartsWith(e.process.name, prefix))) {
        continue;
      }
      if (!e.encoder) continue;
      EncoderInfo info{EncoderFamily(e.encoder_label), NormalizePhaseLabel(e.cmdbuffer_label), e.duration_ns,
                       e.cmdbuffer ? std::optional<uint64_t>(e.cmdbuffer->value) : std::nullopt};
      if (encoders.emplace(e.encoder->value, std::move(info)).second) encoder_order.push_back(e.encoder->value);
    }
  }
  auto encoder_of = [&](uint64_t submission) -> const std::pair<const uint64_t, EncoderInfo>* {
    auto m = map.find(submission);
    if (m == map.end() || !m->second->encoder) return nullptr;
    auto e = encoders.find(m->second->encoder->value);
    return e == encoders.end() ? nullptr : &*e;
  };

  // Decode window (corrected method only).
  s.window_start_ns = INT64_MIN;
  s.window_end_ns = INT64_MAX;
  std::optional<int64_t> label_occurrences;
  if (!compat && options.window.mode != DecodeWindow::Mode::kWholeTrace) {
    const DecodeWindow& w = options.window;
    if (w.mode == DecodeWindow::Mode::kLabel) {
      // One occurrence per command buffer (encoder when the CB id is unknown) with the label.
      std::map<uint64_t, int64_t> occurrence_end;
      for (const Pair& p : kept) {
        const auto* e = encoder_of(p.submission);
        if (e == nullptr || e->second.phase != NormalizePhaseLabel(w.label)) continue;
        uint64_t key = e->second.cmdbuffer.value_or(e->first);
        auto [it, inserted] = occurrence_end.emplace(key, p.end_ns);
        if (!inserted) it->second = std::max(it->second, p.end_ns);
      }
      std::vector<int64_t> ends;
      for (const auto& [key, end] : occurrence_end) ends.push_back(end);
      std::sort(ends.begin(), ends.end());
      if (ends.size() < 2) {
        return Status::Error("attr.window_label",
                             "window label '" + w.label + "' occurs " + std::to_string(ends.size()) +
                                 " time(s) in the target's command buffers; at least 2 are needed",
                             {tables.path});
      }
      s.window_start_ns = ends.front();
      s.window_end_ns = ends.back();
      label_occurrences = static_cast<int64_t>(ends.size()) - 1;
    } else if (w.mode == DecodeWindow::Mode::kTimeRange) {
      s.window_start_ns = w.start_ns;
      s.window_end_ns = w.end_ns;
    }
    std::vector<Pair> in_window;
    if (w.mode == DecodeWindow::Mode::kSkipSubmissions) {
      std::stable_sort(kept.begin(), kept.end(), [](const Pair& a, const Pair& b) { return a.start_ns < b.start_ns; });
      size_t skip = std::min<size_t>(static_cast<size_t>(w.skip), kept.size());
      if (skip < kept.size()) s.window_start_ns = kept[skip].start_ns;
      in_window.assign(kept.begin() + static_cast<std::ptrdiff_t>(skip), kept.end());
    } else {
      for (const Pair& p : kept) {
        if (p.start_ns >= s.window_start_ns && p.end_ns <= s.window_end_ns) in_window.push_back(p);
      }
    }
    s.excluded_outside_window = static_cast<int64_t>(kept.size() - in_window.size());
    s.diagnostics.AddCount("attr.outside_window", s.excluded_outside_window);
    kept.swap(in_window);
  }

  // Token count: from the trace when a label is given, else as configured.
  if (!options.token_label.empty() && !compat) {
    const std::string phase = NormalizePhaseLabel(options.token_label);
    if (label_occurrences && phase == NormalizePhaseLabel(options.window.label)) {
      s.tokens_in_trace = label_occurrences;
    } else {
      std::set<uint64_t> cbs;
      for (const Pair& p : kept) {
        const auto* e = encoder_of(p.submission);
        if (e != nullptr && e->second.phase == phase) cbs.insert(e->second.cmdbuffer.value_or(e->first));
      }
      s.tokens_in_trace = static_cast<int64_t>(cbs.size());
    }
    if (*s.tokens_in_trace == 0) {
      return Status::Error("attr.token_label", "token label '" + options.token_label +
                                                   "' does not occur in the target's decode window",
                           {tables.path});
    }
  }
  PERFGATE_RETURN_IF_ERROR(internal::ResolveTokens(s.tokens_in_trace, options, tables.path, &s));
  const double per_token = static_cast<double>(std::max<int64_t>(s.tokens, 1));

  // Buckets.
  std::vector<std::vector<int64_t>> by_bucket(options.buckets.size());
  std::vector<std::pair<int64_t, int64_t>> intervals;
  intervals.reserve(kept.size());
  for (const Pair& p : kept) {
    int64_t d = p.duration();
    s.total_sum_ns += d;
    intervals.emplace_back(p.start_ns, p.end_ns);
    for (size_t b = 0; b < options.buckets.size(); ++b) {
      if (d >= options.buckets[b].lo_ns && d < options.buckets[b].hi_ns) {
        by_bucket[b].push_back(d);
        break;
      }
    }
  }
  for (size_t b = 0; b < options.buckets.size(); ++b) {
    s.buckets.emplace_back(options.buckets[b].name, StatsOf(std::move(by_bucket[b]), compat));
  }
  s.submissions = static_cast<int64_t>(kept.size());
  s.busy_union_ns = stats::UnionLength(std::move(intervals));
  s.dispatches_per_token = static_cast<double>(s.submissions) / per_token;
  s.gpu_us_per_token = static_cast<double>(s.total_sum_ns) / 1000.0 / per_token;
  s.busy_us_per_token = static_cast<double>(s.busy_union_ns) / 1000.0 / per_token;

  // Encoder families and command-buffer phases. The seed counted every encoder of the
  // trace; the corrected method counts the encoders the kept submissions ran in.
  std::unordered_set<uint64_t> used_encoders;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> phase_intervals;
  for (const Pair& p : kept) {
    auto m = map.find(p.submission);
    if (m == map.end() || !m->second->encoder) {
      ++s.unmapped_submissions;
      continue;
    }
    auto e = encoders.find(m->second->encoder->value);
    if (e == encoders.end()) {
      ++s.unmatched_submissions;
      continue;
    }
    ++s.matched_submissions;
    used_encoders.insert(e->first);
    FamilyStats& f = s.encoder_gpu[e->second.family];
    f.gpu_sum_ns += p.duration();
    ++f.submissions;
    PhaseStats& ph = s.cb_label_gpu[e->second.phase];
    ph.gpu_sum_ns += p.duration();
    ++ph.submissions;
    phase_intervals[e->second.phase].emplace_back(p.start_ns, p.end_ns);
  }
  s.diagnostics.AddCount("attr.unmatched_encoder", s.unmatched_submissions);
  std::map<std::string, std::set<uint64_t>> phase_cbs;
  for (uint64_t id : encoder_order) {
    if (!compat && !used_encoders.count(id)) continue;
    const EncoderInfo& e = encoders.at(id);
    ++s.total_encoders;
    FamilyStats& f = s.encoder_gpu[e.family];
    ++f.encoders;
    f.host_sum_ns += e.host_ns;
    PhaseStats& ph = s.cb_label_gpu[e.phase];
    ++ph.cbs;
    ph.host_sum_ns += e.host_ns;
    phase_cbs[e.phase].insert(e.cmdbuffer.value_or(id));
    if (!IsGenericPhase(e.phase)) ++s.labelled_encoders;
  }
  for (auto& [phase, ph] : s.cb_label_gpu) {
    ph.command_buffers = static_cast<int64_t>(phase_cbs[phase].size());
    ph.gpu_union_ns = stats::UnionLength(std::move(phase_intervals[phase]));
  }

  // Kernel registry: never joined to time (no per-submission table carries a pipeline id).
  if (tables.shaders) {
    std::map<std::string, std::set<std::string>> registry;
    for (const auto& r : *tables.shaders) {
      if (!target(r.process) || r.name.empty()) continue;
      ++s.shader_count;
      registry[KernelFamily(options.kernel_families, r.name, compat)].insert(r.pso_name.empty() ? r.name : r.pso_name);
    }
    for (auto& [family, names] : registry) s.shader_registry[family].assign(names.begin(), names.end());
  }
  s.shader_timeline_rows = tables.shader_timeline_rows.value_or(0);

  // Cross-check the busy time against metal-gpu-intervals of the same process and window.
  if (tables.gpu_intervals && !compat) {
    std::vector<std::pair<int64_t, int64_t>> gi;
    for (const auto& r : *tables.gpu_intervals) {
      if (r.process.is_null || !target(r.process)) continue;
      int64_t end = r.start_ns + r.duration_ns;
      if (r.start_ns >= s.window_start_ns && end <= s.window_end_ns) gi.emplace_back(r.start_ns, end);
    }
    s.gpu_intervals_union_ns = stats::UnionLength(std::move(gi));
  }
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

}  // namespace

EngineSummary SummarizeEngine(std::string name, std::vector<TrialSummary> trials, const std::vector<Bucket>& buckets,
                              bool seed_compat) {
  EngineSummary e;
  e.name = std::move(name);
  auto per_trial = [&](auto fn) {
    std::vector<double> v;
    for (const auto& t : trials) v.push_back(fn(t));
    return v;
  };
  auto tokens = [](const TrialSummary& t) { return static_cast<double>(std::max<int64_t>(t.tokens, 1)); };
  e.dispatches_per_token = MedianOf(per_trial([](const TrialSummary& t) { return t.dispatches_per_token; }));
  e.gpu_us_per_token = MedianOf(per_trial([](const TrialSummary& t) { return t.gpu_us_per_token; }));
  e.busy_us_per_token = MedianOf(per_trial([](const TrialSummary& t) { return t.busy_us_per_token; }));
  for (size_t b = 0; b < buckets.size(); ++b) {
    BucketMedians m;
    auto stats_of = [&](const TrialSummary& t) -> const BucketStats& { return t.buckets.at(b).second; };
    m.dispatches_per_token = MedianOf(per_trial([&](const TrialSummary& t) { return stats_of(t).count / tokens(t); }));
    m.us_per_token = MedianOf(per_trial([&](const TrialSummary& t) { return stats_of(t).sum_ns / 1000.0 / tokens(t); }));
    std::vector<double> p50;
    for (const auto& t : trials) {
      if (seed_compat || stats_of(t).count > 0) p50.push_back(stats_of(t).p50_ns / 1000.0);
    }
    m.p50_us = MedianOf(std::move(p50));
    e.buckets.emplace_back(buckets[b].name, std::move(m));
  }
  std::set<std::string> families, phases;
  for (const auto& t : trials) {
    for (const auto& [f, _] : t.encoder_gpu) families.insert(f);
    for (const auto& [p, _] : t.cb_label_gpu) phases.insert(p);
  }
  for (const std::string& f : families) {
    auto get = [&](const TrialSummary& t) {
      auto it = t.encoder_gpu.find(f);
      return it == t.encoder_gpu.end() ? FamilyStats{} : it->second;
    };
    FamilyMedians m;
    m.gpu_us_per_token = MedianOf(per_trial([&](const TrialSummary& t) { return get(t).gpu_sum_ns / 1000.0 / tokens(t); }));
    m.host_us_per_token = MedianOf(per_trial([&](const TrialSummary& t) { return get(t).host_sum_ns / 1000.0 / tokens(t); }));
    m.encoders_per_token = MedianOf(per_trial([&](const TrialSummary& t) { return get(t).encoders / tokens(t); }));
    e.encoder_gpu.emplace(f, std::move(m));
  }
  for (const std::string& p : phases) {
    auto get = [&](const TrialSummary& t) {
      auto it = t.cb_label_gpu.find(p);
      return it == t.cb_label_gpu.end() ? PhaseStats{} : it->second;
    };
    PhaseMedians m;
    m.gpu_us_per_token = MedianOf(per_trial([&](const TrialSummary& t) { return get(t).gpu_sum_ns / 1000.0 / tokens(t); }));
    m.host_us_per_token = MedianOf(per_trial([&](const TrialSummary& t) { return get(t).host_sum_ns / 1000.0 / tokens(t); }));
    m.cbs_per_token = MedianOf(per_trial([&](const TrialSummary& t) { return get(t).cbs / tokens(t); }));
    m.dispatches_per_token = MedianOf(per_trial([&](const TrialSummary& t) { return get(t).submissions / tokens(t); }));
    bool any_cbs = std::any_of(m.cbs_per_token.per_trial.begin(), m.cbs_per_token.per_trial.end(),
                               [](double c) { return c > 0; });
    m.mean_us_per_cb = any_cbs ? stats::Mean(m.gpu_us_per_token.per_trial) /
                                     std::max(stats::Mean(m.cbs_per_token.per_trial), 1e-9)
                               : 0.0;
    e.cb_label_gpu.emplace(p, std::move(m));
  }
  std::map<std::string, std::set<std::string>> registry;
  for (const auto& t : trials) {
    for (const auto& [f, names] : t.shader_registry) registry[f].insert(names.begin(), names.end());
    e.shader_timeline_rows = std::max(e.shader_timeline_rows, t.shader_timeline_rows);
    e.diagnostics.Merge(t.diagnostics);
  }
  for (auto& [f, names] : registry) e.shader_registry[f].assign(names.begin(), names.end());
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
  for (const std::string& f : families) {
    auto e = engine.encoder_gpu.find(f);
    auto b = baseline.encoder_gpu.find(f);
    c.families.push_back(MakeDelta(f, e == engine.encoder_gpu.end() ? ZeroMedian(engine.trials.size()) : e->second.gpu_us_per_token,
                                   b == baseline.encoder_gpu.end() ? ZeroMedian(baseline.trials.size()) : b->second.gpu_us_per_token));
  }
  for (const std::string& p : phases) {
    auto e = engine.cb_label_gpu.find(p);
    auto b = baseline.cb_label_gpu.find(p);
    c.phases.push_back(MakeDelta(p, e == engine.cb_label_gpu.end() ? ZeroMedian(engine.trials.size()) : e->second.gpu_us_per_token,
                                 b == baseline.cb_label_gpu.end() ? ZeroMedian(baseline.trials.size()) : b->second.gpu_us_per_token));
  }
  std::stable_sort(c.families.begin(), c.families.end(), [](const Delta& a, const Delta& b) { return a.delta > b.delta; });
  std::stable_sort(c.phases.begin(), c.phases.end(), [](const Delta& a, const Delta& b) { return a.engine > b.engine; });
  return c;
}

namespace internal {

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

}  // namespace internal
}  // namespace perfgate::attribution
