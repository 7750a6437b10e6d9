// The diff engine: what changed between two engine summaries (engine vs baseline, or
// one engine in two recordings), at every level the source has — duration bucket,
// family, phase and kernel name — ranked by how much of the change in GPU time per
// token each item explains.
//
// Every figure is stats::CompareTrials of its per-trial per-token values (a trial
// without an item counts 0 for it): medians over trials and the two-sided Mann-Whitney
// p, the Δ the verdicts and the report's tables show. Medians do not add up, so each
// level gets a "(rest)" item, the total's median less the sum of the items' medians on
// each side: what the level does not name (phases cover labelled work only; trace-event
// JSON's buckets leave out memcpy and memset) and what the medians leave over. A
// level's rows then add up to the total, and its shares (each item's Δ µs/token over
// the total's) to 100 %.
#ifndef PERFGATE_DIFF_DIFF_H_
#define PERFGATE_DIFF_DIFF_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/attribution/summary.h"
#include "perfgate/core/status.h"
#include "perfgate/golden/golden.h"
#include "perfgate/kernel_report/report.h"

namespace perfgate::diff {

// The levels, coarse to fine. Not every source has every level: Metal names no
// kernels, a per-kernel timing report has no buckets or phases.
enum class Level { kBucket, kFamily, kPhase, kKernel };

// "bucket", "family", "phase", "kernel".
const char* LevelName(Level level);
// The level named `name`; an unknown name is an error (diff.unknown_level) listing
// the known ones.
StatusOr<Level> LevelFromName(std::string_view name);

// The name the two sides' kernels are matched by: the demangled short name
// (attribution::CanonicalKernelName: no return type, namespaces, template arguments or
// parameters), then without its specialisation suffixes (kernel_report::MatchName:
// "kernel_mul_mv_q4_0_f32_nsg=2" -> "kernel_mul_mv_q4_0_f32"), without a ROCm
// code-object suffix ".kd" and without a compiler's clone decoration
// (" [clone .constprop.0]"). A rename is then one removed and one added kernel.
std::string NormalizeKernelName(std::string_view name);

// One item of one level on one side, per trial.
struct Item {
  std::string name;                    // the matched name (kernels: NormalizeKernelName)
  std::vector<std::string> originals;  // the side's own names matched to it, sorted
  std::vector<double> calls_per_token;  // one per trial
  std::vector<double> us_per_token;     // one per trial
  // The median duration of one call, where the source has it (a bucket's p50, one
  // kernel of a per-kernel report): the median over trials.
  std::optional<double> us_per_call_median;
};

// One level of one side: its items and the source's words for them.
struct LevelItems {
  Level level = Level::kBucket;
  std::string word;        // the source's word: "command-buffer phase", "kernel family", ...
  std::string calls_word;  // what a call is at this level: "submissions", "encoders", "kernels"
  std::vector<Item> items;
};

// One side of a diff: an engine's trials, a golden, or a per-kernel report.
struct Side {
  std::string name;
  std::vector<std::string> paths;  // where its figures came from
  size_t trials = 0;
  // GPU µs per token of all the side's GPU work, one per trial: for trace-event JSON
  // the kernels with memcpy and memset (which the family level names), for Metal every
  // submission.
  std::vector<double> total_us_per_token;
  std::vector<LevelItems> levels;          // in Level order; only the levels it has
  // Per-token counts besides the levels, one value per trial: the source's units
  // ("submissions_per_token", "kernels_per_token") and its per-token extras
  // (launches_per_token, graph_launches_per_token, ...) that every trial has.
  // Empty `total_us_per_token` (a golden without gpu_us_per_token): the diff then
  // has no total to share out, so no shares and no "(rest)", and says so in notes.
  std::map<std::string, std::vector<double>> figures;
  // What makes the side's figures less than whole ("candle: 1200 dispatches were not
  // timed ...: per-token figures undercount"): said with every diff of it.
  std::vector<std::string> notes;
};

// An engine's trials: every level its trials have (TrialSummary figures over tokens).
Side SideOf(const attribution::EngineSummary& engine);
// A per-kernel timing report: kernels and kernel families, one "trial" of medians.
Side SideOf(const kernel_report::KernelReport& report);
// A golden file (metrics::EngineGolden's paths): buckets, and phases counted in
// labelled instances (a golden holds cbs_per_token, not a phase's units), from each
// value's samples (else its value as one trial). `like` gives the words; the
// caller sets `paths`.
Side SideOf(const golden::GoldenFile& golden, const std::string& name, const Side& like);

enum class Presence { kBoth, kAdded, kRemoved };  // added: only after; removed: only before
const char* PresenceName(Presence presence);      // "changed", "added", "removed"

// One item's change, after minus before, medians over trials (stats::CompareTrials).
struct Change {
  Level level = Level::kBucket;
  std::string name;
  std::vector<std::string> before_names, after_names;  // the sides' own names
  Presence presence = Presence::kBoth;
  bool rest = false;  // the "(rest)" item: the total less the level's items (diff.h's top)
  double before_calls = 0, after_calls = 0;  // per token
  double before_us = 0, after_us = 0;        // GPU µs per token
  std::optional<double> before_us_per_call_median, after_us_per_call_median;
  std::optional<double> share;    // delta_us() / the total's Δ; none when that is 0
  std::optional<double> p_value;  // rank test; none unless both sides have 2+ trials

  double delta_us() const { return after_us - before_us; }
  double delta_calls() const { return after_calls - before_calls; }
  // On both sides, with the same calls and µs per token ("same" in reports).
  bool unchanged() const { return presence == Presence::kBoth && delta_us() == 0 && delta_calls() == 0; }
  // µs per call on a side (µs/token over calls/token); none where it has no calls.
  std::optional<double> before_us_per_call() const;
  std::optional<double> after_us_per_call() const;
  std::optional<double> delta_us_per_call() const;  // when both sides have one
  std::optional<double> delta_us_per_call_median() const;
};

// One per-token figure both sides have (Side::figures), medians over trials.
struct FigureChange {
  std::string name;
  double before = 0, after = 0;
  std::optional<double> p_value;
  double delta() const { return after - before; }
};

// One level's changes, after minus before.
struct LevelDiff {
  Level level = Level::kBucket;
  std::string word, calls_word;
  std::vector<Change> changes;  // by |Δ µs/token|, largest first, then by name
};

// Everything that changed between two sides, level by level.
struct Diff {
  std::string before, after;  // the sides' names
  std::vector<std::string> before_paths, after_paths;
  size_t before_trials = 0, after_trials = 0;
  double before_total = 0, after_total = 0;  // GPU µs per token, medians
  std::optional<double> total_p_value;
  std::vector<LevelDiff> levels;  // the levels both sides have, in Level order
  // The levels only one side has, said rather than dropped: "kernel (only B has it)".
  std::vector<std::string> one_sided_levels;
  std::vector<FigureChange> figures;  // by name
  // The same for figures: "kernels_per_token (only graphs has it)".
  std::vector<std::string> one_sided_figures;
  std::vector<std::string> notes;     // both sides' notes

  double delta_total() const { return after_total - before_total; }
  std::optional<double> delta_total_pct() const;  // none when before_total is 0
  // The level, or nullptr when the sides do not both have it.
  const LevelDiff* Find(Level level) const;
};

// after minus before at every level both sides have.
Diff Compute(const Side& before, const Side& after);

// The top `n` changes of a level by |Δ µs/token| (fewer when it has fewer).
std::vector<Change> TopMovers(const LevelDiff& level, size_t n);

}  // namespace perfgate::diff

#endif  // PERFGATE_DIFF_DIFF_H_
