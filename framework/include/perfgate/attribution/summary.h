// Attribution results: per trial, per engine (medians over trials with the per-trial
// vectors kept) and engine versus baseline. Plain data, read by reports and gates,
// and at the end the few rules every trace source applies when it fills a
// TrialSummary, so that a figure means the same whatever the source.
//
// A summary speaks in levels, the same for every source: the duration buckets, then
// the kernel families, the phases and the kernel names, each a map of LevelItems.
// Its unit, an "item", is the GPU work every per-token figure counts: a kernel, or
// where the source names no kernel a submission (Metal: one execution-point pair,
// about one encoder). What a source's own records held (Metal's pairing counts, a
// trace's events) are named counts of the source, never fields of the summary.
#ifndef PERFGATE_ATTRIBUTION_SUMMARY_H_
#define PERFGATE_ATTRIBUTION_SUMMARY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
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

// One item of a level in one trial: a kernel family, a phase or one kernel name.
// Nsight Systems' `cuda_gpu_kern_sum`, HTA and TraceLens print the kernel level; kernel
// names are kept whole here (template arguments and all), and reports shorten them
// for display only.
struct LevelItem {
  // The host calls behind it: distinct encoders or launch calls (a family), the
  // encoders or annotation instances of the phase (a phase; the seed's "cbs"), the
  // times it ran (a kernel).
  int64_t calls = 0;
  int64_t items = 0;   // GPU work items it holds (a kernel: the times it ran)
  int64_t groups = 0;  // phases: launch groups (command buffers) or annotation instances
  int64_t host_sum_ns = 0;   // host time of its calls
  int64_t gpu_sum_ns = 0;    // summed GPU time of its items
  int64_t gpu_union_ns = 0;  // phases: their busy time, overlaps counted once
  // Kernels only: the name for display (CanonicalKernelName), the family it counts
  // under, and one run's shortest, longest and median duration (the mean of the
  // middle two).
  std::string short_name;
  std::string family;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double median_ns = 0;
};

struct TrialSummary {
  std::string path;
  std::string source = "metal";  // the trace source's name (sources::TraceSource)
  int64_t tokens = 0;
  std::string tokens_source;               // "given" or "label:NAME"
  std::optional<int64_t> tokens_in_trace;  // occurrences of the token label after the first

  // What the source held: its items before any filter, and its importer's own counts
  // of its records by name, in the importer's order (Metal: "rows",
  // "unpaired_ends", "leftover_starts", "duplicate_starts", "shader_timeline_rows" and,
  // where exported, "gpu_intervals_union_ns"; the other sources: "events").
  int64_t items_read = 0;
  std::vector<std::pair<std::string, int64_t>> source_counts;

  // Filtering: what was kept and why the rest was excluded.
  int64_t items = 0;  // kept items: the unit of every per-token figure
  int64_t excluded_other_process = 0;
  int64_t excluded_no_owner = 0;       // no process known (model::Conventions::no_owner_code)
  int64_t excluded_unnamed_owner = 0;  // the sentinel or an unnamed process
  int64_t excluded_outside_window = 0;
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;

  std::vector<std::pair<std::string, BucketStats>> buckets;  // configured order
  int64_t total_sum_ns = 0;
  int64_t busy_union_ns = 0;
  double items_per_token = 0;
  double gpu_us_per_token = 0;   // summed GPU time per token
  double busy_us_per_token = 0;  // union GPU time per token

  // The levels, by name: every kept item's family and phase, and where the source
  // names its items' kernels, each exact kernel name (empty otherwise).
  std::map<std::string, LevelItem> families;
  std::map<std::string, LevelItem> phases;
  std::map<std::string, LevelItem> kernels;

  // The host calls behind the kept items: items with one, items whose call the
  // source lacks (attr.unmatched_encoder), the other items without one; the distinct
  // calls and their host time (Metal: the encoders list's rows).
  int64_t items_with_call = 0;
  int64_t items_of_unknown_call = 0;
  int64_t items_without_call = 0;
  int64_t launch_calls = 0;
  int64_t launch_host_ns = 0;
  // The kept kernels and counted encoders a phase could name, and those whose phase
  // is not generic (IsGenericPhase): the label coverage.
  int64_t phase_units = 0;
  int64_t labelled_units = 0;

