// The Metal source's attribution of one trial: pairing execution points into
// submissions, the process filter, the decode window and the joins through the
// submission map and encoders list to families, phases and the kernel registry. The
// neutral rules it ends with (buckets, totals, tokens) are attribution's.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "core/checked_math.h"
#include "attribution/label_matcher.h"
#include "core/hash_mix.h"
#include "attribution/overflow_error.h"
#include "perfgate/attribution/attribute.h"
#include "perfgate/stats/summary.h"
#include "string_util.h"

namespace perfgate::attribution {
namespace {

// `duration_ns` is end - start, computed once with an overflow check (PairExecutionPoints).
struct EncoderInfo;

struct Pair {
  uint64_t submission;
  int64_t start_ns;
  int64_t end_ns;
  uint64_t channel;
  int64_t duration_ns;
  size_t end_row;  // the end point's row in the execution-points table
  // Its submission-map row and encoder, once AttachMapRows and AttachEncoders have looked them up (null
  // when there is none).
  const xctrace::SubmissionMapRow* map_row = nullptr;
  const std::pair<const uint64_t, EncoderInfo>* encoder = nullptr;
  int64_t duration() const { return duration_ns; }
};

Status Overflow(const std::string& path, const std::string& what) {
  return perfgate::internal::OverflowError({path}, what);
}

// What a checked sum adds up ("the GPU time of family" and the family's name), put
// into words only when the sum overflows: the sums run once per submission, and
// building the words each time was a string allocated and freed per submission.
struct SumName {
  std::string_view what;
  std::string_view name;  // quoted after `what` when not empty
  std::string Words() const {
    return name.empty() ? std::string(what) : std::string(what) + " '" + std::string(name) + "'";
  }
};

// *sum += v, or attr.overflow naming what was summed and the row that tipped it.
Status AddChecked(int64_t* sum, int64_t v, const std::string& path, const SumName& sum_name, std::string_view table,
                  size_t row) {
  if (internal::AccumulateChecked(sum, v)) return Status();
  return Overflow(path, sum_name.Words() + " after " + std::string(table) + " row " + std::to_string(row + 1));
}

// Why no execution point made a pair, when none did: every count that explains it.
Status NoPairs(const std::vector<xctrace::ExecutionPoint>& points, const TrialSummary& s, int64_t negative,
               int64_t unknown) {
  const int64_t skipped = s.diagnostics.Count("xctrace.null_required_value");
  return Status::Error("attr.no_pairs",
                       "no execution-point start/end pair among " + std::to_string(points.size()) +
                           " decoded rows: " + std::to_string(skipped) + " rows skipped for a null or bad value, " +
                           std::to_string(s.unpaired_ends) + " ends without a start, " +
                           std::to_string(s.leftover_starts) + " starts never ended, " + std::to_string(negative) +
                           " ends before their start, " + std::to_string(unknown) + " unknown functions",
                       {s.path});
}

struct EncoderInfo {
  std::string family;
  std::string phase;
  SharedText label;  // the command buffer's label as recorded, which label prefixes and patterns match
  int64_t host_ns = 0;
  std::optional<uint64_t> cmdbuffer;
  size_t order = 0;  // its place in TrialJoins::encoder_order
};


// The starts of one submission still waiting for their ends, oldest first: nearly
// always one, kept inline (a std::deque per submission allocated half a kilobyte
// each, and on a 1,000,000-submission trial the pairing spent most of its time in
// fresh pages and the allocator).
class OpenStarts {
 public:
  bool empty() const { return front_ == nullptr; }
  size_t size() const { return empty() ? 0 : 1 + behind_.size() - next_; }
  const xctrace::ExecutionPoint* front() const { return front_; }
  void push_back(const xctrace::ExecutionPoint* p) {
    if (front_ == nullptr) {
      front_ = p;
    } else {
      behind_.push_back(p);
    }
  }
  void pop_front() {
    front_ = next_ < behind_.size() ? behind_[next_++] : nullptr;
    if (next_ == behind_.size()) clear_behind();
  }
  void clear() {
    front_ = nullptr;
    clear_behind();
  }

