// Attribution of Metal System Trace GPU time per decode token, and the medians and
// comparison every source shares.
//
// LoadTrial reads one trial's exported tables; SummarizeTrial imports them as work
// (execution points paired into submissions, joined to their encoders and command
// buffers) and attributes it as every source's work is (attribution/work.h), adding
// the tables' own figures and the kernel registry; SummarizeEngine takes medians over
// trials; Compare puts an engine beside its baseline. The method and the seed's defects are in
// docs/attribution-method.md; --seed-compat reproduces the seed.
#ifndef PERFGATE_ATTRIBUTION_ATTRIBUTE_H_
#define PERFGATE_ATTRIBUTION_ATTRIBUTE_H_

#include <optional>
#include <string>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/core/status.h"
#include "perfgate/xctrace/metal_tables.h"

namespace perfgate::attribution {

// The exported tables of one trial. Optional tables are nullopt when not exported.
struct TrialTables {
  std::string path;
  std::vector<xctrace::ExecutionPoint> execution_points;  // required
  std::optional<std::vector<xctrace::EncoderRow>> encoders;
  std::optional<std::vector<xctrace::SubmissionMapRow>> submission_map;
  std::optional<std::vector<xctrace::ShaderRow>> shaders;
  std::optional<int64_t> shader_timeline_rows;
  std::optional<std::vector<xctrace::GpuInterval>> gpu_intervals;
  Diagnostics diagnostics;  // anomalies counted while decoding (lenient reads)
};

// Reads a trial: a directory of `<schema>.xml` files as `xctrace export` wrote them
// (a recording bundle's trial-K/), or one XML file holding several tables.
// metal-gpu-execution-points is required; a missing one is an error naming it.
StatusOr<TrialTables> LoadTrial(const std::string& path);
// The same, reading recording run `run` of exports that hold several (0: refuse them,
// xctrace.multiple_runs).
StatusOr<TrialTables> LoadTrial(const std::string& path, int run);

// Attributes one trial: its work through AttributeWork (Metal's conventions: an owner
// is required, several processes are counted, the seed's method applies), plus the
// pairing counts, the encoders list's rows and time, the shader registry and the
// metal-gpu-intervals cross-check. Errors: no pair (attr.no_pairs); no token count;
// the target process has no submissions (attr.no_target_rows); the process filter
// needs the submission map (attr.needs_submission_map). Kept submissions of more
// than one process (by their submission-map rows) are counted as attr.mixed_processes.
StatusOr<TrialSummary> SummarizeTrial(const TrialTables& tables, const AttributionOptions& options);

// Medians over trials (trials must be non-empty). seed_compat keeps the seed's
// p50 = 0 contribution of trials with an empty bucket. Source extras get a median
// when every trial has them, kernel names when every trial names its kernels; known
// kernel families are the union over trials.
EngineSummary SummarizeEngine(std::string name, std::vector<TrialSummary> trials,
                              const std::vector<Bucket>& buckets, bool seed_compat = false);

// Engine minus baseline, per bucket, family, phase and kernel name, with Mann-Whitney
// p-values.
// seed_compat picks an attack target even when every Δ is negative, as the seed did.
Comparison Compare(const EngineSummary& engine, const EngineSummary& baseline,
                   const std::vector<Bucket>& buckets, bool seed_compat = false);

}  // namespace perfgate::attribution

#endif  // PERFGATE_ATTRIBUTION_ATTRIBUTE_H_
