// Attribution results: per trial, per engine (medians over trials with the per-trial
// vectors kept) and engine versus baseline. Plain data, read by reports and gates,
// and at the end the few rules every trace source applies when it fills a
// TrialSummary, so that a figure means the same whatever the source.
//
// Units: a "submission" is one GPU execution-point pair (about one encoder), not a
// kernel dispatch. The seed called it a dispatch; field names ending in
// `dispatches_*` keep the seed's names for continuity and mean submissions.
#ifndef PERFGATE_ATTRIBUTION_SUMMARY_H_
#define PERFGATE_ATTRIBUTION_SUMMARY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/core/diagnostics.h"
#include "perfgate/core/status.h"
#include "perfgate/counters/report.h"

namespace perfgate::attribution {

struct BucketStats {
  int64_t count = 0;
  int64_t sum_ns = 0;
  int64_t p50_ns = 0;
  int64_t p95_ns = 0;  // nearest rank over sorted durations (seed-compat: the seed's index)
  int64_t mean_ns = 0;
};

struct FamilyStats {
  int64_t encoders = 0;
  int64_t submissions = 0;
  int64_t host_sum_ns = 0;  // CPU-side encode time from the encoders list
  int64_t gpu_sum_ns = 0;
};

struct PhaseStats {
  int64_t cbs = 0;              // the seed's count: distinct encoders labelled with the phase
  int64_t command_buffers = 0;  // distinct command-buffer ids with the phase
  int64_t submissions = 0;
  int64_t host_sum_ns = 0;
  int64_t gpu_sum_ns = 0;
  int64_t gpu_union_ns = 0;     // busy time of the phase: overlaps counted once
};

// GPU time of one distinct kernel name in a trial: the table `nsys stats
// cuda_gpu_kern_sum`, HTA and TraceLens print. Names are kept whole here (template
// arguments and all); reports shorten them for display only.
struct KernelNameStats {
  std::string short_name;  // for display: CanonicalKernelName for kernel sources
  std::string family;      // the kernel family it is counted under
  int64_t count = 0;
  int64_t gpu_sum_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double median_ns = 0;  // of one call: the middle duration (the mean of the middle two)
};

struct TrialSummary {
  std::string path;
  // "metal" (xctrace exports: a dispatch is an execution-point pair, a submission) or
  // "trace_json" (profiler trace-event JSON: a dispatch is one kernel event).
  std::string source = "metal";
  int64_t tokens = 0;
  std::string tokens_source;               // "given" or "label:NAME"
  std::optional<int64_t> tokens_in_trace;  // occurrences of the token label after the first

  // Pairing of execution points.
  int64_t rows = 0;
  int64_t paired = 0;
  int64_t unpaired_ends = 0;
  int64_t leftover_starts = 0;
  int64_t duplicate_starts = 0;

  // Filtering: what was kept and why the rest was excluded.
  int64_t submissions = 0;  // kept pairs: the unit of every per-token figure
  int64_t excluded_other_process = 0;
  int64_t excluded_unmapped = 0;
  int64_t excluded_unattributed = 0;  // sentinel process in the submission map
  int64_t excluded_outside_window = 0;
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;

  std::vector<std::pair<std::string, BucketStats>> buckets;  // configured order
  int64_t total_sum_ns = 0;
  int64_t busy_union_ns = 0;
  std::optional<int64_t> gpu_intervals_union_ns;  // cross-check, when exported
  double dispatches_per_token = 0;                // = submissions per token
  double gpu_us_per_token = 0;                    // summed GPU time per token
  double busy_us_per_token = 0;                   // union GPU time per token

  // Joins through the submission map and the encoders list.
  std::map<std::string, FamilyStats> encoder_gpu;
  int64_t matched_submissions = 0;
  int64_t unmatched_submissions = 0;  // mapped to an encoder absent from the encoders list
  int64_t unmapped_submissions = 0;   // no submission-map row
  int64_t total_encoders = 0;
  std::map<std::string, PhaseStats> cb_label_gpu;
  int64_t labelled_encoders = 0;
  int64_t encoder_rows = 0;
  int64_t encoder_total_ns = 0;

