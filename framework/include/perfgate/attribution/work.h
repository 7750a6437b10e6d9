// The one attribution: a model::WorkSet, the GPU work of one trial as every source's
// importer fills it (Metal System Trace exports, trace-event JSON, Nsight Systems
// exports, the CUPTI tracer's traces), attributed into the TrialSummary every report,
// gate and golden reads. It depends on attribution's public vocabulary (options.h,
// summary.h) and the work model only; no importer's code. Where sources differ in
// what their records mean, the work set says so (model::Conventions, the kinds of its
// items and host calls), never the source's name.
//
// The unit of every per-token figure, an item, is a kernel (model::WorkKind::kKernel),
// or a submission (kSubmission) where the source names no kernel (Metal: an
// execution-point pair, about one encoder). `items`, `items_per_token`, the duration
// buckets, `total_sum_ns`, `busy_union_ns` and the phases count these only. memcpy and
// memset work is reported beside them, as the families "memcpy" and "memset" and in
// WorkExtras. What the TrialSummary fields mean:
//  - `families` is keyed by family: a kernel's is CudaKernelFamily of its name, a
//    submission's its encoder's (model::HostCall::family); a submission of no known
//    encoder has none. `items` counts items, `gpu_sum_ns` their time; `calls` and
//    `host_sum_ns` count a kernel with the host time of its one-kernel launch call (a
//    graph launch's time is not split over its kernels), and an encoder once, with
//    its host time, whatever the submissions it encoded;
//  - `phases` is keyed by phase: for work launched in a group (Metal: an encoder in
//    its command buffer) the group's label; for a kernel the innermost
//    `gpu_user_annotation` on its stream that contains it, else the innermost
//    `user_annotation` on the launching thread that contains its launch call, else
//    "(unknown)". Names are normalised with NormalizePhaseLabel. A group phase's
//    `calls` counts its encoders (the seed's count) and `groups` its groups; a kernel
//    phase's both count its annotation instances (a range copied onto several
//    streams counts once). `phase_units` counts kept kernels and encoders, and
//    `labelled_units` those of a phase that is not generic (IsGenericPhase);
//  - for kernels, `kernel_registry` maps each family to the sorted short names
//    (CanonicalKernelName) of its kernels, `registered_kernels` counts distinct
//    kernel names, `kernels` holds them whole (each run one call and one item) and
//    `known_kernel_families` is the family names of the table in force, "memcpy",
//    "memset" and every family met (a source whose items name no kernel fills these
//    four itself);
//  - the process filter keeps work whose owner (model::WorkItem::process, else its
//    launch call's process) has a name starting with options.process_prefix, whole or
//    after its last '/', and the id process_id. It runs when a process is named, or,
//    where model::Conventions::owner_required, unless all_processes. Excluded:
//    `excluded_no_owner` (no owner), `excluded_unnamed_owner` (model::kNoProcess, or
//    a prefix is given and the owner has no name), `excluded_other_process`; counted
//    under the conventions' diagnostic codes;
//  - `items_with_call` counts kept items with a launch call, `items_of_unknown_call`
//    submissions whose encoder the set lacks (attr.unmatched_encoder) and
//    `items_without_call` the other items without one; `launch_calls` and
//    `launch_host_ns` are the distinct launch calls behind the kept items and their
//    host time (an importer may replace them with its tables' own counts);
//  - `items_read` counts the items the set holds and `source_counts` is
//    {"events": model::WorkSet::events}; an importer may replace it with its own
//    counts;
//  - for kernels, `extras` holds every number of WorkExtras under its field name (the
//    keys are listed at TrialSummary::extras);
//  - kept units of more than one process with no process choice (no prefix, no id, no
//    all_processes) are the usage error attr.several_processes where
//    model::Conventions::several_processes_need_a_choice; otherwise, and with a choice
//    (all_processes, or a prefix several processes match), they are counted as
//    attr.mixed_processes;
//  - the decode window and the token count: see AttributeWork.
#ifndef PERFGATE_ATTRIBUTION_WORK_H_
#define PERFGATE_ATTRIBUTION_WORK_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "perfgate/attribution/options.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/core/status.h"
#include "perfgate/model/work.h"

