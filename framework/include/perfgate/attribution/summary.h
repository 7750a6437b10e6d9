// Attribution results: per trial, per engine (medians over trials with the per-trial
// vectors kept) and engine versus baseline. Plain data, read by reports and gates.
//
// Units: a "submission" is one GPU execution-point pair (about one encoder), not a
// kernel dispatch. The seed called it a dispatch; field names ending in
// `dispatches_*` keep the seed's names for continuity and mean submissions.
#ifndef PERFGATE_ATTRIBUTION_SUMMARY_H_
#define PERFGATE_ATTRIBUTION_SUMMARY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/core/diagnostics.h"

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
  double label_coverage = 0;  // labelled / total encoders of trial 0
  Diagnostics diagnostics;    // merged over trials
};

// One compared metric: medians, their difference, and a rank test on the trials.
struct Delta {
  std::string name;
  double engine = 0;
  double baseline = 0;
  double delta = 0;
  std::optional<double> delta_pct;  // nullopt when the baseline is 0
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
};

}  // namespace perfgate::attribution

#endif  // PERFGATE_ATTRIBUTION_SUMMARY_H_