  std::map<std::string, std::vector<std::string>> shader_registry;
  int64_t shader_count = 0;
  int64_t shader_timeline_rows = 0;
  // The kept kernels by exact name (kernel sources; empty where a source cannot name
  // its units' kernels).
  std::map<std::string, KernelNameStats> kernel_names;
  // Every kernel family this trial could have named: the family names of the
  // kernel-family rules in force (KernelFamilyNames of options.kernel_families for
  // Metal; of the CUDA table or the user's replacement for trace JSON, plus its
  // "memcpy" and "memset") and every family met (the shader_registry keys, and for
  // trace JSON the encoder_gpu keys). A family outside it is a misspelling, not an
  // absent one.
  std::set<std::string> known_kernel_families;

  // Per-trial figures that only one source has, by key; empty for Metal. Trace JSON
  // (attribution::AttributeWork) writes every number of attribution::WorkExtras under
  // its field name, all of the kept work (target process, decode window):
  //   kernels, memcpys, memsets               counts of GPU work items
  //   memcpy_ns, memset_ns                    their summed GPU time
  //   kernel_launches, graph_launches,        distinct host calls behind the kept
  //   other_launches                          kernels, by kind
  //   graph_kernels                           kernels launched by a graph launch
  //   unlaunched_kernels                      kernels without a launch call
  //   launch_host_ns                          host time of those launch calls
  //   launches_per_token                      (kernel_launches + graph_launches) / tokens
  //   graph_launches_per_token, kernels_per_token,
  //   memcpy_us_per_token, memset_us_per_token
  //   label_occurrences                       instances of the window (else token) label
  std::map<std::string, double> extras;

  // The engine's own counter report for this trial (counters.txt beside the trace, or
  // a path option), when one was given: its figures are the engine's, not the trace's.
  std::optional<counters::CounterReport> counters;