  // The kernel names per family the trial registered (Metal: the shader table's
  // pipelines of the target; kernel sources: the short names of the kept kernels),
  // and how many it registered.
  std::map<std::string, std::vector<std::string>> kernel_registry;
  int64_t registered_kernels = 0;
  // Every kernel family this trial could have named: the family names of the
  // kernel-family rules in force (KernelFamilyNames of options.kernel_families for
  // Metal; of the CUDA table or the user's replacement for kernel sources, plus
  // "memcpy" and "memset") and every family met (the registry's and the families'
  // keys). A family outside it is a misspelling, not an absent one.
  std::set<std::string> known_kernel_families;

  // Per-trial figures that only some sources have, by key; empty for Metal. Kernel
  // sources (attribution::AttributeWork) write every number of attribution::WorkExtras
  // under its field name, all of the kept work (target process, decode window):
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

// The source count `name` of a trial (TrialSummary::source_counts), if it has one.
std::optional<int64_t> FindSourceCount(const TrialSummary& trial, std::string_view name);

// A median over trials and the per-trial values it came from.
struct TrialMedian {
  double median = 0;
  std::vector<double> per_trial;
};

struct BucketMedians {
  TrialMedian items_per_token;
  TrialMedian us_per_token;
  TrialMedian p50_us;  // median of the trials' p50 (trials with an empty bucket skipped)
};

// One item of a level over an engine's trials. A trial without it counts 0 in the
// per-token medians (a measured zero); `trials` says how many trials have it. The
// pooled figures sum the trials that have it (nsys's Avg, Min, Max over the whole
// recording): mean_us = Σ gpu_sum_ns / Σ items.
struct LevelMedians {
  TrialMedian calls_per_token;
  TrialMedian items_per_token;
  TrialMedian gpu_us_per_token;
  TrialMedian host_us_per_token;
  double mean_us_per_call = 0;  // mean GPU µs/token over mean calls/token; 0 without calls
  int64_t trials = 0;
  int64_t items = 0;       // summed over trials
  int64_t gpu_sum_ns = 0;  // summed over trials
  double mean_us = 0;      // per item
  // Kernels only: as LevelItem's, from the first trial that ran it; min and max over
  // every trial.
  std::string short_name;
  std::string family;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
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
  TrialMedian items_per_token;
  TrialMedian gpu_us_per_token;
  TrialMedian busy_us_per_token;
  std::vector<std::pair<std::string, BucketMedians>> buckets;
  // Every family and phase met in any trial. Kernels: when every trial names its
  // kernels; empty when none does (Metal: a submission names no kernel) and, as for
  // extras, when only some do: such trials are not comparable.
  std::map<std::string, LevelMedians> families;
  std::map<std::string, LevelMedians> phases;
  std::map<std::string, LevelMedians> kernels;
  std::map<std::string, std::vector<std::string>> kernel_registry;  // union over trials
  std::set<std::string> known_kernel_families;                      // union over trials
  // Medians of TrialSummary::extras. Only a key that every trial has gets a median:
  // a figure some trials lack is not comparable across them, so it is left out
  // rather than taken over fewer trials.
  std::map<std::string, TrialMedian> extras;
  // Medians of the trials' counter reports (MedianCounters): numeric counters by key,
  // and text values (model, hardware) by key, the distinct values joined by " | ".
  std::map<std::string, CounterMedian> counters;
  std::map<std::string, std::string> counter_text;
  std::string counters_path;  // trial 0's counter report, for provenance ("" when none)
  double label_coverage = 0;  // labelled / phase units of trial 0
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
  std::vector<Delta> buckets;  // µs/token, configured order
  Delta total;                 // GPU µs/token
  Delta items_per_token;
  std::optional<std::string> attack_target;  // bucket with the largest positive Δ; none if no Δ > 0
  std::string attack_hint;
  std::vector<Delta> families;  // GPU µs/token, sorted by Δ descending
  std::vector<Delta> phases;    // GPU µs/token, sorted by the engine's value descending
  // GPU µs/token per exact kernel name, sorted by Δ descending (a name one side lacks
  // is 0 there); empty unless both sides name their kernels.
  std::vector<Delta> kernels;
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
// total_sum_ns, busy_union_ns, items and the per-token figures. s->tokens must
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
