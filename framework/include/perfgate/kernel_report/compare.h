// An engine's per-kernel timing report against a baseline's: per kernel and per
// family, Δ µs/token and Δ calls/token, the kernels one side lacks, and the attack
// target. Kernels of two stacks are matched by MatchName (specialisation suffixes
// dropped), both original names kept; kernels of one report that share a matched name
// are summed. Figures are medians: a Δ is a difference of medians, never tested.
#ifndef PERFGATE_KERNEL_REPORT_COMPARE_H_
#define PERFGATE_KERNEL_REPORT_COMPARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/kernel_report/report.h"

namespace perfgate::kernel_report {

// One side of a row: the sum over its kernels (none when the side lacks the row).
struct Side {
  std::vector<std::string> names;  // the report's own kernel names
  double us_per_token = 0;
  double calls_per_token = 0;
  // The kernel's us_per_call_median when the side has exactly one kernel; a median of
  // several kernels' calls is not in the reports.
  std::optional<double> us_per_call;
  bool present() const { return !names.empty(); }
};

// One kernel (matched name) or one family.
struct Row {
  std::string name;
  std::string family;  // a kernel's family; for a family row, its own name
  Side engine, baseline;
  double delta_us_per_token() const { return engine.us_per_token - baseline.us_per_token; }
  double delta_calls_per_token() const { return engine.calls_per_token - baseline.calls_per_token; }
  // 100 · Δ µs/token / baseline; none when the baseline is 0.
  std::optional<double> delta_pct() const;
};

struct Comparison {
  std::string engine, baseline;
  std::vector<Row> kernels;   // by Δ µs/token, largest first (then by name)
  std::vector<Row> families;  // the same
  Row total;                  // every kernel
  // Dispatches each report says its timer left untimed (instrumentation_notes.
  // overflow_count): that side's per-token figures, TOTAL included, undercount.
  int64_t engine_untimed = 0, baseline_untimed = 0;
  bool undercounted() const { return engine_untimed > 0 || baseline_untimed > 0; }
  // The family with the largest positive Δ µs/token, none when no Δ > 0, and a hint:
  // the engine's costliest kernels of it, or that the baseline has no such family.
  // When a side undercounts, per-token Δs mislead, so the target is chosen per call
  // instead: over kernels with one original on each side, (engine − baseline µs/call)
  // × baseline calls/token, summed per family, the largest positive sum.
  std::optional<std::string> attack_target;
  std::string attack_hint;
  std::string attack_basis = "per token";  // or "per call"
  std::vector<std::string> engine_only() const;    // matched names
  std::vector<std::string> baseline_only() const;  // matched names
};

// Sums `report`'s kernels by family (Side per family name) and in total.
std::vector<Row> FamiliesOf(const KernelReport& report);

Comparison Compare(const KernelReport& engine, const KernelReport& baseline);

}  // namespace perfgate::kernel_report

#endif  // PERFGATE_KERNEL_REPORT_COMPARE_H_
