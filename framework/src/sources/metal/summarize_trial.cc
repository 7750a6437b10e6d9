// A Metal trial's summary: its work imported (metal_work.h), attributed as every
// source's is (attribution::AttributeWork), and the figures of the tables added: the
// pairing counts, the encoders list, the shader registry and the metal-gpu-intervals
// cross-check.
#include <set>

#include "attribution/overflow_error.h"
#include "core/checked_math.h"
#include "perfgate/attribution/attribute.h"
#include "perfgate/attribution/work.h"
#include "perfgate/stats/summary.h"
#include "sources/metal/metal_work.h"

namespace perfgate::attribution {
namespace {

// The counts of the tables, which the attribution of the work cannot know: the
// pairing of the execution points, and the encoders list's rows for the launch calls.
void AddTableFigures(const TrialTables& tables, const sources::metal::TableFigures& f, TrialSummary* s) {
  s->source_counts = {{"rows", static_cast<int64_t>(tables.execution_points.size())},
                      {"unpaired_ends", f.unpaired_ends},
                      {"leftover_starts", f.leftover_starts},
                      {"duplicate_starts", f.duplicate_starts},
                      {"shader_timeline_rows", tables.shader_timeline_rows.value_or(0)}};
  s->launch_calls = f.encoder_rows;
  s->launch_host_ns = f.encoder_total_ns;
}

// Kernel registry: the target's pipelines by kernel family. Never joined to time (no
// per-submission table carries a pipeline id).
void BuildKernelRegistry(const TrialTables& tables, const AttributionOptions& options, TrialSummary* s) {
  s->known_kernel_families = KernelFamilyNames(options.kernel_families);
  if (tables.shaders) {
    std::map<std::string, std::set<std::string>> registry;
    for (const auto& r : *tables.shaders) {
      if (!sources::metal::IsTargetProcess(r.process, options) || r.name.empty()) continue;
      ++s->registered_kernels;
      registry[KernelFamily(options.kernel_families, r.name, options.seed_compat)].insert(
          r.pso_name.empty() ? r.name : r.pso_name);
    }
    for (auto& [family, names] : registry) {
      s->kernel_registry[family].assign(names.begin(), names.end());
      s->known_kernel_families.insert(family);
    }
  }
}

// Cross-checks the busy time against metal-gpu-intervals of the same process and
// window (corrected method only). A whole-trace window has no bounds.
Status CrossCheckGpuIntervals(const TrialTables& tables, const AttributionOptions& options, TrialSummary* s) {
  if (!tables.gpu_intervals || options.seed_compat) return Status();
  const bool whole = options.window.mode == DecodeWindow::Mode::kWholeTrace;
  const int64_t window_start = whole ? INT64_MIN : s->window_start_ns;
  const int64_t window_end = whole ? INT64_MAX : s->window_end_ns;
  std::vector<std::pair<int64_t, int64_t>> gi;
  int64_t first_start = INT64_MAX, last_end = INT64_MIN;
  for (const auto& r : *tables.gpu_intervals) {
    if (r.process.is_null || !sources::metal::IsTargetProcess(r.process, options)) continue;
    int64_t end;
    if (!internal::CheckedAdd(r.start_ns, r.duration_ns, &end)) {
      return internal::OverflowError({tables.path}, "the end (start + duration) of " +
                                                        std::string(xctrace::GpuInterval::kSchema) + " row " +
                                                        std::to_string(r.row + 1));
    }
    if (r.start_ns >= window_start && end <= window_end) {
      gi.emplace_back(r.start_ns, end);
      first_start = std::min(first_start, r.start_ns);
      last_end = std::max(last_end, end);
    }
  }
  // The union is at most the span, so a span that fits keeps UnionLength's sums in range.
  int64_t span;
  if (!gi.empty() && !internal::CheckedSub(last_end, first_start, &span)) {
    return internal::OverflowError({tables.path},
                                   "the span of the " + std::string(xctrace::GpuInterval::kSchema) + " rows");
  }
  s->source_counts.emplace_back("gpu_intervals_union_ns", stats::UnionLength(std::move(gi)));
  return Status();
}

}  // namespace

StatusOr<TrialSummary> SummarizeTrial(const TrialTables& tables, const AttributionOptions& options) {
  sources::metal::TableFigures figures;
  PERFGATE_ASSIGN_OR_RETURN(const model::WorkSet work, sources::metal::ImportWork(tables, options, &figures));
  PERFGATE_ASSIGN_OR_RETURN(TrialSummary s, AttributeWork(work, options));
  AddTableFigures(tables, figures, &s);
  BuildKernelRegistry(tables, options, &s);
  PERFGATE_RETURN_IF_ERROR(CrossCheckGpuIntervals(tables, options, &s));
  return s;
}

}  // namespace perfgate::attribution
