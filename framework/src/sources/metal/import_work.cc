// The Metal importer (metal_work.h): execution points paired into submissions, each
// joined to its process and encoder through the submission map, the encoders as the
// host calls that launched them.
#include "sources/metal/metal_work.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "attribution/overflow_error.h"
#include "attribution/process_target.h"
#include "core/checked_math.h"
#include "core/hash_mix.h"
#include "core/string_util.h"

namespace perfgate::sources::metal {
namespace {

using attribution::AttributionOptions;
using attribution::TrialTables;

// One execution-point start paired with its end; `duration_ns` is end - start,
// computed once with an overflow check.
struct Pair {
  uint64_t submission;
  int64_t start_ns;
  int64_t end_ns;
  uint64_t channel;
  int64_t duration_ns;
};

Status Overflow(const std::string& path, const std::string& what) {
  return perfgate::internal::OverflowError({path}, what);
}

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

// Why no execution point made a pair, when none did: every count that explains it.
Status NoPairs(const TrialTables& tables, const Diagnostics& diagnostics, const TableFigures& f, int64_t negative,
               int64_t unknown) {
  const int64_t skipped = diagnostics.Count("xctrace.null_required_value");
  return Status::Error("attr.no_pairs",
                       "no execution-point start/end pair among " + std::to_string(tables.execution_points.size()) +
                           " decoded rows: " + std::to_string(skipped) + " rows skipped for a null or bad value, " +
                           std::to_string(f.unpaired_ends) + " ends without a start, " +
                           std::to_string(f.leftover_starts) + " starts never ended, " + std::to_string(negative) +
                           " ends before their start, " + std::to_string(unknown) + " unknown functions",
                       {tables.path});
}

// Execution points → submissions. The seed overwrote an open start with a second one;
// the corrected pairing queues them per submission id. A submission leaves the map
// once its starts are all ended, so the map holds the submissions in flight, not
// every one of the trial.
StatusOr<std::vector<Pair>> PairExecutionPoints(const TrialTables& tables, bool seed_compat, TableFigures* f,
                                                Diagnostics* diagnostics) {
  std::vector<Pair> pairs;
  pairs.reserve(tables.execution_points.size() / 2);
  std::unordered_map<uint64_t, OpenStarts, perfgate::internal::SeededHash> open;
  int64_t negative = 0, unknown = 0;
  for (const auto& p : tables.execution_points) {
    if (p.function == 1) {
      auto& q = open[p.submission.value];
      if (!q.empty()) {
        ++f->duplicate_starts;
        diagnostics->Add("attr.duplicate_start", {}, "submission " + std::to_string(p.submission.value));
        if (seed_compat) q.clear();
      }
      q.push_back(&p);
    } else if (p.function == 2) {
      auto it = open.find(p.submission.value);
      if (it == open.end() || it->second.empty()) {
        ++f->unpaired_ends;
        continue;
      }
      const xctrace::ExecutionPoint* start = it->second.front();
      it->second.pop_front();
      if (it->second.empty()) open.erase(it);
      Pair pair{p.submission.value, start->timestamp_ns, p.timestamp_ns, start->channel_id, 0};
      if (!internal::CheckedSub(p.timestamp_ns, start->timestamp_ns, &pair.duration_ns)) {
        return Overflow(tables.path, "the duration of submission " + std::to_string(p.submission.value) +
                                         " (execution-point rows " + std::to_string(start->row + 1) + " to " +
                                         std::to_string(p.row + 1) + ")");
      }
      if (pair.duration_ns < 0 && !seed_compat) {
        ++negative;
        diagnostics->Add("attr.negative_duration", {}, "submission " + std::to_string(p.submission.value));
        continue;
      }
      pairs.push_back(pair);
    } else {
      ++unknown;
      diagnostics->Add("attr.unknown_function", {}, "function " + std::to_string(p.function));
    }
  }
  for (const auto& [id, q] : open) f->leftover_starts += static_cast<int64_t>(q.size());
  diagnostics->AddCount("attr.unpaired_end", f->unpaired_ends);
  diagnostics->AddCount("attr.leftover_start", f->leftover_starts);
  if (pairs.empty()) return NoPairs(tables, *diagnostics, *f, negative, unknown);
  return pairs;
}

// The summed |durations| of the pairs fit in int64, so every sum of some of them does.
Status CheckPairSumsFit(const std::vector<Pair>& pairs, const std::string& path) {
  int64_t sum = 0;
  for (const Pair& p : pairs) {
    const int64_t d = p.duration_ns;
    if (!internal::AccumulateAbsChecked(&sum, d)) {
      return Overflow(path, "the summed durations of the paired submissions, at submission " +
                                std::to_string(p.submission));
    }
  }
  return Status();
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

// The submission map's two uses: which encoder a submission ran in (the seed kept only
// the target prefix's rows for that) and which process owns it (every row).
struct Maps {
  SubmissionMap joins;
  SubmissionMap owners_of_seed;  // the seed's owners, when its join map is filtered
  const SubmissionMap& owners() const { return owners_of_seed.empty() ? joins : owners_of_seed; }
};

StatusOr<Maps> IndexSubmissions(const TrialTables& tables, const AttributionOptions& options,
                                Diagnostics* diagnostics) {
  Maps maps;
  if (!tables.submission_map) {
    if (options.seed_compat || options.all_processes) return maps;
    return Status::Error("attr.needs_submission_map",
                         "filtering to process '" + options.process_prefix + "' needs the " +
                             std::string(xctrace::SubmissionMapRow::kSchema) +
                             " table; export it, or pass --all-processes",
                         {tables.path});
  }
  const std::string seed_prefix = options.seed_compat ? options.process_prefix : std::string();
  maps.joins = MapSubmissions(*tables.submission_map, seed_prefix, diagnostics);
  if (!seed_prefix.empty()) maps.owners_of_seed = MapSubmissions(*tables.submission_map, "", nullptr);
  return maps;
}

// Each pair as a submission on its channel, with its encoder (the correlation) and its
// owner; the owners' names go to the work's process names.
void AddSubmissions(const std::vector<Pair>& pairs, const Maps& maps, model::WorkSet* work) {
  work->items.reserve(pairs.size());
  const bool one_map = &maps.owners() == &maps.joins;
  const xctrace::ProcessRef* named = nullptr;  // the last process named, nearly always the next one's
  for (const Pair& p : pairs) {
    model::WorkItem item;
    item.kind = model::WorkKind::kSubmission;
    item.start_ns = p.start_ns;
    item.end_ns = p.end_ns;
    item.tid = static_cast<int64_t>(p.channel);
    item.stream = item.tid;
    auto joined = maps.joins.find(p.submission);
    const xctrace::SubmissionMapRow* join_row = joined == maps.joins.end() ? nullptr : joined->second;
    if (join_row != nullptr && join_row->encoder) item.correlation = static_cast<int64_t>(join_row->encoder->value);
    const xctrace::SubmissionMapRow* owner_row = join_row;
    if (!one_map) {
      auto owned = maps.owners().find(p.submission);
      owner_row = owned == maps.owners().end() ? nullptr : owned->second;
    }
    if (owner_row != nullptr) {
      const xctrace::ProcessRef& process = owner_row->process;
      item.process = process.is_null ? model::kNoProcess : process.pid;
      if (!process.is_null && (named == nullptr || named->pid != process.pid || named->name != process.name)) {
        work->process_names.emplace(process.pid, process.name.str());
        named = &process;
      }
    }
    work->items.push_back(std::move(item));
  }
}

// An encoder as the host call that launched its submissions.
StatusOr<model::HostCall> EncoderCall(const xctrace::EncoderRow& e, const std::string& path) {
  model::HostCall call;
  call.kind = model::HostCallKind::kEncoder;
  call.name = e.encoder_label.str();
  call.start_ns = e.start_ns;
  if (!internal::CheckedAdd(e.start_ns, e.duration_ns, &call.end_ns)) {
    return Overflow(path, "the end (start + duration) of " + std::string(xctrace::EncoderRow::kSchema) + " row " +
                              std::to_string(e.row + 1));
  }
  call.pid = e.process.is_null ? model::kNoProcess : e.process.pid;
  call.tid = e.thread_tid.value_or(0);
  call.correlation = static_cast<int64_t>(e.encoder->value);
  call.group = static_cast<int64_t>(e.cmdbuffer ? e.cmdbuffer->value : e.encoder->value);
  call.group_label = e.cmdbuffer_label.str();
  call.family = attribution::EncoderFamily(e.encoder_label);
  return call;
}

// The encoders of the target process, de-duplicated by encoder id (first row wins).
// Every row of every process counts in the table figures, as in the seed.
Status AddEncoders(const TrialTables& tables, const AttributionOptions& options, TableFigures* f,
                   model::WorkSet* work) {
  if (!tables.encoders) return Status();
  std::unordered_set<uint64_t, perfgate::internal::SeededHash> seen;
  seen.reserve(tables.encoders->size());
  work->host_calls.reserve(tables.encoders->size());
  for (const auto& e : *tables.encoders) {
    ++f->encoder_rows;
    if (!internal::AccumulateChecked(&f->encoder_total_ns, e.duration_ns)) {
      return Overflow(tables.path, "the encoders' total time after " + std::string(xctrace::EncoderRow::kSchema) +
                                       " row " + std::to_string(e.row + 1));
    }
    if (!IsTargetProcess(e.process, options)) continue;
    if (!e.encoder || !seen.insert(e.encoder->value).second) continue;
    PERFGATE_ASSIGN_OR_RETURN(model::HostCall call, EncoderCall(e, tables.path));
    work->host_calls.push_back(std::move(call));
  }
  return Status();
}

model::Conventions MetalConventions() {
  model::Conventions c;
  c.owner_required = true;
  c.several_processes_need_a_choice = false;
  c.no_owner_code = "attr.unmapped_submission";
  c.unnamed_owner_code = "attr.sentinel_process";
  c.seed_method = true;
  return c;
}

}  // namespace

bool IsTargetProcess(const xctrace::ProcessRef& process, const AttributionOptions& options) {
  return options.all_processes || options.process_prefix.empty() ||
         (!process.is_null && attribution::detail::NameMatches(process.name, options.process_prefix));
}

StatusOr<model::WorkSet> ImportWork(const TrialTables& tables, const AttributionOptions& options,
                                    TableFigures* figures) {
  model::WorkSet work;
  work.path = tables.path;
  work.conventions = MetalConventions();
  work.diagnostics.Merge(tables.diagnostics);
  work.events = static_cast<int64_t>(tables.execution_points.size());
  PERFGATE_ASSIGN_OR_RETURN(std::vector<Pair> pairs,
                            PairExecutionPoints(tables, options.seed_compat, figures, &work.diagnostics));
  PERFGATE_RETURN_IF_ERROR(CheckPairSumsFit(pairs, tables.path));
  PERFGATE_ASSIGN_OR_RETURN(const Maps maps, IndexSubmissions(tables, options, &work.diagnostics));
  AddSubmissions(pairs, maps, &work);
  PERFGATE_RETURN_IF_ERROR(AddEncoders(tables, options, figures, &work));
  return work;
}

}  // namespace perfgate::sources::metal
