// The attribution of a model::WorkSet: the GPU work of one trial, as every kernel
// source's importer fills it (trace-event JSON, Nsight Systems exports, the CUPTI
// tracer's traces), attributed into the TrialSummary every report, gate and golden
// reads. It depends on attribution's public vocabulary (options.h, summary.h) and the
// work model only; no importer's code.
//
// What the TrialSummary fields mean for kernel work:
//  - a dispatch is one `kernel` event; `submissions`, `dispatches_per_token`, the
//    duration buckets, `total_sum_ns`, `busy_union_ns` and the phases count kernels
//    only. memcpy and memset work is reported beside them, as the families "memcpy"
//    and "memset" of `encoder_gpu` and in WorkExtras;
//  - `encoder_gpu` is keyed by kernel family (CudaKernelFamily of the kernel name):
//    `encoders` = `submissions` = kernels of the family, `gpu_sum_ns` their time,
//    `host_sum_ns` the host time of their one-kernel launch calls (cudaLaunchKernel;
//    a graph launch's time is not split over its kernels);
//  - `cb_label_gpu` is keyed by phase: the innermost `gpu_user_annotation` on the
//    kernel's stream that contains it, else the innermost `user_annotation` on the
//    launching thread that contains its launch call, else "(unknown)"; names are
//    normalised with NormalizePhaseLabel. `cbs` and `command_buffers`
//    count the annotation instances (a range copied onto several streams counts
//    once); `total_encoders` is the kept kernels and `labelled_encoders` those with
//    an annotation, so the label coverage is the annotated share of kernels;
//  - `shader_registry` maps each family to the sorted short names
//    (CanonicalKernelName) of its kernels; `shader_count` counts distinct kernel names;
//  - the process filter keeps GPU work whose owner (its launch call's process, joined
//    by correlation id, else model::WorkItem::process) has a name starting with
//    options.process_prefix, whole or after its last '/', and the id process_id.
//    Excluded: `excluded_unmapped` (no owner), `excluded_unattributed` (a prefix is
//    given and the owner has no name), `excluded_other_process`;
//  - `matched_submissions` counts kept kernels with a launch call and
//    `unmapped_submissions` those without (possible with all_processes only);
//    `encoder_rows` and `encoder_total_ns` are the distinct launch calls behind the
//    kept kernels and their host time;
//  - `rows` counts the trace's events and `paired` its kernel events (a complete
//    event is already a pair); `unpaired_ends`, `leftover_starts`,
//    `duplicate_starts`, `shader_timeline_rows` are 0 and `gpu_intervals_union_ns`
//    is empty;
//  - `extras` holds every number of WorkExtras under its field name (the keys
//    are listed at TrialSummary::extras); `known_kernel_families` is the family
//    names of the table in force, "memcpy", "memset", and every family met;
//  - kept kernels of more than one process with no process choice (no prefix, no id,
//    no all_processes) are the usage error attr.several_processes; with a choice
//    (all_processes, or a prefix several processes match) they are counted as
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

// What a trace-event trial adds to its TrialSummary. Counts are of the kept work
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
  double kernels_per_token = 0;         // = TrialSummary::dispatches_per_token
  double memcpy_us_per_token = 0;
  double memset_us_per_token = 0;
  // "gpu_user_annotation" or "user_annotation": where the window label and the token
  // label were found; empty when neither was used.
  std::string label_source;
  int64_t label_occurrences = 0;  // distinct instances of the window (else token) label
  std::map<std::string, KernelStats> per_kernel;  // by exact kernel name
};

// Attributes one trace-event trial. Differences from the Metal method, besides the
// field meanings above:
//  - options.kernel_families: when it equals DefaultKernelFamilies()
//    (the Metal table, i.e. not replaced by the user), CudaKernelFamilies() is used.
//  - Decode window, by options.window.mode:
//      kLabel: the label's annotation instances: the `gpu_user_annotation`s it names
//        (LabelMatch: an exact normalised name, a prefix or a pattern),
//        else, when there are none, the `user_annotation`s of the target processes. The window runs from the start of the first instance to
//        the end of the last (an annotation encloses a whole decode step, where the
//        Metal label marks a step's end). A kernel is inside when its own interval
//        is (GPU annotations) or when its launch call starts inside (host
//        annotations: the GPU may run the work after the host range has ended).
//        One instance is enough.
//      kTimeRange: kernels whose [start, end] lies in [start_ns, end_ns].
//      kSkipSubmissions: all but the first `skip` kept kernels by start time.
//    memcpy and memset work follows the same rule as kernels.
//  - Tokens from options.token_label (a LabelMatch, as the window's): the number of
//    its instances when it is also the window label (SameLabel), else the number of its instances that contain at least one kept
//    kernel. A range copied onto several GPU streams is one instance (same pid and
//    External id). A disagreement with options.tokens is attr.token_count_mismatch.
//  - options.seed_compat is refused (the seed's method is Metal's).
// Errors (Status codes shared with the Metal path): attr.no_tokens (usage),
// attr.no_target_rows (no kernel passes the process filter, or the trace has none),
// attr.window_label, attr.token_label, attr.seed_compat (usage).
// `extras`, when given, receives the launch counts and per-kernel figures (the
// numbers are in the summary's `extras` either way).
StatusOr<TrialSummary> AttributeWork(const model::WorkSet& trace,
                                                       const AttributionOptions& options,
                                                       WorkExtras* extras = nullptr);

}  // namespace perfgate::attribution

#endif  // PERFGATE_ATTRIBUTION_WORK_H_
