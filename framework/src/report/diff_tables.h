// Private: the cells every diff rendering (the diff document, the movers) prints for
// one change, so they agree on rounding and words.
#ifndef PERFGATE_SRC_REPORT_DIFF_TABLES_H_
#define PERFGATE_SRC_REPORT_DIFF_TABLES_H_

#include <optional>
#include <string>
#include <vector>

#include "perfgate/diff/diff.h"
#include "perfgate/document/document.h"

namespace perfgate::report::diff_cells {

// One figure per token, rounded as the tables round it: µs ("35.3", "0.412", "1358")
// and calls ("2.00", "43.6", "423"); "0" for zero.
std::string UsNumber(double v);
std::string CallsNumber(double v);

// "added", "removed", "changed", or "rest" for the "(rest)" item.
std::string Status(const diff::Change& c);
// "0 → 1.00": calls per token before → after ("" for the "(rest)" item).
std::string Calls(const diff::Change& c);
// "0 → 35.4": µs per token before → after.
std::string Us(const diff::Change& c);
// "+35.4": Δ µs per token.
std::string DeltaUs(const diff::Change& c);
// "97 %", or "" without a share.
std::string Share(const diff::Change& c);
// "+0.41": Δ µs per call (mean), "" where a side has no calls.
std::string DeltaPerCall(const diff::Change& c);
// "0.100", "" without a rank test.
std::string P(const diff::Change& c);
// The original names when they are not just the matched name: "(as a, b)".
std::string Originals(const diff::Change& c);

// "by command-buffer phase: 12 items (1 added, 0 removed)".
std::string LevelHeading(const diff::LevelDiff& level);
// "total GPU µs/token 7780 → 8120 (+340, +4.4 %, p 0.100)".
std::string TotalLine(const diff::Diff& d);
// "kernels_per_token 423.00 → 160.00 (-263.00, p 0.047)": a per-token figure.
std::string Figure(const diff::FigureChange& f);
// What the diff could not compare, a line each: "level kernel (only graphs has it)",
// "kernels_per_token (only json has it)".
std::vector<std::string> NotCompared(const diff::Diff& d);
// "hf2q-regressed against hf2q: 3 vs 3 trials, per-token medians".
std::string SidesLine(const diff::Diff& d);

}  // namespace perfgate::report::diff_cells

namespace perfgate::report {

struct Report;

// The movers of a report with a baseline: engine against baseline (diff::Compute);
// none without a baseline.
std::optional<diff::Diff> MoversOf(const Report& report);

// RenderJson with the report's movers already computed (MoversOf), for a caller that
// shows them too (AttributeDocument): the diff is computed once.
std::string RenderJsonWithMovers(const Report& report, const std::optional<diff::Diff>& movers);

// The total as a paragraph, then the cautions, the per-token figures and what was not
// compared as a list (perfgate diff and a report's movers).
void AddDiffSummary(const diff::Diff& d, document::Document& out);

// Per level, a heading and a table of its top `n` changes: name, status, calls and µs
// per token before → after, Δ, share, Δ per call, p.
void AddMoversTables(const diff::Diff& d, size_t n, document::Document& out);

}  // namespace perfgate::report

#endif  // PERFGATE_SRC_REPORT_DIFF_TABLES_H_