 private:
  void clear_behind() {
    behind_.clear();
    next_ = 0;
  }
  const xctrace::ExecutionPoint* front_ = nullptr;
  std::vector<const xctrace::ExecutionPoint*> behind_;  // after front_, from next_ on
  size_t next_ = 0;
};

// Execution points → submissions. The seed overwrote an open start with a second one;
// the corrected pairing queues them per submission id. A submission leaves the map
// once its starts are all ended, so the map holds the submissions in flight, not
// every one of the trial.
StatusOr<std::vector<Pair>> PairExecutionPoints(const std::vector<xctrace::ExecutionPoint>& points,
                                                bool seed_compat, TrialSummary* s) {
  std::vector<Pair> pairs;
  pairs.reserve(points.size() / 2);
  std::unordered_map<uint64_t, OpenStarts, perfgate::internal::SeededHash> open;
  int64_t negative = 0, unknown = 0;
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
      if (it->second.empty()) open.erase(it);
      Pair pair{p.submission.value, start->timestamp_ns, p.timestamp_ns, start->channel_id, 0, p.row};
      if (!internal::CheckedSub(p.timestamp_ns, start->timestamp_ns, &pair.duration_ns)) {
        return Overflow(s->path, "the duration of submission " + std::to_string(p.submission.value) +
                                     " (execution-point rows " + std::to_string(start->row + 1) + " to " +
                                     std::to_string(p.row + 1) + ")");
      }
      if (pair.duration() < 0 && !seed_compat) {
        ++negative;
        s->diagnostics.Add("attr.negative_duration", {}, "submission " + std::to_string(p.submission.value));
        continue;
      }
      pairs.push_back(pair);
    } else {
      ++unknown;
      s->diagnostics.Add("attr.unknown_function", {}, "function " + std::to_string(p.function));
    }
  }
  for (const auto& [id, q] : open) s->leftover_starts += static_cast<int64_t>(q.size());
  s->paired = static_cast<int64_t>(pairs.size());
  s->diagnostics.AddCount("attr.unpaired_end", s->unpaired_ends);
  s->diagnostics.AddCount("attr.leftover_start", s->leftover_starts);
  if (pairs.empty()) return NoPairs(points, *s, negative, unknown);
  return pairs;
}

std::string ProcessLabel(const xctrace::ProcessRef& p) {
  return p.name.str() + " (" + std::to_string(p.pid) + ")";
}

bool IsTargetProcess(const xctrace::ProcessRef& p, const AttributionOptions& options) {
  return options.all_processes || options.process_prefix.empty() ||
         (!p.is_null && StartsWith(p.name, options.process_prefix));
}

using SubmissionMap = std::unordered_map<uint64_t, const xctrace::SubmissionMapRow*, perfgate::internal::SeededHash>;

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

// Each pair's submission-map row, looked up once for the process filter and the joins.
void AttachMapRows(const SubmissionMap& map, std::vector<Pair>* pairs) {
  for (Pair& p : *pairs) {
    auto m = map.find(p.submission);
    p.map_row = m == map.end() ? nullptr : m->second;
  }
}