namespace perfgate::attribution {

// GPU time of one kernel name (exact, template arguments included).
struct KernelStats {
  std::string short_name;  // CanonicalKernelName
  std::string family;      // CudaKernelFamily
  int64_t count = 0;
  int64_t gpu_sum_ns = 0;
};

// What kernel work adds to its TrialSummary. Counts are of the kept work
// (target process, decode window). Every number here also reaches
// TrialSummary::extras under its field name (label_source and per_kernel do not), so
// suites read them from the summary and need not re-read the trace.
struct WorkExtras {
  int64_t kernels = 0;
  int64_t memcpys = 0;
  int64_t memsets = 0;
  int64_t memcpy_ns = 0;
  int64_t memset_ns = 0;
  // Distinct host calls behind the kept kernels, by kind: kernel launches
  // (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, ...), CUDA-graph launches
  // (cudaGraphLaunch, cuGraphLaunch), and anything else (cudaMemcpyAsync, ...).
  int64_t kernel_launches = 0;
  int64_t graph_launches = 0;
  int64_t other_launches = 0;
  int64_t graph_kernels = 0;       // kept kernels launched by a graph launch
  int64_t unlaunched_kernels = 0;  // kept kernels without a launch call (all processes only)
  int64_t launch_host_ns = 0;      // host time of those launch calls
  double launches_per_token = 0;        // (kernel_launches + graph_launches) / tokens
  double graph_launches_per_token = 0;
  double kernels_per_token = 0;         // = TrialSummary::items_per_token
  double memcpy_us_per_token = 0;
  double memset_us_per_token = 0;
  // "gpu_user_annotation" or "user_annotation": where the window label and the token
  // label were found; empty when neither was used.
  std::string label_source;
  int64_t label_occurrences = 0;  // distinct instances of the window (else token) label
  std::map<std::string, KernelStats> per_kernel;  // by exact kernel name
};

// Attributes one trial's work:
//  - options.kernel_families: when it equals DefaultKernelFamilies()
//    (the Metal table, i.e. not replaced by the user), CudaKernelFamilies() names
//    kernels' families.
//  - Decode window, by options.window.mode:
//      kLabel: the label's instances: the `gpu_user_annotation`s it names
//        (LabelMatch: an exact normalised name, a prefix or a pattern), else the
//        `user_annotation`s of the target processes, else, where the work was launched
//        in groups, the groups of the kept units whose label it names. An annotation
//        encloses a whole decode step: the window runs from the start of the first
//        instance to the end of the last, and one instance is enough. A group's label
//        marks the end of a step: the window runs from the end of the first group to
//        the end of the last, and at least two are needed. A unit is inside when its
//        own interval is (GPU annotations, groups) or when its launch call starts
//        inside (host annotations: the GPU may run the work after the host range has
//        ended).
//      kTimeRange: units whose [start, end] lies in [start_ns, end_ns].
//      kSkipSubmissions: all but the first `skip` kept units by start time.
//    memcpy and memset work follows the same rule as kernels.
//  - Tokens from options.token_label (a LabelMatch, as the window's): the steps of
//    the window label when it is the same label (SameLabel): its annotation
//    instances, or its groups less one; else the number of its instances that hold at
//    least one kept unit. A range copied onto several GPU streams is one instance
//    (same pid and External id). A disagreement with options.tokens is
//    attr.token_count_mismatch.
//  - options.seed_compat (the seed's method) applies only where
//    model::Conventions::seed_method: no process filter, no window, no token label,
//    and every encoder of the set counted; elsewhere it is refused (attr.seed_compat).
// Errors: attr.no_tokens (usage), attr.no_target_rows (no unit passes the process
// filter, or the set has none), attr.window_label, attr.token_label,
// attr.several_processes and attr.several_devices (usage), attr.seed_compat (usage).
// `extras`, when given, receives the launch counts and per-kernel figures (the
// numbers are in the summary's `extras` either way).
StatusOr<TrialSummary> AttributeWork(const model::WorkSet& trace, const AttributionOptions& options,
                                     WorkExtras* extras = nullptr);

}  // namespace perfgate::attribution

#endif  // PERFGATE_ATTRIBUTION_WORK_H_