  Diagnostics diagnostics;
};

// A median over trials and the per-trial values it came from.
struct TrialMedian {
  double median = 0;
  std::vector<double> per_trial;
};

struct BucketMedians {
  TrialMedian dispatches_per_token;
  TrialMedian us_per_token;
  TrialMedian p50_us;  // median of the trials' p50 (trials with an empty bucket skipped)
};
struct FamilyMedians {
  TrialMedian gpu_us_per_token;
  TrialMedian host_us_per_token;
  TrialMedian encoders_per_token;
};
struct PhaseMedians {
  TrialMedian gpu_us_per_token;
  TrialMedian host_us_per_token;
  TrialMedian cbs_per_token;
  TrialMedian dispatches_per_token;
  double mean_us_per_cb = 0;  // mean GPU µs/token over mean CBs/token
};
// One exact kernel name over an engine's trials (TrialSummary::kernel_names). A trial
// that names its kernels but not this one ran it 0 times: a measured zero, unlike an
// absent extra, so it counts as 0 in the per-token medians and `trials` says how many
// trials ran it. Durations per call pool the trials that ran it (nsys's Avg, Min, Max
// over the whole recording): mean = Σ gpu_sum_ns / Σ count.
struct KernelNameMedians {
  std::string short_name;  // for display (the first trial's that ran it)
  std::string family;
  int64_t trials = 0;      // trials that ran it, of EngineSummary::trials.size()
  TrialMedian calls_per_token;
  TrialMedian gpu_us_per_token;
  int64_t count = 0;       // calls, summed over trials
  int64_t gpu_sum_ns = 0;  // GPU time, summed over trials
  int64_t min_ns = 0;      // shortest call in any trial
  int64_t max_ns = 0;      // longest call in any trial
  double mean_us = 0;      // gpu_sum_ns / count, in µs per call
};

// One numeric counter of the engine's counter reports over its trials.
struct CounterMedian {
  TrialMedian value;
  bool is_integer = false;             // every trial's text is an integer, and so is the median
  std::vector<std::string> per_trial_text;  // each trial's value exactly as written
};

struct EngineSummary {
  std::string name;
  std::vector<TrialSummary> trials;
  TrialMedian dispatches_per_token;
  TrialMedian gpu_us_per_token;
  TrialMedian busy_us_per_token;
  std::vector<std::pair<std::string, BucketMedians>> buckets;
  std::map<std::string, FamilyMedians> encoder_gpu;
  std::map<std::string, PhaseMedians> cb_label_gpu;
  std::map<std::string, std::vector<std::string>> shader_registry;  // union over trials
  int64_t shader_timeline_rows = 0;                                 // max over trials
  std::set<std::string> known_kernel_families;                      // union over trials
  // Medians of TrialSummary::extras. Only a key that every trial has gets a median:
  // a figure some trials lack is not comparable across them, so it is left out
  // rather than taken over fewer trials.
  std::map<std::string, TrialMedian> extras;
  // Per exact kernel name, when every trial names its kernels (trace-event JSON);
  // empty when none does (Metal: a submission names no kernel) and, as for extras,
  // when only some do: such trials are not comparable.
  std::map<std::string, KernelNameMedians> kernel_names;
  // Medians of the trials' counter reports (MedianCounters): numeric counters by key,
  // and text values (model, hardware) by key, the distinct values joined by " | ".
  std::map<std::string, CounterMedian> counters;
  std::map<std::string, std::string> counter_text;
  std::string counters_path;  // trial 0's counter report, for provenance ("" when none)
  double label_coverage = 0;  // labelled / total encoders of trial 0
  Diagnostics diagnostics;    // merged over trials
};

// One compared metric, named: stats::CompareTrials of the baseline's and the engine's trials.
struct Delta {
  std::string name;
  double engine = 0;
  double baseline = 0;
  double delta = 0;
  std::optional<double> delta_pct;  // 100 · delta / |baseline|; nullopt when the baseline is 0
  double p_value = 1;               // two-sided Mann-Whitney U over per-trial values
};

struct Comparison {
  std::string engine;
  std::string baseline;
  std::vector<Delta> buckets;         // µs/token, configured order
  Delta total;                        // GPU µs/token
  Delta submissions_per_token;
  std::optional<std::string> attack_target;  // bucket with the largest positive Δ; none if no Δ > 0
  std::string attack_hint;
  std::vector<Delta> families;  // GPU µs/token, sorted by Δ descending
  std::vector<Delta> phases;    // GPU µs/token, sorted by the engine's value descending
  // GPU µs/token per exact kernel name, sorted by Δ descending (a name one side lacks
  // is 0 there); empty unless both sides name their kernels.
  std::vector<Delta> kernel_names;
};

// Fills e->counters and e->counter_text from the trials' counter reports. Fails
// closed: a report in some trials only (counters.missing_report), a counter some
// trials lack (counters.missing_counter) or a counter that is a number in one trial
// and text in another (counters.mixed_kinds) is an error naming the trial.
Status MedianCounters(EngineSummary* e);

// ---------------------------------------------------------------------------------
// Rules every trace source applies when it fills a TrialSummary. They are public so
// that a source depends on attribution's vocabulary (this header and options.h)
// only, never on attribution's private code.
// ---------------------------------------------------------------------------------

// Sets s->tokens and s->tokens_source: the trace's count `in_trace` when a token label
// is configured (a configured count that disagrees is counted as
// attr.token_count_mismatch), else the configured count. Errors: attr.no_tokens when
// neither exists (a usage error).
Status ResolveTokens(std::optional<int64_t> in_trace, const AttributionOptions& options, const std::string& path,
                     TrialSummary* s);

// The figures of the kept work, given each item's [start_ns, end_ns] in the source's
// order (the seed's p95 depends on it): the duration buckets of options.buckets,
// total_sum_ns, busy_union_ns, submissions and the per-token figures. s->tokens must
// be resolved first. No kept work at all is an error (attr.empty_window, at `path`):
// all-zero figures would pass every budget on no data.
Status SummarizeKeptWork(std::vector<std::pair<int64_t, int64_t>> intervals, const AttributionOptions& options,
                         const std::string& path, TrialSummary* s);

// Counts attr.mixed_processes when the kept work (items per process label, e.g.
// "hf2q (4242)") comes from more than one process: the count is the items outside
// the process with the most, the detail names every process with its count, largest
// first. Work of no known process is not in the map.
void CountMixedProcesses(const std::map<std::string, int64_t>& kept_per_process, const std::string& path,
                         Diagnostics* diagnostics);

}  // namespace perfgate::attribution

#endif  // PERFGATE_ATTRIBUTION_SUMMARY_H_