// Process filter (corrected method only): keeps the pairs whose submission maps to a
// target process and counts the others by reason. No target submission at all is an
// error naming the processes that were there.
StatusOr<std::vector<Pair>> KeepTargetSubmissions(std::vector<Pair> pairs, const AttributionOptions& options,
                                                  const std::string& path, TrialSummary* s) {
  if (options.seed_compat || options.all_processes) return pairs;
  std::vector<Pair> kept;
  kept.reserve(pairs.size());
  std::map<std::string, int64_t> other_processes;
  for (const Pair& p : pairs) {
    if (p.map_row == nullptr) {
      ++s->excluded_unmapped;
      continue;
    }
    const xctrace::ProcessRef& proc = p.map_row->process;
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
  std::unordered_map<uint64_t, EncoderInfo, perfgate::internal::SeededHash> encoders;
  std::vector<uint64_t> encoder_order;  // first appearance in the encoders list
  std::vector<size_t> encoder_rows;     // the encoders-list row of each, for errors

  const Encoder* EncoderOfRow(const xctrace::SubmissionMapRow* row) const {
    if (row == nullptr || !row->encoder) return nullptr;
    auto e = encoders.find(row->encoder->value);
    return e == encoders.end() ? nullptr : &*e;
  }
};

// Each kept pair's encoder, through its map row (AttachMapRows), looked up once: the
// steps after this read it for every pair, and on a large trial each lookup in a
// table of a million ids costs cache misses.
void AttachEncoders(const TrialJoins& joins, std::vector<Pair>* kept) {
  for (Pair& p : *kept) p.encoder = joins.EncoderOfRow(p.map_row);
}

// Encoders of the target process, de-duplicated by encoder id (first row wins). Every
// row of every process counts in encoder_rows and encoder_total_ns, as in the seed.
Status IndexEncoders(const TrialTables& tables, const AttributionOptions& options, TrialSummary* s,
                     TrialJoins* joins) {
  if (!tables.encoders) return Status();
  const std::string& prefix = options.process_prefix;
  for (const auto& e : *tables.encoders) {
    ++s->encoder_rows;
    const SumName total{"the encoders' total time", {}};
    PERFGATE_RETURN_IF_ERROR(
        AddChecked(&s->encoder_total_ns, e.duration_ns, tables.path, total, xctrace::EncoderRow::kSchema, e.row));
    if (!prefix.empty() && !options.all_processes && !(!e.process.is_null && StartsWith(e.process.name, prefix))) {
      continue;
    }
    if (!e.encoder) continue;
    EncoderInfo info{EncoderFamily(e.encoder_label), NormalizePhaseLabel(e.cmdbuffer_label), e.cmdbuffer_label,
                     e.duration_ns, e.cmdbuffer ? std::optional<uint64_t>(e.cmdbuffer->value) : std::nullopt,
                     joins->encoder_order.size()};
    if (joins->encoders.emplace(e.encoder->value, std::move(info)).second) {
      joins->encoder_order.push_back(e.encoder->value);
      joins->encoder_rows.push_back(e.row);
    }
  }
  return Status();
}

// Whether an encoder's command-buffer label is one a LabelMatch names. An exact label
// compares the phase (already normalised) as before; a pattern is tested once per
// distinct label.
class LabelTest {
 public:
  explicit LabelTest(LabelMatcher matcher)
      : matcher_(std::move(matcher)), exact_phase_(NormalizePhaseLabel(matcher_.label().text)) {}
  bool operator()(const EncoderInfo& e) {
    switch (matcher_.label().kind) {
      case LabelMatch::Kind::kExact: return e.phase == exact_phase_;
      case LabelMatch::Kind::kPrefix: return matcher_.Matches(e.label.view());
      case LabelMatch::Kind::kRegex: break;
    }
    const std::string& label = e.label.str();
    auto it = cache_.find(label);
    if (it == cache_.end()) it = cache_.emplace(label, matcher_.Matches(label)).first;
    return it->second;
  }

 private:
  LabelMatcher matcher_;
  std::string exact_phase_;
  std::unordered_map<std::string, bool> cache_;
};

// The ends of the label's occurrences, sorted: one occurrence per command buffer (per
// encoder when the command-buffer id is unknown) whose label it names.
std::vector<int64_t> OccurrenceEnds(const std::vector<Pair>& kept, const TrialJoins& joins, LabelTest named) {
  std::map<uint64_t, int64_t> occurrence_end;
  for (const Pair& p : kept) {
    const auto* e = p.encoder;
    if (e == nullptr || !named(e->second)) continue;
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
    PERFGATE_ASSIGN_OR_RETURN(LabelMatcher matcher, LabelMatcher::Compile(w.label));
    const std::vector<int64_t> ends = OccurrenceEnds(*kept, joins, LabelTest(matcher));
    matcher.CountUntested(&s->diagnostics);
    if (ends.size() < 2) {
      return Status::Error("attr.window_label",
                           "window label '" + w.label.Spelling() + "' occurs " + std::to_string(ends.size()) +
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
  PERFGATE_ASSIGN_OR_RETURN(LabelMatcher matcher, LabelMatcher::Compile(options.token_label));
  if (label_occurrences && SameLabel(options.token_label, options.window.label)) {
    s->tokens_in_trace = label_occurrences;
  } else {
    LabelTest named(matcher);
    std::set<uint64_t> cbs;
    for (const Pair& p : kept) {
      const auto* e = p.encoder;
      if (e != nullptr && named(e->second)) cbs.insert(e->second.cmdbuffer.value_or(e->first));
    }
    matcher.CountUntested(&s->diagnostics);
    s->tokens_in_trace = static_cast<int64_t>(cbs.size());
  }
  if (*s->tokens_in_trace == 0) {
    return Status::Error("attr.token_label",
                         "token label '" + options.token_label.Spelling() + "' does not occur in the target's decode window",
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
Status JoinFamiliesAndPhases(const std::vector<Pair>& kept, const TrialJoins& joins, bool seed_compat,
                             TrialSummary* s) {
  constexpr std::string_view kPoints = xctrace::ExecutionPoint::kSchema;
  constexpr std::string_view kEncoders = xctrace::EncoderRow::kSchema;
  std::vector<char> used_encoders(joins.encoder_order.size(), 0);  // by EncoderInfo::order
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> phase_intervals;
  for (const Pair& p : kept) {
    if (p.map_row == nullptr || !p.map_row->encoder) {
      ++s->unmapped_submissions;
      continue;
    }
    const TrialJoins::Encoder* e = p.encoder;
    if (e == nullptr) {
      ++s->unmatched_submissions;
      continue;
    }
    ++s->matched_submissions;
    used_encoders[e->second.order] = 1;
    FamilyStats& f = s->encoder_gpu[e->second.family];
    PERFGATE_RETURN_IF_ERROR(AddChecked(&f.gpu_sum_ns, p.duration(), s->path,
                                        {"the GPU time of family", e->second.family}, kPoints, p.end_row));
    ++f.submissions;
    PhaseStats& ph = s->cb_label_gpu[e->second.phase];
    PERFGATE_RETURN_IF_ERROR(AddChecked(&ph.gpu_sum_ns, p.duration(), s->path,
                                        {"the GPU time of phase", e->second.phase}, kPoints, p.end_row));
    ++ph.submissions;
    phase_intervals[e->second.phase].emplace_back(p.start_ns, p.end_ns);
  }
  s->diagnostics.AddCount("attr.unmatched_encoder", s->unmatched_submissions);
  std::map<std::string, std::set<uint64_t>> phase_cbs;
  for (size_t i = 0; i < joins.encoder_order.size(); ++i) {
    const uint64_t id = joins.encoder_order[i];
    if (!seed_compat && !used_encoders[i]) continue;
    const EncoderInfo& e = joins.encoders.at(id);
    ++s->total_encoders;
    FamilyStats& f = s->encoder_gpu[e.family];
    ++f.encoders;
    PERFGATE_RETURN_IF_ERROR(AddChecked(&f.host_sum_ns, e.host_ns, s->path,
                                        {"the host time of family", e.family}, kEncoders,
                                        joins.encoder_rows[i]));
    PhaseStats& ph = s->cb_label_gpu[e.phase];
    ++ph.cbs;
    PERFGATE_RETURN_IF_ERROR(AddChecked(&ph.host_sum_ns, e.host_ns, s->path,
                                        {"the host time of phase", e.phase}, kEncoders, joins.encoder_rows[i]));
    phase_cbs[e.phase].insert(e.cmdbuffer.value_or(id));
    if (!IsGenericPhase(e.phase)) ++s->labelled_encoders;
  }
  for (auto& [phase, ph] : s->cb_label_gpu) {
    ph.command_buffers = static_cast<int64_t>(phase_cbs[phase].size());
    ph.gpu_union_ns = stats::UnionLength(std::move(phase_intervals[phase]));
  }
  return Status();
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
Status CrossCheckGpuIntervals(const TrialTables& tables, const AttributionOptions& options, TrialSummary* s) {
  if (!tables.gpu_intervals || options.seed_compat) return Status();
  std::vector<std::pair<int64_t, int64_t>> gi;
  int64_t first_start = INT64_MAX, last_end = INT64_MIN;
  for (const auto& r : *tables.gpu_intervals) {
    if (r.process.is_null || !IsTargetProcess(r.process, options)) continue;
    int64_t end;
    if (!internal::CheckedAdd(r.start_ns, r.duration_ns, &end)) {
      return Overflow(tables.path, "the end (start + duration) of " + std::string(xctrace::GpuInterval::kSchema) +
                                       " row " + std::to_string(r.row + 1));
    }
    if (r.start_ns >= s->window_start_ns && end <= s->window_end_ns) {
      gi.emplace_back(r.start_ns, end);
      first_start = std::min(first_start, r.start_ns);
      last_end = std::max(last_end, end);
    }
  }
  // The union is at most the span, so a span that fits keeps UnionLength's sums in range.
  int64_t span;
  if (!gi.empty() && !internal::CheckedSub(last_end, first_start, &span)) {
    return Overflow(tables.path, "the span of the " + std::string(xctrace::GpuInterval::kSchema) + " rows");
  }
  s->gpu_intervals_union_ns = stats::UnionLength(std::move(gi));
  return Status();
}

// Kept submissions per process, from every submission-map row: the seed's map holds
// the target's rows only, so it cannot tell which other processes slipped in.
// Submissions without a row or with a sentinel process are of no known process.
// The pairs' own map rows (AttachMapRows) come from that map when it holds every row.
std::map<std::string, int64_t> KeptPerProcess(const std::vector<Pair>& kept, const TrialTables& tables,
                                              const AttributionOptions& options) {
  std::map<std::string, int64_t> per_process;
  if (!tables.submission_map) return per_process;
  SubmissionMap every_row;
  const bool map_has_every_row = !options.seed_compat || options.process_prefix.empty();
  if (!map_has_every_row) every_row = MapSubmissions(*tables.submission_map, "", nullptr);
  // Counted by (pid, name) and labelled once per process: a label per submission was
  // a string built a million times in a large trial.
  std::map<std::pair<int64_t, std::string_view>, std::pair<int64_t, const xctrace::ProcessRef*>> counts;
  for (const Pair& p : kept) {
    const xctrace::SubmissionMapRow* row = p.map_row;
    if (!map_has_every_row) {
      auto it = every_row.find(p.submission);
      row = it == every_row.end() ? nullptr : it->second;
    }
    if (row == nullptr || row->process.is_null) continue;
    const xctrace::ProcessRef& process = row->process;
    auto& slot = counts[{process.pid, std::string_view(process.name)}];
    ++slot.first;
    slot.second = &process;
  }
  for (const auto& [_, count] : counts) per_process[ProcessLabel(*count.second)] += count.first;
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

  PERFGATE_ASSIGN_OR_RETURN(std::vector<Pair> pairs,
                            PairExecutionPoints(tables.execution_points, options.seed_compat, &s));
  TrialJoins joins;
  PERFGATE_ASSIGN_OR_RETURN(joins.map, IndexSubmissions(tables, options, &s));
  AttachMapRows(joins.map, &pairs);
  PERFGATE_ASSIGN_OR_RETURN(std::vector<Pair> kept, KeepTargetSubmissions(std::move(pairs), options, tables.path, &s));
  PERFGATE_RETURN_IF_ERROR(IndexEncoders(tables, options, &s, &joins));
  AttachEncoders(joins, &kept);
  PERFGATE_ASSIGN_OR_RETURN(std::optional<int64_t> label_occurrences,
                            ApplyDecodeWindow(joins, options, tables.path, &kept, &s));
  PERFGATE_RETURN_IF_ERROR(CountTokensInTrace(kept, joins, options, label_occurrences, tables.path, &s));
  PERFGATE_RETURN_IF_ERROR(ResolveTokens(s.tokens_in_trace, options, tables.path, &s));

  PERFGATE_RETURN_IF_ERROR(SummarizeKeptWork(IntervalsOf(kept), options, tables.path, &s));
  PERFGATE_RETURN_IF_ERROR(JoinFamiliesAndPhases(kept, joins, options.seed_compat, &s));
  BuildKernelRegistry(tables, options, &s);
  PERFGATE_RETURN_IF_ERROR(CrossCheckGpuIntervals(tables, options, &s));
  CountMixedProcesses(KeptPerProcess(kept, tables, options), tables.path, &s.diagnostics);
  if (s.window_start_ns == INT64_MIN) s.window_start_ns = 0;
  return s;
}

}  // namespace perfgate::attribution
